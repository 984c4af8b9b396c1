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

# Whole: the reference searches students are measured against, side by side.

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from grader.checkers.board import (
    BLACK,
    BLACK_KING_ROW,
    WHITE,
    WHITE_KING_ROW,
    Board,
    Move,
    RawMove,
    count_moves,
    generate_raw,
    make_raw,
    zobrist_hash,
)
from grader.checkers.evaluation import evaluate, material

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

# The enhanced engine searches on bitboards, not on a Board: a position is (own, opp, kings,
# black to move), from the side to move's view, with its Zobrist hash. Each position's moves,
# with the position and hash each leads to, are worked out once and kept in the engine's own
# table (Position). The fixed-depth search above keeps Board: its timings are the yardstick of
# the students' timing tests, and stay what they were.
PositionKey = tuple[int, int, int, bool]
# A position's legal moves in canonical order, and for each the position it leads to (the
# child's own, opp and kings, from the child's side to move) and that position's hash.
Position = tuple[tuple[Move, ...], tuple[tuple[int, int, int, int], ...]]
_MOVES: dict[RawMove, Move] = {}  # one Move for each raw move met: finitely many on 32 squares
MOVES_SIZE = POSITIONS_SIZE = 1 << 14  # each table is emptied when it reaches its bound
_TURN = zobrist_hash(0, 0, 0, BLACK)  # the hash's term for Black to move


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
        self._positions: dict[PositionKey, Position] = {}  # kept across searches: see Position
        self._rules: type[Board] = Board  # the board class searched (its rules): the table's

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

    def _ranked(
        self, moves: tuple[Move, ...] | list[Move], ply: int, tt_move: Move | None
    ) -> list[int]:
        """The indices of `moves` in search order: the table's move, the killers, then by
        history; ties stay canonical."""
        if len(moves) < 2:
            return [0] if moves else []
        killers = self.killers[ply]
        history = self.history
        # A legal move is its path (its captures follow from it), so the bonuses are found by
        # path; the lesser are written first, so that a move that is both keeps the greater.
        firsts = {
            first.path: bonus
            for first, bonus in ((killers[1], 1 << 38), (killers[0], 1 << 39), (tt_move, 1 << 40))
            if first is not None
        }
        keys = [firsts.get(m.path) or history.get((m.path[0], m.path[-1]), 0) for m in moves]
        return sorted(range(len(moves)), key=keys.__getitem__, reverse=True)  # stable

    def _order(self, moves: list[Move], ply: int, tt_move: Move | None) -> list[Move]:
        """`moves` in search order (see _ranked)."""
        return [moves[i] for i in self._ranked(moves, ply, tt_move)]

    def _position(self, own: int, opp: int, kings: int, black: bool, hashed: int) -> Position:
        """The position's moves and where each leads (see Position), from the engine's table;
        `hashed` is the position's Zobrist hash."""
        key = (own, opp, kings, black)
        found = self._positions.get(key)
        if found is not None:
            return found
        raws = self._raw_moves(own, opp, kings, black)
        if len(_MOVES) >= MOVES_SIZE:
            _MOVES.clear()
        crown = BLACK_KING_ROW if black else WHITE_KING_ROW
        made = []
        for raw in raws:
            move = _MOVES.get(raw)
            if move is None:
                move = _MOVES[raw] = Move._from_raw(raw)
            frm, to, captured, _ = raw
            mine, theirs, crowned = make_raw(own, opp, kings, frm, to, captured, crown)
            # The hash is a sum (xor) over the pieces: the child's is the parent's with the
            # squares that changed, each of which is empty on one side of the move and holds one
            # piece on the other, so the changes of the four kinds of piece never share a square.
            men = ((own & ~kings) ^ (mine & ~crowned), (opp & ~kings) ^ (theirs & ~crowned))
            kinged = ((own & kings) ^ (mine & crowned), (opp & kings) ^ (theirs & crowned))
            movers, others = men[0] | kinged[0], men[1] | kinged[1]
            black_bb, white_bb = (movers, others) if black else (others, movers)
            change = zobrist_hash(black_bb, white_bb, kinged[0] | kinged[1], WHITE)  # no turn
            made.append((move, (theirs, mine, crowned, hashed ^ change ^ _TURN)))
        made.sort(key=lambda pair: (pair[0].path, pair[0].captured))  # canonical order
        position = (tuple(m for m, _ in made), tuple(c for _, c in made))
        if len(self._positions) >= POSITIONS_SIZE:
            self._positions.clear()
        self._positions[key] = position
        return position

    def _raw_moves(self, own: int, opp: int, kings: int, black: bool) -> list[RawMove]:
        """The position's legal moves, raw, by the rules of the board searched."""
        rules = self._rules
        if rules.forced_captures and not rules.crowned_continues:
            return generate_raw(own, opp, kings, black)
        return generate_raw(
            own,
            opp,
            kings,
            black,
            forced_captures=rules.forced_captures,
            crowned_continues=rules.crowned_continues,
        )

    def _has_moves(self, own: int, opp: int, kings: int, black: bool) -> bool:
        rules = self._rules
        if rules.forced_captures and not rules.crowned_continues:  # counted, not listed
            return count_moves(own, opp, kings, black) > 0
        return bool(self._raw_moves(own, opp, kings, black))

    def _evaluate(self, own: int, opp: int, kings: int, black: bool) -> int:
        if self.evaluate is evaluate:  # the prescribed evaluation: material, side to move's view
            return material(own, opp, kings)
        board = self._rules(None)
        board.black, board.white = (own, opp) if black else (opp, own)
        board.kings, board.turn = kings, black
        return self.evaluate(board)

    def _search(self, board: Board, depth: int, ply: int, alpha: int, beta: int) -> int:
        """The node search of `board`'s position (its moves are not played on it)."""
        if type(board) is not self._rules:  # other rules: other moves
            self._positions.clear()
            self._rules = type(board)
        own, opp = (board.black, board.white) if board.turn == BLACK else (board.white, board.black)
        return self._node(
            own, opp, board.kings, board.turn, board.zobrist_hash(), depth, ply, alpha, beta
        )

    def _node(
        self,
        own: int,
        opp: int,
        kings: int,
        black: bool,
        key: int,
        depth: int,
        ply: int,
        alpha: int,
        beta: int,
    ) -> int:
        """Negamax alpha-beta of the position (own, opp, kings, black to move; `key` its hash)."""
        self.nodes += 1
        if not self.nodes & 1023 and self.clock() > self._deadline:
            raise SearchTimeout
        if depth == 0 or ply >= MAX_PLY:  # a leaf: whether a move exists, not the moves
            self.leaves += 1
            if self._has_moves(own, opp, kings, black):
                return self._evaluate(own, opp, kings, black)
            return -(WIN - ply)
        moves, children = self._position(own, opp, kings, black, key)
        if not moves:
            self.leaves += 1
            return -(WIN - ply)
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
        for i in self._ranked(moves, ply, tt_move):
            move = moves[i]
            c_own, c_opp, c_kings, c_key = children[i]
            value = -self._node(
                c_own, c_opp, c_kings, not black, c_key, depth - 1, ply + 1, -beta, -alpha
            )
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
