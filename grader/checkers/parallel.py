"""Root-parallel search, as the assignment describes: each root move is searched by its own
worker with the fixed-depth alpha-beta, the workers are joined, and the best is chosen.

Workers search their subtree with the root's window (they share no alpha), so with the full
window the value and best move equal serial `alphabeta` (the first move in canonical order
reaching the best value), while the leaf count is larger. With a narrower window (alpha, beta)
the value is the best of the children's fail-soft values: the serial search's when it lies
inside the window or below it; above it (a fail high), at least the serial search's, which
stops at the first child reaching beta. Threads give no speedup in CPython (the GIL serialises
pure-Python search); processes do, minus the cost of starting them.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Literal

from grader.checkers.board import Board
from grader.checkers.engine import (
    CONTRACT,
    INFINITY,
    CheckersSearchRules,
    SearchOutcome,
    alphabeta,
    search,
)

Mode = Literal["serial", "split", "threads", "processes"]


def _search_child(
    fen: str,
    depth: int,
    alpha: int = -INFINITY,
    beta: int = INFINITY,
    rules: CheckersSearchRules = CONTRACT,
    board: type[Board] = Board,
) -> tuple[int, int, int]:
    """Value (from the child's side to move) and leaf and node counts of one root move,
    searched with the root window seen from the child, (-beta, -alpha)."""
    result = search(board(fen), depth, rules, alpha=-beta, beta=-alpha, ply=1)
    return result.value, result.leaves, result.nodes


def root_parallel(
    board: Board,
    depth: int,
    mode: Mode = "processes",
    workers: int | None = None,
    alpha: int = -INFINITY,
    beta: int = INFINITY,
    rules: CheckersSearchRules = CONTRACT,
) -> SearchOutcome:
    """Search each root move in its own worker (threads or processes) and join the results;
    mode "split" does the same split in this process, one root move after the other, under
    `rules` on a board of `board`'s class (a misconception variant's)."""
    if mode == "serial":
        return alphabeta(board, depth, alpha=alpha, beta=beta)
    if depth < 1:
        raise ValueError(f"root-parallel search needs depth >= 1, got {depth}")
    start = time.perf_counter()
    moves = board.generate_legal_moves()
    if not moves:
        return search(board, depth, rules, alpha, beta)
    fens = []
    for move in moves:
        board.push(move)
        fens.append(board.fen())
        board.pop()
    workers = workers or min(len(moves), os.cpu_count() or 1)
    pool: Executor
    if mode == "split":
        results = [_search_child(fen, depth - 1, alpha, beta, rules, type(board)) for fen in fens]
    else:
        if mode == "threads":
            pool = ThreadPoolExecutor(max_workers=len(moves))  # one thread per root move
        elif mode == "processes":
            pool = ProcessPoolExecutor(max_workers=workers)
        else:
            raise ValueError(f"unknown mode {mode!r}: expected serial, split, threads or processes")
        with pool:
            futures = [pool.submit(_search_child, fen, depth - 1, alpha, beta) for fen in fens]
            results = [f.result() for f in futures]  # join in canonical order
    best, best_move, leaves, nodes = -INFINITY, None, 0, 1
    for move, (value, child_leaves, child_nodes) in zip(moves, results, strict=True):
        leaves += child_leaves
        nodes += child_nodes
        if -value > best:
            best, best_move = -value, move
    return SearchOutcome(best, best_move, leaves, depth, nodes, time.perf_counter() - start)
