"""PDN games: read, write, round trips, and typed errors naming the offending text."""

import pytest

from grader.checkers.board import Board
from grader.checkers.pdn import Game, InvalidPdnError, read_game, read_games, write_games

GAME = """[Event "Club night"]
[Black "Ann"]
[White "Bob"]
[Result "1/2-1/2"]
[GameType "21"]

1. 11-15 {the Old Faithful} 23-19 2. 8-11 22-17 (2. ... 22-18 15x22) 3. 9-13 17-14
4. 10x17! $1 21x14 1/2-1/2
"""


def test_a_game_reads_with_headers_moves_comments_variations_and_result():
    game = read_game(GAME)
    assert game.headers["Black"] == "Ann" and game.headers["GameType"] == "21"
    assert [m.pdn() for m in game.moves] == [
        "11-15",
        "23-19",
        "8-11",
        "22-17",
        "9-13",
        "17-14",
        "10x17",
        "21x14",
    ]
    assert game.result == "1/2-1/2"


def test_a_game_round_trips_through_its_pdn_text():
    game = read_game(GAME)
    again = read_game(game.pdn())
    assert again.moves == game.moves and again.result == game.result
    assert again.headers == game.headers
    assert "1. 11-15 23-19 2. 8-11 22-17 3. 9-13 17-14 4. 10x17 21x14 1/2-1/2" in game.pdn()


def test_a_game_from_a_position_writes_setup_and_fen_and_starts_with_white():
    fen = "W:WK3,18,19:B5,K10,12"
    board = Board(fen)
    moves = []
    for _ in range(3):
        move = next(iter(board.legal_moves))
        moves.append(move)
        board.push(move)
    game = Game(headers={"FEN": fen}, moves=moves, result="*")
    text = game.pdn()
    assert '[SetUp "1"]' in text and f'[FEN "{fen}"]' in text and "1... " in text
    again = read_game(text)
    assert again.moves == moves and again.fen == fen
    assert again.end_board().fen() == board.fen()


def test_several_games_read_and_write():
    games = read_games(GAME + "\n" + GAME.replace("Ann", "Cy"))
    assert [g.headers["Black"] for g in games] == ["Ann", "Cy"]
    assert [g.headers["Black"] for g in read_games(write_games(games))] == ["Ann", "Cy"]


def test_movetext_without_headers_and_a_long_multi_jump():
    game = read_game('[SetUp "1"]\n[FEN "B:W10,11,18,19:BK7"]\n1. 7x16x23x14x7 1-0')
    assert game.moves[0].captured == (11, 19, 18, 10) and game.result == "1-0"
    assert read_game("1. 11-15 22-18 2. 15x22 *").moves[-1].pdn() == "15x22"


@pytest.mark.parametrize(
    ("text", "offending"),
    [
        ("1. 11-15 22-18 2. 15-19 *", "15-19"),
        ("1. 11-15 21-18 *", "21-18"),
        ("1. 11-15 hello 22-18 *", "hello"),
        ('[SetUp "1"]\n[FEN "B:W33:B1"]\n1. 1-5 *', "B:W33:B1"),
        ("1. 11-15 ( 22-18 *", "("),
        ("1. 11-15 ) *", ")"),
    ],
)
def test_bad_pdn_raises_invalid_pdn_error_naming_the_text(text, offending):
    with pytest.raises(InvalidPdnError) as info:
        read_games(text)
    assert offending in str(info.value)
