"""An Elo estimate of an engine from its games against the ladder.

The ladder engines' ratings are assumed constants (LADDER_RATINGS, not measured: they set the
scale, one engine 200 points above another scoring about 76% against it). The estimate is the
maximum-likelihood rating R under the Elo model: each game scores s in {0, 1/2, 1} with
expectation E = 1 / (1 + 10 ** ((R_opponent - R) / 400)); R solves sum(s - E) = 0 (found by
bisection: the sum falls as R grows). The error bar is 1.96 standard errors, the standard
error being 1 / sqrt(Fisher information), information = sum (ln 10 / 400)^2 E (1 - E).
With all games won (or all lost) no finite maximum exists: the estimate is then the bound
(``bound`` says ``lower`` or ``upper``), 400 points past the strongest (weakest) opponent.

Among players none of whom is a fixed point (a tournament's entrants), `ratings` repeats each
player's estimate against the others' current ratings until they settle, the mean pinned at
1500. A game's points for each side (`points`) are the same for the ladder and a tournament.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TypeVar

Player = TypeVar("Player", bound=Hashable)

LADDER_RATINGS: dict[str, float] = {
    "random": 400.0,
    "greedy": 800.0,
    "ref:2": 1200.0,
    "ref:4": 1500.0,
    "ref:6": 1750.0,
    "ref:8": 1950.0,
    "ref:best": 2100.0,
}
SCALE = 400.0


@dataclass(frozen=True)
class EloEstimate:
    rating: float
    error: float  # half-width of the 95% interval; inf when unbounded
    games: int
    score: float  # points scored
    bound: str = ""  # "lower" or "upper" when the games do not bound the rating

    def text(self) -> str:
        if not self.games:
            return "no games"
        if self.bound:
            sign = ">" if self.bound == "lower" else "<"
            return f"{sign} {self.rating:.0f} ({self.score:g}/{self.games})"
        return f"{self.rating:.0f} ± {self.error:.0f} ({self.score:g}/{self.games})"


def points(result: str | None, black: bool) -> float:
    """A game's points for one side: 1 for a win, 0 for a loss, 1/2 for a draw or a game cut
    unfinished (``*``); `result` is the PDN's (1-0: Black won)."""
    if result == "1-0":
        return 1.0 if black else 0.0
    if result == "0-1":
        return 0.0 if black else 1.0
    return 0.5


def expected(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10 ** ((opponent - rating) / SCALE))


def estimate(results: list[tuple[float, float]]) -> EloEstimate:
    """Rating from (opponent rating, score) pairs."""
    if not results:
        return EloEstimate(0.0, math.inf, 0, 0.0)
    total = sum(s for _, s in results)
    n = len(results)
    if total >= n:
        return EloEstimate(max(r for r, _ in results) + SCALE, math.inf, n, total, "lower")
    if total <= 0:
        return EloEstimate(min(r for r, _ in results) - SCALE, math.inf, n, total, "upper")
    low, high = -4000.0, 8000.0
    for _ in range(100):
        mid = (low + high) / 2
        if sum(s - expected(mid, r) for r, s in results) > 0:
            low = mid
        else:
            high = mid
    rating = (low + high) / 2
    k = math.log(10) / SCALE
    information = sum(k * k * expected(rating, r) * (1 - expected(rating, r)) for r, _ in results)
    return EloEstimate(rating, 1.96 / math.sqrt(information), n, total)


def ratings(
    games: list[tuple[Player, Player, float]], players: list[Player]
) -> dict[Player, tuple[float, str]]:
    """Elo from (a, b, points of a) games: the fixed point of each player's estimate, the mean
    of the finite ratings pinned at 1500; each with its bound ("lower", "upper" or "")."""
    rating = dict.fromkeys(players, 1500.0)
    bounds = dict.fromkeys(players, "")
    for _ in range(200):
        new = {}
        for p in players:
            mine = [(rating[b], s) for a, b, s in games if a == p] + [
                (rating[a], 1.0 - s) for a, b, s in games if b == p
            ]
            found = estimate(mine)
            new[p], bounds[p] = (found.rating if mine else 1500.0), found.bound
        finite = [new[p] for p in players if not bounds[p]]
        shift = 1500.0 - sum(finite) / len(finite) if finite else 0.0
        new = {p: v + shift for p, v in new.items()}
        settled = max(abs(new[p] - rating[p]) for p in players) < 0.05
        rating = new
        if settled:
            break
    return {p: (rating[p], bounds[p]) for p in players}
