"""Calibration: what the scoring formulas give, on the trees a generator's parameters produce, to
the key, to plain minimax and each misconception variant, and to a single slip. The goal the
formulas are held to: every misconception at most 0.5 on average, a slip at least 0.8, the key 1.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from grader.gametree.generator import GenerationError, GeneratorParams, generate
from grader.gametree.kinds import KINDS, normalize_pruned
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


def _slips(kind: str, tree: Tree, key: Any, rng: random.Random) -> list[Any]:
    """Single slips of the key, in the canonical form of ``kind``."""
    if kind == "prune":
        pruned, value = key
        answers = [(pruned, value + 1)]
        roots = [p for p in pruned if p.rpartition(".")[0] not in pruned]
        if roots:
            missing = rng.choice(sorted(roots))
            answers.append((frozenset(p for p in pruned if not _under(p, missing)), value))
        visited_leaves = [p for p in tree.leaves() if p not in pruned]
        extra = rng.choice(visited_leaves)
        answers.append((normalize_pruned(tree, set(pruned) | {extra}), value))
        return answers
    if kind in ("values", "minimax"):
        path = rng.choice(sorted(key))
        return [{**key, path: key[path] + 1}]
    if kind == "bounds":
        path = rng.choice(sorted(key))
        alpha, beta = key[path]
        finite = alpha if alpha not in (float("inf"), float("-inf")) else 0
        return [{**key, path: (finite + 1, beta)}]
    if kind == "leaf-order":
        order = list(key)
        answers = [tuple(order[1:])]
        if len(order) > 1:
            i = rng.choice(range(len(order) - 1))
            swapped = order[:]
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            answers.append(tuple(swapped))
        return answers
    return []


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + ".")


def calibrate(params: GeneratorParams, seeds: int = 100) -> list[Row]:
    """The table for one slot: the generator's ``params`` (its ``kind`` and ``conventions``) over
    the trees of seeds 0..``seeds``-1. GenerationError when the parameters cannot produce trees."""
    if params.kind == "best-order":
        raise GenerationError("best-order has no misconception variants to calibrate against")
    trees = [generate(params, seed) for seed in range(seeds)]
    return calibrate_trees(params.kind, trees, params.conventions, f"calibrate:{params.to_dict()}")


def calibrate_trees(
    kind_name: str, trees: list[Tree], conventions: Conventions, seed: str = "calibrate"
) -> list[Row]:
    """The table over given trees (a fixed exercise's one tree, a preview's samples)."""
    kind = KINDS[kind_name]
    scores: dict[str, list[float]] = {"key": [], "slip": []}
    rng = random.Random(seed)
    for tree in trees:
        tree = tree.cut(conventions.depth)
        _, key = kind.analysis(tree, conventions)
        scores["key"].append(kind.score(tree, key, key)[0])
        for slip in _slips(kind_name, tree, key, rng):
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
