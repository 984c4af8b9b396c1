"""The late policy, from server time: whole days started after the due date, a percent per day.

    days late = ceil((submitted − due) / 1 day), 0 when on time
    penalty   = min(1, percent per day × days late / 100)      (a fraction of the score)
    credited  = score × (1 − penalty)                          (never below 0)

An assignment without a percent per day takes no late attempt. With one, attempts are taken until
the penalty reaches 100% (`closes_at`); the key is shown to everyone only after that, so nobody
can read it and then submit late. Attempts store their lateness when made; a regrade recomputes it.
Which due date and policy apply to a student is `deadlines` (extensions), which calls these.
"""

from __future__ import annotations

import datetime as dt
import math

from grader.services import plural

DAY = dt.timedelta(days=1)


def days_late(submitted_at: dt.datetime, due_at: dt.datetime | None) -> int:
    if due_at is None or submitted_at <= due_at:
        return 0
    return math.ceil((submitted_at - due_at) / DAY)


def penalty(days: int, percent_per_day: float | None) -> float:
    if not days or not percent_per_day:
        return 0.0
    return min(1.0, max(0.0, percent_per_day * days / 100.0))


def closes_at(due_at: dt.datetime | None, percent_per_day: float | None) -> dt.datetime | None:
    """When attempts stop being taken: the due date, or the first moment of full penalty
    (None: never; a policy of 0% per day takes late attempts for ever, unpenalized)."""
    if due_at is None or percent_per_day is None:
        return due_at
    if percent_per_day <= 0:
        return None
    return due_at + DAY * (math.ceil(100.0 / percent_per_day) - 1)


RULE = "each started day counts"  # how days late are counted, as the pages name the rule


def late_by(span: dt.timedelta) -> str:
    """How long after a due time, in words: "1 day 36 minutes", "3 hours 5 minutes"."""
    minutes = max(1, math.ceil(span.total_seconds() / 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    return " ".join(plural(n, unit) for n, unit in parts if n)


def cost_words(
    days: int,
    slip_days: int,
    penalty_share: float,
    percent_per_day: float | None,
    *,
    to_come: bool,
) -> str:
    """What lateness costs, in words, under the course's rule: before the work is stored
    (`to_come`: "will spend") or after ("spent"). The one sentence the exercise and upload
    pages, the result and the API say; "" when the work is on time."""
    if not days:
        return ""
    costs = []
    if slip_days:
        costs.append(("will spend " if to_come else "spent ") + plural(slip_days, "slip day"))
    if penalty_share:
        share = f"{penalty_share * 100:g}%"
        costs.append(
            f"{'will take' if to_come else 'took'} {share} off the score "
            f"({percent_per_day:g}% for each late day"
            + (" slip days do not cover)" if slip_days else ")")
        )
    if not costs:
        costs.append("costs nothing" if to_come else "cost nothing")
    return f"{plural(days, 'day')} late ({RULE}): it " + " and ".join(costs) + "."
