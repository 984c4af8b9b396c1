"""Game trees and alpha-beta: the pure core (standard library only).

`solve` is the reference solver, `KINDS` the exercise kinds that grade answers against it,
`VARIANTS` the misconception library, `generate` the seeded generator, `best_order` the
move-ordering optimum.
"""

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
    Rules,
    SearchResult,
    Step,
    minimax,
    search,
    solve,
)
from grader.gametree.tree import Node, Tree, TreeFormatError, label_for, parse_leaves
from grader.gametree.variants import VARIANTS, Variant, variants_for

__all__ = [
    "GENERATOR_VERSION",
    "KINDS",
    "VARIANTS",
    "Conventions",
    "Cutoff",
    "ExerciseKind",
    "GenerationError",
    "GeneratorParams",
    "Grade",
    "Node",
    "NodeResult",
    "Ordering",
    "Rules",
    "SearchResult",
    "Step",
    "Tree",
    "TreeFormatError",
    "UngradableAnswer",
    "Variant",
    "best_order",
    "generate",
    "grade",
    "is_discriminating",
    "knuth_moore",
    "label_for",
    "minimax",
    "parse_leaves",
    "parse_range",
    "search",
    "solve",
    "variants_for",
]
