"""`grader user|course|assignment|demo ...`: the course service from the command line.

These run in an application context (the database of `GRADER_DATABASE_URL`); `grader db ...`
comes from Flask-Migrate.
"""

# Whole: the operator's user/course/assignment commands, each a thin service call.

from __future__ import annotations

import datetime as dt
import secrets
from typing import NoReturn

import click
from flask import Flask
from flask.cli import AppGroup, with_appcontext

from grader.models import COURSE_ROLES, ROLES, STUDENT, User


def _fail(error: Exception) -> NoReturn:
    raise click.ClickException(str(error))


user = AppGroup("user", help="Accounts: create users, passwords, sessions, API tokens.")
course = AppGroup("course", help="Courses and their members.")
assignment = AppGroup("assignment", help="Assignments, built from exercises/presets/*.toml.")


@user.command("create")
@click.argument("email")
@click.option("--role", type=click.Choice(ROLES), default=STUDENT, show_default=True)
@click.option("--password", help="Without it, a random password is made and printed.")
def user_create(email: str, role: str, password: str | None) -> None:
    """Create an account."""
    from grader.services import ServiceError, accounts

    shown = password is None
    password = password or secrets.token_urlsafe(15)
    try:
        created = accounts.create_user(email, password, role)
    except ServiceError as error:
        _fail(error)
    click.echo(f"created {created.role} {created.email} (id {created.id})")
    if shown:
        click.echo(f"password: {password}")


token = AppGroup("token", help="Personal API tokens: create (shown once), list, revoke.")
user.add_command(token)


def _user(email: str) -> User:
    from grader.services import accounts

    found = accounts.user_by_email(email)
    if found is None:
        _fail(LookupError(f"no user {email}"))
    return found


@token.command("create")
@click.argument("email")
@click.option("--name", default="token", show_default=True, help="What uses it.")
@click.option(
    "--days", type=click.IntRange(1, 366), default=90, show_default=True, help="Lifetime."
)
@click.option(
    "--scope",
    "scopes",
    type=click.Choice(["read", "submit", "staff"]),
    multiple=True,
    default=["read"],
    show_default=True,
    help="What it may do; repeat for several (read: GETs, submit: answers and uploads, "
    "staff: the instructors' and TAs' operations).",
)
def token_create(email: str, name: str, days: int, scopes: tuple[str, ...]) -> None:
    """Print a new personal API token (shown once; stored only as a hash)."""
    from grader.services import ServiceError, accounts, totp

    try:
        owner = _user(email)
        totp.may_hold_tokens(owner)
        click.echo(accounts.issue_token(owner.id, name, days, scopes))
    except ServiceError as error:
        _fail(error)


@token.command("list")
@click.argument("email")
def token_list(email: str) -> None:
    """The account's live tokens: id, name, made, expires, scopes, last used (never the
    tokens), tab-separated; the times in the server's zone, named."""
    from grader.services import accounts
    from grader.services.courses import zones

    def told(moment: dt.datetime | None) -> str:
        return zones.words(moment, zones.server_zone()) if moment else "never"

    for found in accounts.list_tokens(_user(email).id):
        click.echo(
            f"{found.id}\t{found.name}\t{told(found.created_at)}\t{told(found.expires_at)}\t"
            f"{found.scopes.replace(' ', ',')}\t{told(found.last_used_at)}"
        )


@token.command("revoke")
@click.argument("email")
@click.argument("token_id", type=int)
def token_revoke(email: str, token_id: int) -> None:
    """Revoke one of the account's tokens (by the id `list` shows)."""
    from grader.services import ServiceError, accounts

    try:
        found = accounts.revoke_token(_user(email).id, token_id)
    except ServiceError as error:
        _fail(error)
    click.echo(f"revoked token {found.id} ({found.name}) of {email}")


@user.command("password")
@click.argument("email")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True)
def user_password(email: str, password: str) -> None:
    """Set a user's password; every session, remember cookie and API token of the account
    stops working."""
    from grader.services import ServiceError, accounts

    found = _user(email)
    try:
        revoked = accounts.set_password(found.id, password)
    except ServiceError as error:
        _fail(error)
    click.echo(f"password set for {found.email}; {accounts.revoked_words(revoked)}")


@user.command("admin")
@click.argument("email")
@click.option("--revoke", is_flag=True, help="Take the administrator's rights away.")
def user_admin(email: str, revoke: bool) -> None:
    """Make an account an administrator of the service: it registers LMSs (/admin/lti)."""
    from grader.services import accounts

    accounts.set_admin(_user(email).id, not revoke)
    click.echo(f"{email} is {'no longer ' if revoke else ''}an administrator")


@user.command("sign-out")
@click.argument("email")
def user_sign_out(email: str) -> None:
    """Sign an account out everywhere: every session, remember cookie and API token."""
    from grader.services import accounts

    revoked = accounts.revoke_access(_user(email).id)
    click.echo(f"{email} is signed out everywhere: {accounts.revoked_words(revoked)}")


@user.command("second-factor-off")
@click.argument("email")
def user_second_factor_off(email: str) -> None:
    """Turn an account's second factor (TOTP) off, for someone who lost the phone and the
    recovery codes; they sign in with the password and may set it up again."""
    from grader.services import totp

    totp.reset(_user(email).id)
    click.echo(f"{email}: second factor turned off (its recovery codes no longer work)")


@user.command("export")
@click.argument("email")
@click.argument("dest", type=click.Path(dir_okay=True, writable=True))
def user_export(email: str, dest: str) -> None:
    """Write everything the service holds about an account to a ZIP (DEST: a new file, or a
    folder to put it in): the same files as the person's own download, and integrity.json."""
    import shutil
    from pathlib import Path

    from grader.services import ServiceError
    from grader.services.data import export

    found = _user(email)
    try:
        data, name = export.export(None, found.id)
    except ServiceError as error:
        _fail(error)
    with data:
        target = Path(dest) / name if Path(dest).is_dir() else Path(dest)
        if target.exists():
            _fail(FileExistsError(f"{target} exists already: nothing was written"))
        with target.open("xb") as out:
            shutil.copyfileobj(data, out)
    click.echo(f"wrote the data of account {found.id} ({found.email}) to {target}")


@user.command("erase")
@click.argument("email")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def user_erase(email: str, yes: bool) -> None:
    """Erase an account: its name, e-mail, password, tokens, LTI identities, memberships and
    uploads; its attempts are anonymized or deleted (GRADER_ERASURE_ATTEMPTS)."""
    from grader.services import ServiceError
    from grader.services.data import erasure

    found = _user(email)
    click.echo(f"Erasing account {found.id} ({found.email}): {erasure.attempts_words()}.")
    if not yes:
        click.confirm("This cannot be undone. Erase it?", abort=True)
    try:
        erased = erasure.erase(None, found.id)
    except ServiceError as error:
        _fail(error)
    click.echo(erased.words())


@course.command("create")
@click.argument("name")
@click.option("--instructor", "instructor_email", help="E-mail of its instructor.")
@click.option(
    "--timezone",
    help="IANA time zone its dates are typed and shown in (default: GRADER_TIMEZONE, else UTC).",
)
def course_create(name: str, instructor_email: str | None, timezone: str | None) -> None:
    """Create a course and print its join code."""
    from grader.services import ServiceError
    from grader.services.courses import courses

    try:
        created = courses.create_course(name, instructor_email, timezone=timezone)
    except ServiceError as error:
        _fail(error)
    click.echo(
        f"course {created.id} {created.name!r} ({created.timezone}): join code {created.join_code}"
    )


@course.command("set")
@click.argument("course_ref")
@click.option("--timezone", help="IANA time zone, for example America/New_York.")
@click.option("--slip-days", type=int, help="Late days each student may spend without penalty.")
def course_set(course_ref: str, timezone: str | None, slip_days: int | None) -> None:
    """Show and type a course's dates in another time zone (every stored instant stays), or
    give its students a budget of slip days."""
    from grader.services import ServiceError
    from grader.services.courses import courses, zones
    from grader.services.courses.slip_days import set_slip_days

    if timezone is None and slip_days is None:
        _fail(ValueError("give --timezone ZONE or --slip-days N"))
    try:
        found = courses.find_course(course_ref)
        if slip_days is not None:
            found = set_slip_days(None, found.id, slip_days)
            click.echo(f"course {found.id} {found.name!r}: {found.slip_days} slip days a student")
        if timezone is None:
            return
        found = courses.set_timezone(found.id, timezone)
    except ServiceError as error:
        _fail(error)
    click.echo(f"course {found.id} {found.name!r} is in {found.timezone}")
    for item in found.assignments:
        if item.due_at is not None:
            click.echo(f"  {item.title}: due {zones.words(item.due_at, found.timezone)}")


@course.command("extend")
@click.argument("course_ref")
@click.argument("email")
@click.option("--assignment", "assignment_id", type=int, required=True, help="Assignment id.")
@click.option("--slot", "slot_number", type=int, help="Only this exercise (1, 2, ...).")
@click.option("--days", type=int, help="Days after the class's due date.")
@click.option(
    "--due",
    help='New due date, "YYYY-MM-DD HH:MM" in the course\'s time zone unless it has an offset.',
)
@click.option("--attempts", type=int, default=0, help="Extra attempts.")
@click.option("--waive-penalty", is_flag=True, help="No late penalty for this student.")
def course_extend(
    course_ref: str,
    email: str,
    assignment_id: int,
    slot_number: int | None,
    days: int | None,
    due: str | None,
    attempts: int,
    waive_penalty: bool,
) -> None:
    """Give one student of a course an extension on an assignment: a later due date (--days N
    or --due DATE), extra attempts, the late penalty waived."""
    from grader.services import ServiceError
    from grader.services.courses import courses, extensions, zones

    if (days is None) == (due is None) and not attempts and not waive_penalty:
        _fail(ValueError("give --days N or --due DATE (or --attempts N, --waive-penalty)"))
    try:
        found = courses.find_course(course_ref)
        made = extensions.grant(
            None,
            found.id,
            extensions.ExtensionInput(
                assignment_id=assignment_id,
                email=email,
                slot_index=slot_number - 1 if slot_number is not None else None,
                due_at=zones.parse(due, found.timezone) if due is not None else None,
                days=days,
                extra_attempts=attempts,
                waive_penalty=waive_penalty,
            ),
        )
    except ServiceError as error:
        _fail(error)
    what = [f"due {zones.words(made.due_at, found.timezone)}"] if made.due_at else []
    what += [f"{made.extra_attempts} extra attempts"] if made.extra_attempts else []
    what += ["no late penalty"] if made.waive_penalty else []
    click.echo(f"extension {made.id} for {email} on {made.assignment.title}: {', '.join(what)}")


@course.command("add")
@click.argument("course_ref")
@click.argument("email")
@click.option(
    "--role",
    type=click.Choice(COURSE_ROLES),
    default=STUDENT,
    show_default=True,
    help="The role the invite offers (its link is printed).",
)
def course_add(course_ref: str, email: str, role: str) -> None:
    """Invite a person to a course (by id or name), by the roster's rule: they join, or take a
    staff role, by accepting the printed link signed in as their account (an address with no
    account gets one, which that link alone claims)."""
    from grader.services import ServiceError, accounts
    from grader.services.courses import courses, invites, roster, zones

    try:
        found = courses.find_course(course_ref)
        what = roster.add_member(None, found.id, email, role)
    except ServiceError as error:
        _fail(error)
    click.echo(f"{email}: {what} in {found.name}")
    for link in invites.pending_links(found.id):
        if link.email == accounts.normalize_email(email):
            click.echo(
                f"invite link (path, valid until {zones.words(link.expires_at, found.timezone)}): "
                f"/invite/{link.token}"
            )


@course.command("copy")
@click.argument("course_ref")
@click.option("--name", "new_name", required=True, help="The new offering's name.")
@click.option("--shift-days", type=int, help="Move every date by this many days.")
@click.option(
    "--first-due",
    metavar="DATE",
    help='Move every date so the first due date falls on this one ("YYYY-MM-DD HH:MM", in '
    "the course's time zone unless it carries an offset).",
)
def course_copy(
    course_ref: str, new_name: str, shift_days: int | None, first_due: str | None
) -> None:
    """Copy a course (by id or name) into a new offering: its settings, assignments, slots
    and trees, every date shifted; no students, attempts, uploads, extensions or LMS links."""
    from grader.services import ServiceError
    from grader.services.courses import copying, courses, zones

    try:
        found = courses.find_course(course_ref)
        copied = copying.copy_course(
            None,
            found.id,
            new_name,
            shift_days=shift_days,
            first_due_at=zones.parse(first_due, found.timezone) if first_due else None,
        )
    except ServiceError as error:
        _fail(error)
    click.echo(
        f"course {copied.course.id} {copied.course.name!r}: join code {copied.course.join_code}; "
        f"{copied.assignments} assignment(s), {copied.slots} exercise(s) copied from "
        f"{found.name!r}, dates moved by {copying.offset_words(copied.offset)}. Place its LMS "
        "links again by deep linking."
    )


@course.command("list")
def course_list() -> None:
    """List courses with their join codes."""
    import sqlalchemy as sa

    from grader.extensions import db
    from grader.models import Course

    for found in db.session.scalars(sa.select(Course).order_by(Course.id)):
        click.echo(f"{found.id}\t{found.join_code}\t{found.name}")


@course.command("archive")
@click.argument("course_ref")
@click.option("--reopen", is_flag=True, help="Open an archived course again (before its purge).")
def course_archive(course_ref: str, reopen: bool) -> None:
    """Archive a course (by id or name): read-only, its students' data purged by the worker
    GRADER_RETENTION_DAYS later."""
    from grader.services import ServiceError
    from grader.services.courses import courses, zones
    from grader.services.data import retention

    try:
        found = retention.archive(None, courses.find_course(course_ref).id, not reopen)
    except ServiceError as error:
        _fail(error)
    when = retention.purge_at(found)
    if when is None:
        click.echo(f"course {found.id} {found.name!r} is open")
    else:
        click.echo(
            f"course {found.id} {found.name!r} is archived; its students' data is purged "
            f"on {zones.words(when, found.timezone)}"
        )


@assignment.command("create")
@click.option("--course", "course_ref", required=True, help="Course id or name.")
@click.option(
    "--preset",
    default="standard",
    show_default=True,
    help="A file of exercises/presets/ without .toml.",
)
@click.option("--title", help="Default: the preset's title.")
@click.option(
    "--due",
    help='Due date, "YYYY-MM-DD HH:MM" (a bare date: its 23:59) in the course\'s time zone '
    "unless it carries an offset.",
)
def assignment_create(course_ref: str, preset: str, title: str | None, due: str | None) -> None:
    """Create an assignment from a preset."""
    from grader.services import ServiceError
    from grader.services.courses import courses, zones

    try:
        found = courses.find_course(course_ref)
        due_at = zones.parse(due, found.timezone, end_of_day=True) if due else None
        created = courses.create_assignment(found.id, preset, title, due_at)
    except ServiceError as error:
        _fail(error)
    click.echo(
        f"assignment {created.id} {created.title!r} in {found.name}: {len(created.slots)} exercises"
    )


@assignment.command("presets")
def assignment_presets() -> None:
    """List the presets and check that each one loads."""
    from grader.services import ServiceError
    from grader.services.courses import courses

    for name in courses.preset_names():
        try:
            preset = courses.load_preset(name)
        except ServiceError as error:
            _fail(error)
        kinds = ", ".join(s.kind for s in preset.slots)
        click.echo(f"{name}\t{preset.title}\t{kinds}")


@click.command("demo")
@click.option("--preset", default="standard", show_default=True)
@with_appcontext
def demo(preset: str) -> None:
    """Create the demo course (idempotent) and print its logins."""
    from grader.services import demo as demo_service

    seeded = demo_service.seed(preset)
    click.echo(f"course: {seeded['course']} (join code {seeded['join_code']})")
    click.echo(f"assignment: {seeded['assignment']} (id {seeded['assignment_id']})")
    for email, password in seeded["logins"].items():
        click.echo(f"login: {email} / {password}")


@click.command("gradebook")
@click.argument("course_ref")
@click.option("--csv", "as_csv", is_flag=True, help="CSV (the default is JSON).")
@with_appcontext
def gradebook_command(course_ref: str, as_csv: bool) -> None:
    """Print a course's gradebook (by id or exact name), as the dashboard computes it."""
    from grader.services import ServiceError
    from grader.services.courses import courses
    from grader.services.teaching import gradebook

    try:
        found = gradebook.build(courses.find_course(course_ref).id)
    except ServiceError as error:
        _fail(error)
    if as_csv:
        click.echo(found.to_csv(), nl=False)
    else:
        import json

        click.echo(json.dumps(found.to_dict(), indent=2))


def init_app(app: Flask) -> None:
    for command in (user, course, assignment, demo, gradebook_command):
        app.cli.add_command(command)
