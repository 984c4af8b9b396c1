"""`grader checkers`: the reference at a student's fingertips (`perft`, `moves`, `search`,
`divide`), `play` between built-in players and with an engine file (in the real sandbox), through
click's runner and once as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from grader.checkers import Board, alphabeta, divide, read_games
from grader.checkers.variants import VARIANTS
from grader.cli import main
from grader.harness.suite import positions
from tests.harness._helpers import ENGINES

MIDDLEGAME = positions()["kings-middlegame"]["fen"]


def test_search_prints_the_contracts_answer() -> None:
    result = CliRunner().invoke(
        main, ["checkers", "search", "--fen", MIDDLEGAME, "--depth", "4", "--json"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout.splitlines()[0])
    ref = alphabeta(Board(MIDDLEGAME), 4)
    assert answer == {"value": ref.value, "move": ref.best_move.pdn(), "leaves": ref.leaves}


def test_search_with_a_window_and_a_variant() -> None:
    run = CliRunner().invoke
    soft = run(
        main,
        ["checkers", "search", "--fen", MIDDLEGAME, "-d", "4", "--alpha", "24", "--beta", "25"],
    )
    hard = run(
        main,
        [
            "checkers",
            "search",
            "--fen",
            MIDDLEGAME,
            "-d",
            "4",
            "--alpha",
            "24",
            "--beta",
            "25",
            "--variant",
            "fail-hard",
        ],
    )
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
    result = CliRunner().invoke(
        main, ["checkers", "moves", "--fen", "B:W17,25,26,28:B3,4,6,7,8,14,18,19:"]
    )
    assert result.exit_code == 0 and result.stdout.split() == ["14x21x30"]


def test_play_an_engine_file_in_the_sandbox(sandbox, tmp_path: Path) -> None:
    pdn = tmp_path / "games.pdn"
    result = CliRunner().invoke(
        main,
        [
            "checkers",
            "play",
            "--black",
            str(ENGINES / "correct.py"),
            "--white",
            "ref:2",
            "--games",
            "2",
            "--ballot",
            "--time-per-move",
            "0.1",
            "--pdn",
            str(pdn),
        ],
    )
    assert result.exit_code == 0, result.output
    games = read_games(pdn.read_text())
    assert len(games) == 2 and all(g.headers["Black"] == "correct" for g in games)
    assert all("forfeit" not in g.headers["Termination"] for g in games)


def test_an_illegal_engine_file_forfeits_through_the_referee(sandbox, tmp_path: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "engine.py").write_text((ENGINES / "illegal_mover.py").read_text())
    (folder / "correct.py").write_text((ENGINES / "correct.py").read_text())
    result = CliRunner().invoke(
        main,
        ["checkers", "play", "--black", "greedy", "--white", str(folder), "--time-per-move", "0.1"],
    )
    assert result.exit_code == 0, result.output
    assert "1-0 by forfeit: ILLEGAL_MOVE" in result.output
    assert "forfeited: ILLEGAL_MOVE" in result.output


def test_play_an_engine_file_without_the_sandbox(tmp_path: Path) -> None:
    result = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(
        main,
        [
            "checkers",
            "play",
            "--black",
            "ref:2",
            "--white",
            str(ENGINES / "correct.py"),
            "--time-per-move",
            "0.1",
            "--no-sandbox",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "ref:2 (Black) vs correct (White)" in result.output
    refused = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(
        main, ["checkers", "play", "--white", str(ENGINES / "correct.py"), "--sandbox"]
    )
    assert refused.exit_code == 2 and "--no-sandbox" in refused.output
    # No flag, no bubblewrap (a student's machine): it plays without the sandbox, and says so.
    fallback = CliRunner(env={"GRADER_BWRAP": "/nonexistent/bwrap"}).invoke(
        main,
        [
            "checkers",
            "play",
            "--black",
            "ref:2",
            "--white",
            str(ENGINES / "correct.py"),
            "--time-per-move",
            "0.1",
        ],
    )
    assert fallback.exit_code == 0, fallback.output
    assert "bubblewrap is not installed here" in fallback.output
    assert "ref:2 (Black) vs correct (White)" in fallback.output


def test_cli_perft_prints_the_published_count_and_divides():
    runner = CliRunner()
    result = runner.invoke(main, ["checkers", "perft", "--depth", "4"])
    assert result.exit_code == 0 and "1469" in result.stdout.split()
    result = runner.invoke(
        main, ["checkers", "perft", "-d", "2", "--divide", "--fen", "B:W6,7,14,15:B2"]
    )
    lines = result.stdout.split("\n")
    assert lines[0].startswith("2x9x18 ") and lines[1].startswith("2x11x18 ")


def test_cli_moves_prints_the_legal_moves_in_canonical_order():
    result = CliRunner().invoke(main, ["checkers", "moves", "--fen", "B:W6,7,14,15:B2"])
    assert result.exit_code == 0 and result.stdout.split() == ["2x9x18", "2x11x18"]
    bad = CliRunner().invoke(main, ["checkers", "moves", "--fen", "B:W99:B1"])
    assert bad.exit_code != 0 and "B:W99:B1" in bad.output


def test_cli_play_writes_pdn_that_reads_back(tmp_path: Path):
    out = tmp_path / "games.pdn"
    result = CliRunner().invoke(
        main,
        [
            "checkers",
            "play",
            "--black",
            "greedy",
            "--white",
            "random",
            "--games",
            "2",
            "--ballot",
            "--pdn",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "game 1:" in result.output and "game 2:" in result.output
    games = read_games(out.read_text())
    assert len(games) == 2 and all(g.headers["GameType"] == "21" for g in games)


def test_the_installed_command_runs_in_a_real_subprocess():
    grader = Path(sys.executable).with_name("grader")
    out = subprocess.run(
        [str(grader), "checkers", "perft", "--depth", "3"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.split() == ["302"]
