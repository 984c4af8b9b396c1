"""A classic mistake: no cut on equality (`bv > beta`), where the contract cuts at bv >= beta."""

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
            make(board, move), other(turn), depth - 1, ply + 1, -beta, -alpha, counter
        )[0]
        if value > bv:
            bv, best = value, move
            alpha = max(alpha, bv)
            if bv > beta:
                break
    return bv, best


correct.alphabeta = alphabeta
