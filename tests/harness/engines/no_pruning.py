"""Plain minimax: the right values and moves, but it evaluates every leaf (no pruning)."""

from correct import (  # noqa: F401
    INF,
    WIN,
    Counter,
    choose_move,
    evaluate,
    get_moves,
    legal_moves,
    make,
    other,
    parse_fen,
    pdn,
)


def minimax(board, turn, depth, ply, counter):
    moves = get_moves(board, turn)
    if not moves:
        counter.leaves += 1
        return -(WIN - ply), None
    if depth == 0:
        counter.leaves += 1
        return evaluate(board, turn), None
    bv, best = -INF, None
    for move in moves:
        value = -minimax(make(board, move), other(turn), depth - 1, ply + 1, counter)[0]
        if value > bv:
            bv, best = value, move
    return bv, best


def search(fen, depth, alpha=-INF, beta=INF):  # the window changes nothing without cuts
    board, turn = parse_fen(fen)
    counter = Counter()
    value, move = minimax(board, turn, depth, 0, counter)
    return {"value": value, "move": pdn(move) if move else None, "leaves": counter.leaves}
