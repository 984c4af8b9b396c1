"""A test-only exercise kind, registered as a plugin's kind is: importing this module is the whole
registration, and its page module and styles sit beside it (`leaves-evaluated.js`,
`leaves-evaluated.css`, served by the web's `kind_pages`). `make test-kind-plugin` names it in
`GRADER_KIND_MODULES`, and the tests that read the registry (the core's, the pages', the
browser's) take it as they take a built-in kind; its own tests (`test_leaves_evaluated.py`)
register it when the run did not.

The kind asks how many leaves alpha-beta evaluates: the answer is one whole number."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from grader.gametree import Conventions, Tree, solve
from grader.gametree.drawing import PaperBoxes
from grader.gametree.kinds import (
    AnswerPart,
    Example,
    ExerciseKind,
    Grade,
    Paper,
    UngradableAnswer,
    register,
)
from grader.gametree.kinds.base import part
from grader.gametree.kinds.registry import KINDS

NAME = "leaves-evaluated"
AIMA = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]  # 7 leaves evaluated: C's last two are cut


@register
class LeavesEvaluatedKind(ExerciseKind):
    name = NAME
    title = "Leaves evaluated"
    prompt = "How many leaves does alpha-beta evaluate?"
    parts = ("leaf_count",)
    answer_shape: ClassVar[dict[str, AnswerPart]] = {
        "leaf_count": AnswerPart("count", "the number of leaves alpha-beta evaluates")
    }
    answer_doc = "how many leaves alpha-beta evaluates."
    in_game_practice = False
    holds_values = False

    def normalize(self, tree: Tree, answer: object) -> int:
        count = part(self, answer, "leaf_count")
        if type(count) is not int or count < 0:
            raise UngradableAnswer("'leaf_count' is a whole number of leaves")
        return count

    def key(self, tree: Tree, conventions: Conventions) -> dict[str, Any]:
        return {"leaf_count": len(self.search(tree, conventions).leaf_order)}

    def grade(self, tree: Tree, conventions: Conventions, answer: object) -> Grade:
        got = self.normalize(tree, answer)
        key = self.key(tree, conventions)
        right = got == key["leaf_count"]
        return Grade(
            float(right),
            {"leaf_count": float(right)},
            ["Correct." if right else f"Alpha-beta evaluates {key['leaf_count']} leaves."],
            key=key,
            search=solve(tree.cut(conventions.depth), conventions),
            scoring={"right": right},
        )

    def scoring_words(self, scoring: Mapping[str, Any], labels: Mapping[str, str] | None) -> str:
        return "Score 1 for the right count, else 0."

    def words(self, answer: dict[str, Any], label: Callable[[str], str]) -> str:
        return f"{answer.get('leaf_count')} leaves"

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        written = str(answer.get("leaf_count", "")) if answer else ""
        return Paper(self.prompt, PaperBoxes(()), {}, (("Leaves evaluated", written),))

    def examples(self) -> tuple[Example, ...]:
        tree = Tree.from_nested(AIMA)
        # The count of every leaf: no node is drawn as differing (the answer is one number).
        return (
            Example("wrong", tree, {"leaf_count": 9}, score=0.0),
            Example("right", tree, {"leaf_count": 7}, score=1.0),
        )


KIND = KINDS[NAME]
