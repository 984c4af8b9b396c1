"""PDN games: read, write, round trips, and typed errors naming the offending text; header
values with quotes and backslashes, whole error messages, the 79-column wrap, the Result tag of
a game that has no result token, nested variations, the other spellings of results, move numbers.

Every mutant of pdn.py's full mutation run is killed by this file (docs/testing.md, "Mutation
testing"): none is listed as equivalent."""

from __future__ import annotations

import random
from itertools import pairwise

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


LONG = "1. 11-15 23-19 2. 8-11 22-17 ) 3. 9-13 17-14 4. 10x17 21x14 *"


def test_a_header_with_quotes_and_backslashes_is_escaped_and_read_back() -> None:
    value = 'a "b" \\ c'
    text = Game(headers={"Event": value}).pdn()
    assert text.splitlines()[0] == '[Event "a \\"b\\" \\\\ c"]'
    assert read_game(text).headers["Event"] == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # Hand-checked: 20 characters either side of the ')' at offset 29.
        (LONG, "unbalanced ')' at offset 29: '23-19 2. 8-11 22-17 ) 3. 9-13 17-14 4. 10'"),
        ("1. 11-15 zz *", "unexpected 'zz' at offset 9: '1. 11-15 zz *'"),
        ("1. 11-15 (23-19", "unclosed '(' variation at the end of the PDN text"),
        ('[FEN "B:W21"]\n1. 11-15 *', "bad FEN tag 'B:W21': expected 'B|W:W...:B...', got 'B:W21'"),
        ("[Event x]", "bad tag '[Event x]'"),
        ('[Result "3-0"]\n1. 11-15', "bad result '3-0'"),
    ],
)
def test_bad_pdn_is_refused_with_the_whole_message(text: str, message: str) -> None:
    with pytest.raises(InvalidPdnError) as info:
        read_games(text)
    assert str(info.value) == message


def test_an_illegal_move_is_named_by_its_number() -> None:
    with pytest.raises(InvalidPdnError) as info:
        read_games("1. 11-15 11-15 *")
    assert str(info.value).startswith("move 2 '11-15': illegal move '11-15' in W:")


def test_more_than_one_game_where_one_is_expected_quotes_80_characters() -> None:
    text = f"{LONG[:-1]}1-0 {LONG.replace(')', '')}"
    with pytest.raises(InvalidPdnError) as info:
        read_game(text.replace(") ", ""))
    assert str(info.value) == f"expected one game, found 2 in {text.replace(') ', '')[:80]!r}"


def test_the_result_tag_stands_for_a_missing_result_token_and_is_not_kept() -> None:
    game = read_game('[Result "1-0"]\n[Event "e"]\n1. 11-15 23-19')
    assert game.result == "1-0" and game.headers == {"Event": "e"}
    assert len(game.moves) == 2
    assert read_game("1. 11-15").result == "*"
    games = read_games('[Event "a"]\n1. 11-15\n[Event "b"]\n1. 9-13')
    assert [(g.headers["Event"], g.moves[0].pdn(), g.result) for g in games] == [
        ("a", "11-15", "*"),
        ("b", "9-13", "*"),
    ]


def test_nested_variations_are_skipped() -> None:
    game = read_game("1. 11-15 23-19 ( 2. 8-11 ( 22-18 ) 22-17 ) 2. 9-14 *")
    assert [m.pdn() for m in game.moves] == ["11-15", "23-19", "9-14"]


@pytest.mark.parametrize(
    ("token", "result"), [("2-0", "1-0"), ("0-2", "0-1"), ("1-1", "1/2-1/2"), ("0-0", "*")]
)
def test_other_spellings_of_a_result_are_read(token: str, result: str) -> None:
    assert read_game(f"1. 11-15 23-19 {token}").result == result


def test_move_numbers_count_black_and_white_moves_as_one_number() -> None:
    assert read_game("1. 11-15 23-19 2. 8-11 22-17 *").pdn().splitlines()[-1] == (
        "1. 11-15 23-19 2. 8-11 22-17 *"
    )
    game = Game(headers={"FEN": "W:W21,22:B9,10"})
    board = game.board()
    game.moves = [board.push_pdn(t) for t in ["22-17", "9-13", "17-14", "10x17", "21x14"]]
    assert game.pdn().splitlines()[-1] == "1... 22-17 2. 9-13 17-14 3. 10x17 21x14 *"


@pytest.mark.parametrize("seed", range(4))
def test_movetext_is_wrapped_greedily_at_79_columns(seed: int) -> None:
    rng = random.Random(seed)
    board, moves = Board(), []
    while len(moves) < 120 and board.legal_moves:
        move = rng.choice(board.generate_legal_moves())
        board.push(move)
        moves.append(move)
    lines = Game(moves=moves).pdn().split("\n\n", 1)[1].splitlines()
    assert len(lines) > 3
    assert all(0 < len(line) <= 79 and line == line.strip() for line in lines)
    for line, after in pairwise(lines):
        words = after.split(" ")
        token = " ".join(words[:2]) if words[0].endswith(".") else words[0]  # "6. 9-13" is one
        assert len(line) + 1 + len(token) > 79  # the next token did not fit
    assert read_game(Game(moves=moves).pdn()).moves == moves
