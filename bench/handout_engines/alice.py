"""Checkers (English draughts) engine -- bitboard version.

Squares 1..32 are stored as bits 0..31 (square s is bit s-1) of Python ints.
A position, from the point of view of the side to move, is the tuple

    (my_men, my_kings, their_men, their_kings, black_to_move)

Standard library only.
"""

import time

WIN = 1_000_000
INF = 10**9
MAN_VALUE, KING_VALUE = 100, 150

FULL = (1 << 32) - 1

# ---------------------------------------------------------------------------------------------
# Board geometry
# Row r (0 at the top) holds indices 4r..4r+3. Even rows have their dark squares in columns
# 1,3,5,7, odd rows in columns 0,2,4,6.

EVEN_ROWS = 0
for _i in range(32):
    if (_i // 4) % 2 == 0:
        EVEN_ROWS |= 1 << _i
ODD_ROWS = FULL ^ EVEN_ROWS
RIGHT_EDGE = (1 << 3) | (1 << 11) | (1 << 19) | (1 << 27)   # squares 4, 12, 20, 28
LEFT_EDGE = (1 << 4) | (1 << 12) | (1 << 20) | (1 << 28)    # squares 5, 13, 21, 29

BLACK_CROWN = (1 << 28) | (1 << 29) | (1 << 30) | (1 << 31)  # 29-32
WHITE_CROWN = 0b1111                                          # 1-4

# Directions, numbered so that the target square grows with the number:
UL, UR, DL, DR = 0, 1, 2, 3
M_EVEN_UL = EVEN_ROWS
M_ODD_UL = ODD_ROWS & ~LEFT_EDGE
M_EVEN_UR = EVEN_ROWS & ~RIGHT_EDGE
M_ODD_UR = ODD_ROWS
M_EVEN_DL = EVEN_ROWS
M_ODD_DL = ODD_ROWS & ~LEFT_EDGE
M_EVEN_DR = EVEN_ROWS & ~RIGHT_EDGE
M_ODD_DR = ODD_ROWS


def shift_ul(x):
    return ((x & M_EVEN_UL) >> 4) | ((x & M_ODD_UL) >> 5)


def shift_ur(x):
    return ((x & M_EVEN_UR) >> 3) | ((x & M_ODD_UR) >> 4)


def shift_dl(x):
    return (((x & M_EVEN_DL) << 4) | ((x & M_ODD_DL) << 3)) & FULL


def shift_dr(x):
    return (((x & M_EVEN_DR) << 5) | ((x & M_ODD_DR) << 4)) & FULL


SHIFTS = (shift_ul, shift_ur, shift_dl, shift_dr)

# STEP[i][d]: bit of the neighbour of index i in direction d (0 if off the board)
# OVER[i][d], LAND[i][d]: the jumped square and the landing square of a jump
STEP = [[SHIFTS[d](1 << i) for d in range(4)] for i in range(32)]
OVER = [[STEP[i][d] for d in range(4)] for i in range(32)]
LAND = [[0] * 4 for _ in range(32)]
for _i in range(32):
    for _d in range(4):
        _n = STEP[_i][_d]
        if _n:
            LAND[_i][_d] = SHIFTS[_d](_n)
        if not LAND[_i][_d]:
            OVER[_i][_d] = 0

INDEX = {1 << i: i for i in range(32)}

BLACK_MAN_DIRS = (DL, DR)
WHITE_MAN_DIRS = (UL, UR)
KING_DIRS = (UL, UR, DL, DR)

# per index: tuple of (direction, neighbour bit) for each allowed direction
STEPS_BLACK = [tuple((STEP[i][d]) for d in BLACK_MAN_DIRS if STEP[i][d]) for i in range(32)]
STEPS_WHITE = [tuple((STEP[i][d]) for d in WHITE_MAN_DIRS if STEP[i][d]) for i in range(32)]
STEPS_KING = [tuple((STEP[i][d]) for d in KING_DIRS if STEP[i][d]) for i in range(32)]
JUMPS_BLACK = [tuple((OVER[i][d], LAND[i][d]) for d in BLACK_MAN_DIRS if LAND[i][d])
               for i in range(32)]
JUMPS_WHITE = [tuple((OVER[i][d], LAND[i][d]) for d in WHITE_MAN_DIRS if LAND[i][d])
               for i in range(32)]
JUMPS_KING = [tuple((OVER[i][d], LAND[i][d]) for d in KING_DIRS if LAND[i][d])
              for i in range(32)]


# ---------------------------------------------------------------------------------------------
# FEN

def parse_fen(fen):
    """FEN -> position tuple (my_men, my_kings, their_men, their_kings, black_to_move)."""
    parts = fen.strip().rstrip(".").split(":")
    black_turn = parts[0].strip().upper() == "B"
    pieces = {"B": [0, 0], "W": [0, 0]}
    for field in parts[1:]:
        field = field.strip()
        if not field:
            continue
        colour = field[0].upper()
        for item in field[1:].split(","):
            item = item.strip()
            if not item:
                continue
            king = item[0] in "Kk"
            item = item.lstrip("Kk")
            low, _, high = item.partition("-")
            for s in range(int(low), int(high or low) + 1):
                pieces[colour][1 if king else 0] |= 1 << (s - 1)
    bm, bk = pieces["B"]
    wm, wk = pieces["W"]
    if black_turn:
        return (bm, bk, wm, wk, True)
    return (wm, wk, bm, bk, False)


# ---------------------------------------------------------------------------------------------
# Move generation. A move is (path, child) where path is a tuple of square numbers and child
# the position after it (from the opponent's point of view).

def _jump_paths(cur, path, captured, occ, opp, jump_table, is_man, crown, out):
    """Depth-first search of the multi-jumps continuing from bit `cur`."""
    extended = False
    for over, land in jump_table[INDEX[cur]]:
        if over & opp and not over & captured and not land & occ:
            extended = True
            new_path = path + (INDEX[land] + 1,)
            if is_man and land & crown:
                out.append((new_path, land, captured | over, True))
            else:
                _jump_paths(land, new_path, captured | over, occ, opp, jump_table, is_man,
                            crown, out)
    if not extended and len(path) > 1:
        out.append((path, cur, captured, False))


def generate(pos):
    """All legal moves in canonical order, as (path, child position)."""
    mm, mk, om, ok, black = pos
    opp = om | ok
    occ = mm | mk | opp
    empty = FULL & ~occ
    if black:
        man_jumps, man_steps, crown = JUMPS_BLACK, STEPS_BLACK, BLACK_CROWN
    else:
        man_jumps, man_steps, crown = JUMPS_WHITE, STEPS_WHITE, WHITE_CROWN
    nb = not black
    moves = []
    # captures first (compulsory)
    if _can_jump(mm, mk, opp, empty, black):
        pieces = mm | mk
        while pieces:
            b = pieces & -pieces
            pieces ^= b
            is_man = bool(b & mm)
            table = man_jumps if is_man else JUMPS_KING
            found = []
            _jump_paths(b, (INDEX[b] + 1,), 0, occ ^ b, opp, table, is_man, crown, found)
            for path, dest, captured, crowned in found:
                nom = om & ~captured
                nok = ok & ~captured
                if is_man:
                    if crowned:
                        child = (nom, nok, mm ^ b, mk | dest, nb)
                    else:
                        child = (nom, nok, mm ^ b ^ dest, mk, nb)
                else:
                    child = (nom, nok, mm, mk ^ b ^ dest, nb)
                moves.append((path, child))
        return moves
    pieces = mm | mk
    while pieces:
        b = pieces & -pieces
        pieces ^= b
        i = INDEX[b]
        if b & mm:
            for t in man_steps[i]:
                if t & empty:
                    if t & crown:
                        child = (om, ok, mm ^ b, mk | t, nb)
                    else:
                        child = (om, ok, mm ^ b ^ t, mk, nb)
                    moves.append(((i + 1, INDEX[t] + 1), child))
        else:
            for t in STEPS_KING[i]:
                if t & empty:
                    moves.append(((i + 1, INDEX[t] + 1), (om, ok, mm, mk ^ b ^ t, nb)))
    return moves


def _can_jump(mm, mk, opp, empty, black):
    if black:
        fwd = mm | mk
        if shift_dl(shift_dl(fwd) & opp) & empty or shift_dr(shift_dr(fwd) & opp) & empty:
            return True
        if mk and (shift_ul(shift_ul(mk) & opp) & empty or shift_ur(shift_ur(mk) & opp) & empty):
            return True
    else:
        fwd = mm | mk
        if shift_ul(shift_ul(fwd) & opp) & empty or shift_ur(shift_ur(fwd) & opp) & empty:
            return True
        if mk and (shift_dl(shift_dl(mk) & opp) & empty or shift_dr(shift_dr(mk) & opp) & empty):
            return True
    return False


def has_move(mm, mk, om, ok, black):
    """Whether the side to move has at least one legal move (cheap: bit shifts only)."""
    opp = om | ok
    empty = FULL & ~(mm | mk | opp)
    pieces = mm | mk
    if black:
        if shift_dl(pieces) & empty or shift_dr(pieces) & empty:
            return True
        if mk and (shift_ul(mk) & empty or shift_ur(mk) & empty):
            return True
    else:
        if shift_ul(pieces) & empty or shift_ur(pieces) & empty:
            return True
        if mk and (shift_dl(mk) & empty or shift_dr(mk) & empty):
            return True
    return _can_jump(mm, mk, opp, empty, black)


def evaluate(pos):
    mm, mk, om, ok = pos[0], pos[1], pos[2], pos[3]
    return (MAN_VALUE * (mm.bit_count() - om.bit_count())
            + KING_VALUE * (mk.bit_count() - ok.bit_count()))


def move_text(path, is_capture):
    return ("x" if is_capture else "-").join(str(s) for s in path)


def is_capture_path(path):
    return (1 << (path[1] - 1)) not in STEP[path[0] - 1]


# ---------------------------------------------------------------------------------------------
# The graded search: negamax alpha-beta, fail-soft, canonical order.

class _Counter:
    __slots__ = ("leaves",)

    def __init__(self):
        self.leaves = 0


def alphabeta(pos, depth, ply, alpha, beta, counter):
    """Returns (value, best path or None)."""
    if depth == 0:
        counter.leaves += 1
        mm, mk, om, ok, black = pos
        if not has_move(mm, mk, om, ok, black):
            return -(WIN - ply), None
        return (MAN_VALUE * (mm.bit_count() - om.bit_count())
                + KING_VALUE * (mk.bit_count() - ok.bit_count())), None
    moves = generate(pos)
    if not moves:
        counter.leaves += 1
        return -(WIN - ply), None
    v = -INF - 1
    best = None
    for path, child in moves:
        value = -alphabeta(child, depth - 1, ply + 1, -beta, -alpha, counter)[0]
        if value > v:
            v, best = value, path
            if v > alpha:
                alpha = v
            if v >= beta:
                break
    return v, best


# ---------------------------------------------------------------------------------------------
# The game player: iterative deepening with a deadline and root move ordering.

class _Timeout(Exception):
    pass


def _play_search(pos, depth, ply, alpha, beta, deadline, nodes):
    nodes[0] += 1
    if nodes[0] & 255 == 0 and time.process_time() > deadline:
        raise _Timeout
    if depth == 0:
        mm, mk, om, ok, black = pos
        if not has_move(mm, mk, om, ok, black):
            return -(WIN - ply)
        return (MAN_VALUE * (mm.bit_count() - om.bit_count())
                + KING_VALUE * (mk.bit_count() - ok.bit_count()))
    moves = generate(pos)
    if not moves:
        return -(WIN - ply)
    v = -INF - 1
    for _, child in moves:
        value = -_play_search(child, depth - 1, ply + 1, -beta, -alpha, deadline, nodes)
        if value > v:
            v = value
            if v > alpha:
                alpha = v
            if v >= beta:
                break
    return v


# ---------------------------------------------------------------------------------------------
# What the grader calls

def legal_moves(fen: str) -> list[str]:
    pos = parse_fen(fen)
    moves = generate(pos)
    return [move_text(path, is_capture_path(path)) for path, _ in moves]


def search(fen: str, depth: int, alpha: int = -INF, beta: int = INF) -> dict:
    pos = parse_fen(fen)
    counter = _Counter()
    value, best = alphabeta(pos, depth, 0, alpha, beta, counter)
    move = move_text(best, is_capture_path(best)) if best is not None else None
    return {"value": int(value), "move": move, "leaves": counter.leaves}


def choose_move(fen: str, time_left: float) -> str:
    start = time.process_time()
    budget = max(0.01, time_left / 3)
    deadline = start + budget
    pos = parse_fen(fen)
    moves = generate(pos)
    if not moves:
        raise ValueError("no legal move")
    best_path = moves[0][0]
    if len(moves) == 1:
        return move_text(best_path, is_capture_path(best_path))
    order = list(moves)
    nodes = [0]
    depth = 1
    try:
        while depth <= 64:
            alpha, beta = -INF, INF
            scores = []
            depth_best, depth_value = None, -INF - 1
            for path, child in order:
                value = -_play_search(child, depth - 1, 1, -beta, -alpha, deadline, nodes)
                scores.append((value, path, child))
                if value > depth_value:
                    depth_value, depth_best = value, path
                    if value > alpha:
                        alpha = value
            best_path = depth_best
            # best moves first next time (stable sort keeps canonical order on ties)
            scores.sort(key=lambda s: -s[0])
            order = [(p, c) for _, p, c in scores]
            if depth_value >= WIN - 64 or depth_value <= -(WIN - 64):
                break  # a forced result found
            elapsed = time.process_time() - start
            if elapsed > budget / 2:
                break  # the next depth would not finish
            depth += 1
    except _Timeout:
        pass
    return move_text(best_path, is_capture_path(best_path))
