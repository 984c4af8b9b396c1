"""The minimax kind: the minimax value of every internal node, nothing pruned.

Its errors: internal nodes whose value is wrong or missing. Its answer has the values kind's
shape, and is read and scored as one."""

from __future__ import annotations

from grader.gametree.kinds.registry import register
from grader.gametree.kinds.values import ValuesKind
from grader.gametree.solver import Conventions, SearchResult, minimax
from grader.gametree.tree import Tree
from grader.gametree.variants import CHANCE_VARIANTS_ANY


@register
class MinimaxKind(ValuesKind):
    name = "minimax"
    title = "Minimax values"
    prompt = "Give the minimax value of every internal node (no pruning)."
    paper_instruction = "Write in its box the minimax value of every internal node (no pruning)."
    variants = ("players-swapped", *CHANCE_VARIANTS_ANY)
    reveals = ()
    prunes = False
    example_tree = "textbook"

    def reference(self, tree: Tree, conventions: Conventions) -> SearchResult:
        return minimax(tree, conventions)
