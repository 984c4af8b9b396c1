"""The sequential probability ratio test of engine testing: when a match's games are enough.

A match (the games against one opponent) is a sample of game scores, each 0 (a loss), 1/2 (a
draw) or 1 (a win). Its two hypotheses are logistic Elo differences to the opponent, `elo0`
and `elo1` (elo0 < elo1), i.e. expected scores s0 = L(elo0) and s1 = L(elo1) with
L(x) = 1 / (1 + 10 ** (-x / 400)). The statistic is the generalized log-likelihood ratio of
the trinomial (GSPRT), as fishtest computes it (`LLR_logistic` in fishtest's
server/fishtest/stats/LLRcalc.py): for each hypothesis, the distribution over {0, 1/2, 1}
closest to the observed one (the maximum-likelihood estimate) whose expectation is s; the LLR
is the sum over the games of log p1(score) - log p0(score). A count of zero is replaced by
0.001 first (fishtest's `regularize`), so that a match won throughout still has a finite
LLR. Wald's bounds: H1 is accepted once LLR >= log((1 - beta) / alpha), H0 once
LLR <= log(beta / (1 - alpha)); in between, the match goes on.

The maximum-likelihood estimate under the expectation s is p_i / (1 + x (a_i - s)) for the
observed frequencies p_i of the scores a_i, x the root of sum p_i (a_i - s) / (1 + x (a_i - s))
= 0 between -1 / max(a_i - s) and -1 / min(a_i - s) (the function falls there: bisection).

Standard library only: the harness reads it, and its tests check it against fishtest's values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

EPSILON = 1e-3  # what a count of zero is taken as (fishtest's regularize)


def score(elo: float) -> float:
    """The expected score of a player `elo` logistic Elo points above its opponent."""
    return 1.0 / (1.0 + 10 ** (-elo / 400.0))


def _closest(pdf: list[tuple[float, float]], s: float) -> list[float]:
    """The probabilities, on `pdf`'s scores, of the distribution of expectation `s` that is
    most likely to have given `pdf`'s frequencies (s strictly between the least and greatest
    score)."""
    shifted = [(a - s, p) for a, p in pdf]
    low = -1.0 / max(a for a, _ in shifted)
    high = -1.0 / min(a for a, _ in shifted)

    def slope(x: float) -> float:
        return sum(p * a / (1.0 + x * a) for a, p in shifted)

    for _ in range(200):  # the interval halves each time: far past a double's precision
        mid = (low + high) / 2
        if mid in (low, high):
            break
        if slope(mid) > 0:
            low = mid
        else:
            high = mid
    x = (low + high) / 2
    return [p / (1.0 + x * a) for a, p in shifted]


def llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The trinomial GSPRT's log-likelihood ratio of elo1 against elo0 for these games."""
    if elo0 >= elo1:
        raise ValueError(f"elo0 must be below elo1, got {elo0} and {elo1}")
    counts = [float(c) if c > 0 else EPSILON for c in (losses, draws, wins)]
    total = sum(counts)
    pdf = [(i / 2, c / total) for i, c in enumerate(counts)]
    p0, p1 = (_closest(pdf, score(elo)) for elo in (elo0, elo1))
    return total * sum(
        f * (math.log(b) - math.log(a)) for (_, f), a, b in zip(pdf, p0, p1, strict=True)
    )


@dataclass(frozen=True)
class Sprt:
    """The test's parameters: the two hypotheses (Elo differences to the opponent) and the
    errors allowed: alpha (accepting H1 when H0 holds) and beta (H0 when H1 holds)."""

    elo0: float = -200.0
    elo1: float = 200.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got {self.elo0} and {self.elo1}")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {getattr(self, name)}")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper) bounds on the LLR."""
        return (
            math.log(self.beta / (1 - self.alpha)),
            math.log((1 - self.beta) / self.alpha),
        )

    def decide(self, wins: int, draws: int, losses: int) -> Decision:
        """What these games say: H1, H0, or nothing yet ("")."""
        value = llr(wins, draws, losses, self.elo0, self.elo1) if wins + draws + losses else 0.0
        lower, upper = self.bounds
        accepted = "H1" if value >= upper else "H0" if value <= lower else ""
        return Decision(accepted, value, lower, upper)

    def words(self) -> str:
        return (
            f"SPRT of Elo {self.elo0:+g} against {self.elo1:+g} to the opponent, "
            f"alpha {self.alpha:g}, beta {self.beta:g}"
        )


@dataclass(frozen=True)
class Decision:
    accepted: str  # "H1", "H0", or "" while undecided
    llr: float
    lower: float
    upper: float

    def words(self) -> str:
        if self.accepted == "H1":
            return f"stronger: LLR {self.llr:.2f} reached {self.upper:.2f}"
        if self.accepted == "H0":
            return f"weaker: LLR {self.llr:.2f} reached {self.lower:.2f}"
        return f"undecided: LLR {self.llr:.2f}, between {self.lower:.2f} and {self.upper:.2f}"


def group_test(spec: Mapping[str, Any]) -> tuple[Sprt, Any]:
    """A play group's "sprt": its test (Sprt's own refusal when the parameters are not one) and
    what it lists as "lopsided", the opponents whose matches played through may stop early
    (None when it lists none: every opponent's)."""
    test = dict(spec)
    lopsided = test.pop("lopsided", None)
    return Sprt(**test), lopsided
