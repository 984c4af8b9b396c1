"""A correct checkers engine, written as a student would: standard library only, its own board,
move generator and search (it must not import the grader, which the sandbox does not expose).

The board is a list of 33 cells (index 0 unused): '.' empty, 'b'/'w' men, 'B'/'W' kings.
Black starts on 1-12 and moves down the diagram (towards 32); White moves up.
"""

import multiprocessing
import time

WIN = 1_000_000
INF = 10**9
MAN, KING = 100, 150


def _coords(square):
    row = (square - 1) // 4
    return row, 2 * ((square - 1) % 4) + (1 if row % 2 == 0 else 0)


SQUARE_AT = {_coords(s): s for s in range(1, 33)}
# For each square and direction (drow, dcol): the next square and the one after, or 0.
STEP = {}
JUMP = {}
for _s in range(1, 33):
    _r, _c = _coords(_s)
    for _dr, _dc in ((1, -1), (1, 1), (-1, -1), (-1, 1)):
        STEP[_s, _dr, _dc] = SQUARE_AT.get((_r + _dr, _c + _dc), 0)
        JUMP[_s, _dr, _dc] = SQUARE_AT.get((_r + 2 * _dr, _c + 2 * _dc), 0)


def parse_fen(fen):
    """'B:W21,22,K5:B1,2' -> (board, turn) with turn 'b' or 'w'."""
    parts = fen.strip().rstrip(".").split(":")
    board = ["."] * 33
    turn = parts[0].strip().lower()
    for field in parts[1:]:
        field = field.strip()
        if not field:
            continue
        color = field[0].lower()
        for item in field[1:].split(","):
            item = item.strip()
            if not item:
                continue
            king = item[0] in "Kk"
            if king:
                item = item[1:]
            if "-" in item:
                low, high = item.split("-")
                squares = range(int(low), int(high) + 1)
            else:
                squares = [int(item)]
            for s in squares:
                board[s] = color.upper() if king else color
    return board, turn


def directions(piece):
    if piece in "BW":
        return ((1, -1), (1, 1), (-1, -1), (-1, 1))
    return ((1, -1), (1, 1)) if piece == "b" else ((-1, -1), (-1, 1))


def crowns(piece, square):
    return (piece == "b" and square >= 29) or (piece == "w" and square <= 4)


def get_moves(board, turn):
    """Legal moves as (path, captured) tuples in canonical order (paths compared as numbers)."""
    captures = []
    steps = []
    for s in range(1, 33):
        piece = board[s]
        if piece.lower() != turn:
            continue
        _jumps(board, s, piece, (s,), (), captures, s)
        if not captures:
            for dr, dc in directions(piece):
                t = STEP[s, dr, dc]
                if t and board[t] == ".":
                    steps.append(((s, t), ()))
    moves = captures if captures else steps
    moves.sort(key=lambda m: m[0])
    return moves


def _jumps(board, s, piece, path, captured, out, start):
    found = False
    for dr, dc in directions(piece):
        mid, land = STEP[s, dr, dc], JUMP[s, dr, dc]
        if not land or mid in captured:
            continue
        if board[mid] == "." or board[mid].lower() == piece.lower():
            continue
        if board[land] != "." and land != start:
            continue
        found = True
        if crowns(piece, land):
            out.append(((*path, land), (*captured, mid)))
        else:
            _jumps(board, land, piece, (*path, land), (*captured, mid), out, start)
    if not found and captured:
        out.append((path, captured))


def pdn(move):
    path, captured = move
    return ("x" if captured else "-").join(str(s) for s in path)


def make(board, move):
    path, captured = move
    new = board[:]
    piece = new[path[0]]
    new[path[0]] = "."
    for c in captured:
        new[c] = "."
    if crowns(piece, path[-1]):
        piece = piece.upper()
    new[path[-1]] = piece
    return new


def evaluate(board, turn):
    score = 0
    for s in range(1, 33):
        piece = board[s]
        if piece == ".":
            continue
        value = KING if piece in "BW" else MAN
        score += value if piece.lower() == turn else -value
    return score


def other(turn):
    return "w" if turn == "b" else "b"


class Counter:
    def __init__(self):
        self.leaves = 0


def alphabeta(board, turn, depth, ply, alpha, beta, counter):
    """Negamax alpha-beta, fail-soft: returns (bv, best move)."""
    moves = get_moves(board, turn)
    if not moves:
        counter.leaves += 1
        return -(WIN - ply), None
    if depth == 0:
        counter.leaves += 1
        return evaluate(board, turn), None
    bv, best = -INF, None
    for move in moves:
        value = -alphabeta(
            make(board, move), other(turn), depth - 1, ply + 1, -beta, -alpha, counter
        )[0]
        if value > bv:
            bv, best = value, move
            if bv > alpha:
                alpha = bv
            if bv >= beta:
                break
    return bv, best


def legal_moves(fen):
    board, turn = parse_fen(fen)
    return [pdn(m) for m in get_moves(board, turn)]


def search(fen, depth, alpha=-INF, beta=INF):
    board, turn = parse_fen(fen)
    counter = Counter()
    value, move = alphabeta(board, turn, depth, 0, alpha, beta, counter)
    return {"value": value, "move": pdn(move) if move else None, "leaves": counter.leaves}


def _root_child(job):
    board, turn, depth, alpha, beta = job
    counter = Counter()
    value = alphabeta(board, turn, depth, 1, -beta, -alpha, counter)[0]
    return -value, counter.leaves


def search_parallel(fen, depth, workers, alpha=-INF, beta=INF):
    board, turn = parse_fen(fen)
    moves = get_moves(board, turn)
    if not moves or depth == 0:
        return search(fen, depth, alpha, beta)
    jobs = [(make(board, m), other(turn), depth - 1, alpha, beta) for m in moves]
    with multiprocessing.get_context("fork").Pool(max(1, workers)) as pool:
        results = pool.map(_root_child, jobs)
    bv, best, leaves = -INF, None, 0
    for move, (value, count) in zip(moves, results, strict=True):
        leaves += count
        if value > bv:
            bv, best = value, move
    return {"value": bv, "move": pdn(best), "leaves": leaves}


class OutOfTime(Exception):
    pass


def choose_move(fen, time_left):
    """Iterative deepening within about a third of the time given."""
    board, turn = parse_fen(fen)
    moves = get_moves(board, turn)
    if len(moves) == 1:
        return pdn(moves[0])
    start = time.perf_counter()
    budget = time_left / 3
    best = moves[0]
    for depth in range(1, 64):
        began = time.perf_counter()
        value, move = alphabeta(board, turn, depth, 0, -INF, INF, Counter())
        if move:
            best = move
        took = time.perf_counter() - began
        if abs(value) > WIN - 200 or time.perf_counter() - start + took * 4 > budget:
            break
    return pdn(best)
