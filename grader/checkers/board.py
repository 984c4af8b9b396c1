"""Bitboards, moves, move generation, push/pop and FEN for English draughts.

The rules are written once, in exercises/checkers/RULES.md; this module implements them.

Squares are numbered 1-32 as in PDN, Black (the dark pieces) on 1-12 at the top of the
diagram moving towards 32. Bit ``i`` of a bitboard is square ``i + 1``. Row ``r`` (0 at the
top) holds squares ``4r+1 .. 4r+4``; on even rows the dark squares are in columns 1, 3, 5, 7,
on odd rows in columns 0, 2, 4, 6, so square 4 is on the right edge and square 5 on the left.
"""

# Whole: the rules on bitboards share the square tables built once here.

from __future__ import annotations

import enum
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TypeAlias

Square: TypeAlias = int  # 1..32, as written in PDN
Bitboard: TypeAlias = int  # 32-bit set of squares, bit i = square i + 1
Color: TypeAlias = bool

BLACK: Color = True
WHITE: Color = False
COLOR_NAMES = {BLACK: "Black", WHITE: "White"}

FULL: Bitboard = 0xFFFFFFFF
SQUARES: tuple[Square, ...] = tuple(range(1, 33))
STARTING_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
BLACK_KING_ROW: Bitboard = 0xF0000000  # squares 29-32, where black men are crowned
WHITE_KING_ROW: Bitboard = 0x0000000F  # squares 1-4, where white men are crowned
DRAW_PLIES = 80  # 40 moves each side without a capture or a man's move
REPETITIONS = 3


class InvalidFenError(ValueError):
    """A FEN string that does not describe a position."""


class InvalidMoveError(ValueError):
    """Move text that is not a move of English draughts at all (bad syntax or geometry)."""


class IllegalMoveError(ValueError):
    """A well-formed move that is not legal in the position."""


def bit(square: Square) -> Bitboard:
    return 1 << (square - 1)


def squares_of(bb: Bitboard) -> list[Square]:
    """The squares of a bitboard in increasing order."""
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length())
        bb ^= low
    return out


def _build_tables() -> tuple[dict, dict]:
    """Neighbour and jump tables per index and direction, from the board's geometry."""

    def coords(i: int) -> tuple[int, int]:
        row = i // 4
        return row, 2 * (i % 4) + (1 if row % 2 == 0 else 0)

    index = {coords(i): i for i in range(32)}
    steps: dict[str, list[int]] = {}
    jumps: dict[str, list[tuple[int, int] | None]] = {}
    for name, (dr, dc) in {"DL": (1, -1), "DR": (1, 1), "UL": (-1, -1), "UR": (-1, 1)}.items():
        steps[name], jumps[name] = [], []
        for i in range(32):
            r, c = coords(i)
            steps[name].append(index.get((r + dr, c + dc), -1))
            mid, land = index.get((r + dr, c + dc)), index.get((r + 2 * dr, c + 2 * dc))
            jumps[name].append(None if mid is None or land is None else (mid, land))
    return steps, jumps


_STEPS, _JUMPS = _build_tables()


def _shift_masks(direction: str) -> list[tuple[Bitboard, int]]:
    """(mask of sources, index delta) pairs: a one-square step in `direction` is a shift."""
    groups: dict[int, Bitboard] = {}
    for i, j in enumerate(_STEPS[direction]):
        if j >= 0:
            groups[j - i] = groups.get(j - i, 0) | (1 << i)
    return [(mask, delta) for delta, mask in sorted(groups.items())]


# Each direction is two shifts, one per row parity; the constants below feed the fast paths.
(_DL_A, _DL_AS), (_DL_B, _DL_BS) = _shift_masks("DL")  # down-left: +3 (odd rows), +4 (even)
(_DR_A, _DR_AS), (_DR_B, _DR_BS) = _shift_masks("DR")  # down-right: +4 (odd), +5 (even)
(_UL_A, _UL_AS), (_UL_B, _UL_BS) = _shift_masks("UL")  # up-left: -5 (odd), -4 (even)
(_UR_A, _UR_AS), (_UR_B, _UR_BS) = _shift_masks("UR")  # up-right: -4 (odd), -3 (even)
assert (_DL_AS, _DL_BS, _DR_AS, _DR_BS) == (3, 4, 4, 5)
assert (_UL_AS, _UL_BS, _UR_AS, _UR_BS) == (-5, -4, -4, -3)


JumpTable: TypeAlias = tuple[tuple[tuple[Bitboard, int, Bitboard], ...], ...]


def _jump_table(directions: tuple[str, ...]) -> JumpTable:
    """Per index: (captured bit, landing index, landing bit) for each possible jump."""
    table = []
    for i in range(32):
        row = []
        for d in directions:
            j = _JUMPS[d][i]
            if j is not None:
                row.append((1 << j[0], j[1], 1 << j[1]))
        table.append(tuple(row))
    return tuple(table)


_JUMPS_DOWN = _jump_table(("DL", "DR"))
_JUMPS_UP = _jump_table(("UL", "UR"))
_JUMPS_KING = _jump_table(("DL", "DR", "UL", "UR"))

# Geometry of legal-looking steps and jumps between squares, for Move.from_pdn.
_ADJACENT = {(i + 1, j + 1) for d in _STEPS for i, j in enumerate(_STEPS[d]) if j >= 0}
_JUMP_OVER = {
    (i + 1, j[1] + 1): j[0] + 1 for d in _JUMPS for i, j in enumerate(_JUMPS[d]) if j is not None
}

# A raw move: (from bit, to bit, captured bitboard, path of indices or None for a step).
RawMove: TypeAlias = tuple[int, int, int, "tuple[int, ...] | None"]


def _jumpers(own: Bitboard, opp: Bitboard, kings: Bitboard, black: bool) -> Bitboard:
    """The pieces of the side owning `own` that can capture (a jump is a shift by 7 or 9)."""
    empty = FULL ^ (own | opp)
    if black:
        down, up = own, own & kings
    else:
        down, up = own & kings, own
    jumpers = 0
    if down:
        m = (((down & _DL_A) << 3) | ((down & _DL_B) << 4)) & opp
        jumpers = ((((m & _DL_A) << 3) | ((m & _DL_B) << 4)) & empty) >> 7
        m = (((down & _DR_A) << 4) | ((down & _DR_B) << 5)) & opp
        jumpers |= ((((m & _DR_A) << 4) | ((m & _DR_B) << 5)) & empty) >> 9
    if up:
        m = (((up & _UL_A) >> 5) | ((up & _UL_B) >> 4)) & opp
        jumpers |= ((((m & _UL_A) >> 5) | ((m & _UL_B) >> 4)) & empty) << 9
        m = (((up & _UR_A) >> 4) | ((up & _UR_B) >> 3)) & opp
        jumpers |= ((((m & _UR_A) >> 4) | ((m & _UR_B) >> 3)) & empty) << 7
    return jumpers


def _captures(
    own: Bitboard,
    opp: Bitboard,
    kings: Bitboard,
    black: bool,
    jumpers: Bitboard,
    crowned_continues: bool = False,
) -> list[RawMove]:
    """Every complete capture path of `jumpers` (distinct paths are distinct moves).
    `crowned_continues` is a rule variant (a misconception): a man crowned inside a jump goes
    on jumping as a king."""
    out: list[RawMove] = []
    men_table = _JUMPS_DOWN if black else _JUMPS_UP
    crown = BLACK_KING_ROW if black else WHITE_KING_ROW
    empty = FULL ^ (own | opp)
    while jumpers:
        low = jumpers & -jumpers
        jumpers ^= low
        i = low.bit_length() - 1
        king = bool(low & kings)
        # The mover leaves its square; captured pieces stay on the board until the move ends.
        _jump_from(
            i,
            (i,),
            low,
            empty | low,
            opp,
            0,
            _JUMPS_KING if king else men_table,
            0 if king else crown,
            out,
            crowned_continues,
        )
    return out


def _jump_from(
    i: int,
    path: tuple[int, ...],
    start: Bitboard,
    empty: Bitboard,
    opp: Bitboard,
    captured: Bitboard,
    table: JumpTable,
    crown: Bitboard,
    out: list[RawMove],
    crowned_continues: bool = False,
) -> None:
    for mid, land, land_bit in table[i]:
        if mid & opp and land_bit & empty:
            taken = captured | mid
            new_path = (*path, land)
            if land_bit & crown and not crowned_continues:
                out.append((start, land_bit, taken, new_path))  # a man crowned ends its move
                continue
            before = len(out)
            if land_bit & crown:  # the variant: it jumps on as a king
                _jump_from(land, new_path, start, empty, opp ^ mid, taken, _JUMPS_KING, 0, out)
            else:
                _jump_from(
                    land,
                    new_path,
                    start,
                    empty,
                    opp ^ mid,
                    taken,
                    table,
                    crown,
                    out,
                    crowned_continues,
                )
            if len(out) == before:
                out.append((start, land_bit, taken, new_path))


def _count_jumps(i: int, empty: Bitboard, opp: Bitboard, table: JumpTable, crown: Bitboard) -> int:
    """Complete capture paths continuing from index i; 0 when the piece cannot jump again."""
    n = 0
    for mid, land, land_bit in table[i]:
        if mid & opp and land_bit & empty:
            if land_bit & crown:
                n += 1
            else:
                n += _count_jumps(land, empty, opp ^ mid, table, crown) or 1
    return n


def count_moves(own: Bitboard, opp: Bitboard, kings: Bitboard, black: bool) -> int:
    """The number of legal moves, counted from bitboards without generating them."""
    empty = FULL ^ (own | opp)
    if black:
        down, up = own, own & kings
    else:
        down, up = own & kings, own
    jumpers = n = 0
    if down:
        a = ((down & _DL_A) << 3) | ((down & _DL_B) << 4)
        m = a & opp
        jumpers = ((((m & _DL_A) << 3) | ((m & _DL_B) << 4)) & empty) >> 7
        b = ((down & _DR_A) << 4) | ((down & _DR_B) << 5)
        m = b & opp
        jumpers |= ((((m & _DR_A) << 4) | ((m & _DR_B) << 5)) & empty) >> 9
        n = (a & empty).bit_count() + (b & empty).bit_count()
    if up:
        a = ((up & _UL_A) >> 5) | ((up & _UL_B) >> 4)
        m = a & opp
        jumpers |= ((((m & _UL_A) >> 5) | ((m & _UL_B) >> 4)) & empty) << 9
        b = ((up & _UR_A) >> 4) | ((up & _UR_B) >> 3)
        m = b & opp
        jumpers |= ((((m & _UR_A) >> 4) | ((m & _UR_B) >> 3)) & empty) << 7
        n += (a & empty).bit_count() + (b & empty).bit_count()
    if not jumpers:
        return n
    n = 0
    men_table = _JUMPS_DOWN if black else _JUMPS_UP
    crown = BLACK_KING_ROW if black else WHITE_KING_ROW
    while jumpers:
        low = jumpers & -jumpers
        jumpers ^= low
        if low & kings:
            n += _count_jumps(low.bit_length() - 1, empty | low, opp, _JUMPS_KING, 0)
        else:
            n += _count_jumps(low.bit_length() - 1, empty | low, opp, men_table, crown)
    return n


def _steps_into(out: list[RawMove], dest: Bitboard, shift: int) -> None:
    while dest:
        low = dest & -dest
        dest ^= low
        out.append((low >> shift if shift > 0 else low << -shift, low, 0, None))


def generate_raw(
    own: Bitboard,
    opp: Bitboard,
    kings: Bitboard,
    black: bool,
    *,
    forced_captures: bool = True,
    crowned_continues: bool = False,
) -> list[RawMove]:
    """Legal moves as raw tuples: captures if there are any (capture is compulsory), else steps.
    The keyword flags are rule variants (misconceptions): captures optional (captures and
    steps), a man crowned inside a jump jumping on."""
    jumpers = _jumpers(own, opp, kings, black)
    out: list[RawMove] = []
    if jumpers:
        out = _captures(own, opp, kings, black, jumpers, crowned_continues)
        if forced_captures:
            return out
    empty = FULL ^ (own | opp)
    down = own if black else own & kings
    up = own & kings if black else own
    if down:
        _steps_into(out, ((down & _DL_A) << 3) & empty, 3)
        _steps_into(out, ((down & _DL_B) << 4) & empty, 4)
        _steps_into(out, ((down & _DR_A) << 4) & empty, 4)
        _steps_into(out, ((down & _DR_B) << 5) & empty, 5)
    if up:
        _steps_into(out, ((up & _UL_A) >> 5) & empty, -5)
        _steps_into(out, ((up & _UL_B) >> 4) & empty, -4)
        _steps_into(out, ((up & _UR_A) >> 4) & empty, -4)
        _steps_into(out, ((up & _UR_B) >> 3) & empty, -3)
    return out


def make_raw(
    own: Bitboard,
    opp: Bitboard,
    kings: Bitboard,
    frm: Bitboard,
    to: Bitboard,
    captured: Bitboard,
    crown: Bitboard,
) -> tuple[Bitboard, Bitboard, Bitboard]:
    """The make-move rule, written once: (own, opp, kings) after the mover's piece goes from
    `frm` to `to` taking `captured`. A king stays a king; a man reaching `crown` (its king row)
    is crowned; the captured pieces, kings or men, leave the board."""
    if kings & frm:
        kings ^= frm ^ to
    elif to & crown:
        kings |= to
    return own ^ frm ^ to, opp & ~captured, kings & ~captured


@dataclass(frozen=True, order=True)
class Move:
    """A move: the squares visited (from, ..., to) and the squares captured, in jump order.

    Ordering is canonical: by the path compared as a number sequence.
    """

    path: tuple[Square, ...]
    captured: tuple[Square, ...] = field(default=())

    @property
    def from_square(self) -> Square:
        return self.path[0]

    @property
    def to_square(self) -> Square:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    def pdn(self) -> str:
        """PDN text: `11-15` for a step, the full path `11x18x25` for a capture."""
        return ("x" if self.captured else "-").join(str(s) for s in self.path)

    def __str__(self) -> str:
        return self.pdn()

    @classmethod
    def from_pdn(cls, text: str) -> Move:
        """Parse `11-15` or `11x18x25`; checks syntax and board geometry, not legality."""
        t = text.strip()
        if not re.fullmatch(r"\d{1,2}(-\d{1,2}|(x\d{1,2})+)", t):
            raise InvalidMoveError(f"not a PDN move: {text!r}")
        path = tuple(int(s) for s in re.split(r"[-x]", t))
        if any(not 1 <= s <= 32 for s in path):
            raise InvalidMoveError(f"square out of range 1-32 in move {text!r}")
        if "-" in t:
            if path not in _ADJACENT:
                raise InvalidMoveError(f"squares not diagonally adjacent in move {text!r}")
            return cls(path)
        captured = []
        for a, b in pairwise(path):
            if (a, b) not in _JUMP_OVER:
                raise InvalidMoveError(f"{a}x{b} is not a jump in move {text!r}")
            captured.append(_JUMP_OVER[(a, b)])
        return cls(path, tuple(captured))

    @classmethod
    def _from_raw(cls, raw: RawMove) -> Move:
        frm, to, _, path = raw
        if path is None:
            return cls((frm.bit_length(), to.bit_length()))
        squares = tuple(i + 1 for i in path)
        return cls(squares, tuple(_JUMP_OVER[ab] for ab in pairwise(squares)))


def _canonical(move: Move) -> tuple[tuple[Square, ...], tuple[Square, ...]]:
    """Move's own order (its fields as a tuple), as a sort key: compared in C, not by __lt__."""
    return move.path, move.captured


class Termination(enum.Enum):
    NO_MOVES = "no legal move"
    THREEFOLD_REPETITION = "threefold repetition"
    FORTY_MOVE_RULE = "40-move rule"


@dataclass(frozen=True)
class Outcome:
    termination: Termination
    winner: Color | None  # None for a draw

    def result(self) -> str:
        """PDN result: `1-0` Black (who moves first) wins, `0-1` White wins, `1/2-1/2` draw."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == BLACK else "0-1"


def _zobrist_keys() -> tuple[list[int], list[int], list[int], list[int], int]:
    rng = random.Random(20_240_605)  # fixed: hashes are reproducible across runs and processes

    def keys() -> list[int]:
        return [rng.getrandbits(64) for _ in range(32)]

    return keys(), keys(), keys(), keys(), rng.getrandbits(64)


# Keys per index for black men, white men, black kings, white kings; and for Black to move.
_Z_BM, _Z_WM, _Z_BK, _Z_WK, _Z_BLACK = _zobrist_keys()


def zobrist_hash(black: Bitboard, white: Bitboard, kings: Bitboard, turn: Color) -> int:
    h = _Z_BLACK if turn == BLACK else 0
    for bb, table in (
        (black & ~kings, _Z_BM),
        (white & ~kings, _Z_WM),
        (black & kings, _Z_BK),
        (white & kings, _Z_WK),
    ):
        while bb:
            low = bb & -bb
            bb ^= low
            h ^= table[low.bit_length() - 1]
    return h


class LegalMoveGenerator:
    """The legal moves of a board as a collection (iteration, `in`, `len`, `count()`): each
    builds the whole list when asked, except `count()` on a forced capture, which counts."""

    def __init__(self, board: Board) -> None:
        self.board = board

    def __iter__(self) -> Iterator[Move]:
        return iter(self.board.generate_legal_moves())

    def __len__(self) -> int:
        return self.count()

    def count(self) -> int:
        b = self.board
        if b.forced_captures and not b.crowned_continues:
            return count_moves(*b._own_opp(), b.kings, b.turn)
        return len(b.generate_legal_moves())

    def __bool__(self) -> bool:
        return self.count() > 0

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and move in self.board.generate_legal_moves()

    def __repr__(self) -> str:
        return f"<LegalMoveGenerator ({', '.join(m.pdn() for m in self)})>"


class Board:
    """A position of English draughts plus the moves that led to it (for pop and repetition).

    `black`, `white` and `kings` are bitboards; `turn` is BLACK or WHITE; `halfmove_clock`
    counts plies since the last capture or man's move (the 40-move rule).

    The two class attributes are the rules; a subclass that flips one is a rule variant (as
    python-chess's SuicideBoard), used to name a student's move-generation mistake.
    """

    forced_captures = True  # a side that can capture must capture
    crowned_continues = False  # False: a man crowned inside a jump ends its move there

    def __init__(self, fen: str | None = STARTING_FEN) -> None:
        self.black: Bitboard = 0
        self.white: Bitboard = 0
        self.kings: Bitboard = 0
        self.turn: Color = BLACK
        self.halfmove_clock = 0
        self.move_stack: list[Move] = []
        self._stack: list[tuple[int, int, int, bool, int, int]] = []
        self._seen: dict[tuple[int, int, int, bool], int] = {}
        self._hash = 0
        if fen is not None:
            self.set_fen(fen)

    @classmethod
    def from_fen(cls, fen: str) -> Board:
        return cls(fen)

    @classmethod
    def empty(cls) -> Board:
        board = cls(None)
        board._reset_history()
        return board

    # -- position ---------------------------------------------------------------------------

    def _key(self) -> tuple[int, int, int, bool]:
        return (self.black, self.white, self.kings, self.turn)

    def _reset_history(self) -> None:
        self.move_stack, self._stack, self.halfmove_clock = [], [], 0
        self._seen = {self._key(): 1}
        self._hash = zobrist_hash(self.black, self.white, self.kings, self.turn)

    def _own_opp(self) -> tuple[Bitboard, Bitboard]:
        return (self.black, self.white) if self.turn == BLACK else (self.white, self.black)

    def zobrist_hash(self) -> int:
        """A 64-bit hash of the position (pieces and side to move), kept up to date by push/pop."""
        return self._hash

    def piece_at(self, square: Square) -> str | None:
        """'b', 'w' for men, 'B', 'W' for kings, None for an empty square."""
        b = bit(square)
        if self.black & b:
            return "B" if self.kings & b else "b"
        if self.white & b:
            return "W" if self.kings & b else "w"
        return None

    def copy(self, *, stack: bool = True) -> Board:
        board = type(self)(None)
        board.black, board.white, board.kings, board.turn = (
            self.black,
            self.white,
            self.kings,
            self.turn,
        )
        board.halfmove_clock, board._hash = self.halfmove_clock, self._hash
        if stack:
            board.move_stack, board._stack = list(self.move_stack), list(self._stack)
            board._seen = dict(self._seen)
        else:
            board._reset_history()
            board.halfmove_clock = self.halfmove_clock
        return board

    # -- moves ------------------------------------------------------------------------------

    @property
    def legal_moves(self) -> LegalMoveGenerator:
        return LegalMoveGenerator(self)

    def generate_legal_moves(self) -> list[Move]:
        """The legal moves in canonical order (paths compared as number sequences)."""
        own, opp = self._own_opp()
        if self.forced_captures and not self.crowned_continues:
            raw = generate_raw(own, opp, self.kings, self.turn)
        else:
            raw = generate_raw(
                own,
                opp,
                self.kings,
                self.turn,
                forced_captures=self.forced_captures,
                crowned_continues=self.crowned_continues,
            )
        return sorted((Move._from_raw(r) for r in raw), key=_canonical)

    def has_captures(self) -> bool:
        return bool(_jumpers(*self._own_opp(), self.kings, self.turn))

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves

    def parse_pdn(self, text: str) -> Move:
        """The legal move written as `text`: a full path, or `from x to` if only one capture
        fits; a capture written with `-` (`13-22`, as older texts do) is read as `13x22`."""
        legal = self.generate_legal_moves()
        short = re.fullmatch(r"\s*(\d{1,2})[-x](\d{1,2})\s*", text)
        if short and legal and legal[0].is_capture:
            ends = (int(short[1]), int(short[2]))
            fits = [m for m in legal if (m.path[0], m.path[-1]) == ends]
            if len(fits) == 1:
                return fits[0]
            if len(fits) > 1:
                raise IllegalMoveError(
                    f"ambiguous move {text!r}: " + ", ".join(m.pdn() for m in fits)
                )
        move = Move.from_pdn(text)
        if move in legal:
            return move
        raise IllegalMoveError(f"illegal move {text!r} in {self.fen()}")

    def push_pdn(self, text: str) -> Move:
        move = self.parse_pdn(text)
        self.push(move)
        return move

    def push(self, move: Move) -> None:
        """Make a move; it must be legal (use parse_pdn or is_legal to check untrusted input)."""
        frm, to = bit(move.path[0]), bit(move.path[-1])
        captured = 0
        for s in move.captured:
            captured |= bit(s)
        black, white, kings, turn = self.black, self.white, self.kings, self.turn
        self._stack.append((black, white, kings, turn, self.halfmove_clock, self._hash))
        self.move_stack.append(move)
        fi, ti = frm.bit_length() - 1, to.bit_length() - 1
        h = self._hash ^ _Z_BLACK
        if turn == BLACK:
            own_men, own_kings, opp_men, opp_kings, crown = (
                _Z_BM,
                _Z_BK,
                _Z_WM,
                _Z_WK,
                BLACK_KING_ROW,
            )
            self.black, self.white, self.kings = make_raw(
                black, white, kings, frm, to, captured, crown
            )
        else:
            own_men, own_kings, opp_men, opp_kings, crown = (
                _Z_WM,
                _Z_WK,
                _Z_BM,
                _Z_BK,
                WHITE_KING_ROW,
            )
            self.white, self.black, self.kings = make_raw(
                white, black, kings, frm, to, captured, crown
            )
        # The hash follows the rule's outcome: what left `frm`, what stands on `to`.
        h ^= own_kings[fi] if kings & frm else own_men[fi]
        h ^= own_kings[ti] if self.kings & to else own_men[ti]
        # Only a king's quiet move counts towards the draw; a man's move or a capture resets.
        self.halfmove_clock = self.halfmove_clock + 1 if kings & frm and not captured else 0
        while captured:
            low = captured & -captured
            captured ^= low
            ci = low.bit_length() - 1
            h ^= opp_kings[ci] if kings & low else opp_men[ci]
        self.turn = not turn
        self._hash = h
        key = (self.black, self.white, self.kings, self.turn)
        self._seen[key] = self._seen.get(key, 0) + 1

    def pop(self) -> Move:
        """Unmake the last move and return it."""
        key = (self.black, self.white, self.kings, self.turn)
        n = self._seen[key] - 1
        if n:
            self._seen[key] = n
        else:
            del self._seen[key]
        self.black, self.white, self.kings, self.turn, self.halfmove_clock, self._hash = (
            self._stack.pop()
        )
        return self.move_stack.pop()

    def peek(self) -> Move:
        return self.move_stack[-1]

    # -- game end (the one place the end-of-game rules live) -------------------------------

    def repetitions(self) -> int:
        """How many times the current position (with the same side to move) has occurred."""
        return self._seen.get(self._key(), 0)

    def outcome(self) -> Outcome | None:
        """The end of the game, if it has ended: no legal move (a loss), threefold repetition,
        or the 40-move rule (draws); None while the game goes on."""
        if not self.legal_moves:
            return Outcome(Termination.NO_MOVES, not self.turn)
        if self.repetitions() >= REPETITIONS:
            return Outcome(Termination.THREEFOLD_REPETITION, None)
        if self.halfmove_clock >= DRAW_PLIES:
            return Outcome(Termination.FORTY_MOVE_RULE, None)
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # -- FEN ---------------------------------------------------------------------------------

    def fen(self) -> str:
        """FEN such as `B:W21,22,K5:B1,2`: side to move, then White's and Black's pieces."""

        def field_of(letter: str, bb: Bitboard) -> str:
            return letter + ",".join(
                ("K" if self.kings & bit(s) else "") + str(s) for s in squares_of(bb)
            )

        turn = "B" if self.turn == BLACK else "W"
        return f"{turn}:{field_of('W', self.white)}:{field_of('B', self.black)}"

    def set_fen(self, fen: str) -> None:
        text = fen.strip().strip('"').rstrip(".").strip()
        parts = [p.strip() for p in text.split(":")]
        if len(parts) == 4 and not parts[3]:  # a trailing colon, as some tools print
            parts.pop()
        if len(parts) != 3 or parts[0].upper() not in ("B", "W"):
            raise InvalidFenError(f"expected 'B|W:W...:B...', got {fen!r}")
        boards = {"W": 0, "B": 0}
        kings = 0
        seen_colors = set()
        for part in parts[1:]:
            color = part[:1].upper()
            if color not in boards or color in seen_colors:
                raise InvalidFenError(f"bad colour field {part!r} in FEN {fen!r}")
            seen_colors.add(color)
            body = part[1:].strip()
            for item in filter(None, (x.strip() for x in body.split(","))) if body else ():
                king = item[:1].upper() == "K"
                spec = item[1:] if king else item
                m = re.fullmatch(r"(\d{1,2})(?:-(\d{1,2}))?", spec)
                if not m:
                    raise InvalidFenError(f"bad square {item!r} in FEN {fen!r}")
                lo, hi = int(m[1]), int(m[2] or m[1])
                if not (1 <= lo <= hi <= 32):
                    raise InvalidFenError(f"square out of range 1-32: {item!r} in FEN {fen!r}")
                for s in range(lo, hi + 1):
                    b = bit(s)
                    if (boards["W"] | boards["B"]) & b:
                        raise InvalidFenError(f"square {s} given twice in FEN {fen!r}")
                    boards[color] |= b
                    if king:
                        kings |= b
        men = ~kings & FULL
        if boards["B"] & men & BLACK_KING_ROW or boards["W"] & men & WHITE_KING_ROW:
            raise InvalidFenError(
                "a man on the row where it would be crowned (1-4 for White, 29-32 "
                f"for Black) must be a king in FEN {fen!r}"
            )
        self.black, self.white, self.kings = boards["B"], boards["W"], kings
        self.turn = BLACK if parts[0].upper() == "B" else WHITE
        self._reset_history()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self._key() == other._key()

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"

    def __str__(self) -> str:
        """An 8x8 text diagram, Black at the top: b/w men, B/W kings, '.' empty dark squares."""
        rows = []
        for r in range(8):
            cells = []
            for c in range(8):
                dark = (c % 2 == 1) if r % 2 == 0 else (c % 2 == 0)
                cells.append((self.piece_at(4 * r + c // 2 + 1) or ".") if dark else " ")
            rows.append(" ".join(cells))
        return "\n".join(rows)
