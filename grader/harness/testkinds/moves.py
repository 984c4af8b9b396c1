"""Move generation kinds: `movegen` (legal_moves in one position) and `perft` (a walk to a
depth asking legal_moves at every inner node), each checked against grader.checkers."""

from __future__ import annotations

import time
from typing import Any

from grader.checkers import Board
from grader.checkers.variants import diagnose_moves
from grader.harness.cases import TestCase, TestResult, failure, result_of
from grader.harness.references import References
from grader.harness.sandbox import EngineProcess
from grader.harness.testkinds.base import Group, TestKind, describe, differ, register, short
from grader.harness.verdicts import Verdict


def _moves_list(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(m, str) for m in value):
        return value
    return None


def _compare_moves(fen: str, got: list[str]) -> tuple[bool, str, dict[str, Any]]:
    """Right or not, what to say, and {"candidates": codes} when misconceptions give `got`."""
    expected = {m.pdn() for m in Board(fen).generate_legal_moves()}
    stripped = [m.strip() for m in got]
    missing = sorted(expected - set(stripped), key=_numbers)
    extra = sorted(set(stripped) - expected, key=_numbers)
    twice = sorted({m for m in stripped if stripped.count(m) > 1}, key=_numbers)
    if not (missing or extra or twice):
        return True, f"{len(expected)} moves, all right", {}
    parts = []
    if missing:
        parts.append(f"missing {', '.join(missing)}")
    if extra:
        parts.append(f"not legal here {', '.join(short(e) for e in extra)}")
    if twice:
        parts.append(f"listed more than once {', '.join(twice)}")
    # The FEN on a line of its own, as `grader checkers moves --fen` takes it.
    lines = ["; ".join(parts), f"position: {fen}"]
    found = diagnose_moves(fen, stripped)
    named: dict[str, Any] = {"candidates": [v.code for v in found]} if found else {}
    listed = ", ".join(short(m) if m not in expected else m for m in stripped) or "none"
    named["differs"] = [differ("moves", listed, ", ".join(sorted(expected, key=_numbers)))]
    return False, "\n".join(lines), named


def _numbers(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.replace("x", "-").split("-"))
    except ValueError:
        return (10**6,)


@register
class Movegen(TestKind):
    """legal_moves in one position against the reference's, misconceptions named."""

    name = "movegen"
    title = "Move generation"
    correctness = True

    def expand(self, group: Group) -> list[TestCase]:
        return [
            group.case(f"Move generation: {p}", position=p, fen=group.fen(p))
            for p in group.spec["positions"]
        ]

    def run(self, test: TestCase, process: EngineProcess, refs: References) -> TestResult:
        fen = test.params["fen"]
        outcome = process.call("legal_moves", [fen], test.cpu, test.wall)
        if not outcome.answered:
            return failure(test, outcome, "legal_moves")
        moves = _moves_list(outcome.result)
        if moves is None:
            return result_of(
                test,
                Verdict.PROTOCOL,
                f"legal_moves must return a list of strings, got {describe(outcome.result)}",
                cpu=outcome.cpu,
                wall=outcome.wall,
            )
        ok, text, diagnosis = _compare_moves(fen, moves)
        return result_of(
            test,
            Verdict.PASSED if ok else Verdict.WA,
            text,
            test.points if ok else 0.0,
            outcome.cpu,
            outcome.wall,
            **diagnosis,
        )


@register
class Perft(TestKind):
    """A perft walk to a depth, the engine's legal_moves asked at every inner node."""

    name = "perft"
    title = "Perft"
    correctness = True

    def expand(self, group: Group) -> list[TestCase]:
        depth = int(group.spec["depth"])
        return [
            group.case(f"Perft {depth}: {p}", position=p, fen=group.fen(p), depth=depth)
            for p in group.spec["positions"]
        ]

    def run(self, test: TestCase, process: EngineProcess, refs: References) -> TestResult:
        """Walk the tree to `depth`, asking the engine's legal_moves at every inner node."""
        board = Board(test.params["fen"])
        depth = test.params["depth"]
        cpu = wall = 0.0
        calls = 0
        deadline = time.monotonic() + test.wall * 10

        def walk(d: int) -> tuple[int, TestResult | None]:
            nonlocal cpu, wall, calls
            if d == 0:
                return 1, None
            fen = board.fen()
            outcome = process.call("legal_moves", [fen], test.cpu, test.wall)
            calls += 1
            cpu += outcome.cpu
            wall += outcome.wall
            if not outcome.answered:
                return 0, failure(test, outcome, f"legal_moves on {fen}")
            moves = _moves_list(outcome.result)
            if moves is None:
                return 0, result_of(
                    test,
                    Verdict.PROTOCOL,
                    f"legal_moves must return a list of strings, got {describe(outcome.result)}",
                )
            ok, text, diagnosis = _compare_moves(fen, moves)
            if not ok:
                where = f"moves at depth {depth - d} of the walk"
                diagnosis["differs"] = [{**x, "what": where} for x in diagnosis["differs"]]
                return 0, result_of(
                    test, Verdict.WA, f"at depth {depth - d} of the walk, {text}", **diagnosis
                )
            if time.monotonic() > deadline:
                return 0, result_of(test, Verdict.TLE_WALL, "the perft walk took too long")
            total = 0
            for move in board.generate_legal_moves():
                board.push(move)
                try:
                    count, bad = walk(d - 1)
                finally:
                    board.pop()
                if bad:
                    return 0, bad
                total += count
            return total, None

        count, bad = walk(depth)
        if bad:
            bad.cpu, bad.wall = cpu, wall
            return bad
        return result_of(
            test,
            Verdict.PASSED,
            f"perft({depth}) = {count}, the same as the reference ({calls} calls to legal_moves)",
            test.points,
            cpu,
            wall,
            perft=count,
        )
