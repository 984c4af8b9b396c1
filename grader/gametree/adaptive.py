"""Adaptive practice: from a student's attempt history to the next tree to practise on.

A pure function of the history. Each misconception (a code of ``VARIANTS``) is *mastered* after
``MASTERY`` right answers in a row on trees that expose it (trees on which that misconception's
answer differs from the key), *practising* when the student's wrong answers have matched it and
it is not mastered since, and *not seen* otherwise. The next tree targets the practising
misconception shown most, with the kind that reveals it best; a student with none practising is
tested on the misconceptions not yet mastered, on harder trees.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from grader.gametree.generator import GeneratorParams
from grader.gametree.kinds import KINDS
from grader.gametree.solver import Conventions
from grader.gametree.variants import VARIANTS

MASTERY = 3  # right answers in a row on exposing trees
MASTERED, PRACTISING, NOT_SEEN = "mastered", "practising", "not seen"
STATUSES = (MASTERED, PRACTISING, NOT_SEEN)


class _BestKinds(Mapping[str, str]):
    """The kind whose answer shows each misconception most plainly: the first registered kind
    that names it among those it ``reveals`` (each is among the variant's kinds)."""

    def __getitem__(self, code: str) -> str:
        for name, kind in KINDS.items():
            if code in kind.reveals:
                return name
        raise KeyError(code)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(code for kind in KINDS.values() for code in kind.reveals))

    def __len__(self) -> int:
        return sum(1 for _ in self)


BEST_KIND: Mapping[str, str] = _BestKinds()


def revealing_kinds() -> list[str]:
    """The kinds that show some misconception most plainly, in registration order: a student who
    has mastered every misconception is tested on one of them."""
    return [name for name, kind in KINDS.items() if kind.reveals]


@dataclass(frozen=True)
class Practised:
    """One answered tree as the policy sees it: its kind, whether the answer was right, the
    misconception the wrong answer matched (if any), and the misconceptions the tree exposes."""

    kind: str
    correct: bool
    diagnosis: str | None = None
    exposed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Standing:
    """Where one student stands on one misconception."""

    code: str
    status: str
    shown: int  # wrong answers that matched it
    exposing: int  # trees answered that expose it
    streak: int  # right answers in a row on such trees, up to now
    kinds: dict[str, int] = field(default_factory=dict)  # shown, per exercise kind

    def words(self) -> str:
        if self.status == MASTERED:
            return f"Mastered: your last {self.streak} answers on trees that expose it were right."
        if self.status == PRACTISING:
            times = "once" if self.shown == 1 else f"{self.shown} times"
            return (
                f"Practising: your answers matched it {times}; {self.streak} of {MASTERY} "
                "right in a row since."
            )
        if self.exposing:
            return (
                f"Not seen in your answers; {self.streak} of {MASTERY} right in a row on "
                "trees that expose it."
            )
        return "Not seen: no tree you answered could show it yet."


@dataclass(frozen=True)
class Plan:
    """The next practice tree: its kind, the generator's parameters, the misconception it is
    meant to expose (None: none left to target) and why, in a sentence."""

    kind: str
    params: GeneratorParams
    target: str | None
    reason: str
    level: int


def standings(history: Iterable[Practised]) -> dict[str, Standing]:
    """Every misconception's standing after ``history`` (oldest first)."""
    shown = dict.fromkeys(VARIANTS, 0)
    exposing = dict.fromkeys(VARIANTS, 0)
    streak = dict.fromkeys(VARIANTS, 0)
    kinds: dict[str, dict[str, int]] = {code: {} for code in VARIANTS}
    for item in history:
        if item.diagnosis in shown:
            shown[item.diagnosis] += 1
            kinds[item.diagnosis][item.kind] = kinds[item.diagnosis].get(item.kind, 0) + 1
        for code in VARIANTS:
            if code in item.exposed or code == item.diagnosis:
                exposing[code] += code in item.exposed
                streak[code] = streak[code] + 1 if item.correct else 0
    result = {}
    for code in VARIANTS:
        if streak[code] >= MASTERY:
            status = MASTERED
        elif shown[code]:
            status = PRACTISING
        else:
            status = NOT_SEEN
        result[code] = Standing(
            code, status, shown[code], exposing[code], streak[code], kinds[code]
        )
    return result


def level(history: list[Practised], states: dict[str, Standing]) -> int:
    """Difficulty 0..3: one step per two misconceptions mastered, and one more after a run of
    ``MASTERY`` right answers in a row on the latest trees."""
    mastered = sum(s.status == MASTERED for s in states.values())
    recent = history[-MASTERY:]
    run = len(recent) == MASTERY and all(item.correct for item in recent)
    return min(3, mastered // 2 + run)


def _shape(target: str | None, kind: str, step: int, rng: random.Random) -> dict:
    """Generator parameters for a tree of difficulty ``step`` aimed at ``target``."""
    params: dict = {
        "depth": 4 if step < 2 else 5,
        "branching": (2, 3) if step < 3 else (2, 4),
        "values": (-9, 9),
        "kind": kind,
        "max_tries": 3000,
    }
    conventions: dict = {}
    if target == "shallow-cutoffs" or step >= 1:
        params["min_deep_cutoffs"] = 1
    if target == "ties-flipped":
        params["values"] = (0, 4)  # few values: ties are common
    if step >= 2 and target in (None, "ties-flipped", "no-pruning", "leaves-only"):
        conventions["ties"] = "explore" if rng.random() < 0.5 else "prune"
    if step >= 3 and target in (None, "no-pruning", "cut-node-marked", "values-convention"):
        params["players"] = ["max", "min", "min"]  # one maximizer against two minimizers
    params["depth"] = min(params["depth"], 4) if params["branching"][1] > 3 else params["depth"]
    params["conventions"] = conventions
    if target is not None:
        params["expose"] = target
        params["expose_nodes"] = 2
        params["expose_alone"] = True  # an answer like it names it, not another mistake too
    return params


def next_practice(history: Iterable[Practised], rng: random.Random | None = None) -> Plan:
    """The next practice tree for a student with this ``history`` (oldest first)."""
    rng = rng or random.Random(0)
    history = list(history)
    states = standings(history)
    step = level(history, states)
    practising = [s for s in states.values() if s.status == PRACTISING]
    if practising:
        order = list(VARIANTS)
        weakest = max(practising, key=lambda s: (s.shown, -order.index(s.code)))
        # where it showed most (a practising misconception has shown at least once), the
        # best kind for it among equals
        kind = max(weakest.kinds, key=lambda k: (weakest.kinds[k], k == BEST_KIND[weakest.code]))
        if kind not in VARIANTS[weakest.code].kinds:
            kind = BEST_KIND[weakest.code]
        reason = (
            f"Your answers matched {weakest.code} {weakest.shown} time"
            f"{'s' if weakest.shown != 1 else ''}: this tree is made so that it gives a "
            "different answer from the key."
        )
        target: str | None = weakest.code
        step = min(step, 1)  # practise the idea on trees of modest size first
    else:
        untested = [s for s in states.values() if s.status != MASTERED]
        if untested:
            weakest = min(
                untested, key=lambda s: (s.streak, s.exposing, list(VARIANTS).index(s.code))
            )
            target, kind = weakest.code, BEST_KIND[weakest.code]
            reason = (
                f"No misconception shows in your answers now: this harder tree checks "
                f"{weakest.code}, which you have not yet mastered."
            )
        else:
            target = None
            kind = rng.choice(revealing_kinds())
            reason = "You have mastered every misconception: a harder tree, for the exam."
            step = 3
    params = _shape(target, kind, step, rng)
    params["conventions"] = Conventions.from_dict(params["conventions"])
    return Plan(kind, GeneratorParams(**params), target, reason, step)


# What each misconception does, in a phrase (the progress page and the aim of a tree).
DESCRIPTIONS = {
    "no-pruning": "plain minimax with nothing pruned",
    "players-swapped": "treating the root as the other player",
    "wrong-order": "searching the children in the other order",
    "ties-flipped": "the other rule for alpha = beta",
    "cut-node-marked": "marking the node where a cutoff happened as pruned",
    "leaves-only": "pruning only leaves",
    "shallow-cutoffs": "passing down only the parent's bound (missing deep cutoffs)",
    "bounds-swapped": "updating beta at MAX nodes and alpha at MIN nodes",
    "values-convention": "the other convention for the value a cut node reports",
}


def aim(target: str | None) -> str:
    """What a practice tree was meant to expose, said to the student after they answer."""
    if target is None or target not in VARIANTS:
        return "This tree was a harder one, with no single misconception in view."
    return (
        f"This tree was made to expose {target}: {DESCRIPTIONS[target]} gives a different "
        "answer from the key here."
    )
