"""A registered LMS changed or removed by an administrator, and what removing it stops."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from grader.extensions import db
from grader.models import (
    Course,
    LtiContext,
    LtiDeployment,
    LtiRegistration,
    LtiResourceLink,
    LtiUser,
    User,
)
from grader.services import Conflict, Invalid, NotFound
from grader.services.lti.registrations import _admin, _text, _url, frame_origins_from
from grader.services.transactions import writing


@dataclass(frozen=True)
class Consequences:
    """What deleting a registration stops: the courses the LMS opens, the links placed in it
    (their scores no longer reach it), and the LMS identities (those people no longer sign in
    from it; their accounts stay)."""

    courses: list[str]
    links: int
    identities: int

    def words(self) -> str:
        if not (self.courses or self.links or self.identities):
            return "Nothing uses this registration yet: deleting it stops nothing."
        parts = []
        if self.courses:
            parts.append(
                f"{len(self.courses)} course(s) no longer open from this LMS "
                f"({', '.join(self.courses)})"
            )
        if self.links:
            parts.append(
                f"{self.links} link(s) placed in it stop launching, and their scores no "
                "longer reach its gradebook"
            )
        if self.identities:
            parts.append(
                f"{self.identities} person(s) no longer sign in from it (their accounts and "
                "work stay)"
            )
        return "Deleting it: " + "; ".join(parts) + "."


def _registration(registration_id: int) -> LtiRegistration:
    reg = db.session.get(LtiRegistration, registration_id)
    if reg is None:
        raise NotFound("no such registration")
    return reg


def registration(actor: User | None, registration_id: int) -> LtiRegistration:
    """One registration, for an administrator."""
    _admin(actor)
    return _registration(registration_id)


def consequences(actor: User | None, registration_id: int) -> Consequences:
    _admin(actor)
    reg = _registration(registration_id)
    courses = list(
        db.session.scalars(
            sa.select(Course.name)
            .join(LtiContext, LtiContext.course_id == Course.id)
            .where(LtiContext.registration_id == reg.id)
            .order_by(Course.name)
        )
    )
    links = db.session.scalar(
        sa.select(sa.func.count(LtiResourceLink.id))
        .join(LtiContext, LtiResourceLink.context_id == LtiContext.id)
        .where(LtiContext.registration_id == reg.id)
    )
    identities = db.session.scalar(
        sa.select(sa.func.count(LtiUser.id)).where(LtiUser.registration_id == reg.id)
    )
    return Consequences(courses, int(links or 0), int(identities or 0))


def edit(
    actor: User | None,
    registration_id: int,
    *,
    auth_login_url: str,
    auth_token_url: str,
    key_set_url: str,
    deployment_ids: list[str],
    auth_audience: str | None,
    trust_emails: bool,
    frame_origins: list[str] | None = None,
) -> LtiRegistration:
    """The registration's endpoints, deployments, e-mail trust and the origins besides its own
    that may frame the tool changed (its issuer and client id name it: a new pair is a new
    registration)."""
    _admin(actor)
    ids = sorted({_text(d, "a deployment id") for d in deployment_ids if d.strip()})
    if len(ids) > 100:
        raise Invalid("at most 100 deployment ids")
    values: dict[str, object] = {
        "auth_login_url": _url(auth_login_url, "the authentication request URL"),
        "auth_token_url": _url(auth_token_url, "the access token URL"),
        "key_set_url": _url(key_set_url, "the platform's JWKS URL"),
        "auth_audience": _url(auth_audience, "the token audience") if auth_audience else None,
        "trust_emails": trust_emails,
    }
    if frame_origins is not None:  # None: the origins it has stay
        values["frame_origins"] = frame_origins_from(frame_origins)
    with writing() as session:
        reg = _registration(registration_id)
        for name, value in values.items():
            setattr(reg, name, value)
        kept = {d.deployment_id: d for d in reg.deployments}
        reg.deployments = [kept.get(d) or LtiDeployment(deployment_id=d) for d in ids]
        session.flush()
    return reg


def set_frame_origins(actor: User | None, registration_id: int, origins: list[str]) -> list[str]:
    """The origins besides the registration's own that may frame the tool, replaced."""
    _admin(actor)
    checked = frame_origins_from(origins)
    with writing():
        _registration(registration_id).frame_origins = checked
    return checked


def delete(actor: User | None, registration_id: int, confirm_issuer: str) -> str:
    """The registration gone, with its deployments, LMS courses, links and identities (the
    courses, accounts and work here stay); the issuer typed again confirms it."""
    _admin(actor)
    reg = _registration(registration_id)
    if (confirm_issuer or "").strip() != reg.issuer:
        raise Conflict("type the registration's issuer exactly to delete it; nothing was deleted")
    words = f"{reg.issuer} (client {reg.client_id})"
    with writing() as session:
        session.delete(session.get_one(LtiRegistration, registration_id))
    return words
