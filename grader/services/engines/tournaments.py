"""The leaderboard of an engine slot, and tournaments: a round-robin among the opted-in
students' latest graded engines, one queue job per game (claimed, played, written and swept
under the same lease as a submission: services/leases/), then an Elo table and a crosstable.

Tournament Elo: the maximum-likelihood ratings of the Elo model from the games among the
entrants (harness.elo.ratings). An entrant who won (or lost) every game has no finite
estimate: the table shows a bound, as the ladder Elo does.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from grader import data
from grader.extensions import db
from grader.models import (
    DONE,
    QUEUED,
    Slot,
    Submission,
    Tournament,
    TournamentGame,
    User,
)
from grader.services import Conflict, NotFound
from grader.services.courses.staff import staff, staff_for_slot
from grader.services.engines import leases
from grader.services.transactions import writing

DEFAULTS = {"ballots": 1, "time_per_move": 0.1, "margin": 0.25, "max_plies": 120}


# -- leaderboard ----------------------------------------------------------------------------


@dataclass
class LeaderRow:
    user: str
    submission_id: int
    score: float
    max_score: float
    elo: float | None
    elo_text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "user": self.user,
            "submission_id": self.submission_id,
            "score": self.score,
            "max_score": self.max_score,
            "elo": self.elo,
            "elo_text": self.elo_text,
        }


def leaderboard(slot: Slot) -> list[LeaderRow]:
    """Each student's best graded submission: best score first, then the ladder Elo."""
    from grader.models import EngineResult

    rows = db.session.execute(
        sa.select(Submission, EngineResult.rich["elo"])
        .join(EngineResult, EngineResult.submission_id == Submission.id)
        .where(Submission.slot_id == slot.id, Submission.status == DONE)
        .options(sa.orm.joinedload(Submission.owner))
    )
    best: dict[int, LeaderRow] = {}
    for submission, elo in rows:
        rating = elo.get("rating") if isinstance(elo, dict) else None
        row = LeaderRow(
            submission.owner.email,
            submission.id,
            submission.score or 0.0,
            submission.max_score or 0.0,
            rating,
            elo.get("text", "") if isinstance(elo, dict) else "",
        )
        held = best.get(submission.owner_id)
        if held is None or (row.score, row.elo or -1e9) > (held.score, held.elo or -1e9):
            best[submission.owner_id] = row
    return sorted(best.values(), key=lambda r: (-r.score, -(r.elo or -1e9), r.user))


# -- tournaments ----------------------------------------------------------------------------


def of_slot(slot: Slot) -> list[Tournament]:
    return list(
        db.session.scalars(
            sa.select(Tournament)
            .where(Tournament.slot_id == slot.id)
            .order_by(Tournament.id.desc())
        )
    )


def entrants(slot_id: int) -> list[Submission]:
    """Per student who opted in, their latest graded submission that opted in (read through the
    request's session, so inside `writing()` too)."""
    latest = (
        sa.select(sa.func.max(Submission.id))
        .where(
            Submission.slot_id == slot_id,
            Submission.status == DONE,
            Submission.tournament_opt_in.is_(True),
        )
        .group_by(Submission.owner_id)
    )
    return list(
        db.session.scalars(
            sa.select(Submission).where(Submission.id.in_(latest)).order_by(Submission.id)
        )
    )


def start(user: User, assignment_id: int, index: int, **params: Any) -> Tournament:
    """A round-robin of the entrants: every pair, every ballot, both colours; games queued."""
    from grader.checkers import load_ballots, pick_ballots

    _, slot = staff_for_slot(user, assignment_id, index, change=True)
    settings = {**DEFAULTS, **params}
    with writing() as session:
        players = entrants(slot.id)
        if len(players) < 2:
            raise Conflict(
                "a tournament needs at least two students who opted in with a graded engine"
            )
        tournament = Tournament(slot_id=slot.id, status=QUEUED, params=settings)
        session.add(tournament)
        session.flush()
        ballots = pick_ballots(
            load_ballots(data.ballots_file()), int(settings["ballots"]), tournament.id
        )
        for a, b in itertools.combinations(players, 2):
            for name, opening in ballots:
                for black, white in ((a, b), (b, a)):
                    session.add(
                        TournamentGame(
                            tournament_id=tournament.id,
                            black_id=black.id,
                            white_id=white.id,
                            ballot=name,
                            opening=list(opening),
                            status=QUEUED,
                        )
                    )
    leases.GAME.wake(  # one write for every game sent
        *db.session.scalars(
            sa.select(TournamentGame.id).where(TournamentGame.tournament_id == tournament.id)
        ).all()
    )
    return tournament


# -- standings ------------------------------------------------------------------------------


@dataclass
class Standing:
    submission_id: int
    user: str
    points: float = 0.0
    games: int = 0
    elo: float = 1500.0
    bound: str = ""
    row: dict[int, list[float]] = field(default_factory=dict)  # opponent id -> points

    @property
    def elo_text(self) -> str:
        sign = {"lower": "> ", "upper": "< "}.get(self.bound, "")
        return f"{sign}{self.elo:.0f}"


def standings(user: User, tournament_id: int) -> tuple[Tournament, list[Standing]]:
    from grader.harness.elo import points, ratings  # the harness loads here, not with the app

    tournament = db.session.get(
        Tournament,
        tournament_id,
        options=[sa.orm.selectinload(Tournament.games), sa.orm.joinedload(Tournament.slot)],
    )
    if tournament is None:
        raise NotFound("no such tournament")
    staff(user, tournament.slot.assignment.course_id)
    table: dict[int, Standing] = {}
    played: list[tuple[int, int, float]] = []
    for game in tournament.games:
        for sid, sub in ((game.black_id, game.black), (game.white_id, game.white)):
            table.setdefault(sid, Standing(sid, sub.owner.email))
        if game.status != DONE:
            continue
        black = points(game.result, True)
        played.append((game.black_id, game.white_id, black))
        for me, other, mine in (
            (game.black_id, game.white_id, black),
            (game.white_id, game.black_id, 1.0 - black),
        ):
            table[me].points += mine
            table[me].games += 1
            table[me].row.setdefault(other, []).append(mine)
    if table:
        for sid, (elo, bound) in ratings(played, list(table)).items():
            table[sid].elo, table[sid].bound = elo, bound
    return tournament, sorted(table.values(), key=lambda s: (-s.points, -s.elo, s.user))
