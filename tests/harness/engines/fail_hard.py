"""A classic mistake: fail-hard alpha-beta (values clamped to the window) where the contract
says fail-soft. With the full root window it answers like the correct engine."""

import correct
from correct import *  # noqa: F403
from correct import INF, WIN, evaluate, get_moves, make, other  # noqa: F401


def alphabeta(board, turn, depth, ply, alpha, beta, counter):
    moves = get_moves(board, turn)
    if not moves:
        counter.leaves += 1
        return -(WIN - ply), None
    if depth == 0:
        counter.leaves += 1
        return evaluate(board, turn), None
    best = None
    for move in moves:
        value = -alphabeta(
            make(board, move), other(turn), depth - 1, ply + 1, -beta, -alpha, counter
        )[0]
        if value >= beta:
            return beta, move
        if value > alpha:
            alpha, best = value, move
    return alpha, best or moves[0]


correct.alphabeta = alphabeta
