"""harness/elo.py's game points and the tournament's ratings (pure: no sandbox, no database)."""

from __future__ import annotations

import pytest

from grader.harness.elo import expected, points, ratings


@pytest.mark.parametrize(
    ("result", "black", "white"),
    [
        ("1-0", 1.0, 0.0),
        ("0-1", 0.0, 1.0),
        ("1/2-1/2", 0.5, 0.5),
        ("*", 0.5, 0.5),
        (None, 0.5, 0.5),
    ],
)
def test_points_of_each_side(result: str | None, black: float, white: float) -> None:
    assert points(result, True) == black
    assert points(result, False) == white


def test_ratings_settle_at_the_maximum_likelihood_with_the_mean_at_1500() -> None:
    # a beats b 3 times out of 4; b beats c 3 times out of 4; a and c draw twice
    games = (
        [("a", "b", s) for s in (1.0, 1.0, 1.0, 0.0)]
        + [("b", "c", s) for s in (1.0, 1.0, 1.0, 0.0)]
        + [("a", "c", 0.5)] * 2
    )
    found = ratings(games, ["a", "b", "c"])
    assert all(bound == "" for _, bound in found.values())
    assert sum(r for r, _ in found.values()) / 3 == pytest.approx(1500.0, abs=0.01)
    # At the maximum each player's expected score equals what they scored.
    for player in "abc":
        mine = [(found[b][0], s) for a, b, s in games if a == player] + [
            (found[a][0], 1 - s) for a, b, s in games if b == player
        ]
        scored = sum(s for _, s in mine)
        assert sum(expected(found[player][0], r) for r, _ in mine) == pytest.approx(
            scored, abs=0.02
        )


def test_a_player_who_won_every_game_gets_a_lower_bound() -> None:
    found = ratings([("a", "b", 1.0), ("a", "b", 1.0), ("b", "c", 0.5)], ["a", "b", "c"])
    assert found["a"][1] == "lower" and found["b"][1] == found["c"][1] == ""
    assert found["a"][0] > max(found["b"][0], found["c"][0])
