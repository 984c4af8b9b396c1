"""Item statistics per slot (as PrairieLearn reports them) and misconception analytics.

Per slot, over the students with at least one attempt on its graded variant:
- attempts: every attempt made on the slot's graded variants;
- mean score: the mean of the students' slot scores under the assignment's policy (raw scores,
  before any late penalty: the statistics describe the item, not the calendar);
- share perfect: the share of those students whose slot score is 1;
- mean first-attempt score: the mean score of each student's first attempt;
- discrimination: the point-biserial correlation of "perfect on this slot" (1/0) with the
  student's assignment total (the sum of their slot scores, this slot included, as PrairieLearn
  does), over the students with an attempt anywhere in the assignment:
      r = (M1 − M0) / s × sqrt(p q)
  M1, M0 the mean totals of the students perfect / not perfect on the slot, s the population
  standard deviation of the totals, p the share perfect, q = 1 − p. None (shown as "—") with
  fewer than 2 students, or when s = 0 or p is 0 or 1;
- a histogram of the slot scores in ten bins, the last holding exactly 100%.

Misconceptions: how often a wrong answer (score < 1) matched each misconception code, counting
every attempt on the slot's exercises (graded and practice variants: both show what students think).
Each wrong attempt counts once, under the one code its grade names (where several variants give
its answer, the first in the library's order: `Grade.candidates` holds them all).
For an engine slot: how many graded engine runs each checkers misconception explains
(grader/checkers/variants.py), and over how many runs: a run counts the codes of its
explanation (the fewest that explain all its diagnosed tests, grader/harness/diagnosis.py),
never each candidate of an ambiguous test; a run whose stored results (`EngineResult.rich`) hold
no "explanation" counts the fewest codes covering its tests' diagnoses.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from grader.checkers.variants import VARIANTS as ENGINE_VARIANTS
from grader.checkers.variants import fewest_explaining
from grader.extensions import db
from grader.gametree import VARIANTS
from grader.gametree.variants import CHANCE_VARIANTS
from grader.models import Assignment, Attempt, EngineResult, Exercise, Slot, Submission, User
from grader.services.courses.courses import course_assignments
from grader.services.courses.staff import Staff, staff
from grader.services.teaching.scores import GradedAttempt, counted_attempts, policy_score

HISTOGRAM_BINS = 10
UNMATCHED = "no known misconception"


def point_biserial(perfect: list[bool], totals: list[float]) -> float | None:
    """r = (M1 − M0) / s × sqrt(p q), s the population standard deviation of the totals."""
    n = len(totals)
    if n < 2 or len(perfect) != n:
        return None
    ones = [t for t, p in zip(totals, perfect, strict=True) if p]
    zeros = [t for t, p in zip(totals, perfect, strict=True) if not p]
    if not ones or not zeros:
        return None
    mean = sum(totals) / n
    s = math.sqrt(sum((t - mean) ** 2 for t in totals) / n)
    if s == 0:
        return None
    p = len(ones) / n
    return (sum(ones) / len(ones) - sum(zeros) / len(zeros)) / s * math.sqrt(p * (1 - p))


def histogram(scores: list[float], bins: int = HISTOGRAM_BINS) -> list[int]:
    """Counts in [0, 10%), [10%, 20%), ..., [80%, 90%), [90%, 100%) and exactly 100% last."""
    counts = [0] * (bins + 1)
    for score in scores:
        counts[bins if score >= 1 else min(bins - 1, int(score * bins))] += 1
    return counts


def histogram_labels(bins: int = HISTOGRAM_BINS) -> list[str]:
    step = 100 // bins
    return [f"{i * step}–{(i + 1) * step - 1}%" for i in range(bins)] + ["100%"]


@dataclass(frozen=True)
class SlotStats:
    slot_id: int
    index: int
    title: str
    kind: str
    students: int
    attempts: int
    mean_score: float | None
    share_perfect: float | None
    mean_first_score: float | None
    discrimination: float | None
    histogram: list[int]

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "histogram_labels": histogram_labels()}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def slot_statistics(assignment: Assignment, attempts: list[GradedAttempt]) -> list[SlotStats]:
    """The statistics of each slot from the assignment's graded attempts (oldest first)."""
    by_slot: dict[int, dict[int, list[GradedAttempt]]] = defaultdict(lambda: defaultdict(list))
    for attempt in attempts:
        by_slot[attempt.slot_id][attempt.user_id].append(attempt)
    people = sorted({a.user_id for a in attempts})
    slot_score = {
        (slot.id, user): policy_score(
            by_slot[slot.id].get(user, []), assignment.score_policy, credited=False
        )
        for slot in assignment.slots
        for user in people
    }
    totals = {
        user: sum(slot_score[(slot.id, user)] or 0.0 for slot in assignment.slots)
        for user in people
    }
    result = []
    for slot in assignment.slots:
        mine = by_slot.get(slot.id, {})
        # Everyone in `mine` made an attempt, so has a score.
        scores = [s for user in mine if (s := slot_score[(slot.id, user)]) is not None]
        perfect = [(slot_score[(slot.id, user)] or 0.0) >= 1.0 for user in people]
        result.append(
            SlotStats(
                slot.id,
                slot.index,
                slot.name,
                slot.kind,
                len(mine),
                sum(len(v) for v in mine.values()),
                _mean(scores),
                _mean([1.0 if s >= 1 else 0.0 for s in scores]),
                _mean([v[0].score for v in mine.values()]),
                point_biserial(perfect, [totals[user] for user in people]),
                histogram(scores),
            )
        )
    return result


def statistics(
    user: User, course_id: int
) -> tuple[Staff, list[tuple[Assignment, list[SlotStats]]]]:
    as_staff = staff(user, course_id)
    attempts = counted_attempts(course_id)
    by_assignment: dict[int, list[GradedAttempt]] = defaultdict(list)
    for attempt in attempts:
        by_assignment[attempt.assignment_id].append(attempt)
    assignments = course_assignments(course_id)
    return as_staff, [(a, slot_statistics(a, by_assignment.get(a.id, []))) for a in assignments]


# -- misconceptions ----------------------------------------------------------------------------


def week_of(moment: dt.datetime) -> str:
    """The ISO week, e.g. 2026-W47."""
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"


@dataclass
class Misconceptions:
    codes: list[str]  # every code, in the library's order, then UNMATCHED
    wrong: int = 0  # wrong attempts (score < 1)
    by_assignment: dict[int, Counter[str]] = field(default_factory=dict)
    by_slot: dict[int, Counter[str]] = field(default_factory=dict)
    by_week: dict[str, Counter[str]] = field(default_factory=dict)
    total: Counter[str] = field(default_factory=Counter)
    # Engine slots: runs naming each checkers misconception, and the graded runs in all.
    engine_codes: list[str] = field(default_factory=lambda: list(ENGINE_VARIANTS))
    by_engine_slot: dict[int, Counter[str]] = field(default_factory=dict)
    engine_runs: Counter[int] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        return {
            "codes": self.codes,
            "wrong_attempts": self.wrong,
            "total": dict(self.total),
            "by_assignment": {str(k): dict(v) for k, v in self.by_assignment.items()},
            "by_slot": {str(k): dict(v) for k, v in self.by_slot.items()},
            "by_week": {k: dict(v) for k, v in sorted(self.by_week.items())},
            "engine_codes": self.engine_codes,
            "by_engine_slot": {str(k): dict(v) for k, v in self.by_engine_slot.items()},
            "engine_runs": {str(k): v for k, v in self.engine_runs.items()},
        }


def count_misconceptions(rows: list[tuple[int, int, str | None, dt.datetime]]) -> Misconceptions:
    """From (assignment id, slot id, diagnosis, when) of wrong attempts. The codes: every MAX/MIN
    misconception, the chance ones that some attempt shows (a course without chance exercises
    sees no column of theirs), then UNMATCHED."""
    found = Misconceptions([*VARIANTS, UNMATCHED])
    for assignment_id, slot_id, diagnosis, when in rows:
        code = diagnosis or UNMATCHED
        found.wrong += 1
        found.total[code] += 1
        found.by_assignment.setdefault(assignment_id, Counter())[code] += 1
        found.by_slot.setdefault(slot_id, Counter())[code] += 1
        found.by_week.setdefault(week_of(when), Counter())[code] += 1
    chance = [code for code in CHANCE_VARIANTS if found.total[code]]
    found.codes = [*VARIANTS, *chance, UNMATCHED]
    return found


def count_engine_misconceptions(found: Misconceptions, rows: list[tuple[int, Any, Any]]) -> None:
    """From (slot id, the rich results' tests, their explanation) of graded engine runs: per
    slot, the runs whose explanation names each misconception, and the runs in all."""
    for slot_id, tests, explanation in rows:
        found.engine_runs[slot_id] += 1
        counts = found.by_engine_slot.setdefault(slot_id, Counter())
        for code in set(found.engine_codes) & set(run_explanation(tests, explanation)):
            counts[code] += 1


def run_explanation(tests: Any, explanation: Any) -> tuple[str, ...]:
    """The codes that explain a stored run: its explanation's, or for a run stored without one,
    the fewest covering its tests' candidates (or their one diagnosis)."""
    if isinstance(explanation, dict) and isinstance(explanation.get("codes"), list):
        return tuple(str(c) for c in explanation["codes"])
    candidates = []
    for t in tests or ():
        extra = (t.get("extra") or {}) if isinstance(t, dict) else {}
        named = extra.get("candidates") or [extra.get("diagnosis")]
        candidates.append([str(c) for c in named if c])
    covers = fewest_explaining(candidates)
    return covers[0] if covers else ()


def misconceptions(
    user: User, course_id: int, assignment_id: int | None = None
) -> tuple[Staff, list[Assignment], Misconceptions]:
    """Wrong attempts by misconception code, per slot, per assignment and per week."""
    as_staff = staff(user, course_id)
    query = (
        sa.select(Slot.assignment_id, Slot.id, Attempt.diagnosis, Attempt.created_at)
        .select_from(Attempt)
        .join(Exercise, Attempt.exercise_id == Exercise.id)
        .join(Slot, Exercise.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(
            Assignment.course_id == course_id,
            Attempt.score < 1,
            Attempt.user_id == Exercise.owner_id,
        )
    )
    if assignment_id is not None:
        query = query.where(Assignment.id == assignment_id)
    found = count_misconceptions(
        [(a_id, s_id, diagnosis, when) for a_id, s_id, diagnosis, when in db.session.execute(query)]
    )
    engines = (
        sa.select(Submission.slot_id, EngineResult.rich["tests"], EngineResult.rich["explanation"])
        .join(EngineResult, EngineResult.submission_id == Submission.id)
        .join(Slot, Submission.slot_id == Slot.id)
        .join(Assignment, Slot.assignment_id == Assignment.id)
        .where(Assignment.course_id == course_id)
    )
    if assignment_id is not None:
        engines = engines.where(Assignment.id == assignment_id)
    count_engine_misconceptions(found, [tuple(r) for r in db.session.execute(engines)])
    assignments = course_assignments(course_id)
    return as_staff, assignments, found
