"""harness/ladder.py: a play group's games as matches, each stopped once its SPRT has decided
and its games agree on their points; games of different matches at once.

The scheduling is tested on scripted games (its own logic, no sandbox); the last tests grade
real sample engines in the sandbox.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from grader.harness.cases import TestCase, TestResult, result_of
from grader.harness.ladder import matches_of, play_matches
from grader.harness.results import rich, summary
from grader.harness.runner import grade_engine
from grader.harness.sandbox import SandboxConfig
from grader.harness.suite import load_suite
from grader.harness.verdicts import Verdict
from tests.harness._helpers import leftover_processes, needs_bwrap

SPRT = {"elo0": -200, "elo1": 200, "alpha": 0.05, "beta": 0.05}


def games(opponents: list[str], per_match: int = 6, sprt: dict | None = SPRT) -> list[TestCase]:
    return [
        TestCase(
            f"Game vs {o}, game {n}",
            "play",
            1.0,
            {
                "opponent": o,
                "ballot": n // 2 + 1,
                "colour": ("black", "white")[n % 2],
                "sprt": sprt,
            },
            1.0,
            4.0,
        )
        for o in opponents
        for n in range(per_match)
    ]


def scripted(outcomes: dict[str, list[float | str]]):
    """play(test, lane): the next outcome of the test's opponent: a score, or a verdict's
    name for a forfeit (a loss). Records the order games were asked for."""
    asked: list[str] = []
    lock = threading.Lock()

    def play(test: TestCase, lane: int) -> TestResult:
        with lock:
            asked.append(test.name)
            outcome = outcomes[test.params["opponent"]][
                sum(a.startswith(f"Game vs {test.params['opponent']},") for a in asked) - 1
            ]
        if isinstance(outcome, str):
            return result_of(test, Verdict(outcome), "forfeit", 0.0, points=0.0)
        return result_of(test, Verdict.PASSED, "played", test.points, points=outcome)

    return play, asked


def test_a_match_won_throughout_stops_once_decided_and_credits_the_rest() -> None:
    play, asked = scripted({"random": [1.0] * 6})
    done: list[str] = []
    results, (match,) = play_matches(games(["random"]), play, done=lambda r: done.append(r.name))
    assert len(asked) == match.played == 3  # LLR 3.45 after 3 wins passes 2.94
    assert sorted(done) == sorted(t.name for t in games(["random"]))  # progress reaches 6 of 6
    assert [r.score for r in results] == [1.0] * 6  # the points of every game, as before
    assert [r.extra.get("played", True) for r in results] == [True] * 3 + [False] * 3
    assert "not played" in results[5].output and "after 3 of 6 games" in results[5].output
    assert match.summary()["why"].startswith("stopped early, stronger")
    assert match.summary()["played"] == 3 and match.summary()["games"] == 6


def test_a_match_forfeited_throughout_stops_with_no_points() -> None:
    play, asked = scripted({"greedy": ["ILLEGAL_MOVE"] * 6})
    results, (match,) = play_matches(games(["greedy"]), play)
    assert len(asked) == 3 and match.decision is not None and match.decision.accepted == "H0"
    assert [r.score for r in results] == [0.0] * 6
    assert all(r.verdict is Verdict.ILLEGAL_MOVE for r in results)


def test_a_match_whose_games_differ_in_points_plays_every_game() -> None:
    # Won throughout but for a forfeit in game 2: the SPRT decides, the points do not agree.
    play, asked = scripted({"random": [1.0, "ILLEGAL_MOVE", 1.0, 1.0, 1.0, 1.0]})
    results, (match,) = play_matches(games(["random"]), play)
    assert len(asked) == 6 and not match.stopped
    assert [r.score for r in results] == [1.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert "differed in points" in match.summary()["why"]


def test_a_match_decided_only_at_its_last_game_says_so() -> None:
    # Played through throughout, so its games agreed; its SPRT first decides after game 6.
    play, asked = scripted({"random": [1.0, 1.0, 0.0, 1.0, 0.5, 1.0]})
    _, (match,) = play_matches(games(["random"], sprt={**SPRT, "lopsided": ["random"]}), play)
    assert len(asked) == 6 and not match.stopped and match.decided_at == 6
    why = match.summary()["why"]
    assert why.startswith("every game played (stronger") and why.endswith("only at its last game)")
    assert "differed" not in why


def test_a_close_match_and_a_group_without_sprt_play_every_game() -> None:
    play, asked = scripted({"ref:6": [1.0, 0.0, 0.5, 1.0, 0.0, 0.5]})
    _, (match,) = play_matches(games(["ref:6"]), play)
    assert len(asked) == 6 and not match.stopped and "undecided" in match.summary()["why"]
    play, asked = scripted({"random": [1.0] * 6})
    _, (match,) = play_matches(games(["random"], sprt=None), play)
    assert len(asked) == 6 and match.summary()["why"] == "every game played (no sequential test)"


def test_only_lopsided_matches_played_through_stop_early() -> None:
    """With "lopsided" listed, a match won throughout stops early only against a listed
    opponent; against the others it plays every game (they inform the Elo), unless its games
    were forfeited, which stops it as before."""
    sprt = {**SPRT, "lopsided": ["random", "greedy"]}
    outcomes: dict[str, list[float | str]] = {
        "random": [1.0] * 6,
        "greedy": [1.0] * 6,
        "ref:2": [1.0] * 6,
        "ref:4": [1.0] * 6,
    }
    play, asked = scripted(outcomes)
    results, matches = play_matches(games(list(outcomes), sprt=sprt), play, lanes=2)
    assert [m.played for m in matches] == [3, 3, 6, 6]
    assert [m.stopped != "" for m in matches] == [True, True, False, False]
    assert all(r.extra.get("played", True) for r in results if "ref:" in r.name)
    why = matches[2].summary()["why"]
    assert why.startswith("every game played (stronger") and "inform the Elo" in why
    assert len(asked) == 18 and [r.score for r in results] == [1.0] * 24
    # Forfeited throughout against an opponent not listed: stopped after 3, no points.
    play, asked = scripted({"ref:4": ["TLE"] * 6})
    results, (match,) = play_matches(games(["ref:4"], sprt=sprt), play)
    assert len(asked) == match.played == 3 and match.stopped
    assert [r.score for r in results] == [0.0] * 6


def test_a_suite_lists_only_its_own_opponents_as_lopsided(tmp_path: Path) -> None:
    suite_file = tmp_path / "ladder.json"
    suite_file.write_text(LADDER.replace('"beta": 0.05}', '"beta": 0.05, "lopsided": ["ref:2"]}'))
    with pytest.raises(ValueError, match="lopsided must list some of the group's opponents"):
        load_suite(suite_file)
    # The full suite stops early only its matches against random and greedy played through.
    matches = matches_of([t for t in load_suite("full").tests if t.kind == "play"])
    assert {m.opponent: m.lopsided for m in matches} == {
        "random": True,
        "greedy": True,
        "ref:2": False,
        "ref:4": False,
        "ref:6": False,
    }
    assert all(m.sprt is not None for m in matches)


def test_elo_games_add_games_that_score_no_points(tmp_path: Path) -> None:
    """The full suite's one game more against ref:4, on a ballot none of the group's games
    uses, scores no points and is the last of ref:4's match, which plays it through."""
    full = load_suite("full")
    play = [t for t in full.tests if t.kind == "play"]
    assert len(play) == 31 and full.max_score == 222
    (extra,) = [t for t in play if t.points == 0]
    assert extra.name.endswith(", for the Elo only") and extra.params["colour"] == "black"
    assert extra.params["opponent"] == "ref:4"
    assert extra.params["ballot"] not in {t.params["ballot"] for t in play if t is not extra}
    ref4 = next(m for m in matches_of(play) if m.opponent == "ref:4")
    assert len(ref4.tests) == 7 and ref4.tests[-1] is extra and not ref4.lopsided
    # Refused: an opponent not of the group, or a count that is not a small whole number.
    suite_file = tmp_path / "ladder.json"
    for bad in ('{"ref:4": 1}', '{"random": 0}', '{"random": true}', '["random"]'):
        suite_file.write_text(LADDER.replace('"sprt"', f'"elo_games": {bad}, "sprt"'))
        with pytest.raises(ValueError, match="elo_games must map some of its opponents"):
            load_suite(suite_file)
    suite_file.write_text(LADDER.replace('"sprt"', '"elo_games": {"random": 3}, "sprt"'))
    games_of = [t for t in load_suite(suite_file).tests if t.kind == "play"]
    assert [t.params["colour"] for t in games_of[4:]] == ["black", "white", "black"]
    assert len({t.params["ballot"] for t in games_of[4:]}) == 2


def test_lanes_play_matches_at_once_and_decide_as_one_lane_does() -> None:
    outcomes: dict[str, list[float | str]] = {
        "random": [1.0] * 6,
        "greedy": [1.0, 1.0, 0.5, 1.0, 1.0, 1.0],
        "ref:6": [0.0, 1.0, 0.5, 0.5, 1.0, 0.0],
    }
    tests = games(list(outcomes))
    play, _ = scripted(outcomes)
    alone, _ = play_matches(tests, play, lanes=1)
    # Three lanes: each match's first game waits until the other two have started, so the
    # run gets past them only if matches really are played at once; one never has two.
    together = threading.Barrier(3)
    running: dict[str, int] = {}
    seen_lanes: set[int] = set()
    lock = threading.Lock()
    play3, _ = scripted(outcomes)

    def overlapping(test: TestCase, lane: int) -> TestResult:
        opponent = test.params["opponent"]
        with lock:
            running[opponent] = running.get(opponent, 0) + 1
            assert running[opponent] == 1, f"two games of {opponent} at once"
            seen_lanes.add(lane)
        if test.name.endswith("game 0"):
            together.wait(timeout=60)
        with lock:
            running[opponent] -= 1
        return play3(test, lane)

    parallel, matches = play_matches(tests, overlapping, lanes=3)
    assert seen_lanes == {0, 1, 2}
    assert [(r.name, r.score, r.extra.get("played", True)) for r in parallel] == [
        (r.name, r.score, r.extra.get("played", True)) for r in alone
    ]
    assert [m.played for m in matches] == [3, 3, 6]  # greedy: W W D decides too


LADDER = """{
  "name": "ladder", "start": {"cpu": 3, "wall": 6},
  "groups": [{"kind": "play", "points": 1, "time_per_move": 0.1, "margin": 0.4,
              "max_plies": 200, "ballots": 2, "seed": 3, "opponents": ["random"],
              "sprt": {"elo0": -200, "elo1": 200, "alpha": 0.05, "beta": 0.05}}]
}"""


@needs_bwrap
def test_sample_engines_stop_their_matches_and_say_why(submission, tmp_path: Path) -> None:
    suite_file = tmp_path / "ladder.json"
    suite_file.write_text(LADDER)
    suite = load_suite(suite_file)
    config = SandboxConfig()
    # The illegal mover forfeits every game: decided after 3, no points, as before.
    report = grade_engine(submission("illegal_mover"), suite, config)
    assert report.score == 0 and [m.played for m in report.matches] == [3]
    assert all(t.verdict is Verdict.ILLEGAL_MOVE for t in report.tests)
    assert leftover_processes(config, report.slot) == []
    # The correct engine beats the random mover; its points are every game's.
    report = grade_engine(submission("correct"), suite, config)
    data = rich(report)
    played = data["matches"][0]["played"]
    if played < 4:  # it won its 3 first games (on a busy machine a game may run long: a draw)
        assert data["matches"][0]["why"].startswith("stopped early, stronger")
    assert report.score == report.max_score == 4
    assert report.elo is not None and report.elo.games == played == len(data["games"])
    assert f"Games: {played} of 4 played" in summary(report)
    assert leftover_processes(config, report.slot) == []


def test_lanes_are_closed_while_the_threads_that_started_them_live() -> None:
    """bubblewrap dies with the thread that started it: a lane's engine closed after its
    thread ended would be left to init, unwaited, its CPU time counted nowhere."""
    play, _ = scripted({"random": [1.0] * 6, "greedy": [1.0] * 6})
    threads: set[threading.Thread] = set()

    def tracked(test: TestCase, lane: int) -> TestResult:
        threads.add(threading.current_thread())
        return play(test, lane)

    alive_at_close: list[bool] = []
    play_matches(
        games(["random", "greedy"]),
        tracked,
        lanes=2,
        close=lambda: alive_at_close.extend(t.is_alive() for t in threads),
    )
    assert threads and alive_at_close == [True] * len(threads)
