"""Benchmark of the checkers core: perft, the reference engine, and root-parallel search.

Each figure is printed beside a peer measured in the same run, as a ratio:
- perft: our perft (bulk counting) at depths 9 and 10 against pydraughts
  (`Board(variant="english")`, the same bulk counting: moves counted at the last ply) at depth 4,
  which is slow enough; both as leaf nodes per second;
- engine: the reference engine's nodes per second and the depth it completes in one second from
  the start, beside the plain fixed-depth alpha-beta's nodes per second;
- parallel: root-parallel search with 2 processes and with threads against serial alpha-beta
  (and against the same root split run in one process) at the same depth.

Run: ``.venv/bin/python -m bench.perft`` (``--quick`` for a smoke run at small depths).
"""

from __future__ import annotations

import argparse
import os
import time

from grader.checkers import Board, ReferenceEngine, alphabeta, perft, root_parallel

PUBLISHED = {
    1: 7,
    2: 49,
    3: 302,
    4: 1469,
    5: 7361,
    6: 36768,
    7: 179740,
    8: 845931,
    9: 3963680,
    10: 18391564,
}


def _timed(fn, *args):
    start = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - start


def pydraughts_perft(board, depth: int) -> int:
    """Perft over pydraughts' public API with bulk counting at the last ply."""
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += pydraughts_perft(board, depth - 1)
        board.pop()
    return total


def bench_perft(depths: list[int], peer_depth: int) -> None:
    print("perft from the start position (leaf nodes per second, bulk counting)")
    ours_rate = 0.0
    for depth in depths:
        nodes, seconds = _timed(perft, Board(), depth)
        ok = "ok" if nodes == PUBLISHED[depth] else f"WRONG, published {PUBLISHED[depth]}"
        ours_rate = nodes / seconds
        print(
            f"  ours       depth {depth:2}: {nodes:>10,} leaves {seconds:7.2f} s "
            f"{ours_rate:>12,.0f} leaves/s  ({ok})"
        )
    try:
        from draughts import Board as DraughtsBoard
    except ImportError:
        print("  pydraughts not installed (pip install pydraughts): no ratio")
        return
    nodes, seconds = _timed(pydraughts_perft, DraughtsBoard(variant="english"), peer_depth)
    peer_rate = nodes / seconds
    ok = "ok" if nodes == PUBLISHED[peer_depth] else "WRONG"
    print(
        f"  pydraughts depth {peer_depth:2}: {nodes:>10,} leaves {seconds:7.2f} s "
        f"{peer_rate:>12,.0f} leaves/s  ({ok})"
    )
    print(
        f"  ratio: ours (depth {depths[-1]}) / pydraughts (depth {peer_depth}) = "
        f"{ours_rate / peer_rate:,.0f}x"
    )


def bench_engine(seconds: float, fixed_depth: int) -> None:
    print(f"reference engine from the start position, {seconds:g} s")
    result = ReferenceEngine().search(Board(), 64, time_limit=seconds)
    print(
        f"  iterative deepening + TT + killers + history: depth {result.depth} completed, "
        f"{result.nodes:,} nodes in {result.elapsed:.2f} s = "
        f"{result.nodes / result.elapsed:,.0f} nodes/s, value {result.value}, "
        f"best {result.best_move}"
    )
    plain = alphabeta(Board(), fixed_depth)
    print(
        f"  plain fixed-depth alpha-beta depth {fixed_depth}: {plain.nodes:,} nodes in "
        f"{plain.elapsed:.2f} s = {plain.nodes / plain.elapsed:,.0f} nodes/s, "
        f"{plain.leaves:,} leaves"
    )


def bench_parallel(depth: int) -> None:
    board = Board()
    print(
        f"root-parallel search from the start position, depth {depth}, "
        f"{os.cpu_count()} cores visible"
    )
    serial, t_serial = _timed(alphabeta, board, depth)
    split, t_split = _timed(root_parallel, board, depth, "processes", 1)
    procs, t_procs = _timed(root_parallel, board, depth, "processes", 2)
    threads, t_threads = _timed(root_parallel, board, depth, "threads")
    rows = [
        ("serial alpha-beta", serial, t_serial),
        ("root split, 1 process", split, t_split),
        ("root split, 2 processes", procs, t_procs),
        ("root split, threads", threads, t_threads),
    ]
    for name, result, seconds in rows:
        same = (result.value, result.best_move) == (serial.value, serial.best_move)
        print(
            f"  {name:24} {seconds:7.2f} s  {result.leaves:>10,} leaves  value "
            f"{result.value} best {result.best_move} ({'same' if same else 'DIFFERENT'})"
        )
    print(
        f"  speedup of 2 processes: {t_serial / t_procs:.2f}x against serial alpha-beta, "
        f"{t_split / t_procs:.2f}x against the same root split in one process"
    )
    print(
        f"  speedup of threads: {t_serial / t_threads:.2f}x against serial alpha-beta, "
        f"{t_split / t_threads:.2f}x against the root split in one process (the GIL)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small depths only (a smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        bench_perft([5, 6], 2)
        bench_engine(0.2, 4)
        bench_parallel(4)
    else:
        bench_perft([9, 10], 4)
        bench_engine(1.0, 8)
        bench_parallel(10)


if __name__ == "__main__":
    main()
