"""`grader integrity engines|answers`: the academic-integrity checks from the command line.

Each runs its check in this process (the job body a queue worker runs, and the same cache:
pairs of files compared before are read back) and prints what the staff's page shows. The
operator sees every course: `--earlier` compares with every other course's engine slot on the
same suite, where the page offers only the asking instructor's own courses. Nothing is decided
automatically: no score changes.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable
from typing import NoReturn

import click
from flask import Flask
from flask.cli import AppGroup

from grader.models import DONE, FAILED, IntegrityCheck

WAIT_SECONDS = 600  # at most this long for a check a worker runs already

integrity = AppGroup(
    "integrity",
    help="Academic integrity: engines that share code, answers that fit another student's tree.",
)


def _fail(message: str) -> NoReturn:
    raise click.ClickException(message)


def _clock(assignment_id: int) -> Callable[[str | None], str]:
    """How the text form tells a time of the JSON form (ISO 8601, the API's): in the course's
    zone, named, as the staff's page tells it."""
    from grader.extensions import db
    from grader.models import Assignment
    from grader.services.courses import zones

    zone = db.session.get_one(Assignment, assignment_id).course.timezone

    def told(iso: str | None) -> str:
        if not iso:
            return "no time"
        return zones.words(zones.stored(iso), zone)

    return told


def _run_here(check: IntegrityCheck) -> IntegrityCheck:
    """Run the check in this process, or wait for the worker that has it; the finished row."""
    from grader.extensions import db
    from grader.jobs import run_integrity

    run_integrity(check.id, f"cli:{socket.gethostname()}:{os.getpid()}")
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        db.session.expire_all()
        found = db.session.get_one(IntegrityCheck, check.id)
        if found.status in (DONE, FAILED):
            break
        if time.monotonic() > deadline:
            _fail(f"check {check.id} is still {found.status} after {WAIT_SECONDS} s")
        time.sleep(1)
    db.session.commit()  # ends the read transaction
    if found.status == FAILED:
        _fail(f"check {check.id} failed: {found.error}")
    return found


def _slot_index(slot_index: int | None, slot_number: int | None) -> int:
    """The slot's index from --slot-index, or from --slot (counted from 1), said so on stderr."""
    if (slot_index is None) == (slot_number is None):
        _fail("give the slot as --slot-index N, counted from 0 (the first slot is 0)")
    if slot_number is None:
        assert slot_index is not None
        return slot_index
    click.echo(
        f"--slot {slot_number} counts from 1: read as --slot-index {slot_number - 1} "
        "(slots are counted from 0, as the API and the pages' addresses count them)",
        err=True,
    )
    return slot_number - 1


@integrity.command("engines")
@click.option("--assignment", "assignment_id", type=int, required=True, help="Its id.")
@click.option(
    "--slot-index",
    "slot_index",
    type=click.IntRange(min=0),
    help="The engine slot's index, counted from 0 as the API's slot_index and the pages' "
    "addresses (/assignments/A/slots/0) count it.",
)
@click.option(
    "--slot",
    "slot_number",
    type=click.IntRange(min=1),
    hidden=True,
    help="The slot counted from 1: read as --slot-index one less, with a note saying so.",
)
@click.option("--json", "as_json", is_flag=True, help="JSON: a list of pairs, highest first.")
@click.option(
    "--min",
    "minimum",
    type=click.FloatRange(0, 1),
    default=0.0,
    show_default=True,
    help="The least similarity printed.",
)
@click.option(
    "--earlier",
    is_flag=True,
    help="Also compare with earlier offerings (other courses' engine slots, same suite).",
)
def engines_command(
    assignment_id: int,
    slot_index: int | None,
    slot_number: int | None,
    as_json: bool,
    minimum: float,
    earlier: bool,
) -> None:
    """Pairs of students' latest engines ranked by similarity (the starter and the handouts'
    code left out): similarity, and the share of each one's code found in the other."""
    from grader.services import ServiceError
    from grader.services.integrity import engines

    index = _slot_index(slot_index, slot_number)
    try:
        check = engines.request_check(None, assignment_id, index, earlier=earlier, wake=False)
    except ServiceError as error:
        _fail(str(error))
    check = _run_here(check)
    pairs = engines.pairs_for_command(check, minimum)
    if as_json:
        keys = ("a", "b", "similarity", "a_share", "b_share")
        click.echo(json.dumps([{k: p[k] for k in keys} for p in pairs], indent=2))
        return
    result = check.result or {}
    click.echo(
        f"check {check.id}: {result.get('submissions', 0)} submissions, "
        f"{result.get('compared', 0)} pairs compared, {result.get('cached', 0)} read back"
    )
    told = _clock(assignment_id)
    for p in pairs:
        click.echo(
            f"{p['similarity']:6.1%}  {p['a']} ({p['a_share']:.0%} of theirs, "
            f"{told(p['a_submitted_at'])})  {p['b']} ({p['b_share']:.0%}, "
            f"{told(p['b_submitted_at'])})"
        )
    if not pairs:
        click.echo("no pair shares code" + (f" at {minimum:.0%} or more" if minimum else ""))
    for skipped in result.get("skipped", []):
        click.echo(f"skipped submission {skipped['submission']}: {skipped['reason']}", err=True)


@integrity.command("answers")
@click.option("--assignment", "assignment_id", type=int, required=True, help="Its id.")
@click.option("--json", "as_json", is_flag=True, help="JSON: a list of flagged answers.")
def answers_command(assignment_id: int, as_json: bool) -> None:
    """Answers with three errors or more on the student's own tree that are exact, or one
    error away, on a classmate's tree whose key they could have seen."""
    from grader.services import ServiceError
    from grader.services.integrity import answers

    try:
        check = answers.request_check(None, assignment_id, wake=False)
    except ServiceError as error:
        _fail(str(error))
    check = _run_here(check)
    flags = answers.flags_for_command(check)
    if as_json:
        click.echo(json.dumps(flags, indent=2))
        return
    told = _clock(assignment_id)
    for flag in flags:
        click.echo(
            f"exercise {flag['exercise']}: {flag['student']} answered what fits "
            f"{flag['matches_tree_of']}'s tree ({flag['errors_on_own_tree']} errors on their "
            f"own, {flag['errors_on_their_tree']} on theirs; first at "
            f"{told(flag['first_attempt_at'])}, theirs at "
            f"{told(flag['their_first_attempt_at'])})"
        )
    if not flags:
        click.echo("no answer fits another student's tree")


def init_app(app: Flask) -> None:
    app.cli.add_command(integrity)
