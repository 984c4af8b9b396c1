"""The reference at a student's fingertips: `grader checkers search`, `divide`, `play` with an
engine file (in the real sandbox), and `grader engine check` writing its results to stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.checkers import Board, alphabeta, divide, read_games
from grader.checkers.variants import VARIANTS
from grader.cli import main
from grader.harness.sandbox import SandboxConfig
from grader.harness.suite import positions

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "tests" / "harness" / "engines"
TINY = ROOT / "tests" / "harness" / "data" / "tiny.json"
MIDDLEGAME = positions()["kings-middlegame"]["fen"]


@pytest.fixture
def sandbox() -> None:
    """The real bubblewrap sandbox (`make test` installs it): fail, never skip, without it."""
    SandboxConfig().check()


def test_search_prints_the_contracts_answer() -> None:
    result = CliRunner().invoke(main, ["checkers", "search", "--fen", MIDDLEGAME, "--depth",
                                       "4", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout.splitlines()[0])
    ref = alphabeta(Board(MIDDLEGAME), 4)
    assert answer == {"value": ref.value, "move": ref.best_move.pdn(), "leaves": ref.leaves}


def test_search_with_a_window_and_a_variant() -> None:
    run = CliRunner().invoke
    soft = run(main, ["checkers", "search", "--fen", MIDDLEGAME, "-d", "4", "--alpha", "24",
                      "--beta", "25"])
    hard = run(main, ["checkers", "search", "--fen", MIDDLEGAME, "-d", "4", "--alpha", "24",
                      "--beta", "25", "--variant", "fail-hard"])
    assert soft.stdout.splitlines()[0] == "value -50"
    assert hard.stdout.splitlines()[0] == "value 24"
    plain = run(main, ["checkers", "search", "--fen", MIDDLEGAME, "-d", "4", "--minimax"])
    leaves = VARIANTS["no-pruning"].run(MIDDLEGAME, 4).leaves
    assert plain.stdout.splitlines()[2] == f"leaves {leaves}"
    bad = run(main, ["checkers", "search", "-d", "3", "--alpha", "5", "--beta", "5"])
    assert bad.exit_code == 2 and "alpha < beta" in bad.output


def test_divide_prints_each_root_moves_count_and_the_total() -> None:
    result = CliRunner().invoke(main, ["checkers", "divide", "--depth", "3"])
    assert result.exit_code == 0
    rows = result.stdout.splitlines()
    expected = divide(Board(), 3)
    assert rows[:-1] == [f"{m.pdn()} {n}" for m, n in expected]
    assert rows[-1] == f"total {sum(n for _, n in expected)}"


def test_a_trailing_colon_fen_is_accepted_by_moves() -> None:
    result = CliRunner().invoke(main, ["checkers", "moves", "--fen",
                                       "B:W17,25,26,28:B3,4,6,7,8,14,18,19:"])
    assert result.exit_code == 0 and result.stdout.split() == ["14x21x30"]


def test_play_an_engine_file_in_the_sandbox(sandbox, tmp_path: Path) -> None:
    pdn = tmp_path / "games.pdn"
    result = CliRunner().invoke(main, [
        "checkers", "play", "--black", str(ENGINES / "correct.py"), "--white", "ref:2",
        "--games", "2", "--ballot", "--time-per-move", "0.1", "--pdn", str(pdn)])
    assert result.exit_code == 0, result.output
    games = read_games(pdn.read_text())
    assert len(games) == 2 and all(g.headers["Black"] == "correct" for g in games)
    assert all("forfeit" not in g.headers["Termination"] for g in games)


def test_an_illegal_engine_file_forfeits_through_the_referee(sandbox, tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "engine.py").write_text((ENGINES / "illegal_mover.py").read_text())
    (folder / "correct.py").write_text((ENGINES / "correct.py").read_text())
    result = CliRunner().invoke(main, ["checkers", "play", "--black", "greedy", "--white",
                                       str(folder), "--time-per-move", "0.1"])
    assert result.exit_code == 0, result.output
    assert "1-0 by forfeit: ILLEGAL_MOVE" in result.output
    assert "forfeited: ILLEGAL_MOVE" in result.output


def test_engine_check_writes_results_to_stdout_and_progress_to_stderr(sandbox) -> None:
    done = subprocess.run([str(Path(sys.executable).parent / "grader"), "engine", "check",
                           str(ENGINES / "correct.py"), "--suite", str(TINY)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Suite tiny: 5 / 5 points" in done.stdout
    assert "king-loop" in done.stdout and "verdict" in done.stdout  # the table
    assert "Suite tiny" not in done.stderr


def test_play_an_engine_file_without_the_sandbox(tmp_path: Path) -> None:
    result = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(main, [
        "checkers", "play", "--black", "ref:2", "--white", str(ENGINES / "correct.py"),
        "--time-per-move", "0.1", "--no-sandbox"])
    assert result.exit_code == 0, result.output
    assert "ref:2 (Black) vs correct (White)" in result.output
    refused = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(main, [
        "checkers", "play", "--white", str(ENGINES / "correct.py")])
    assert refused.exit_code == 2 and "--no-sandbox" in refused.output
