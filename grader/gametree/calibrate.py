"""Calibration: what the scoring formulas give, on the trees a generator's parameters produce, to
the key, to plain minimax and each misconception variant, and to a single slip. The goal the
formulas are held to: every misconception at most 0.5 on average, a slip at least 0.8, the key 1.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
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
    if params.kind in KINDS and not KINDS[params.kind].calibrates:
        raise GenerationError(f"{params.kind} has no misconception variants to calibrate against")
    # Each tree scored as soon as it is generated: the searches the generator's checks made of
    # it are still kept (solver.search), and the scoring reads them instead of searching again.
    trees = (generate(params, seed) for seed in range(seeds))
    return calibrate_trees(params.kind, trees, params.conventions, f"calibrate:{params.to_dict()}")


def calibrate_trees(
    kind_name: str, trees: Iterable[Tree], conventions: Conventions, seed: str = "calibrate"
) -> list[Row]:
    """The table over given trees (a fixed exercise's one tree, a preview's samples)."""
    kind = counted(KINDS[kind_name])
    scores: dict[str, list[float]] = {"key": [], "slip": []}
    rng = random.Random(seed)
    for tree in trees:
        tree = tree.cut(conventions.depth)
        _, key = kind.analysis(tree, conventions)
        scores["key"].append(kind.score(tree, key, key)[0])
        for slip in kind.slips(tree, key, rng):
            if slip != key:
                scores["slip"].append(kind.score(tree, key, slip)[0])
        for variant in variants_for(kind_name, tree, conventions):
            answer = kind.project(variant.run(tree, conventions), variant)
            scores.setdefault(variant.code, [])
            if answer != key:
                scores[variant.code].append(kind.score(tree, key, answer)[0])
    return [
        Row(name, round(sum(s) / len(s), 3), round(min(s), 3), len(s))
        for name, s in scores.items()
        if s
    ]


__all__ = ["MISCONCEPTION_CEILING", "SLIP_FLOOR", "Row", "calibrate", "calibrate_trees"]
