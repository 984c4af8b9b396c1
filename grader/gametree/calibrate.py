"""Calibration: what the scoring formulas give, on the trees a generator's parameters produce, to
the key, to plain minimax and each misconception variant, and to a single slip. The goal the
formulas are held to: every misconception at most 0.5 on average, a slip at least 0.8, the key 1.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from grader.gametree.generator import GenerationError, GeneratorParams, generate
from grader.gametree.kinds import KINDS
from grader.gametree.kinds.base import counted
from grader.gametree.solver import Conventions
from grader.gametree.tree import Tree
from grader.gametree.variants import variants_for

MISCONCEPTION_CEILING = 0.5
SLIP_FLOOR = 0.8


@dataclass(frozen=True)
class Row:
    """One line of the table: ``answer`` is ``key``, ``slip`` or a variant's code; ``trees`` the
    number of trees on which that answer differs from the key (a variant that gives the key on a
    tree cannot be told from understanding there, and is not scored on it)."""

    answer: str
    mean: float
    worst: float
    trees: int

    def to_dict(self) -> dict:
        return {
            "answer": self.answer,
            "mean": self.mean,
            "worst": self.worst,
            "trees": self.trees,
            "passes": self.passes(),
        }

    def passes(self) -> bool:
        if self.answer == "key":
            return self.mean == 1.0
        if self.answer == "slip":
            return self.worst >= SLIP_FLOOR
        return self.mean <= MISCONCEPTION_CEILING


def calibrate(params: GeneratorParams, seeds: int = 100) -> list[Row]:
    """The table for one slot: the generator's ``params`` (its ``kind`` and ``conventions``) over
    the trees of seeds 0..``seeds``-1. GenerationError when the parameters cannot produce trees."""
    return calibrate_slots([params], seeds)[0]


def calibrate_slots(slots: Sequence[GeneratorParams], seeds: int = 100) -> list[list[Row]]:
    """``calibrate``'s table for each of ``slots``, the same as each alone. The trees are made
    seed by seed, each slot's tree scored as soon as it is generated: the searches the
    generator's checks made of it are still kept (solver.search) and read instead of searched
    again, and slots that differ in their kind alone draw the same candidates, which the next
    slot finds searched. GenerationError of the first slot, in order, that cannot produce trees
    (``SlotError``: its index in ``slots``)."""
    for index, params in enumerate(slots):
        if params.kind in KINDS and not KINDS[params.kind].calibrates:
            error = f"{params.kind} has no misconception variants to calibrate against"
            raise SlotError(index, error)
    tables = [Calibration(p.kind, p.conventions, f"calibrate:{p.to_dict()}") for p in slots]
    # Once a slot has failed, only the slots before it are calibrated on: one of them failing at
    # a later seed is the first failure, and the slots after it can change nothing.
    failed: tuple[int, GenerationError] | None = None
    for seed in range(seeds):
        for index, (params, table) in enumerate(zip(slots, tables, strict=True)):
            if failed is not None and index >= failed[0]:
                break
            try:
                tree = generate(params, seed)
            except GenerationError as error:
                failed = (index, error)
                break
            table.add(tree)
    if failed is not None:
        first, cause = failed
        raise SlotError(first, str(cause)) from cause
    return [table.rows() for table in tables]


class SlotError(GenerationError):
    """A slot of ``calibrate_slots`` that cannot produce trees: ``slot`` its index."""

    def __init__(self, slot: int, message: str) -> None:
        super().__init__(message)
        self.slot = slot


class Calibration:
    """The table of one kind under ``conventions``, a tree at a time (``add``), in order: the
    slips are drawn from one ``random.Random(seed)`` across the trees."""

    def __init__(self, kind_name: str, conventions: Conventions, seed: str = "calibrate") -> None:
        self.kind_name = kind_name
        self.kind = counted(KINDS[kind_name])
        self.conventions = conventions
        self.scores: dict[str, list[float]] = {"key": [], "slip": []}
        self.rng = random.Random(seed)

    def add(self, tree: Tree) -> None:
        kind, conventions, scores = self.kind, self.conventions, self.scores
        tree = tree.cut(conventions.depth)
        _, key = kind.analysis(tree, conventions)
        scores["key"].append(kind.score(tree, key, key)[0])
        for slip in kind.slips(tree, key, self.rng):
            if slip != key:
                scores["slip"].append(kind.score(tree, key, slip)[0])
        for variant in variants_for(self.kind_name, tree, conventions):
            answer = kind.project(variant.run(tree, conventions), variant)
            scores.setdefault(variant.code, [])
            if answer != key:
                scores[variant.code].append(kind.score(tree, key, answer)[0])

    def rows(self) -> list[Row]:
        return [
            Row(name, round(sum(s) / len(s), 3), round(min(s), 3), len(s))
            for name, s in self.scores.items()
            if s
        ]


def calibrate_trees(
    kind_name: str, trees: Iterable[Tree], conventions: Conventions, seed: str = "calibrate"
) -> list[Row]:
    """The table over given trees (a fixed exercise's one tree, a preview's samples)."""
    table = Calibration(kind_name, conventions, seed)
    for tree in trees:
        table.add(tree)
    return table.rows()


__all__ = [
    "MISCONCEPTION_CEILING",
    "SLIP_FLOOR",
    "Calibration",
    "Row",
    "SlotError",
    "calibrate",
    "calibrate_slots",
    "calibrate_trees",
]
