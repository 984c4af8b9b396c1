"""`python -m bench.opponents`: the ladder opponents' CPU in graded games, this code against a
baseline's.

A graded game's opponent (`ref:N`, grader/checkers/ladder.py) is searched in the grading process,
for every position the reference cache does not hold yet: for a class's engines, whose games are
their own, most of them. This benchmark plays the opponent's move in each position of seeded games
(`ref:2` against random moves, from the start), one player a game as a graded game has, in a
fresh process of this code and of the baseline's (`--baseline`, by default the last commit before
the enhanced engine searched on bitboards, taken from git), in alternating pairs so that the ratio
holds while the machine's speed drifts. It prints each pair's CPU and ratio, their median, and
whether both codes chose the same moves, as they must.

Run: ``.venv/bin/python -m bench.opponents`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.suite_cpu import ROOT, baseline_tree, first_on_path

BASELINE = "0b91159"

# The child: the opponent's move in every position, one player a game; prints its CPU and a
# digest of the moves.
CHILD = """
import hashlib, json, sys, time
from grader.checkers import Board, player_from_name
games, opponent = json.loads(sys.argv[1]), sys.argv[2]
moves = []
start = time.process_time()
for positions in games:
    player = player_from_name(opponent)
    moves += [player.choose_move(Board(fen)).pdn() for fen in positions]
cpu = time.process_time() - start
print(json.dumps({"cpu": cpu, "moves": hashlib.sha256(" ".join(moves).encode()).hexdigest()}))
"""


def games(count: int, plies: int, seed: int = 1) -> list[list[str]]:
    """The positions of `count` seeded games of `plies` plies: `ref:2` against random moves."""
    from grader.checkers import Board, player_from_name

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        board, positions = Board(), []
        for ply in range(plies):
            moves = board.generate_legal_moves()
            if not moves or board.is_game_over():
                break
            positions.append(board.fen())
            board.push(
                rng.choice(moves) if ply % 2 else player_from_name("ref:2").choose_move(board)
            )
        out.append(positions)
    return out


def run(played: list[list[str]], opponent: str, code: Path | None) -> dict:
    """The child in a fresh process of the code at `code` (else this checkout's)."""
    done = subprocess.run(
        [sys.executable, "-c", first_on_path(code) + CHILD, json.dumps(played), opponent],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.opponents")
    parser.add_argument("--baseline", default=BASELINE, help="the peer's git revision")
    parser.add_argument("--opponent", default="ref:6", help="the ladder engine timed")
    parser.add_argument("--games", type=int, default=3, help="seeded games")
    parser.add_argument("--plies", type=int, default=70, help="plies of each game at most")
    parser.add_argument("--pairs", type=int, default=7, help="alternating runs of each code")
    parser.add_argument("--quick", action="store_true", help="a smoke run: small and few")
    args, _ = parser.parse_known_args(argv)
    if args.quick:
        args.opponent, args.games, args.plies, args.pairs = "ref:4", 1, 12, 2
    played = games(args.games, args.plies)
    count = sum(map(len, played))
    print(
        f"{args.opponent}'s moves in {count} positions of {args.games} seeded games, one player "
        f"a game; this code against {args.baseline}, {args.pairs} alternating pairs; CPU of the "
        "moves alone (process_time)"
    )
    ratios, digests = [], set()
    with tempfile.TemporaryDirectory(prefix="bench-opponents-") as folder:
        base = baseline_tree(args.baseline, Path(folder) / "baseline")
        for pair in range(1, args.pairs + 1):
            mine = run(played, args.opponent, None)
            theirs = run(played, args.opponent, base)
            digests |= {mine["moves"], theirs["moves"]}
            ratios.append(mine["cpu"] / theirs["cpu"])
            print(
                f"pair {pair}: this code {mine['cpu']:.3f} s, {args.baseline} "
                f"{theirs['cpu']:.3f} s: ratio {ratios[-1]:.2f}",
                flush=True,
            )
    print(
        f"ratio, median of {len(ratios)} pairs: {statistics.median(ratios):.2f} "
        f"(from {min(ratios):.2f} to {max(ratios):.2f})"
    )
    print(f"the same moves in both codes: {'yes' if len(digests) == 1 else 'NO'}")


if __name__ == "__main__":
    main()
