"""Benchmark of the alpha-beta core: generating discriminating exercises and solving large trees.

Each figure is printed beside a peer measured in the same run, as a ratio:
- generation: a discriminating depth-4 exercise (branching 2-3) against drawing one random tree of
  the same shape and solving it once (what any generator must do at least);
- solving: the reference solver with its full trace on a 10,000-leaf tree against a bare alpha-beta
  (values only, no trace) on the same tree, i.e. the price of explaining every step.

Run: ``.venv/bin/python -m bench.gametree`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from grader.gametree import GeneratorParams, Tree, generate, minimax, solve
from grader.gametree.generator import random_tree
from grader.gametree.tree import Node


def bare_alphabeta(node: Node, is_max: bool, alpha: float, beta: float) -> float:
    """The textbook fail-soft alpha-beta, nothing recorded: the peer for the solver."""
    if node.is_leaf:
        return node.value  # type: ignore[return-value]
    best = -math.inf if is_max else math.inf
    for child in node.children:
        value = bare_alphabeta(child, not is_max, alpha, beta)
        if is_max:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best


def bare_minimax(node: Node, is_max: bool) -> float:
    """Minimax, nothing recorded: the peer when every node is visited."""
    if node.is_leaf:
        return node.value  # type: ignore[return-value]
    values = [bare_minimax(child, not is_max) for child in node.children]
    return max(values) if is_max else min(values)


def timed(fn, repeat: int) -> list[float]:
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return times


def large_tree(leaves: int, seed: int = 1) -> Tree:
    """A uniform tree with branching 10 and ``leaves`` leaves (a power of 10), random values."""
    rng = random.Random(seed)
    depth = round(math.log10(leaves))

    def build(d: int) -> Node:
        if d == depth:
            return Node(rng.randint(-1000, 1000))
        return Node(None, tuple(build(d + 1) for _ in range(10)))

    return Tree(build(0))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few repetitions only")
    args = parser.parse_args(argv)
    repeat = 5 if args.quick else 60

    params = GeneratorParams(depth=4, branching=(2, 3), discriminating=True)
    generated = timed(lambda i: generate(params, f"bench-{i}"), repeat)
    rng = random.Random(0)
    plain = timed(lambda i: solve(random_tree(params, rng)), repeat)
    gen_ms, plain_ms = statistics.median(generated) * 1000, statistics.median(plain) * 1000
    print(
        f"discriminating exercise, depth 4, branching 2-3: median {gen_ms:.1f} ms "
        f"(p90 {statistics.quantiles(generated, n=10)[-1] * 1000:.1f} ms) over {repeat} seeds; "
        f"one random tree + one solve: {plain_ms:.2f} ms; ratio {gen_ms / plain_ms:.1f}x"
    )

    tree = large_tree(10_000)
    runs = 3 if args.quick else 15
    full = timed(lambda i: solve(tree), runs)
    bare = timed(lambda i: bare_alphabeta(tree.root, True, -math.inf, math.inf), runs)
    result = solve(tree)
    full_ms, bare_ms = statistics.median(full) * 1000, statistics.median(bare) * 1000
    print(
        f"10,000-leaf tree (branching 10, depth 4; {len(result.leaf_order)} leaves evaluated, "
        f"{len(result.trace)} trace steps): solve with full trace median {full_ms:.1f} ms; "
        f"bare alpha-beta {bare_ms:.2f} ms; ratio {full_ms / bare_ms:.1f}x"
    )
    # The worst case for the trace: nothing pruned, all 11,111 nodes recorded.
    every = timed(lambda i: minimax(tree), runs)
    bare_all = timed(lambda i: bare_minimax(tree.root, True), runs)
    every_ms, bare_all_ms = statistics.median(every) * 1000, statistics.median(bare_all) * 1000
    print(
        f"10,000-leaf tree, every node visited (minimax, {len(minimax(tree).trace)} trace steps): "
        f"median {every_ms:.1f} ms; bare minimax {bare_all_ms:.2f} ms; "
        f"ratio {every_ms / bare_all_ms:.1f}x"
    )


if __name__ == "__main__":
    main()
