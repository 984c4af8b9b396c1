"""Games between engines, ballots, and the `grader checkers` commands."""

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from grader.checkers.board import Board
from grader.checkers.ladder import player_from_name
from grader.checkers.pdn import read_game, read_games
from grader.checkers.play import Forfeit, load_ballots, play_game, play_match
from grader.cli import main


def test_every_ballot_is_three_legal_plies():
    ballots = load_ballots()
    assert len(ballots) > 100 and len({b for _, b in ballots}) == len(ballots)
    for _, moves in ballots:
        board = Board()
        assert len(moves) == 3
        for text in moves:
            board.push_pdn(text)


def test_a_game_between_two_engines_ends_by_the_rules_and_its_pdn_reads_back():
    game = play_game(player_from_name("greedy"), player_from_name("random", seed=3))
    end = game.end_board()
    assert end.outcome() is not None and game.result == end.outcome().result()
    again = read_game(game.pdn())
    assert again.moves == game.moves and again.result == game.result


class Resigner:
    """A player that forfeits on its first turn."""

    name = "resigner"

    def choose_move(self, board):
        raise Forfeit("TLE (ran out of time)")


def test_a_forfeit_loses_the_game_at_once_for_either_colour():
    black_loses = play_game(Resigner(), player_from_name("random", seed=1))
    assert black_loses.result == "0-1" and black_loses.moves == []
    assert black_loses.headers["Termination"] == "forfeit: TLE (ran out of time)"
    white_loses = play_game(player_from_name("random", seed=1), Resigner())
    assert white_loses.result == "1-0" and len(white_loses.moves) == 1
    assert read_game(white_loses.pdn()).result == "1-0"


def test_a_game_cut_by_max_plies_is_unfinished():
    game = play_game(player_from_name("random", 1), player_from_name("random", 2), max_plies=6)
    assert game.result == "*" and len(game.moves) == 6
    assert game.headers["Termination"] == "unfinished after 6 plies"


def test_a_balloted_match_starts_each_game_from_its_ballot():
    games = play_match(player_from_name("random", 1), player_from_name("random", 2), 2,
                       ballot=True, seed=5)
    ballots = dict(load_ballots())
    for game in games:
        name = game.headers["Opening"].split()[1].rstrip(":")
        assert tuple(m.pdn() for m in game.moves[:3]) == ballots[name]


def test_cli_perft_prints_the_published_count_and_divides():
    runner = CliRunner()
    result = runner.invoke(main, ["checkers", "perft", "--depth", "4"])
    assert result.exit_code == 0 and "1469" in result.stdout.split()
    result = runner.invoke(main, ["checkers", "perft", "-d", "2", "--divide",
                                  "--fen", "B:W6,7,14,15:B2"])
    lines = result.stdout.split("\n")
    assert lines[0].startswith("2x9x18 ") and lines[1].startswith("2x11x18 ")


def test_cli_moves_prints_the_legal_moves_in_canonical_order():
    result = CliRunner().invoke(main, ["checkers", "moves", "--fen", "B:W6,7,14,15:B2"])
    assert result.exit_code == 0 and result.stdout.split() == ["2x9x18", "2x11x18"]
    bad = CliRunner().invoke(main, ["checkers", "moves", "--fen", "B:W99:B1"])
    assert bad.exit_code != 0 and "B:W99:B1" in bad.output


def test_cli_play_writes_pdn_that_reads_back(tmp_path: Path):
    out = tmp_path / "games.pdn"
    result = CliRunner().invoke(main, ["checkers", "play", "--black", "greedy", "--white",
                                       "random", "--games", "2", "--ballot", "--pdn", str(out)])
    assert result.exit_code == 0, result.output
    assert "game 1:" in result.output and "game 2:" in result.output
    games = read_games(out.read_text())
    assert len(games) == 2 and all(g.headers["GameType"] == "21" for g in games)


def test_the_installed_command_runs_in_a_real_subprocess():
    grader = Path(sys.executable).with_name("grader")
    out = subprocess.run([str(grader), "checkers", "perft", "--depth", "3"], check=True,
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["302"]
