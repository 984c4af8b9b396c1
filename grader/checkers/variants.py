"""The misconception library for the checkers assignment: classic mistakes of a student's engine,
each the reference search (or move generator) under different rules, never a copy of it.

A search variant is `engine.search` under other `CheckersSearchRules`; a move-generation variant is the same
search on a `Board` subclass whose rule flags are flipped (captures optional, a crowned man jumping
on). When a student's answer matches a variant's and not the contract's, the variant's sentence
tells them what they did, as grader/gametree/variants.py does for the tree exercises.

Several variants can give the same answer on one position (at the start position every
evaluation is equal, so every cutoff is a tie, and at depths 2 and 3 tie-strict visits exactly
minimax's leaves): the diagnosis of one answer is every variant that gives it, in the library's
order, and what explains a whole submission is the fewest variants that cover all its diagnosed
tests (`fewest_explaining`), never each candidate.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from grader.checkers.board import Board
from grader.checkers.engine import CONTRACT, INFINITY, CheckersSearchRules, SearchOutcome, search

# Above this many minimax leaves the variants are not run (each costs at most about that).
DIAGNOSIS_LEAVES = 400_000


class CapturesOptionalBoard(Board):
    """A misconception: captures are not compulsory (every capture and every step is listed)."""

    forced_captures = False


class CrownedContinuesBoard(Board):
    """A misconception: a man crowned inside a jump goes on jumping, as a king."""

    crowned_continues = True


@dataclass(frozen=True)
class Variant:
    code: str
    sentence: str
    rules: CheckersSearchRules = CONTRACT
    board: type[Board] = Board
    kinds: frozenset[str] = field(default_factory=lambda: frozenset({"search"}))

    def run(
        self, fen: str, depth: int, alpha: int = -INFINITY, beta: int = INFINITY
    ) -> SearchOutcome:
        return search(self.board(fen), depth, self.rules, alpha, beta)

    def moves(self, fen: str) -> list[str]:
        return [m.pdn() for m in self.board(fen).generate_legal_moves()]


_MOVES = frozenset({"search", "movegen"})

# The library's order: the simpler explanation first. Where several sets of variants explain a
# submission equally, the one first in this order is named (`fewest_explaining`).
VARIANTS: dict[str, Variant] = {
    v.code: v
    for v in [
        Variant(
            "no-pruning",
            "Your leaf count is plain minimax's: every leaf evaluated, none cut off. Alpha-beta "
            "stops searching a position's moves as soon as a value reaches beta (value >= beta).",
            CheckersSearchRules(pruning=False),
        ),
        Variant(
            "tie-strict",
            "Your leaf count is what alpha-beta visits when it does not cut on equality: the "
            "contract cuts when value >= beta, ties included (you cut only when value > beta).",
            CheckersSearchRules(ties="explore"),
        ),
        Variant(
            "fail-hard",
            "Your value is clamped to the window (fail-hard): the contract is fail-soft, a "
            "search returns its best value even when it lies outside (alpha, beta).",
            CheckersSearchRules(values="hard"),
        ),
        Variant(
            "reversed-order",
            "Your leaf count is what alpha-beta visits with the moves in reverse canonical order: "
            "search them first to last, sorted by their path compared as numbers.",
            CheckersSearchRules(order="reversed"),
        ),
        Variant(
            "text-order",
            "Your leaf count is what alpha-beta visits with the moves sorted as text "
            "('10-14' before '9-13'): canonical order compares the paths as numbers.",
            CheckersSearchRules(order="text"),
        ),
        Variant(
            "shallow-cutoffs",
            "Your leaf count is what alpha-beta visits when a child gets only its parent's own "
            "best value: pass the whole window down, search(child, depth - 1, -beta, -alpha), "
            "so a bound set two or more plies above can cut (a deep cutoff).",
            CheckersSearchRules(shallow=True),
        ),
        Variant(
            "wrong-side",
            "Your values are from the wrong side: at depth 0 a negamax search scores the "
            "position for the side to move there; you scored it for the side that just moved.",
            CheckersSearchRules(wrong_side=True),
        ),
        Variant(
            "captures-optional",
            "Your moves leave captures optional: when a side can capture it must, so only the "
            "captures are legal then (RULES.md, 'Captures').",
            board=CapturesOptionalBoard,
            kinds=_MOVES,
        ),
        Variant(
            "crowned-continues",
            "Your moves let a man crowned during a jump go on jumping: a man that reaches the "
            "row where it is crowned ends its move there, even in the middle of a jump.",
            board=CrownedContinuesBoard,
            kinds=_MOVES,
        ),
    ]
}


def diagnose_search(
    fen: str,
    depth: int,
    value: int,
    leaves: int,
    alpha: int = -INFINITY,
    beta: int = INFINITY,
    minimax_leaves: int = 0,
) -> tuple[Variant, ...]:
    """Every variant whose value and leaf count are the student's and differ from the
    contract's here, in the library's order; () when none does (or the position is too big to
    try them)."""
    if minimax_leaves > DIAGNOSIS_LEAVES:
        return ()
    contract = search(Board(fen), depth, CONTRACT, alpha, beta)
    if (value, leaves) == (contract.value, contract.leaves):
        return ()
    found = []
    for variant in VARIANTS.values():
        result = variant.run(fen, depth, alpha, beta)
        if (result.value, result.leaves) == (value, leaves):
            found.append(variant)
    return tuple(found)


def diagnose_moves(fen: str, moves: list[str]) -> tuple[Variant, ...]:
    """Every move-generation variant whose legal moves are exactly `moves`, in the library's
    order; () when none is (or `moves` are the contract's)."""
    given = sorted(m.strip() for m in moves)
    if given == sorted(m.pdn() for m in Board(fen).generate_legal_moves()):
        return ()
    return tuple(
        variant
        for variant in VARIANTS.values()
        if "movegen" in variant.kinds and given == sorted(variant.moves(fen))
    )


def search_differs(variant: Variant, fen: str, depth: int, alpha: int, beta: int) -> bool:
    """Whether the variant's value or leaf count differs from the contract's here: an engine
    that gave the contract's answer does not make this mistake (the test contradicts it)."""
    mine = variant.run(fen, depth, alpha, beta)
    contract = search(Board(fen), depth, CONTRACT, alpha, beta)
    return (mine.value, mine.leaves) != (contract.value, contract.leaves)


def moves_differ(variant: Variant, fen: str) -> bool:
    """Whether the move-generation variant's legal moves differ from the contract's here."""
    return sorted(variant.moves(fen)) != sorted(m.pdn() for m in Board(fen).generate_legal_moves())


def fewest_explaining(
    candidates: Sequence[Collection[str]], order: Sequence[str] = tuple(VARIANTS)
) -> list[tuple[str, ...]]:
    """Every smallest set of codes that holds one candidate of each diagnosed test (a minimum set
    cover, found exactly: a suite's tests name a handful of the library's codes), each set and the
    list in `order`, so the first is the one to name. Tests with no candidate are left out; []
    when none has one."""
    sets = [frozenset(c) for c in candidates if c]
    if not sets:
        return []
    rank = {code: i for i, code in enumerate(order)}
    codes = sorted(frozenset().union(*sets), key=lambda c: (rank.get(c, len(rank)), c))
    for size in range(1, len(codes) + 1):
        found = [
            chosen
            for chosen in combinations(codes, size)
            if all(s.intersection(chosen) for s in sets)
        ]
        if found:
            return found
    raise AssertionError("the union of the candidates covers every test")  # pragma: no cover


def either(codes: Sequence[str]) -> str:
    """Codes as a reader takes them: "a", "a or b", "a, b or c"."""
    return codes[0] if len(codes) == 1 else f"{', '.join(codes[:-1])} or {codes[-1]}"
