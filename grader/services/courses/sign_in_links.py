"""A sign-in link an instructor makes for a student of their course who cannot sign in (a
forgotten password on a service that sends no mail): the forgot-password link itself
(`recovery.new_link`: single use, expiring, the student chooses a new password with it),
written to the course's audit log. With a mail server it goes to the student's own address and
the instructor never sees it; without one it is shown to the instructor once, to hand over.

Refused: anyone but the course's instructors; a person who is not a student of the course; a
staff account (an instructor or administrator of the service, or a TA or instructor of any
course: only the server's operator sets their password, `grader user password`); an account an
LMS made or linked (it signs in through the LMS). The web rate-limits it per instructor
(`GRADER_SIGN_IN_LINK_LIMIT`) and per student (`GRADER_RESET_LIMIT`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa

from grader.models import INSTRUCTOR, STAFF_ROLES, STUDENT, LtiUser, Membership, User
from grader.services import Conflict, Forbidden, NotFound, mail, recovery
from grader.services.courses import audit_log
from grader.services.courses.staff import staff
from grader.services.transactions import writing


@dataclass(frozen=True)
class SignInLink:
    """A link made: for whom, the link itself when the instructor is to hand it over (None: it
    was e-mailed to the student), and until when it works."""

    email: str
    link: str | None
    expires_at: dt.datetime


def make(actor: User, course_id: int, user_id: int, url: Callable[[str], str]) -> SignInLink:
    """A single-use sign-in link for the student ``user_id`` of the course (see the module's
    docstring for who may, and for whom)."""
    staff(actor, course_id, change=True)
    with writing() as session:
        role = session.scalar(
            sa.select(Membership.role).where(
                Membership.course_id == course_id, Membership.user_id == user_id
            )
        )
        target = session.get(User, user_id)
        if target is None or role is None or target.erased_at is not None:
            raise NotFound("no such person in this course")
        staff_anywhere = session.scalar(
            sa.select(Membership.id)
            .where(Membership.user_id == user_id, Membership.role.in_(STAFF_ROLES))
            .limit(1)
        )
        if role != STUDENT or staff_anywhere or target.role == INSTRUCTOR or target.is_admin:
            raise Forbidden(
                f"{target.email} is a staff account: only the service's operator sets its "
                "password (grader user password)"
            )
        if session.scalar(sa.select(LtiUser.id).where(LtiUser.user_id == user_id).limit(1)):
            raise Conflict(
                f"{target.email} was made by the course's learning platform (LMS): they sign in "
                "through the LMS, from the course's link there"
            )
        token, expires_at = recovery.new_link(session, target)
        audit_log.record(
            session,
            course_id,
            actor.id,
            f"Sign-in link made for {target.email}",
            {"sign_in_link": [None, target.email]},
            [],
            None,
        )
        email = target.email
    if mail.configured():
        minutes = int(recovery.lifetime().total_seconds() // 60)
        sent = mail.send_many(
            [
                (
                    email,
                    "Sign in to Alpha-Beta Grader",
                    "An instructor of your course made you a link to sign in to Alpha-Beta "
                    f"Grader. Open it to choose a new password. It works once, for {minutes} "
                    f"minutes from when this message was sent:\n\n{url(token)}\n\n"
                    "Choosing a new password signs the account out everywhere and revokes its "
                    "API tokens.\n",
                )
            ]
        )
        if sent:
            return SignInLink(email, None, expires_at)
    # No mail server, or it refused the message: the instructor hands the link over.
    return SignInLink(email, url(token), expires_at)
