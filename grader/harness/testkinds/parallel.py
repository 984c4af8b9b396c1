"""The `parallel` kind: the optional search_parallel, checked against the reference (with a
window, against grader.checkers' root-parallel split), its wall-clock speedup shown."""

from __future__ import annotations

from typing import Any

from grader.checkers import root_parallel
from grader.checkers.variants import VARIANTS
from grader.harness.cases import TestCase, TestResult, failure, result_of
from grader.harness.references import References
from grader.harness.sandbox import EngineProcess
from grader.harness.testkinds.base import Group, TestKind, describe, differ, register
from grader.harness.testkinds.search import check_search, root_window
from grader.harness.verdicts import Verdict

# The parallel speedup is timed only on searches that take at least this much CPU.
SPEEDUP_MIN_CPU = 2.0


@register
class Parallel(TestKind):
    """search_parallel, optional: right or not, and its speedup over the engine's own search
    shown (never scored)."""

    name = "parallel"
    title = "Parallel search"
    reuses_process = False  # search_parallel's workers may outlive the call
    fresh_group = True  # its CPU is measured: its workers fork no heap earlier groups left

    def expand(self, group: Group) -> list[TestCase]:
        spec, windows = group.spec, group.windows()
        depth = int(spec["depth"])
        out = []
        for p in spec["positions"]:
            common = {
                "position": p,
                "fen": group.fen(p),
                "depth": depth,
                "workers": int(spec.get("workers", 2)),
                "min_cpu": float(spec.get("min_cpu", SPEEDUP_MIN_CPU)),
            }
            if not windows:
                out.append(group.case(f"Parallel search depth {depth}: {p}", **common))
            for window, text in windows:
                out.append(
                    group.case(
                        f"Parallel search depth {depth}, {text}: {p}",
                        window_offsets=window,
                        **common,
                    )
                )
        return out

    def run(self, test: TestCase, process: EngineProcess, refs: References) -> TestResult:
        """search_parallel's answer equals the reference (value and move); its wall-clock speedup
        over the engine's own search is measured and shown when that search takes at least
        `min_cpu` seconds of CPU (shorter ones are too noisy to time); it earns no points."""
        fen, depth, workers = test.params["fen"], test.params["depth"], test.params["workers"]
        min_cpu = test.params.get("min_cpu", SPEEDUP_MIN_CPU)
        if "search_parallel" not in process.functions:
            return result_of(
                test,
                Verdict.PASSED,
                "search_parallel is not defined (optional)",
                test.points,
                implemented=False,
            )
        if "window_offsets" in test.params:
            return _with_window(test, process, refs)
        ref = refs.search(fen, depth, count_minimax=False)
        serial = process.call("search", [fen, depth], test.cpu, test.wall)
        if not serial.answered:
            return failure(test, serial, "search")
        outcome = process.call("search_parallel", [fen, depth, workers], test.cpu, test.wall)
        if not outcome.answered:
            return failure(test, outcome, "search_parallel")
        check = check_search(outcome.result, ref)
        verdict, lines = check.verdict, check.lines
        # The leaves of a root-parallel search are not alpha-beta's: only value and move count.
        if verdict is Verdict.WA and check.parts["value"] and check.parts["move"]:
            verdict = Verdict.PASSED
        extra: dict[str, Any] = {"implemented": True}
        if verdict is not Verdict.PASSED:  # the value or the move; its leaves are not judged
            extra["differs"] = [x for x in check.differs if x["what"] != "leaves"]
        if serial.cpu >= min_cpu:
            speedup = serial.wall / outcome.wall if outcome.wall > 0 else 0.0
            extra["speedup"] = round(speedup, 3)
            timing = (
                f"wall clock: search {serial.wall:.3f} s, search_parallel "
                f"{outcome.wall:.3f} s with {workers} workers: speedup {speedup:.2f}"
            )
        else:
            timing = (
                f"speedup not measured: your search took {serial.cpu:.2f} s of CPU here, "
                f"under the {min_cpu:g} s a search needs to be timed reliably"
            )
        text = "\n".join([*lines[:2], timing])
        return result_of(
            test,
            verdict,
            text,
            test.points if verdict is Verdict.PASSED else 0.0,
            outcome.cpu,
            outcome.wall,
            **extra,
        )


def _with_window(test: TestCase, process: EngineProcess, refs: References) -> TestResult:
    """search_parallel with a null window: its value is the best of the root moves' fail-soft
    values, each searched with the root's window (grader.checkers.root_parallel)."""
    fen, depth, workers = test.params["fen"], test.params["depth"], test.params["workers"]
    alpha, beta = root_window(test, refs)
    call = f"search_parallel({fen!r}, {depth}, {workers}, {alpha}, {beta})"
    if 0 <= process.arity.get("search_parallel", -1) < 5:
        return result_of(
            test,
            Verdict.PROTOCOL,
            f"{call}: your search_parallel takes "
            f"{process.arity['search_parallel']} arguments; the contract is "
            "search_parallel(fen, depth, workers, alpha=-INF, beta=INF)",
        )
    expected = refs.split(fen, depth, alpha, beta)
    outcome = process.call(
        "search_parallel", [fen, depth, workers, alpha, beta], test.cpu, test.wall
    )
    if not outcome.answered:
        return failure(test, outcome, "search_parallel")
    answer = outcome.result
    value = answer.get("value") if isinstance(answer, dict) else None
    if not isinstance(value, int) or isinstance(value, bool):
        return result_of(
            test,
            Verdict.PROTOCOL,
            f"{call}: must return a dict with an int 'value', got {describe(answer)}",
            cpu=outcome.cpu,
            wall=outcome.wall,
        )
    right = value == expected
    text = f"{call}:\nvalue {value}: " + (
        "right"
        if right
        else f"expected {expected} (fail-soft: the best of the root moves' values, each searched "
        f"with the window ({-beta}, {-alpha}) seen from the move)"
    )
    extra: dict[str, Any] = {}
    if not right:  # every variant whose value is the student's, not ours
        extra["differs"] = [differ("value", value, f"{expected} (fail-soft)")]
        found = [
            variant.code
            for variant in VARIANTS.values()
            if root_parallel(
                variant.board(fen), depth, "split", alpha=alpha, beta=beta, rules=variant.rules
            ).value
            == value
        ]
        if found:
            extra["candidates"] = found
    return result_of(
        test,
        Verdict.PASSED if right else Verdict.WA,
        text,
        test.points if right else 0.0,
        outcome.cpu,
        outcome.wall,
        **extra,
    )
