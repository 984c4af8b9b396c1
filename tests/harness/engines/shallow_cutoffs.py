"""A classic mistake: a child gets only its parent's best value as its bound (no deep cutoffs),
instead of the whole window (-beta, -alpha)."""

import correct
from correct import *  # noqa: F403
from correct import INF, WIN, evaluate, get_moves, make, other


def alphabeta(board, turn, depth, ply, alpha, beta, counter):
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
            make(board, move),
            other(turn),
            depth - 1,
            ply + 1,
            -INF,
            -bv if bv > -INF else INF,
            counter,
        )[0]
        if value > bv:
            bv, best = value, move
            if bv >= beta:
                break
    return bv, best


correct.alphabeta = alphabeta
