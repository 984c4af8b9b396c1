"""The misconception library for the checkers assignment: classic mistakes of a student's engine,
each the reference search (or move generator) under different rules, never a copy of it.

A search variant is `engine.search` under other `Rules`; a move-generation variant is the same
search on a `Board` subclass whose rule flags are flipped (captures optional, a crowned man jumping
on). When a student's answer matches a variant's and not the contract's, the variant's sentence
tells them what they did, as grader/gametree/variants.py does for the tree exercises.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.checkers.board import Board
from grader.checkers.engine import CONTRACT, INFINITY, Rules, SearchOutcome, search

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
    rules: Rules = CONTRACT
    board: type[Board] = Board
    kinds: frozenset[str] = field(default_factory=lambda: frozenset({"search"}))

    def run(
        self, fen: str, depth: int, alpha: int = -INFINITY, beta: int = INFINITY
    ) -> SearchOutcome:
        return search(self.board(fen), depth, self.rules, alpha, beta)

    def moves(self, fen: str) -> list[str]:
        return [m.pdn() for m in self.board(fen).generate_legal_moves()]


_MOVES = frozenset({"search", "movegen"})

# When two variants give the same answer, the first (the simpler explanation) is named.
VARIANTS: dict[str, Variant] = {
    v.code: v
    for v in [
        Variant(
            "no-pruning",
            "Your leaf count is plain minimax's: you never cut. Alpha-beta stops searching a "
            "position's moves as soon as a value reaches beta (value >= beta).",
            Rules(pruning=False),
        ),
        Variant(
            "tie-strict",
            "Your leaf count is what alpha-beta visits when it does not cut on equality: the "
            "contract cuts when value >= beta, ties included (you cut only when value > beta).",
            Rules(ties="explore"),
        ),
        Variant(
            "fail-hard",
            "Your value is clamped to the window (fail-hard): the contract is fail-soft, a "
            "search returns its best value even when it lies outside (alpha, beta).",
            Rules(values="hard"),
        ),
        Variant(
            "reversed-order",
            "Your leaf count is what alpha-beta visits with the moves in reverse canonical order: "
            "search them first to last, sorted by their path compared as numbers.",
            Rules(order="reversed"),
        ),
        Variant(
            "text-order",
            "Your leaf count is what alpha-beta visits with the moves sorted as text "
            "('10-14' before '9-13'): canonical order compares the paths as numbers.",
            Rules(order="text"),
        ),
        Variant(
            "shallow-cutoffs",
            "Your leaf count is what alpha-beta visits when a child gets only its parent's own "
            "best value: pass the whole window down, search(child, depth - 1, -beta, -alpha), "
            "so a bound set two or more plies above can cut (a deep cutoff).",
            Rules(shallow=True),
        ),
        Variant(
            "wrong-side",
            "Your values are from the wrong side: at depth 0 a negamax search scores the "
            "position for the side to move there; you scored it for the side that just moved.",
            Rules(wrong_side=True),
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
) -> Variant | None:
    """The first variant whose value and leaf count are the student's and differ from the
    contract's here; None when none does (or the position is too big to try them)."""
    if minimax_leaves > DIAGNOSIS_LEAVES:
        return None
    contract = search(Board(fen), depth, CONTRACT, alpha, beta)
    if (value, leaves) == (contract.value, contract.leaves):
        return None
    for variant in VARIANTS.values():
        result = variant.run(fen, depth, alpha, beta)
        if (result.value, result.leaves) == (value, leaves):
            return variant
    return None


def diagnose_moves(fen: str, moves: list[str]) -> Variant | None:
    """The move-generation variant whose legal moves are exactly `moves`, if one is."""
    given = sorted(m.strip() for m in moves)
    if given == sorted(m.pdn() for m in Board(fen).generate_legal_moves()):
        return None
    for variant in VARIANTS.values():
        if "movegen" in variant.kinds and given == sorted(variant.moves(fen)):
            return variant
    return None
