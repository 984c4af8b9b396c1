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


def get_moves(board, turn):
    """TODO: the legal moves (RULES.md): captures are compulsory, multi-jumps complete, a man
    crowned ends its move; return them in canonical order (paths compared as numbers)."""
    raise NotImplementedError("get_moves")


def alphabeta(board, turn, depth, ply, alpha, beta, counter):
    """TODO: negamax alpha-beta, fail-soft, cut when bv >= beta; returns (bv, best move).
    No legal move: -(WIN - ply). Depth 0: evaluate. Count the positions you score."""
    raise NotImplementedError("alphabeta")


# -- what the grader calls -------------------------------------------------------------------


def legal_moves(fen: str) -> list[str]:
    """The legal moves of the position, in PDN."""
    raise NotImplementedError("legal_moves")  # TODO: parse_fen, get_moves, pdn


def search(fen: str, depth: int, alpha: int = -INF, beta: int = INF) -> dict:
    """Fixed-depth alpha-beta from the root window (alpha, beta), fail-soft:
    {"value": int, "move": str or None, "leaves": int}. The grader also calls it with narrow
    windows, e.g. search(fen, 4, 24, 25): return the best value found even outside them."""
    raise NotImplementedError("search")  # TODO: alphabeta from the root with (alpha, beta)


def choose_move(fen: str, time_left: float) -> str:
    """The move to play within `time_left` seconds of CPU time. time_left is per move, the
    same on every call of a game (not a game clock): 0.03 s in the quick suite, 0.3 s in the
    full suite; past it plus a margin (0.32 s quick, 0.3 s full) the game is lost (TLE).
    Deepen while there is time, keeping well inside it (e.g. a third)."""
    raise NotImplementedError("choose_move")  # TODO


# Optional: define search_parallel(fen, depth, workers, alpha=-INF, beta=INF) -> dict,
# root-parallel, with the same value and move as search (see "Threading" in ASSIGNMENT.md):
# each worker calls alphabeta on its root move's position with depth - 1, ply = 1 (not 0: loss
# scores count plies from the root) and the window (-beta, -alpha); the root's value is the
# best of the negated values. Its "leaves" (the workers' sum) must be an int; it is not checked.
