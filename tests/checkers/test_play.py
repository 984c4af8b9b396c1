"""Games between engines and ballots (the `grader checkers` commands: tests/cli/test_checkers_cli.py)."""

from grader import data
from grader.checkers.board import Board
from grader.checkers.ladder import player_from_name
from grader.checkers.pdn import read_game
from grader.checkers.play import Forfeit, load_ballots, play_game, play_match


def test_every_ballot_is_three_legal_plies():
    ballots = load_ballots(data.ballots_file())
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
    shipped = load_ballots(data.ballots_file())
    games = play_match(
        player_from_name("random", 1), player_from_name("random", 2), 2, ballots=shipped, seed=5
    )
    ballots = dict(shipped)
    for game in games:
        name = game.headers["Opening"].split()[1].rstrip(":")
        assert tuple(m.pdn() for m in game.moves[:3]) == ballots[name]
