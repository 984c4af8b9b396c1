"""Roster sync (NRPS): the LMS course's members provisioned here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import requests
import sqlalchemy as sa
from pylti1p3.exception import LtiException
from pylti1p3.names_roles import NamesRolesProvisioningService

from grader.extensions import db
from grader.models import (
    LtiContext,
    Membership,
    User,
    utcnow,
)
from grader.services import Conflict
from grader.services.lti.claims import course_role
from grader.services.lti.launch import (
    _member,
    _str,
    _user,
)
from grader.services.lti.passback import (
    _connector,
)
from grader.services.transactions import writing

MAX_MEMBERS = 10_000  # NRPS: a platform's roster is read in pages up to this many members
MAX_PAGES = 100


# -- roster sync (NRPS) ------------------------------------------------------------------------


@dataclass(frozen=True)
class Synced:
    added: int
    updated: int
    members: int


def sync_roster(actor: User | None, course_id: int) -> Synced:
    """Reads the LMS course's members (NRPS) and provisions their accounts and memberships."""
    from grader.services.courses.staff import staff

    if actor is not None:
        staff(actor, course_id, change=True)
    contexts = list(
        db.session.scalars(
            sa.select(LtiContext).where(
                LtiContext.course_id == course_id, LtiContext.memberships_url.is_not(None)
            )
        )
    )
    if not contexts:
        raise Conflict(
            "no LMS roster service is known for this course yet: launch it from the LMS first"
        )
    fetched: list[tuple[int, list[dict[str, Any]]]] = []
    for context in contexts:  # the platform is read before the write transaction starts
        try:
            fetched.append((context.id, _members(context)))
        except (LtiException, requests.RequestException, ValueError) as error:
            raise Conflict(f"the LMS refused the roster request: {error}"[:500]) from error
    added = updated = total = 0
    with writing() as session:
        for context_id, members in fetched:
            context = session.get_one(LtiContext, context_id)
            reg = context.registration
            for member in members:
                sub = _str(member.get("user_id"))
                if sub is None or member.get("status", "Active") != "Active":
                    continue
                total += 1
                user = _user(session, reg, sub, member.get("email"), member.get("name"))
                existed = session.scalar(
                    sa.select(Membership.id).where(
                        Membership.user_id == user.id, Membership.course_id == context.course_id
                    )
                )
                _member(session, user, context.course_id, course_role(member.get("roles") or []))
                added, updated = (added, updated + 1) if existed else (added + 1, updated)
            context.synced_at = utcnow()
    return Synced(added, updated, total)


def _members(context: LtiContext) -> list[dict[str, Any]]:
    """The LMS course's members from NRPS, following its pages, within bounds."""
    url: str | None = context.memberships_url
    assert url is not None  # sync_roster reads only the contexts with a roster service
    nrps = NamesRolesProvisioningService(
        _connector(context.registration), {"context_memberships_url": url}
    )
    members: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        page, url = nrps.get_members_page(url)
        # The platform's JSON, typed by pylti1p3 but not checked: anything but an object goes.
        members.extend(dict(m) for m in page if isinstance(m, dict))
        if not url or len(members) >= MAX_MEMBERS:
            break
    return members[:MAX_MEMBERS]


def course_contexts(actor: User, course_id: int) -> list[LtiContext]:
    from grader.services.courses.staff import staff

    staff(actor, course_id)
    return list(
        db.session.scalars(
            sa.select(LtiContext).where(LtiContext.course_id == course_id).order_by(LtiContext.id)
        )
    )
