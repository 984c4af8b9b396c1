"""The `play` kind: a game against a ladder engine from a ballot, refereed (referee.py). A game
cut at ``max_plies`` is recorded as unfinished (``*``) and counts as a draw. The test's score is
for playing the game through, whatever its result; results feed the Elo. The runner plays a
group's games as matches, one per opponent (ladder.py): with the group's "sprt" (elo0, elo1,
alpha, beta: harness/sprt.py; "lopsided": the opponents whose matches played through may stop
early, by default all) a match stops once its games are enough. "elo_games" adds games that
score no points against opponents whose games inform the Elo most (see `_elo_games`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from grader import data
from grader.checkers import (
    Board,
    Move,
    Player,
    load_ballots,
    pick_ballots,
    play_game,
    player_from_name,
)
from grader.harness.cases import TestCase, TestResult, result_of
from grader.harness.elo import points
from grader.harness.referee import MoveLimit, SandboxedPlayer
from grader.harness.references import References
from grader.harness.sandbox import EngineProcess
from grader.harness.sprt import group_test
from grader.harness.testkinds.base import Group, TestKind, register
from grader.harness.verdicts import Verdict


def _elo_games(spec: dict[str, Any]) -> dict[str, int]:
    """The group's "elo_games": {opponent: n}, n games more against each listed opponent (one
    of the group's), on ballots after the group's, colours alternating from black, scoring no
    points: played for the Elo's information alone."""
    found = spec.get("elo_games") or {}
    if not isinstance(found, dict) or not all(
        o in spec["opponents"] and isinstance(n, int) and not isinstance(n, bool) and 0 < n <= 6
        for o, n in found.items()
    ):
        raise ValueError(
            "the play group's elo_games must map some of its opponents to a number of games "
            f"from 1 to 6, got {found!r}"
        )
    return {str(o): int(n) for o, n in found.items()}


class RememberedPlayer:
    """A ladder opponent whose moves are remembered (References) when its move is a function
    of the position alone: each position is searched once per suite and machine; a player
    with state (random) or a clock is asked every time."""

    def __init__(self, player: Player, refs: References) -> None:
        self.player, self.refs, self.name = player, refs, player.name
        self.positional = bool(getattr(player, "positional", False))

    def choose_move(self, board: Board) -> Move:
        if not self.positional:
            return self.player.choose_move(board)
        fen = board.fen()
        known = self.refs.opponent_move(self.name, fen)
        if known is not None:
            for move in board.generate_legal_moves():
                if move.pdn() == known:
                    return move
        move = self.player.choose_move(board)
        self.refs.remember_move(self.name, fen, move.pdn())
        return move


@register
class Play(TestKind):
    """One game per opponent, ballot and colour."""

    name = "play"
    title = "Games"
    games = 1

    def expand(self, group: Group) -> list[TestCase]:
        spec = group.spec
        seed = int(spec.get("seed", 0))
        count = int(spec.get("ballots", 1))
        elo_games = _elo_games(spec)
        # Ballots drawn in one sequence: the group's, then one for each pair of Elo games.
        drawn = pick_ballots(
            load_ballots(data.ballots_file()),
            count + max((n + 1) // 2 for n in elo_games.values()) if elo_games else count,
            seed,
        )
        ballots = drawn[:count]
        limit = MoveLimit(float(spec.get("time_per_move", 0.5)), float(spec.get("margin", 0.25)))
        sprt = spec.get("sprt")
        if sprt is not None:  # refused here, with the suite, when its parameters are not a test
            _, lopsided = group_test(sprt)
            if lopsided is not None and (
                not isinstance(lopsided, list) or not all(o in spec["opponents"] for o in lopsided)
            ):
                raise ValueError(
                    f"the sprt's lopsided must list some of the group's opponents, got {lopsided!r}"
                )

        def game(opponent: str, ballot: str, opening: tuple[str, ...], colour: str) -> TestCase:
            return group.case(
                f"Game vs {opponent}, ballot {ballot}, you play {colour}",
                cpu=limit.cpu,
                wall=limit.wall,
                opponent=opponent,
                ballot=ballot,
                opening=list(opening),
                colour=colour,
                time_per_move=limit.time_per_move,
                margin=limit.margin,
                max_plies=int(spec.get("max_plies", 200)),
                seed=seed,
                sprt=sprt,
            )

        tests = [
            game(opponent, ballot, opening, colour)
            for opponent in spec["opponents"]
            for ballot, opening in ballots
            for colour in ("black", "white")
        ]
        for opponent, n in elo_games.items():
            for k in range(n):
                ballot, opening = drawn[count + k // 2]
                colour = ("black", "white")[k % 2]
                base = game(opponent, ballot, opening, colour)
                tests.append(replace(base, name=f"{base.name}, for the Elo only", points=0.0))
        return tests

    def run(self, test: TestCase, process: EngineProcess, refs: References) -> TestResult:
        p = test.params
        student_black = p["colour"] == "black"
        opponent = RememberedPlayer(player_from_name(p["opponent"], seed=p["seed"]), refs)
        student = SandboxedPlayer(process, MoveLimit(p["time_per_move"], p["margin"]))
        black, white = (student, opponent) if student_black else (opponent, student)
        game = play_game(
            black,
            white,
            opening=tuple(p["opening"]),
            max_plies=p["max_plies"],
            headers={
                "Event": "Alpha-Beta Grader engine check",
                "Opening": f"ballot {p['ballot']}: {' '.join(p['opening'])}",
            },
        )
        if student.forfeit:
            verdict, why = student.forfeit
        else:
            verdict = Verdict.PASSED
            if game.result == "*":
                game.headers["Termination"] += " (counted as a draw)"
        score = points(game.result, student_black)
        text = (
            f"{'won' if score == 1 else 'lost' if score == 0 else 'drew'} "
            f"({game.result}, {game.headers['Termination']}) in {len(game.moves)} plies"
        )
        if student.forfeit:
            text = f"lost by forfeit: {verdict.value}: {why}"
        extra: dict[str, Any] = {
            "opponent": p["opponent"],
            "colour": p["colour"],
            "ballot": p["ballot"],
            "result": game.result,
            "points": score,
            "plies": len(game.moves),
            "pdn": game.pdn(),
            "engine_moves": student.moves,
        }
        return result_of(
            test,
            verdict,
            text,
            test.points if verdict is Verdict.PASSED else 0.0,
            student.cpu,
            student.wall,
            **extra,
        )
