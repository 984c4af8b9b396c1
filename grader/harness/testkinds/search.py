"""The `search` kind: the engine's fixed-depth alpha-beta against the reference's answers
(grader.checkers, computed once per suite: references.py); and what the timing and parallel
kinds share with it (the part-by-part check, the root window)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grader.checkers.engine import INFINITY
from grader.checkers.variants import diagnose_search
from grader.harness.cases import TestCase, TestResult, failure, result_of
from grader.harness.references import Reference, References, reference
from grader.harness.sandbox import EngineProcess
from grader.harness.testkinds.base import Group, TestKind, describe, differ, register
from grader.harness.verdicts import Verdict

# Credit for each part of a search answer (exercises/checkers/ASSIGNMENT.md says the same).
SEARCH_PARTS = {"value": 0.4, "move": 0.2, "bound": 0.1, "exact": 0.3}
# A search with a window (alpha, beta) has no best move to judge when its value is a bound.
WINDOW_PARTS = {"value": 0.5, "bound": 0.1, "exact": 0.4}


@dataclass(frozen=True)
class SearchCheck:
    """A search answer judged: verdict, fraction of the credit, which parts are right, why."""

    verdict: Verdict
    credit: float
    parts: dict[str, bool]
    lines: list[str]
    # Every misconception whose answer this is (library order); the words come once the whole
    # run is known (grader/harness/diagnosis.py).
    candidates: tuple[str, ...] = ()
    # The wrong parts, as the results page tables them: what, what came back, what was expected.
    differs: tuple[dict[str, str], ...] = ()


def check_search(answer: Any, ref: Reference, fen: str = "", depth: int = 0) -> SearchCheck:
    """Judge one search answer part by part (SEARCH_PARTS, or WINDOW_PARTS with a window);
    a wrong one is compared with the misconception variants when `fen` is given."""
    if not isinstance(answer, dict):
        return SearchCheck(
            Verdict.PROTOCOL, 0.0, {}, [f"search must return a dict, got {describe(answer)}"]
        )
    value, move, leaves = answer.get("value"), answer.get("move"), answer.get("leaves")
    problems = []
    if not isinstance(value, int) or isinstance(value, bool):
        problems.append(f"'value' must be an int, got {describe(value)}")
    if move is not None and not isinstance(move, str):
        problems.append(f"'move' must be a string or None, got {describe(move)}")
    if not isinstance(leaves, int) or isinstance(leaves, bool):
        problems.append(f"'leaves' must be an int, got {describe(leaves)}")
    if problems:
        return SearchCheck(Verdict.PROTOCOL, 0.0, {}, problems)
    assert isinstance(value, int) and isinstance(leaves, int)
    parts = {
        "value": value == ref.value,
        "move": (move is None and not ref.best_moves)
        or (isinstance(move, str) and move.strip() in ref.best_moves),
        "bound": 0 < leaves <= ref.leaves_minimax,
        "exact": leaves == ref.leaves_alphabeta,
    }
    weights = SEARCH_PARTS
    best = ", ".join(ref.best_moves) or "None (no legal move)"
    lines = [f"value {value}: {'right' if parts['value'] else f'expected {ref.value}'}"]
    if ref.windowed:
        weights = WINDOW_PARTS
        del parts["move"]
        if not parts["value"]:
            lines[0] += " (fail-soft: the best value found, even outside the window)"
    else:
        lines.append(
            f"move {move}: {'one of the best' if parts['move'] else f'expected one of {best}'}"
        )
    lines += [
        f"leaves {leaves}: "
        + (
            "at most minimax's"
            if parts["bound"]
            else f"must be between 1 and minimax's {ref.leaves_minimax}"
        ),
        f"leaves {leaves}: "
        + (
            "exactly alpha-beta's in canonical order"
            if parts["exact"]
            else f"expected {ref.leaves_alphabeta} (alpha-beta in "
            f"canonical order; minimax evaluates {ref.leaves_minimax})"
        ),
    ]
    credit = sum(weights[k] for k, ok in parts.items() if ok)
    passed = all(parts.values())
    candidates: tuple[str, ...] = ()
    if not passed and fen:
        found = diagnose_search(fen, depth, value, leaves, ref.alpha, ref.beta, ref.leaves_minimax)
        candidates = tuple(v.code for v in found)
    differs = []
    if not parts["value"]:
        differs.append(
            differ("value", value, f"{ref.value}{' (fail-soft)' if ref.windowed else ''}")
        )
    if not parts.get("move", True):
        differs.append(differ("move", move, f"one of {best}"))
    if not parts["exact"]:  # a leaf count out of minimax's bound is not alpha-beta's either
        differs.append(
            differ(
                "leaves",
                leaves,
                f"{ref.leaves_alphabeta} (alpha-beta in canonical order; "
                f"minimax evaluates {ref.leaves_minimax})",
            )
        )
    return SearchCheck(
        Verdict.PASSED if passed else Verdict.WA, credit, parts, lines, candidates, tuple(differs)
    )


def root_window(test: TestCase, refs: References | None = None) -> tuple[int, int]:
    """The test's root window: the full one, or a null or narrow one around the value."""
    offsets = test.params.get("window_offsets")
    if offsets is None:
        return -INFINITY, INFINITY
    fen, depth = test.params["fen"], test.params["depth"]
    value = (
        refs.search(fen, depth, count_minimax=False)
        if refs
        else reference(fen, depth, count_minimax=False)
    ).value
    return value + offsets[0], value + offsets[1]


@register
class Search(TestKind):
    """search(fen, depth[, alpha, beta]) against the reference, part by part: the value, the
    move, the leaves' bound and the exact leaf count; misconceptions named."""

    name = "search"
    title = "Search"
    correctness = True

    def expand(self, group: Group) -> list[TestCase]:
        windows = group.windows()
        out = []
        for p in group.spec["positions"]:
            for d in group.spec["depths"]:
                if not windows:
                    out.append(
                        group.case(
                            f"Search depth {d}: {p}", position=p, fen=group.fen(p), depth=int(d)
                        )
                    )
                for window, text in windows:
                    out.append(
                        group.case(
                            f"Search depth {d}, {text}: {p}",
                            position=p,
                            fen=group.fen(p),
                            depth=int(d),
                            window_offsets=window,
                        )
                    )
        return out

    def run(self, test: TestCase, process: EngineProcess, refs: References) -> TestResult:
        fen, depth = test.params["fen"], test.params["depth"]
        alpha, beta = root_window(test, refs)
        ref = refs.search(fen, depth, alpha, beta)
        args: list[Any] = [fen, depth]
        if ref.windowed:
            args += [alpha, beta]
            if 0 <= process.arity.get("search", -1) < 4:
                return result_of(
                    test,
                    Verdict.PROTOCOL,
                    f"search({fen!r}, {depth}, {alpha}, "
                    f"{beta}): your search takes {process.arity['search']} arguments; "
                    "the contract is search(fen, depth, alpha=-INF, beta=INF)",
                )
        outcome = process.call("search", args, test.cpu, test.wall)
        if not outcome.answered:
            return failure(test, outcome, "search")
        check = check_search(outcome.result, ref, fen, depth)
        call = ", ".join(repr(a) for a in args)
        extra: dict[str, Any] = {"parts": check.parts}
        if check.differs:
            extra["differs"] = list(check.differs)
        if check.candidates:
            extra["candidates"] = list(check.candidates)
        return result_of(
            test,
            check.verdict,
            "\n".join([f"search({call}):", *check.lines]),
            check.credit * test.points,
            outcome.cpu,
            outcome.wall,
            **extra,
        )
