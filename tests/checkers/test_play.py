"""Games between engines and ballots (the `grader checkers` commands: tests/cli/test_checkers_cli.py).

Surviving mutants judged equivalent (mutmut on play.py):
- ``load_ballots``: ``read_text(encoding=None)`` or ``"UTF-8"`` for ``"utf-8"``: the same on a
  machine whose locale encoding is UTF-8, as here (the test reads an "é" back); elsewhere
  not, but the tests cannot choose the locale of the process they run in.
"""

import datetime
import random
from pathlib import Path

import pytest

from grader import data
from grader.checkers.board import Board, Move
from grader.checkers.ladder import player_from_name
from grader.checkers.pdn import read_game
from grader.checkers.play import Forfeit, load_ballots, pick_ballots, play_game, play_match


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


class Scripted:
    """A player answering a fixed list of moves (PDN), one per turn."""

    def __init__(self, name: str, moves: list[str]) -> None:
        self.name, self.moves = name, list(moves)

    def choose_move(self, board: Board) -> Move:
        return board.parse_pdn(self.moves.pop(0))


def test_a_forfeit_carries_its_reason():
    forfeit = Forfeit("crashed")
    assert (forfeit.reason, str(forfeit)) == ("crashed", "crashed")


def test_ballots_are_read_one_a_line_past_comments_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "ballots.txt"
    path.write_text(
        "# a comment\n\n  7 9-14 23-19 14x23  \n#8 10-14 22-17 11-16\n12 11-15 23-19 8-11\n"
        "é 9-13 22-18 13x22\n",
        encoding="utf-8",
    )
    assert load_ballots(path) == [
        ("7", ("9-14", "23-19", "14x23")),
        ("12", ("11-15", "23-19", "8-11")),
        ("é", ("9-13", "22-18", "13x22")),
    ]


def test_ballots_are_picked_by_their_seed_without_repeats():
    ballots = load_ballots(data.ballots_file())
    for seed in (0, 3, 99):
        picked = pick_ballots(ballots, 5, seed)
        assert picked == random.Random(seed).sample(ballots, 5)
        assert len(set(picked)) == 5
    assert pick_ballots(ballots, 5, 1) != pick_ballots(ballots, 5, 2)
    few = ballots[:3]
    assert sorted(pick_ballots(few, 10, 4)) == sorted(few)  # asking for more gives them all


def test_a_game_records_its_players_date_position_and_headers():
    fen = "B:W18,19,24:B3,5,K10"
    before = datetime.date.today()
    game = play_game(
        player_from_name("greedy"),
        player_from_name("random", 2),
        fen=fen,
        headers={"Round": "3", "Event": "ladder"},
    )
    after = datetime.date.today()
    headers = game.headers
    assert headers["Date"] in (before.strftime("%Y.%m.%d"), after.strftime("%Y.%m.%d"))
    assert (headers["Black"], headers["White"], headers["Round"]) == ("greedy", "random", "3")
    assert headers["Event"] == "ladder"  # the caller's headers win
    assert (headers["SetUp"], headers["FEN"]) == ("1", Board(fen).fen())
    assert game.board().fen() == Board(fen).fen()
    plain = play_game(player_from_name("random", 1), player_from_name("random", 2), max_plies=2)
    assert plain.headers["Event"] == "Alpha-Beta Grader match"
    assert "SetUp" not in plain.headers and "FEN" not in plain.headers


def test_the_opening_is_played_first_and_every_move_is_reported():
    seen: list[tuple[str, str]] = []
    game = play_game(
        Scripted("b", ["9-13"]),
        Scripted("w", ["22-17"]),
        opening=("11-15", "23-19", "8-11"),
        on_move=lambda board, move: seen.append((move.pdn(), board.fen())),
        max_plies=5,
    )
    played = ["11-15", "23-19", "8-11", "22-17", "9-13"]
    assert [m.pdn() for m in game.moves] == played
    board, expected = Board(), []
    for text in played:
        board.push_pdn(text)
        expected.append((text, board.fen()))
    assert seen == expected  # each move with the position after it
    assert game.result == "*" and game.headers["Termination"] == "unfinished after 5 plies"


def test_a_finished_game_is_terminated_by_its_outcome():
    # Black takes White's last man at once.
    game = play_game(Scripted("b", ["9x18"]), Scripted("w", []), fen="B:W14:B9")
    assert [m.pdn() for m in game.moves] == ["9x18"]
    assert (game.result, game.headers["Termination"]) == ("1-0", "no legal move")


def test_an_illegal_move_stops_the_game_naming_the_player():
    class Cheat:
        name = "cheat"

        def choose_move(self, board: Board) -> Move:
            return Move.from_pdn("9x18")  # not legal from the start

    with pytest.raises(RuntimeError, match="cheat chose the illegal move '9x18'"):
        play_game(Cheat(), player_from_name("random"))


def test_a_match_numbers_its_rounds_and_names_each_ballot():
    shipped = load_ballots(data.ballots_file())
    games = play_match(
        player_from_name("random", 1), player_from_name("random", 2), 3, ballots=shipped, seed=8
    )
    rng = random.Random(8)
    for number, game in enumerate(games, 1):
        name, opening = rng.choice(shipped)
        assert game.headers["Round"] == str(number)
        assert game.headers["Opening"] == f"ballot {name}: {' '.join(opening)}"
        assert tuple(m.pdn() for m in game.moves[:3]) == opening
    plain = play_match(player_from_name("random", 1), player_from_name("random", 2), 2)
    assert [g.headers["Round"] for g in plain] == ["1", "2"]
    assert all("Opening" not in g.headers for g in plain)


def test_a_match_is_one_game_by_default_with_seed_zero_and_reports_every_move():
    shipped = load_ballots(data.ballots_file())
    seen: list[str] = []
    games = play_match(
        player_from_name("random", 1),
        player_from_name("random", 2),
        ballots=shipped,
        on_move=lambda board, move: seen.append(move.pdn()),
    )
    assert len(games) == 1
    name, opening = random.Random(0).choice(shipped)
    assert games[0].headers["Opening"] == f"ballot {name}: {' '.join(opening)}"
    assert seen == [m.pdn() for m in games[0].moves]
