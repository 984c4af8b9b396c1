"""Results of a graded run: Gradescope's results.json, and a richer JSON with every timing and
the PDN of every game.

Gradescope's format (its "Autograder Specifications"): top level ``score``,
``execution_time`` (seconds), ``output``, ``output_format``, ``tests`` and ``leaderboard``; each
test ``name``, ``score``, ``max_score``, ``status`` ("passed" or "failed"), ``visibility``
("visible", "hidden", "after_due_date", "after_published"), ``output``, ``output_format`` and
``extra_data``. Leaderboard entries are ``name``, ``value`` and an optional ``order``
("asc" or "desc").
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

from grader.harness.runner import Report, machine
from grader.harness.verdicts import DESCRIPTIONS, PRIORITY, Verdict
from grader.strict_json import json_text

NO_SANDBOX_WARNING = (
    "WARNING: this run used --no-sandbox: the engine ran without isolation "
    "(no namespaces, no separate user). Its results are not official."
)
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


def summary(report: Report) -> str:
    """The run's top-level text for the student."""
    lines = []
    if not report.sandbox:
        lines.append(NO_SANDBOX_WARNING)
    if report.error:
        lines.append(f"Your submission could not be graded: {report.error}")
    reduced = sum(bool(t.extra.get("reduced")) for t in report.tests)
    # A test worth 0 points (an optional one) is not graded: it neither passes nor fails.
    graded = [t for t in report.tests if t.max_score > 0]
    ungraded = len(report.tests) - len(graded)
    lines.append(
        f"Suite {report.suite}: {report.score:g} / {report.max_score:g} points, "
        f"{sum(t.verdict is Verdict.PASSED for t in graded)} of "
        f"{len(graded)} graded tests passed"
        + (f" ({reduced} with reduced timing credit)" if reduced else "")
        + (
            f"; {ungraded} optional test{'s' if ungraded != 1 else ''} worth 0 points "
            f"{'are' if ungraded != 1 else 'is'} not graded."
            if ungraded
            else "."
        )
    )
    lines += report.explanation.summary_lines()
    counts = {v: sum(t.verdict is v for t in report.tests) for v in PRIORITY}
    failed = [
        f"{n} {v.value} ({DESCRIPTIONS[v]})"
        for v, n in counts.items()
        if n and v is not Verdict.PASSED
    ]
    if failed:
        lines.append("Verdicts: " + ", ".join(failed) + ".")
    if report.elo and report.elo.games:
        lines.append(f"Elo estimate against the ladder: {report.elo.text()} (95% interval).")
    games = games_played(report)
    if games:
        lines.append(games)
    timed = reference_timed(report)
    if timed:
        lines.append(timed)
    if not report.complete:
        lines.append(
            "Some tests hit an internal error of the grader (not of your engine): "
            "this run is incomplete and will be re-graded."
        )
    return "\n".join(lines)


def games_played(report: Report) -> str:
    """How many games were played of the suite's, and why each match ended (empty without
    games)."""
    if not report.matches:
        return ""
    played = sum(m.played for m in report.matches)
    summaries = [m.summary() for m in report.matches]
    total = sum(s["games"] for s in summaries)
    parts = [f"{s['opponent']} {s['played']} of {s['games']}, {s['why']}" for s in summaries]
    return (
        f"Games: {played} of {total} played"
        + (f", {report.lanes} at a time" if report.lanes > 1 else "")
        + ". By opponent: "
        + "; ".join(parts)
        + "."
    )


def _utc(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def reference_timed(report: Report) -> str:
    """When the reference's timings the run compared with were measured (empty without
    timing tests)."""
    if report.reference_timed_at is None:
        return ""
    return (
        "Timing compares your engine's CPU time with the reference's, timed beside each of "
        f"your runs in the same grading slot (from {_utc(report.reference_timed_at)})."
    )


def gradescope(report: Report) -> dict[str, Any]:
    """results.json for Gradescope."""
    tests = []
    for number, t in enumerate(report.tests, 1):
        head = f"{t.verdict.value}: {DESCRIPTIONS[t.verdict]}"
        if t.extra.get("reduced"):
            head = f"{t.verdict.value} (reduced timing credit)"
        output = f"{head}\n{t.output}".rstrip()
        tests.append(
            {
                "name": t.name,
                "number": str(number),
                "score": t.score,
                "max_score": t.max_score,
                "status": "passed" if t.verdict is Verdict.PASSED else "failed",
                "visibility": t.visibility if t.visibility in VISIBILITIES else "visible",
                "output": output,
                "output_format": "text",
                "extra_data": {
                    "verdict": t.verdict.value,
                    "cpu": round(t.cpu, 4),
                    "wall": round(t.wall, 4),
                    "attempts": t.attempts,
                    **({"diagnosis": t.extra["diagnosis"]} if t.extra.get("diagnosis") else {}),
                    **({"candidates": t.extra["candidates"]} if t.extra.get("candidates") else {}),
                },
            }
        )
    return {
        "score": report.score,
        "execution_time": round(report.elapsed, 2),
        "output": summary(report),
        "output_format": "text",
        "test_output_format": "text",
        "visibility": "visible",
        "extra_data": {
            "suite": report.suite,
            "sandbox": report.sandbox,
            "complete": report.complete,
        },
        "tests": tests,
        "leaderboard": leaderboard(report),
    }


def leaderboard(report: Report) -> list[dict[str, Any]]:
    board: list[dict[str, Any]] = [{"name": "Score", "value": report.score, "order": "desc"}]
    if report.elo and report.elo.games:
        board.append({"name": "Elo", "value": round(report.elo.rating), "order": "desc"})
    ratios = [t.extra["ratio"] for t in report.tests if "ratio" in t.extra]
    if ratios:
        board.append(
            {"name": "Time vs reference", "value": round(_geomean(ratios), 2), "order": "asc"}
        )
    speedups = [t.extra["speedup"] for t in report.tests if t.extra.get("speedup")]
    if speedups:
        board.append(
            {"name": "Parallel speedup", "value": round(max(speedups), 2), "order": "desc"}
        )
    return board


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-9)) for v in values) / len(values))


def rich(report: Report) -> dict[str, Any]:
    """Everything: each test's measurements and details, every game's PDN, the Elo."""
    elo = report.elo
    return {
        "suite": report.suite,
        "suite_version": report.suite_version,
        "submission": report.submission,
        "sandbox": report.sandbox,
        "complete": report.complete,
        "error": report.error,
        "score": report.score,
        "max_score": report.max_score,
        "started": report.started,
        "elapsed": round(report.elapsed, 3),
        "slot": report.slot,
        "engine": {"functions": list(report.engine_functions), "python": report.engine_python},
        "machine": machine(),
        "elo": None
        if elo is None
        else {
            "rating": round(elo.rating, 1),
            "error95": None if math.isinf(elo.error) else round(elo.error, 1),
            "games": elo.games,
            "score": elo.score,
            "bound": elo.bound,
            "text": elo.text(),
        },
        "reference": {
            "timed_at": None
            if report.reference_timed_at is None
            else _utc(report.reference_timed_at),
            "beside": True,
            "computed": report.references_computed,
        },
        "engine_starts": report.engine_starts,
        "matches": [m.summary() for m in report.matches],
        "game_lanes": report.lanes,
        "verdict_priority": [v.value for v in PRIORITY],
        "explanation": report.explanation.to_dict(),
        "tests": [
            {
                "name": t.name,
                "kind": t.kind,
                "verdict": t.verdict.value,
                "score": t.score,
                "max_score": t.max_score,
                "cpu": round(t.cpu, 4),
                "wall": round(t.wall, 4),
                "attempts": t.attempts,
                "output": t.output,
                "extra": {k: v for k, v in t.extra.items() if k != "pdn"},
            }
            for t in report.tests
        ],
        "games": [
            {
                "name": g.name,
                **{
                    k: g.extra.get(k)
                    for k in ("opponent", "colour", "ballot", "result", "points", "plies", "pdn")
                },
            }
            for g in report.games
            if g.extra.get("played", True)
        ],
    }


def write(report: Report, results_json: Path | None = None, rich_json: Path | None = None) -> None:
    if results_json:
        Path(results_json).write_text(json_text(gradescope(report)), encoding="utf-8")
    if rich_json:
        Path(rich_json).write_text(json_text(rich(report)), encoding="utf-8")
