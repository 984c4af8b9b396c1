"""Calibration: what the scoring formulas give, on the trees a generator's parameters produce, to
the key, to plain minimax and each misconception variant, and to a single slip. The goal the
formulas are held to: every misconception at most 0.5 on average, a slip at least 0.8, the key 1.

Beside the means, the spread across the trees (what one student's tree asks against a
classmate's): each answer's standard deviation and worst tree, the share of trees on which a
misconception gives the key, and the spread of what a student must do on each tree (``MEASURES``:
the answers to give, the cutoffs, the nodes to mark pruned, the leaves evaluated).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from grader.gametree.generator import GenerationError, GeneratorParams, generate
from grader.gametree.kinds import KINDS
from grader.gametree.kinds.base import CountedKind, counted
from grader.gametree.solver import Conventions, SearchResult, solve
from grader.gametree.tree import Tree
from grader.gametree.variants import variants_for

MISCONCEPTION_CEILING = 0.5
SLIP_FLOOR = 0.8


@dataclass(frozen=True)
class Row:
    """One line of the table: ``answer`` is ``key``, ``slip`` or a variant's code; ``trees`` the
    number of trees on which that answer differs from the key (a variant that gives the key on a
    tree cannot be told from understanding there, and is not scored on it).

    The spread over those trees: ``sd`` the (population) standard deviation of the score,
    ``high`` the highest score, ``worst_seed`` the tree farthest from the goal (the key's and a
    slip's lowest score, a misconception's highest; None for trees given without seeds),
    ``key_share`` the share of all trees on which the answer equals the key (a misconception's
    full marks by luck; 0 for the key itself)."""

    answer: str
    mean: float
    worst: float
    trees: int
    sd: float = field(default=0.0, compare=False)
    high: float = field(default=0.0, compare=False)
    worst_seed: int | str | None = field(default=None, compare=False)
    key_share: float = field(default=0.0, compare=False)

    def to_dict(self) -> dict:
        return {
            "answer": self.answer,
            "mean": self.mean,
            "worst": self.worst,
            "trees": self.trees,
            "sd": self.sd,
            "high": self.high,
            "worst_seed": self.worst_seed,
            "key_share": self.key_share,
            "passes": self.passes(),
        }

    def passes(self) -> bool:
        if self.answer == "key":
            return self.mean == 1.0
        if self.answer == "slip":
            return self.worst >= SLIP_FLOOR
        return self.mean <= MISCONCEPTION_CEILING


#: What a student must do on a tree: the size of the slot's key (``CountedKind.answer_count``:
#: nodes to mark and the root's value, values or bounds to give, leaves to list) and, of the
#: alpha-beta search under the slot's conventions, its cutoffs, the nodes to mark pruned (the
#: topmost of each pruned subtree) and the leaves it evaluates: what the generator's bands
#: (``generator.band_rejection``) bound.
MEASURES = ("answers", "cutoffs", "pruned", "leaves")
MEASURE_WORDS = {
    "answers": "answers to give",
    "cutoffs": "cutoffs",
    "pruned": "nodes to mark pruned (topmost)",
    "leaves": "leaves the search evaluates",
}


@dataclass(frozen=True)
class Spread:
    """A measure (``MEASURES``) over the trees: mean, population standard deviation, the least
    and the most, and the seeds of the trees that have them (None without seeds)."""

    measure: str
    mean: float
    sd: float
    low: int
    high: int
    low_seed: int | str | None
    high_seed: int | str | None
    trees: int

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "words": MEASURE_WORDS[self.measure],
            "mean": self.mean,
            "sd": self.sd,
            "low": self.low,
            "high": self.high,
            "low_seed": self.low_seed,
            "high_seed": self.high_seed,
            "trees": self.trees,
        }


def measure(kind: CountedKind, result: SearchResult, key: object) -> dict[str, int]:
    """``MEASURES`` of one tree: ``result`` its alpha-beta search under the conventions
    (``solve``), ``key`` the kind's canonical key."""
    return _measures(kind.answer_count(key), result)


def _measures(answers: int, result: SearchResult) -> dict[str, int]:
    """``MEASURES`` of one tree: the ``answers`` to give, then of ``result``, its alpha-beta
    search under the conventions (a best-order tree's as given: where its student starts)."""
    return {
        "answers": answers,
        "cutoffs": len(result.cutoffs),
        "pruned": len(result.pruned),
        "leaves": len(result.leaf_order),
    }


def tree_measures(kind_name: str, tree: Tree, conventions: Conventions) -> dict[str, int]:
    """``MEASURES`` of ``tree`` for a slot of ``kind_name`` (a kind calibration measures)."""
    kind = KINDS[kind_name]
    cut = tree.cut(conventions.depth)
    if not kind.counts_errors:
        return _measures(kind.blind_facts(cut, conventions).answers, solve(tree, conventions))
    key = counted(kind).analysis(cut, conventions)[1]
    return measure(counted(kind), solve(tree, conventions), key)


def spread(name: str, seeded: Sequence[tuple[int | str | None, int]]) -> Spread:
    """The ``Spread`` of measure ``name`` over ``(seed, value)`` pairs (at least one)."""
    values = [v for _, v in seeded]
    low = min(seeded, key=lambda pair: pair[1])
    high = max(seeded, key=lambda pair: pair[1])
    return Spread(
        name,
        round(statistics.fmean(values), 3),
        round(statistics.pstdev(values), 3),
        low[1],
        high[1],
        low[0],
        high[0],
        len(values),
    )


def calibrate(params: GeneratorParams, seeds: int = 100) -> list[Row]:
    """The table for one slot: the generator's ``params`` (its ``kind`` and ``conventions``) over
    the trees of seeds 0..``seeds``-1. GenerationError when the parameters cannot produce trees."""
    return calibrate_slots([params], seeds)[0]


def calibrate_slots(
    slots: Sequence[GeneratorParams], seeds: int = 100, into: list[Calibration] | None = None
) -> list[list[Row]]:
    """``calibrate``'s table for each of ``slots``, the same as each alone. The trees are made
    seed by seed, each slot's tree scored as soon as it is generated: the searches the
    generator's checks made of it are still kept (solver.search) and read instead of searched
    again, and slots that differ in their kind alone draw the same candidates, which the next
    slot finds searched. GenerationError of the first slot, in order, that cannot produce trees
    (``SlotError``: its index in ``slots``). ``into``: a list the tables are put in, rows and
    spreads (``calibrate_tables``)."""
    for index, params in enumerate(slots):
        if params.kind in KINDS and not KINDS[params.kind].measured:
            error = f"{params.kind} has no misconception variants to calibrate against"
            raise SlotError(index, error)
    tables = [Calibration(p.kind, p.conventions, f"calibrate:{p.to_dict()}") for p in slots]
    if into is not None:
        into.extend(tables)
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
            table.add(tree, seed)
    if failed is not None:
        first, cause = failed
        raise SlotError(first, str(cause)) from cause
    return [table.rows() for table in tables]


def calibrate_tables(slots: Sequence[GeneratorParams], seeds: int = 100) -> list[Calibration]:
    """``calibrate_slots`` with each slot's whole ``Calibration``: its rows and, beside them, the
    spread of what a student must do (``Calibration.spreads``)."""
    tables: list[Calibration] = []
    calibrate_slots(slots, seeds, tables)
    return tables


class SlotError(GenerationError):
    """A slot of ``calibrate_slots`` that cannot produce trees: ``slot`` its index."""

    def __init__(self, slot: int, message: str) -> None:
        super().__init__(message)
        self.slot = slot


class Calibration:
    """The table of one kind under ``conventions``, a tree at a time (``add``), in order: the
    slips are drawn from one ``random.Random(seed)`` across the trees. Each answer's score is
    kept per tree with the tree's seed, and so are the tree's ``MEASURES``."""

    def __init__(self, kind_name: str, conventions: Conventions, seed: str = "calibrate") -> None:
        self.kind_name = kind_name
        self.exercise = KINDS[kind_name]
        # A kind whose score counts no errors is scored by its blind answers (``blind_facts``).
        self.kind = counted(self.exercise) if self.exercise.counts_errors else None
        self.conventions = conventions
        # answer -> (seed, score) on each tree where it differs from the key
        self.scores: dict[str, list[tuple[int | str | None, float]]] = {"key": [], "slip": []}
        self.gave_key: dict[str, int] = {}  # misconception -> trees on which it gave the key
        self.measures: dict[str, list[tuple[int | str | None, int]]] = {m: [] for m in MEASURES}
        self.trees = 0
        self.rng = random.Random(seed)

    def add(
        self, tree: Tree, seed: int | str | None = None, conventions: Conventions | None = None
    ) -> None:
        """Score ``tree`` (named by ``seed``) under the table's conventions, or its own."""
        kind, scores = self.kind, self.scores
        conventions = conventions or self.conventions
        searched = solve(tree, conventions)
        tree = tree.cut(conventions.depth)
        self.trees += 1
        if kind is None:
            self._add_blind(tree, seed, conventions, searched)
            return
        _, key = kind.analysis(tree, conventions)
        for name, value in measure(kind, searched, key).items():
            self.measures[name].append((seed, value))
        scores["key"].append((seed, kind.score(tree, key, key)[0]))
        for slip in kind.slips(tree, key, self.rng):
            if slip != key:
                scores["slip"].append((seed, kind.score(tree, key, slip)[0]))
        for variant in variants_for(self.kind_name, tree, conventions):
            answer = kind.project(variant.run(tree, conventions), variant)
            scores.setdefault(variant.code, [])
            self.gave_key.setdefault(variant.code, 0)
            if answer != key:
                scores[variant.code].append((seed, kind.score(tree, key, answer)[0]))
            else:
                self.gave_key[variant.code] += 1

    def _add_blind(
        self, tree: Tree, seed: int | str | None, conventions: Conventions, searched: SearchResult
    ) -> None:
        """Score a tree of a kind without misconception variants: the key graded as a student's
        answer, a slip, and each blind answer (the misconceptions' rows)."""
        exercise = self.exercise
        facts = exercise.blind_facts(tree, conventions, self.rng)
        for name, value in _measures(facts.answers, searched).items():
            self.measures[name].append((seed, value))
        key = exercise.key(tree, conventions)
        self.scores["key"].append((seed, exercise.grade(tree, conventions, key).score))
        if facts.slip is not None:
            self.scores["slip"].append((seed, facts.slip))
        for code, score in facts.scores.items():
            self.scores.setdefault(code, [])
            self.gave_key.setdefault(code, 0)
            if score < 1.0:
                self.scores[code].append((seed, score))
            else:
                self.gave_key[code] += 1

    def rows(self) -> list[Row]:
        rows = []
        for name, seeded in self.scores.items():
            if not seeded:
                continue
            s = [score for _, score in seeded]
            misconception = name not in ("key", "slip")
            # The tree farthest from the goal: a misconception's highest score, else the lowest.
            worst_seed = (max if misconception else min)(seeded, key=lambda pair: pair[1])[0]
            rows.append(
                Row(
                    name,
                    round(statistics.fmean(s), 3),
                    round(min(s), 3),
                    len(s),
                    sd=round(statistics.pstdev(s), 3),
                    high=round(max(s), 3),
                    worst_seed=worst_seed,
                    key_share=round(self.gave_key.get(name, 0) / self.trees, 3),
                )
            )
        return rows

    def spreads(self) -> list[Spread]:
        """The spread of each of ``MEASURES`` over the trees added (none before the first)."""
        return [spread(name, seeded) for name, seeded in self.measures.items() if seeded]


def calibrate_trees(
    kind_name: str, trees: Iterable[Tree], conventions: Conventions, seed: str = "calibrate"
) -> list[Row]:
    """The table over given trees (a fixed exercise's one tree, a preview's samples)."""
    table = Calibration(kind_name, conventions, seed)
    for tree in trees:
        table.add(tree)
    return table.rows()


__all__ = [
    "MEASURES",
    "MEASURE_WORDS",
    "MISCONCEPTION_CEILING",
    "SLIP_FLOOR",
    "Calibration",
    "Row",
    "SlotError",
    "Spread",
    "calibrate",
    "calibrate_slots",
    "calibrate_tables",
    "calibrate_trees",
    "measure",
    "spread",
    "tree_measures",
]
