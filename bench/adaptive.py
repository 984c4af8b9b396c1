"""`python -m bench.adaptive`: trees to mastery, adaptive practice against uniform random practice.

The same simulated students practise twice: once on the trees `grader.gametree.adaptive` plans,
once on uniformly random trees (a random kind, depth 3-5, branching 2-3, values -9..9: what a
practice tool that hands out random trees gives). Each student holds a few misconceptions (drawn
from the nine, in an order of strength) and learns one after seeing ``--lessons`` trees that
expose it while they held it (they answer, and then see the solution); on a tree that exposes
several they hold, they answer like the first. Every answer is graded by the real grader; the
policy's standings say when every misconception is mastered (``MASTERY`` right answers in a row
on trees that expose it). A student not there after ``--cap`` trees counts as not reaching it.

Run: ``.venv/bin/python -m bench.adaptive`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from grader.gametree import KINDS, VARIANTS, GeneratorParams, Tree, generate, grade
from grader.gametree.adaptive import MASTERED, Practised, next_practice, standings
from grader.gametree.generator import exposing
from grader.gametree.solver import Conventions

RANDOM_KINDS = ["prune", "values", "bounds", "leaf-order", "minimax"]


class Student:
    """Holds some misconceptions; drops one after ``lessons`` trees that exposed it."""

    def __init__(self, rng: random.Random, lessons: int) -> None:
        codes = list(VARIANTS)
        rng.shuffle(codes)
        self.holds = codes[: 2 + int(rng.random() * 3)]  # 2 to 4 of them, strongest first
        self.seen = dict.fromkeys(self.holds, 0)
        self.lessons = lessons

    def answer(self, kind: str, tree: Tree, conventions: Conventions, exposed: set[str]) -> dict:
        exercise = KINDS[kind]
        for code in self.holds:
            if code in exposed:
                variant = VARIANTS[code]
                return exercise.to_answer(exercise.project(variant.run(tree, conventions), variant))
        return exercise.key(tree, conventions)

    def learn(self, exposed: set[str]) -> None:
        for code in [c for c in self.holds if c in exposed]:
            self.seen[code] += 1
            if self.seen[code] >= self.lessons:
                self.holds.remove(code)


Planner = Callable[[list[Practised], random.Random], tuple[str, GeneratorParams]]


def adaptive(history: list[Practised], rng: random.Random) -> tuple[str, GeneratorParams]:
    plan = next_practice(history, rng)
    return plan.kind, plan.params


def uniform(history: list[Practised], rng: random.Random) -> tuple[str, GeneratorParams]:
    kind = rng.choice(RANDOM_KINDS)
    return kind, GeneratorParams(depth=rng.choice([3, 4, 5]), branching=(2, 3), kind=kind)


def trees_to_mastery(planner: Planner, student_seed: int, lessons: int, cap: int) -> int | None:
    """How many trees until every misconception is mastered (None: not within ``cap``)."""
    student = Student(random.Random(f"student:{student_seed}"), lessons)
    rng = random.Random(f"practice:{student_seed}")
    history: list[Practised] = []
    for n in range(1, cap + 1):
        kind, params = planner(history, rng)
        tree = generate(params, f"{student_seed}:{n}")
        conventions = params.conventions
        exposed = set(exposing(tree, conventions, kind))
        graded = grade(kind, tree, conventions, student.answer(kind, tree, conventions, exposed))
        history.append(Practised(kind, graded.score == 1.0, graded.diagnosis, frozenset(exposed)))
        student.learn(exposed)
        if all(s.status == MASTERED for s in standings(history).values()):
            return n
    return None


def _summary(name: str, results: list[int | None], cap: int) -> str:
    reached = [r for r in results if r is not None]
    capped = [r if r is not None else cap for r in results]
    median = statistics.median(capped)
    return (
        f"{name:<9} reached {len(reached)}/{len(results)}; trees to mastery: median "
        f"{median:g}, mean {statistics.fmean(capped):.1f} (not reached counted as {cap})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.adaptive", description=__doc__)
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument(
        "--lessons",
        type=int,
        default=2,
        help="exposing trees a student needs to see to drop a misconception",
    )
    parser.add_argument("--cap", type=int, default=200, help="trees per student at most")
    parser.add_argument("--quick", action="store_true", help="4 students, cap 80")
    args, _ = parser.parse_known_args(argv)
    if args.quick:
        args.students, args.cap = 4, 80
    start = time.perf_counter()
    results = {}
    for name, planner in (("adaptive", adaptive), ("uniform", uniform)):
        results[name] = [
            trees_to_mastery(planner, s, args.lessons, args.cap) for s in range(args.students)
        ]
    print(
        f"{args.students} simulated students, each holding 2-4 of {len(VARIANTS)} "
        f"misconceptions, learning one after {args.lessons} exposing trees; cap {args.cap}:"
    )
    for name, found in results.items():
        print("  " + _summary(name, found, args.cap))
    a = [r if r is not None else args.cap for r in results["adaptive"]]
    u = [r if r is not None else args.cap for r in results["uniform"]]
    fewer = sum(x < y for x, y in zip(a, u, strict=True))
    print(
        f"  adaptive / uniform, median trees to mastery: "
        f"{statistics.median(a) / statistics.median(u):.2f}; fewer trees for "
        f"{fewer}/{args.students} students ({time.perf_counter() - start:.0f} s)"
    )


if __name__ == "__main__":
    main()
