"""Game trees and alpha-beta: the pure core (standard library only).

`solve` is the reference solver, `KINDS` the exercise kinds that grade answers against it,
`VARIANTS` the misconception library, `generate` the seeded generator, `best_order` the
move-ordering optimum, `read_cs188` UC Berkeley CS188's game-tree test files (see `cs188` for their
autograder's answer and `calibrate` for what the scores give each kind of answer).
"""

from grader.gametree import kinds
from grader.gametree.generator import (
    GENERATOR_VERSION,
    GenerationError,
    GeneratorParams,
    generate,
    is_discriminating,
    parse_range,
)
from grader.gametree.kinds import KINDS, ExerciseKind, Grade, UngradableAnswer, grade
from grader.gametree.optimum import Ordering, best_order, knuth_moore
from grader.gametree.solver import (
    Conventions,
    Cutoff,
    NodeResult,
    Order,
    SearchResult,
    Side,
    Step,
    StepKind,
    Ties,
    TreeSearchRules,
    ValuesRule,
    minimax,
    search,
    solve,
)
from grader.gametree.tree import (
    CS188Problem,
    Node,
    Role,
    Tree,
    TreeFormatError,
    label_for,
    parse_leaves,
    parse_nested,
    read_cs188,
)
from grader.gametree.variants import VARIANTS, Variant, variants_for

# Plugins' kinds join the registry last, once the package they import from is whole.
kinds.registry.load_plugins()

__all__ = [
    "GENERATOR_VERSION",
    "KINDS",
    "VARIANTS",
    "CS188Problem",
    "Conventions",
    "Cutoff",
    "ExerciseKind",
    "GenerationError",
    "GeneratorParams",
    "Grade",
    "Node",
    "NodeResult",
    "Order",
    "Ordering",
    "Role",
    "SearchResult",
    "Side",
    "Step",
    "StepKind",
    "Ties",
    "Tree",
    "TreeFormatError",
    "TreeSearchRules",
    "UngradableAnswer",
    "ValuesRule",
    "Variant",
    "best_order",
    "generate",
    "grade",
    "is_discriminating",
    "knuth_moore",
    "label_for",
    "minimax",
    "parse_leaves",
    "parse_nested",
    "parse_range",
    "read_cs188",
    "search",
    "solve",
    "variants_for",
]
