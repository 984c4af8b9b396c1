"""harness/sprt.py: the trinomial GSPRT of engine testing (pure: no sandbox).

The expected log-likelihood ratios are fishtest's: `LLR_logistic(elo0, elo1, [L, D, W])` of
official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py (commit 0753fcc6222e), run with
its own scipy root-finder; the bounds are Wald's, as fishtest's and cutechess-cli's SPRT
print them (alpha = beta = 0.05: -2.94 and 2.94).
"""

from __future__ import annotations

import math

import pytest

from grader.harness.sprt import Sprt, llr, score

# (wins, draws, losses, elo0, elo1, fishtest's LLR_logistic)
FISHTEST = [
    (3, 0, 0, -200, 200, 3.4538766911241),
    (2, 0, 0, -200, 200, 2.302583670680953),
    (0, 0, 3, -200, 200, -3.4538766911240995),
    (3, 2, 1, -200, 200, 3.2353389971749746),
    (3, 1, 2, -200, 200, 1.3486640124187006),
    (20, 10, 5, 0, 50, 2.5581910862152624),
    (1100, 2000, 1000, 0, 5, 1.9812745129192313),
    (2600, 5000, 2400, -1.75, 0.25, 2.5508573138411945),
]


@pytest.mark.parametrize(("wins", "draws", "losses", "elo0", "elo1", "expected"), FISHTEST)
def test_the_llr_is_fishtests(wins, draws, losses, elo0, elo1, expected) -> None:
    assert llr(wins, draws, losses, elo0, elo1) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_wald_bounds_and_the_decisions_they_give() -> None:
    test = Sprt(elo0=-200, elo1=200, alpha=0.05, beta=0.05)
    lower, upper = test.bounds
    assert lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(-lower)
    assert test.decide(0, 0, 0).accepted == ""  # nothing played: nothing known
    assert test.decide(2, 0, 0).accepted == ""  # 2.30: not yet
    assert test.decide(3, 0, 0).accepted == "H1"  # 3.45
    assert test.decide(0, 0, 3).accepted == "H0"
    assert test.decide(3, 1, 2).accepted == ""  # 1.35: a close match goes on
    assert "stronger" in test.decide(3, 0, 0).words()
    assert "undecided" in test.decide(1, 0, 1).words()
    # A looser test decides sooner: 2 wins pass log(0.9 / 0.1) = 2.20.
    assert Sprt(alpha=0.1, beta=0.1).decide(2, 0, 0).accepted == "H1"


def test_the_llr_is_antisymmetric_and_grows_with_wins() -> None:
    assert llr(4, 1, 2, -100, 100) == pytest.approx(-llr(2, 1, 4, -100, 100))
    assert llr(1, 1, 1, -100, 100) == pytest.approx(0.0, abs=1e-9)
    values = [llr(w, 2, 2, -100, 100) for w in range(6)]
    assert values == sorted(values)


def test_score_is_the_logistic_expectation() -> None:
    assert score(0) == 0.5
    assert score(200) == pytest.approx(1 / (1 + 10**-0.5))
    assert score(-200) == pytest.approx(1 - score(200))


@pytest.mark.parametrize(
    "params",
    [
        {"elo0": 100, "elo1": 100},
        {"elo0": 200, "elo1": -200},
        {"alpha": 0},
        {"beta": 0.5},
    ],
)
def test_parameters_that_are_no_test_are_refused(params) -> None:
    with pytest.raises(ValueError):
        Sprt(**params)
