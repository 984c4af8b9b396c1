"""An independent English draughts: a mailbox (8x8 grid of cells) move generator, perft, and the
graded alpha-beta written in AIMA's max/min form, from exercises/checkers/RULES.md and the
contract in grader/checkers/engine.py's docstring. It shares no code with grader.checkers (no
bitboards, no tables, no negamax), so a test comparing the two can fail on either side.

A position is ``(cells, black_to_move)``: ``cells`` maps (row, col) of every occupied dark
square to "b", "w" (men) or "B", "W" (kings); Black moves down the rows (row 0 at the top).
"""

from __future__ import annotations

WIN = 1_000_000
MAN, KING = 100, 150


def coords(square: int) -> tuple[int, int]:
    i = square - 1
    row = i // 4
    return row, 2 * (i % 4) + (1 if row % 2 == 0 else 0)


def square(row: int, col: int) -> int:
    return 4 * row + col // 2 + 1


def on_board(row: int, col: int) -> bool:
    return 0 <= row < 8 and 0 <= col < 8


def parse_fen(fen: str) -> tuple[dict, bool]:
    """Only the plain form used in these tests: ``B:W1,K2:B3`` (no ranges)."""
    turn, *fields = fen.split(":")
    cells = {}
    for f in fields:
        color = f[0]
        for item in filter(None, f[1:].split(",")):
            king = item.startswith("K")
            cells[coords(int(item.lstrip("K")))] = color if king else color.lower()
    return cells, turn == "B"


def fen_of(cells: dict, black: bool) -> str:
    def field(color: str) -> str:
        own = sorted((square(*rc), p) for rc, p in cells.items() if p.lower() == color.lower())
        return color + ",".join(("K" if p.isupper() else "") + str(s) for s, p in own)

    return ("B" if black else "W") + ":" + field("W") + ":" + field("B")


def _directions(piece: str) -> list[tuple[int, int]]:
    if piece.isupper():
        return [(1, -1), (1, 1), (-1, -1), (-1, 1)]
    return [(1, -1), (1, 1)] if piece == "b" else [(-1, -1), (-1, 1)]


def _crowns(piece: str, row: int) -> bool:
    return (piece == "b" and row == 7) or (piece == "w" and row == 0)


def moves(cells: dict, black: bool) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Legal moves as (path of squares, captured squares), sorted as number sequences."""
    mine = "b" if black else "w"
    jumps: list = []
    for (r, c), piece in cells.items():
        if piece.lower() != mine:
            continue

        def extend(r0, c0, path, taken, piece=piece, home=(r, c)):
            ended = True
            for dr, dc in _directions(piece):
                mr, mc, lr, lc = r0 + dr, c0 + dc, r0 + 2 * dr, c0 + 2 * dc
                if not on_board(lr, lc):
                    continue
                over = cells.get((mr, mc))
                # Captured pieces stay until the move ends: they block and cannot be taken twice.
                land_free = (lr, lc) not in cells or (lr, lc) == home
                if over is None or over.lower() == mine or (mr, mc) in taken or not land_free:
                    continue
                ended = False
                new_path = (*path, square(lr, lc))
                new_taken = (*taken, (mr, mc))
                if _crowns(piece, lr):  # a man crowned by a jump ends its move there
                    jumps.append((new_path, new_taken))
                else:
                    extend(lr, lc, new_path, new_taken)
            if not ended or len(path) == 1:
                return
            jumps.append((path, taken))

        extend(r, c, (square(r, c),), ())
    if jumps:
        return sorted((p, tuple(square(*t) for t in taken)) for p, taken in jumps)
    steps = []
    for (r, c), piece in cells.items():
        if piece.lower() != mine:
            continue
        for dr, dc in _directions(piece):
            if on_board(r + dr, c + dc) and (r + dr, c + dc) not in cells:
                steps.append(((square(r, c), square(r + dr, c + dc)), ()))
    return sorted(steps)


def play(cells: dict, move) -> dict:
    path, captured = move
    out = dict(cells)
    piece = out.pop(coords(path[0]))
    for s in captured:
        del out[coords(s)]
    row = coords(path[-1])[0]
    out[coords(path[-1])] = piece.upper() if _crowns(piece, row) else piece
    return out


def pdn(move) -> str:
    path, captured = move
    return ("x" if captured else "-").join(map(str, path))


def perft(cells: dict, black: bool, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(play(cells, m), not black, depth - 1) for m in moves(cells, black))


def material(cells: dict, black: bool) -> int:
    worth = {"b": MAN, "B": KING, "w": -MAN, "W": -KING}
    score = sum(worth[p] for p in cells.values())
    return score if black else -score


def alphabeta(
    cells: dict,
    black: bool,
    depth: int,
    alpha: float = -(10**9),
    beta: float = 10**9,
    stats: dict | None = None,
    shallow: bool = False,
) -> tuple[int, str | None, int]:
    """(value for the side to move at the root, its best move's PDN, leaves) of AIMA's
    alpha-beta: MAX is the root's side, MIN the other; MAX cuts when its value >= beta, MIN when
    its value <= alpha (ties prune); fail-soft; the first move reaching the best value is best;
    a side with no move loses at WIN - ply; leaves are horizon positions and positions with no
    move. ``stats["nodes"]`` receives the number of positions visited. ``shallow``: the
    misconception where a child gets only its parent's own best so far as its bound."""
    root = black
    leaves = nodes = 0

    def visit(cells, black, depth, ply, alpha, beta):
        nonlocal leaves, nodes
        nodes += 1
        maximizing = black == root
        legal = moves(cells, black)
        if not legal or depth == 0:
            leaves += 1
            if not legal:
                return (-(WIN - ply) if maximizing else WIN - ply), None
            return material(cells, root), None
        best, best_move = (-(10**9) - 1, None) if maximizing else (10**9 + 1, None)
        for move in legal:
            window = (alpha, beta)
            if shallow:
                bound = best if best_move is not None else None
                if maximizing:
                    window = (-(10**9) if bound is None else bound, 10**9)
                else:
                    window = (-(10**9), 10**9 if bound is None else bound)
            value, _ = visit(play(cells, move), not black, depth - 1, ply + 1, *window)
            if maximizing:
                if value > best:
                    best, best_move = value, move
                alpha = max(alpha, value)
                if best >= beta:
                    break
            else:
                if value < best:
                    best, best_move = value, move
                beta = min(beta, value)
                if best <= alpha:
                    break
        return best, best_move

    value, move = visit(cells, black, depth, 0, alpha, beta)
    if stats is not None:
        stats["nodes"] = nodes
    return value, (pdn(move) if move else None), leaves
