"""What explains a graded run: the fewest known mistakes that explain every failed test a
misconception variant reproduces, and the words each of those tests and the summary say.

The test kinds record, for a wrong answer, every variant that gives it (`candidates`, in the
library's order). On one position several can (at the start position every cutoff is a tie, so
tie-strict visits minimax's leaves at depths 2 and 3): such a test is ambiguous and names them
all. The run's explanation is then chosen once, over all its tests:
- a variant the engine's right answers contradict is not a candidate of an ambiguous test (a
  passed search, timing or move generation test where the variant's answer is not the
  contract's: the engine does not do that; a test with one candidate is that variant's answer);
- of the rest, the fewest that hold a candidate of every such failed test (a minimum set cover,
  exact), the first in the library's order where several sets of that size do, and said so.
The words of every test and of the summary are derived from that explanation alone, so no line
names a mistake another of the student's tests rules out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grader.checkers.engine import INFINITY
from grader.checkers.variants import (
    DIAGNOSIS_LEAVES,
    VARIANTS,
    either,
    fewest_explaining,
    moves_differ,
    search_differs,
)
from grader.harness.cases import TestCase, TestResult
from grader.harness.testkinds.search import reference, root_window
from grader.harness.verdicts import Verdict

# What "the same answer" is, per test kind, in the words of an ambiguous test.
SAME = {
    "movegen": "list your moves",
    "perft": "list your moves",
    "parallel": "give your value",
}
SAME_SEARCH = "give your value and leaf count"


@dataclass(frozen=True)
class Explanation:
    """The fewest mistakes explaining a run's diagnosed failures, and how it was chosen."""

    codes: tuple[str, ...] = ()  # named, in the library's order
    alternatives: tuple[tuple[str, ...], ...] = ()  # other sets of that size explaining as well
    ruled_out: tuple[str, ...] = ()  # candidates a passed test contradicts
    explains: dict[str, int] = field(default_factory=dict)  # code -> failed tests it explains
    ambiguous: dict[str, int] = field(default_factory=dict)  # code -> of those, with >1 candidate
    also: dict[str, list[str]] = field(default_factory=dict)  # code -> the others they match

    def to_dict(self) -> dict[str, Any]:
        return {
            "codes": list(self.codes),
            "alternatives": [list(a) for a in self.alternatives],
            "ruled_out": list(self.ruled_out),
            "explains": dict(self.explains),
            "ambiguous": dict(self.ambiguous),
            "also": {c: list(o) for c, o in self.also.items()},
        }

    def summary_lines(self) -> list[str]:
        """The summary's lines about mistakes: one per code named, then how it was chosen."""
        lines = []
        for code in self.codes:
            count = self.explains[code]
            line = (
                f"{count} test{'s' if count > 1 else ''} failed the way a known mistake does "
                f"({code}): {VARIANTS[code].sentence}"
            )
            if self.ambiguous.get(code):
                n, also = self.ambiguous[code], self.also[code]
                out = [c for c in also if c in self.ruled_out]
                line += (
                    f" {n} of them {'match' if n > 1 else 'matches'} {either(also)} too (on "
                    f"{'those positions' if n > 1 else 'that position'} they give the same answer)"
                )
                if out:
                    line += f"; a test you passed rules out {either(out)}"
                if len(self.codes) > 1:
                    line += "."
                else:
                    line += f"; {code} alone explains {f'all {count}' if count > 1 else 'it'}."
            lines.append(line)
        if len(self.codes) > 1:
            lines.append(
                f"The fewest known mistakes that explain every diagnosed test: "
                f"{', '.join(self.codes)}."
            )
        if self.alternatives:
            others = "; ".join(", ".join(a) for a in self.alternatives)
            lines.append(
                f"As few mistakes would explain them as well ({others}): the one named is the "
                "first in the library's order."
            )
        return lines


def explain(cases: tuple[TestCase, ...] | list[TestCase], results: list[TestResult]) -> Explanation:
    """Choose the run's explanation, then write each diagnosed test's words (its output's last
    line) and its `diagnosis` (the named code that explains it)."""
    failed = [
        (case, result)
        for case, result in zip(cases, results, strict=True)
        if result.verdict is not Verdict.PASSED and result.extra.get("candidates")
    ]
    # Only where a test is ambiguous can a passed test change what is named: a test with one
    # candidate is that variant's answer (and looking costs the worker seconds on a suite).
    alike = [r.extra["candidates"] for _, r in failed if len(r.extra["candidates"]) > 1]
    ruled_out = _contradicted({code for k in alike for code in k}, cases, results)
    kept = [[c for c in r.extra["candidates"] if c not in ruled_out] for _, r in failed]
    covers = fewest_explaining(kept)
    codes = covers[0] if covers else ()
    explains = {c: sum(c in k for k in kept) for c in codes}
    ambiguous = {c: sum(c in k for k in alike) for c in codes}
    also = {
        c: [o for o in VARIANTS if o != c and any(c in k and o in k for k in alike)] for c in codes
    }
    explanation = Explanation(
        codes,
        tuple(covers[1:]),
        tuple(c for c in VARIANTS if c in ruled_out),
        explains,
        {c: n for c, n in ambiguous.items() if n},
        {c: o for c, o in also.items() if o},
    )
    for (case, result), candidates in zip(failed, kept, strict=True):
        named = [c for c in codes if c in candidates]
        if named:
            result.extra["diagnosis"] = named[0]
        result.output = "\n".join(
            [result.output, diagnosed_line(case.kind, result.extra["candidates"], explanation)]
        )
    return explanation


def diagnosed_line(kind: str, candidates: list[str], explanation: Explanation) -> str:
    """A diagnosed test's line: its candidates (all of them when several give its answer) and,
    from the run's explanation, the one named and its sentence."""
    named = [c for c in explanation.codes if c in candidates]
    others = [c for c in candidates if c not in named]
    out = [c for c in others if c in explanation.ruled_out]
    if len(candidates) == 1 and named:
        return f"What it looks like: {VARIANTS[named[0]].sentence}"
    parts = [f"What it looks like: {either(named + others)}"]
    if len(candidates) > 1:
        parts[0] += f": on this position they {SAME.get(kind, SAME_SEARCH)}."
    else:
        parts[0] += "."
    if out:
        parts.append(
            f"A test you passed rules out {either(out)} (your answer there was the contract's, "
            f"{either(out)}'s is not)."
        )
    if named:
        codes = explanation.codes
        together = (
            f"{codes[0]} alone explains"
            if len(codes) == 1
            else f"{either(codes).replace(' or ', ' and ')} together explain"
        )
        parts.append(
            f"{together} every test of yours that matches a known mistake"
            + (":" if len(codes) == 1 else f"; here {either(named)}:")
        )
        parts += [VARIANTS[c].sentence for c in named]
    return " ".join(parts)


def _contradicted(
    codes: set[str], cases: tuple[TestCase, ...] | list[TestCase], results: list[TestResult]
) -> set[str]:
    """The codes a passed test rules out: the variant's answer there is not the contract's,
    which the engine gave (positions whose minimax is too big to diagnose are not tried)."""
    out: set[str] = set()
    for case, result in zip(cases, results, strict=True):
        left = codes - out
        if not left or result.verdict is not Verdict.PASSED:
            continue
        params = case.params
        if case.kind == "movegen":
            out |= {
                c
                for c in left
                if "movegen" in VARIANTS[c].kinds and moves_differ(VARIANTS[c], params["fen"])
            }
        elif case.kind in ("search", "timing"):
            fen = params["fen"]
            alpha, beta = root_window(case) if case.kind == "search" else (-INFINITY, INFINITY)
            for depth in [params["depth"]] if case.kind == "search" else params["depths"]:
                if reference(fen, depth, alpha, beta).leaves_minimax > DIAGNOSIS_LEAVES:
                    continue
                out |= {c for c in left if search_differs(VARIANTS[c], fen, depth, alpha, beta)}
    return out
