"""Starter engine for the checkers assignment (exercises/checkers/ASSIGNMENT.md).

Standard library only. Fill in the five TODOs (get_moves, alphabeta, legal_moves, search,
choose_move); then check your engine as the course will:

    grader engine check engine.py                   # the quick suite, about a minute
    grader engine check engine.py --suite full      # what the course grades with

The board here is a list of 33 cells (index 0 unused): '.' empty, 'b'/'w' men, 'B'/'W' kings.
Black starts on squares 1-12 and moves down the diagram (towards 32); White moves up.
Row r (0 at the top) holds squares 4r+1 .. 4r+4; on even rows the dark squares are in columns
1, 3, 5, 7, on odd rows in columns 0, 2, 4, 6. You may change any of this; only the three
functions at the bottom (and search_parallel, if you write it) are called by the grader.

Compare with the reference on any position before submitting:

    grader checkers moves --fen "B:W18:B14"             # the legal moves, canonical order
    grader checkers divide --fen "B:W18:B14" --depth 3  # perft per root move
    grader checkers search --fen "B:W18:B14" --depth 4 [--alpha A --beta B] [--json]
"""

import time

WIN = 1_000_000  # the value of a won position, less the plies it takes
INF = 10**9
MAN, KING = 100, 150  # the prescribed evaluation


def coords(square):
    """Square 1..32 -> (row, column) on the 8x8 board."""
    row = (square - 1) // 4
    return row, 2 * ((square - 1) % 4) + (1 if row % 2 == 0 else 0)


SQUARE_AT = {coords(s): s for s in range(1, 33)}


def neighbour(square, drow, dcol, distance=1):
    """The square `distance` steps away diagonally, or 0 off the board."""
    row, col = coords(square)
    return SQUARE_AT.get((row + distance * drow, col + distance * dcol), 0)


def parse_fen(fen):
    """'B:W21,22,K5:B1,2' -> (board, turn) with turn 'b' or 'w'. Ranges like B1-12 are read."""
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
            item = item.lstrip("Kk")
            low, _, high = item.partition("-")
            for s in range(int(low), int(high or low) + 1):
                board[s] = color.upper() if king else color
    return board, turn


def pdn(path, capture):
    """PDN text of a move: '11-15' for a step, the full path '11x18x25' for a capture."""
    return ("x" if capture else "-").join(str(s) for s in path)


def evaluate(board, turn):
    """The prescribed evaluation, from the side to move's point of view."""
    score = 0
    for piece in board[1:]:
        if piece != ".":
            value = KING if piece.isupper() else MAN
            score += value if piece.lower() == turn else -value
    return score


# Precomputed neighbour tables: for each square, the (neighbour, landing square) pairs in each
# diagonal direction. Directions: up-left, up-right (towards row 0), down-left, down-right.
DIRECTIONS = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
NEXT = [[(neighbour(s, dr, dc), neighbour(s, dr, dc, 2)) if s else (0, 0)
         for (dr, dc) in DIRECTIONS] for s in range(33)]


def _dirs(piece_dirs):
    table = [[]]
    for s in range(1, 33):
        table.append([NEXT[s][d] for d in piece_dirs if NEXT[s][d][0]])
    return table


# The directions each kind of piece may move in: black men down, white men up, kings all four.
PIECE_DIRS = {"b": _dirs((2, 3)), "w": _dirs((0, 1)), "B": _dirs((0, 1, 2, 3)),
              "W": _dirs((0, 1, 2, 3))}
CROWN_ROW = {"b": frozenset((29, 30, 31, 32)), "w": frozenset((1, 2, 3, 4))}
ENEMIES = {"b": frozenset("wW"), "w": frozenset("bB")}
OWN = {"b": frozenset("bB"), "w": frozenset("wW")}
OTHER = {"b": "w", "w": "b"}


def _jumps(board, square, piece, path, captured, enemies, crown, out):
    """Extend a capture from `square`; append every complete (path, captured) to out."""
    found = False
    for over, land in PIECE_DIRS[piece][square]:
        if land and board[land] == "." and board[over] in enemies and over not in captured:
            found = True
            if crown is not None and land in crown:  # a man crowned: its move ends here
                out.append((path + (land,), captured + (over,)))
            else:
                _jumps(board, land, piece, path + (land,), captured + (over,), enemies, crown,
                       out)
    if not found and len(path) > 1:
        out.append((path, captured))


def get_moves(board, turn):
    """The legal moves (RULES.md): captures are compulsory, multi-jumps complete, a man
    crowned ends its move; return them in canonical order (paths compared as numbers).
    A move is (path, captured squares), both tuples of square numbers."""
    enemies = ENEMIES[turn]
    own = OWN[turn]
    captures = []
    for s in range(1, 33):
        piece = board[s]
        if piece in own:
            crown = None if piece.isupper() else CROWN_ROW[turn]
            board[s] = "."  # the starting square is empty during the move
            _jumps(board, s, piece, (s,), (), enemies, crown, captures)
            board[s] = piece
    if captures:
        captures.sort()
        return captures
    steps = []
    for s in range(1, 33):
        piece = board[s]
        if piece in own:
            for over, _ in PIECE_DIRS[piece][s]:
                if board[over] == ".":
                    steps.append(((s, over), ()))
    steps.sort()
    return steps


def has_move(board, turn):
    """Whether the side to move has at least one legal move (a step or a first jump)."""
    enemies = ENEMIES[turn]
    own = OWN[turn]
    for s in range(1, 33):
        piece = board[s]
        if piece in own:
            for over, land in PIECE_DIRS[piece][s]:
                target = board[over]
                if target == ".":
                    return True
                if land and target in enemies and board[land] == ".":
                    return True
    return False


def make_move(board, turn, move):
    """Play the move on the board in place; return what undo_move needs."""
    path, captured = move
    start, end = path[0], path[-1]
    piece = board[start]
    taken = [board[c] for c in captured]
    board[start] = "."
    for c in captured:
        board[c] = "."
    if piece.islower() and end in CROWN_ROW[turn]:
        board[end] = piece.upper()
    else:
        board[end] = piece
    return piece, taken


def undo_move(board, move, undo):
    path, captured = move
    piece, taken = undo
    board[path[-1]] = "."
    board[path[0]] = piece
    for c, p in zip(captured, taken):
        board[c] = p


def alphabeta(board, turn, depth, ply, alpha, beta, counter):
    """Negamax alpha-beta, fail-soft, cut when bv >= beta; returns (bv, best move).
    No legal move: -(WIN - ply). Depth 0: evaluate. Count the positions you score."""
    if depth == 0:
        counter[0] += 1
        if not has_move(board, turn):
            return -(WIN - ply), None
        return evaluate(board, turn), None
    moves = get_moves(board, turn)
    if not moves:
        counter[0] += 1
        return -(WIN - ply), None
    other = OTHER[turn]
    bv, best = -INF, None
    for move in moves:
        undo = make_move(board, turn, move)
        value = -alphabeta(board, other, depth - 1, ply + 1, -beta, -alpha, counter)[0]
        undo_move(board, move, undo)
        if value > bv:
            bv, best = value, move
            if bv > alpha:
                alpha = bv
            if bv >= beta:
                break
    return bv, best


# -- what the grader calls -------------------------------------------------------------------


def legal_moves(fen: str) -> list[str]:
    """The legal moves of the position, in PDN."""
    board, turn = parse_fen(fen)
    return [pdn(path, bool(captured)) for path, captured in get_moves(board, turn)]


def search(fen: str, depth: int, alpha: int = -INF, beta: int = INF) -> dict:
    """Fixed-depth alpha-beta from the root window (alpha, beta), fail-soft:
    {"value": int, "move": str or None, "leaves": int}. The grader also calls it with narrow
    windows, e.g. search(fen, 4, 24, 25): return the best value found even outside them."""
    board, turn = parse_fen(fen)
    counter = [0]
    value, best = alphabeta(board, turn, depth, 0, alpha, beta, counter)
    move = pdn(best[0], bool(best[1])) if best is not None else None
    return {"value": int(value), "move": move, "leaves": counter[0]}


class _Timeout(Exception):
    pass


def _timed_alphabeta(board, turn, depth, ply, alpha, beta, state):
    """alphabeta for games: the same search, stopped by _Timeout past the deadline."""
    state[0] += 1
    if state[0] & 511 == 0 and time.process_time() > state[1]:
        raise _Timeout
    if depth == 0:
        if not has_move(board, turn):
            return -(WIN - ply), None
        return evaluate(board, turn), None
    moves = get_moves(board, turn)
    if not moves:
        return -(WIN - ply), None
    if ply == 0 and state[2] is not None and state[2] in moves:  # previous best first
        moves.remove(state[2])
        moves.insert(0, state[2])
    other = OTHER[turn]
    bv, best = -INF, None
    for move in moves:
        undo = make_move(board, turn, move)
        try:
            value = -_timed_alphabeta(board, other, depth - 1, ply + 1, -beta, -alpha, state)[0]
        finally:
            undo_move(board, move, undo)
        if value > bv:
            bv, best = value, move
            if bv > alpha:
                alpha = bv
            if bv >= beta:
                break
    return bv, best


def choose_move(fen: str, time_left: float) -> str:
    """The move to play within `time_left` seconds of CPU time. time_left is per move, the
    same on every call of a game (not a game clock): 0.1 s in the quick suite, 0.3 s in the
    full suite; past it plus a margin (0.25 s quick, 0.3 s full) the game is lost (TLE).
    Deepen while there is time, keeping well inside it (e.g. a third)."""
    start = time.process_time()
    board, turn = parse_fen(fen)
    moves = get_moves(board, turn)
    if not moves:
        return ""  # no legal move: the game is already lost (the grader should not ask)
    best = moves[0]
    if len(moves) == 1:
        return pdn(best[0], bool(best[1]))
    budget = max(time_left, 0.01) / 3
    state = [0, start + budget, None]
    depth = 1
    while depth <= 64:
        try:
            value, move = _timed_alphabeta(board, turn, depth, 0, -INF, INF, state)
        except _Timeout:
            break
        if move is not None:
            best = move
            state[2] = move
        if abs(value) >= WIN - 100:  # a forced win or loss found: deeper changes nothing
            break
        if time.process_time() - start > budget / 2:
            break
        depth += 1
    return pdn(best[0], bool(best[1]))


# Optional: define search_parallel(fen, depth, workers, alpha=-INF, beta=INF) -> dict,
# root-parallel, with the same value and move as search (see "Threading" in ASSIGNMENT.md):
# each worker calls alphabeta on its root move's position with depth - 1, ply = 1 (not 0: loss
# scores count plies from the root) and the window (-beta, -alpha); the root's value is the
# best of the negated values. Its "leaves" (the workers' sum) must be an int; it is not checked.
