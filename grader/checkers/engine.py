"""Reference search: the exact fixed-depth alpha-beta students are graded against, plain
minimax for counting, and an enhanced iterative-deepening engine for play.

The fixed-depth contract is written for students in exercises/checkers/ASSIGNMENT.md:

- negamax alpha-beta, fail-soft, cut-off when a value reaches beta (`value >= beta`, ties prune,
  as in AIMA's pseudo-code); the root is searched with the window it is given, by default
  (-INFINITY, +INFINITY); a fail-soft value may lie outside the window;
- values are from the point of view of the side to move (`evaluate` at depth 0);
- a position whose side to move has no legal move scores `-(WIN - ply)` (ply = distance from
  the root) at any depth, so faster wins score better;
- `leaves` counts the positions evaluated at depth 0 plus the positions with no legal move;
- children are visited in canonical order; the best move is the first one reaching the best value;
- the search sees positions only: it does not score repetitions or the 40-move rule.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from grader.checkers.board import Board, Move
from grader.checkers.evaluation import evaluate

WIN = 1_000_000  # the score of a won position, less the plies it takes
INFINITY = 10**9
MAX_PLY = 128

Evaluation = Callable[[Board], int]
Clock = Callable[[], float]


@dataclass(frozen=True)
class SearchOutcome:
    """What a search found: value (side to move's view), best move, and what it visited."""

    value: int
    best_move: Move | None
    leaves: int
    depth: int
    nodes: int = 0
    elapsed: float = 0.0
    pv: tuple[Move, ...] = field(default=())


@dataclass(frozen=True)
class CheckersSearchRules:
    """How the fixed-depth search behaves: the contract by default; each switch flipped is a
    classic mistake (grader/checkers/variants.py names them for students)."""

    ties: str = "prune"  # "prune": cut when value >= beta; "explore": only when value > beta
    values: str = "soft"  # "soft": a node returns its best value; "hard": clamped to its window
    pruning: bool = True  # False: plain minimax
    shallow: bool = False  # True: a child gets only its parent's own best (no deep cutoffs)
    order: str = "canonical"  # "reversed": the reverse of canonical order; "text": as PDN text
    wrong_side: bool = False  # True: depth-0 positions scored for the side that just moved


CONTRACT = CheckersSearchRules()
MINIMAX = CheckersSearchRules(pruning=False)


def _negamax(
    board: Board,
    depth: int,
    ply: int,
    alpha: int,
    beta: int,
    rules: CheckersSearchRules,
    evaluate: Evaluation,
    counts: list[int],
) -> tuple[int, Move | None]:
    """Value and best move; counts = [leaves, nodes]. One function for the contract's
    alpha-beta, minimax and every misconception variant (`rules`)."""
    counts[1] += 1
    if depth == 0:
        counts[0] += 1
        if not board.legal_moves:
            return -(WIN - ply), None
        return (-evaluate(board) if rules.wrong_side else evaluate(board)), None
    moves = board.generate_legal_moves()
    if not moves:
        counts[0] += 1
        return -(WIN - ply), None
    if rules.order != "canonical":
        if rules.order == "reversed":
            moves.reverse()
        else:  # "text": sorted as PDN text, not as numbers
            moves.sort(key=Move.pdn)
    strict = rules.ties == "explore"
    alpha0 = alpha
    best, best_move = -INFINITY, None
    for move in moves:
        if rules.shallow:
            child_alpha, child_beta = -INFINITY, -best if best > -INFINITY else INFINITY
        else:
            child_alpha, child_beta = -beta, -alpha
        board.push(move)
        try:
            value = -_negamax(
                board, depth - 1, ply + 1, child_alpha, child_beta, rules, evaluate, counts
            )[0]
        finally:
            board.pop()
        if value > best:
            best, best_move = value, move
            alpha = max(alpha, value)
            if rules.pruning and (best > beta if strict else best >= beta):
                break
    if rules.values == "hard":
        best = min(max(best, alpha0), beta)
    return best, best_move


def search(
    board: Board,
    depth: int,
    rules: CheckersSearchRules = CONTRACT,
    alpha: int = -INFINITY,
    beta: int = INFINITY,
    evaluate: Evaluation = evaluate,
    ply: int = 0,
) -> SearchOutcome:
    """The fixed-depth search under `rules` with the root window (alpha, beta)."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    if alpha >= beta:
        raise ValueError(f"the window needs alpha < beta, got ({alpha}, {beta})")
    start = time.perf_counter()
    counts = [0, 0]
    value, move = _negamax(board, depth, ply, alpha, beta, rules, evaluate, counts)
    return SearchOutcome(value, move, counts[0], depth, counts[1], time.perf_counter() - start)


def alphabeta(
    board: Board,
    depth: int,
    evaluate: Evaluation = evaluate,
    alpha: int = -INFINITY,
    beta: int = INFINITY,
) -> SearchOutcome:
    """The exact fixed-depth reference (see the module docstring): value, best move, leaves."""
    return search(board, depth, CONTRACT, alpha, beta, evaluate)


def minimax(board: Board, depth: int, evaluate: Evaluation = evaluate) -> SearchOutcome:
    """Plain minimax to the same depth: the same value, and the leaf count with no pruning."""
    return search(board, depth, MINIMAX, evaluate=evaluate)


class SearchTimeout(Exception):
    """Raised inside the enhanced search when its time is up."""


# Transposition-table bound kinds.
EXACT, LOWER, UPPER = 0, 1, 2


class ReferenceEngine:
    """Negamax alpha-beta with iterative deepening, a Zobrist transposition table, killer and
    history move ordering and a time limit. Deterministic for a given depth (no time limit).

    Time is read from `clock` (seconds; `time.perf_counter` unless a test gives its own): an
    iteration past the first is dropped when a check, every 1024 nodes, finds the deadline passed,
    and no iteration starts once half the limit has gone.

    Captures are compulsory in checkers, so "captures first" holds by construction: a position
    has either only captures or none; among them, order is TT move, killers, history.
    """

    def __init__(
        self,
        evaluate: Evaluation = evaluate,
        tt_size: int = 1 << 20,
        clock: Clock = time.perf_counter,
    ) -> None:
        self.evaluate = evaluate
        self.clock = clock
        self.tt_size = tt_size
        self.tt: dict[int, tuple[int, int, int, Move | None]] = {}
        self.killers: list[list[Move | None]] = []
        self.history: dict[tuple[int, int], int] = {}
        self.nodes = 0
        self.leaves = 0
        self._deadline = INFINITY * 1.0

    def search(
        self, board: Board, depth: int = 64, time_limit: float | None = None
    ) -> SearchOutcome:
        """Deepen from 1 to `depth`, stopping when `time_limit` seconds are up; the result of
        the last completed depth (depth 1 always completes)."""
        start = self.clock()
        self.tt.clear()
        self.history.clear()
        self.killers = [[None, None] for _ in range(MAX_PLY + 1)]
        self.nodes = self.leaves = 0
        moves = board.generate_legal_moves()
        if not moves:
            return SearchOutcome(-WIN, None, 1, 0, 1, 0.0)
        result = SearchOutcome(self.evaluate(board), moves[0], 0, 0)
        for d in range(1, depth + 1):
            self._deadline = INFINITY * 1.0 if time_limit is None or d == 1 else start + time_limit
            try:
                value = self._search(board, d, 0, -INFINITY, INFINITY)
            except SearchTimeout:
                break
            pv = self._pv(board, d)
            result = SearchOutcome(
                value,
                pv[0] if pv else moves[0],
                self.leaves,
                d,
                self.nodes,
                self.clock() - start,
                pv,
            )
            if abs(value) > WIN - MAX_PLY:  # a forced result: deeper search cannot change it
                break
            if time_limit is not None and self.clock() - start > time_limit / 2:
                break  # the next iteration would not finish in time
        return SearchOutcome(
            result.value,
            result.best_move,
            self.leaves,
            result.depth,
            self.nodes,
            self.clock() - start,
            result.pv,
        )

    def _pv(self, board: Board, depth: int) -> tuple[Move, ...]:
        pv: list[Move] = []
        for _ in range(depth):
            entry = self.tt.get(board.zobrist_hash())
            if entry is None or entry[3] is None or entry[3] not in board.legal_moves:
                break
            pv.append(entry[3])
            board.push(entry[3])
        for _ in pv:
            board.pop()
        return tuple(pv)

    def _order(self, moves: list[Move], ply: int, tt_move: Move | None) -> list[Move]:
        killers = self.killers[ply]
        history = self.history

        # the table's move first, then the killers, each compared only where there is one
        firsts = [
            (first, bonus)
            for first, bonus in ((tt_move, 1 << 40), (killers[0], 1 << 39), (killers[1], 1 << 38))
            if first is not None
        ]

        def score(m: Move) -> int:
            for first, bonus in firsts:
                if m == first:
                    return bonus
            return history.get((m.path[0], m.path[-1]), 0)

        return sorted(moves, key=score, reverse=True)  # stable: ties stay canonical

    def _search(self, board: Board, depth: int, ply: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if not self.nodes & 1023 and self.clock() > self._deadline:
            raise SearchTimeout
        if depth == 0 or ply >= MAX_PLY:  # a leaf: whether a move exists, not the moves
            self.leaves += 1
            return self.evaluate(board) if board.legal_moves else -(WIN - ply)
        moves = board.generate_legal_moves()
        if not moves:
            self.leaves += 1
            return -(WIN - ply)
        key = board.zobrist_hash()
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_value, e_flag, tt_move = entry
            if e_depth >= depth and ply > 0:
                value = _from_tt(e_value, ply)
                if (
                    e_flag == EXACT
                    or (e_flag == LOWER and value >= beta)
                    or (e_flag == UPPER and value <= alpha)
                ):
                    return value
        alpha0 = alpha
        best, best_move = -INFINITY, None
        for move in self._order(moves, ply, tt_move):
            board.push(move)
            try:
                value = -self._search(board, depth - 1, ply + 1, -beta, -alpha)
            finally:
                board.pop()
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                if alpha >= beta:
                    if not move.is_capture:
                        k = self.killers[ply]
                        if k[0] != move:
                            k[1], k[0] = k[0], move
                        hkey = (move.path[0], move.path[-1])
                        self.history[hkey] = self.history.get(hkey, 0) + depth * depth
                    break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        if len(self.tt) >= self.tt_size:
            self.tt.clear()
        self.tt[key] = (depth, _to_tt(best, ply), flag, best_move)
        return best


def _to_tt(value: int, ply: int) -> int:
    """Store win/loss scores relative to the node, so they stay right at other plies."""
    if value > WIN - MAX_PLY * 2:
        return value + ply
    if value < -WIN + MAX_PLY * 2:
        return value - ply
    return value


def _from_tt(value: int, ply: int) -> int:
    if value > WIN - MAX_PLY * 2:
        return value - ply
    if value < -WIN + MAX_PLY * 2:
        return value + ply
    return value
