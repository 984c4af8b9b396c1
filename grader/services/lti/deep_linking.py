"""Deep linking: what an instructor may place in the LMS, the signed reply placing it, and an
LMS course opening a course built here before."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from grader.extensions import db
from grader.models import (
    INSTRUCTOR,
    Assignment,
    Course,
    LtiContext,
    LtiRegistration,
    LtiResourceLink,
    Membership,
    User,
)
from grader.services import Conflict, Forbidden, Invalid, NotFound
from grader.services.lti.claims import AGS_CLAIM, DL_SETTINGS
from grader.services.lti.launch import (
    _claim,
    _service_url,
)
from grader.services.lti.passback import iso_utc
from grader.services.transactions import writing

# -- deep linking ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    value: str  # "a:ID" (an assignment) or "s:ID:INDEX" (one of its exercises)
    label: str


def _opened(course_id: int) -> set[int]:
    """The course's assignments some LMS link has opened (a launch through a placed link)."""
    return set(
        db.session.scalars(
            sa.select(LtiResourceLink.assignment_id)
            .join(LtiContext, LtiResourceLink.context_id == LtiContext.id)
            .where(LtiContext.course_id == course_id)
        )
    )


def choices(user: User, course_id: int) -> list[Choice]:
    """What an instructor may place in the LMS from this course: each assignment, each slot.
    An assignment no LMS link has opened yet says so: a placement whose reply never reached
    the LMS (a closed window, an LMS that was down) is offered again, marked."""
    from grader.services.courses.staff import staff

    staff(user, course_id, change=True)
    opened = _opened(course_id)
    out = []
    for assignment in db.session.scalars(
        sa.select(Assignment).where(Assignment.course_id == course_id).order_by(Assignment.id)
    ):
        mark = "" if assignment.id in opened else "; not opened from the LMS yet"
        out.append(
            Choice(
                f"a:{assignment.id}",
                f"{assignment.title} (whole assignment, {len(assignment.slots)} points{mark})",
            )
        )
        for slot in assignment.slots:
            out.append(
                Choice(
                    f"s:{assignment.id}:{slot.index}",
                    f"{assignment.title}, exercise {slot.index + 1}: {slot.name}",
                )
            )
    return out


def _context_of(claims: dict[str, Any]) -> LtiContext | None:
    """The stored context a validated launch's claims name."""
    context = _claim(claims, "context") or {}
    return db.session.scalar(
        sa.select(LtiContext)
        .join(LtiRegistration)
        .where(
            LtiRegistration.issuer == claims.get("iss"),
            LtiContext.context_id == str(context.get("id", "")),
        )
    )


def _launch_context(message_launch: Any, course_id: int) -> LtiContext:
    """The context of a deep-linking launch, if it opens `course_id`."""
    found = _context_of(message_launch.get_launch_data())
    if found is None or found.course_id != course_id or not message_launch.is_deep_link_launch():
        raise Forbidden("this deep-linking request is for another course")
    return found


def other_courses(user: User, course_id: int) -> list[Course]:
    """Courses the instructor teaches here that this LMS course could open instead."""
    from grader.services.courses.staff import staff_courses

    return [c for c, role in staff_courses(user) if role == INSTRUCTOR and c.id != course_id]


def link_course(user: User, message_launch: Any, course_id: int, target_id: int) -> int:
    """Makes the LMS course open an existing course here (one the instructor built before)
    instead of the one its first launch made: members come along, and the made course goes
    when it has no assignment. Refused once links are placed (they name its assignments)."""
    from grader.services.courses.staff import staff

    staff(user, course_id, change=True)
    staff(user, target_id, change=True)
    context = _launch_context(message_launch, course_id)
    with writing() as session:
        context = session.get_one(LtiContext, context.id)
        if (
            session.scalar(
                sa.select(LtiResourceLink.id)
                .where(LtiResourceLink.context_id == context.id)
                .limit(1)
            )
            is not None
        ):
            raise Conflict("links to this course are already placed in the LMS")
        members = set(
            session.scalars(sa.select(Membership.user_id).where(Membership.course_id == target_id))
        )
        for membership in session.scalars(
            sa.select(Membership).where(Membership.course_id == course_id)
        ):
            if membership.user_id not in members:
                session.add(
                    Membership(
                        user_id=membership.user_id, course_id=target_id, role=membership.role
                    )
                )
        context.course_id = target_id
        session.flush()
        used = session.scalar(
            sa.select(Assignment.id).where(Assignment.course_id == course_id).limit(1)
        ) or session.scalar(
            sa.select(LtiContext.id).where(LtiContext.course_id == course_id).limit(1)
        )
        if used is None:
            session.execute(sa.delete(Membership).where(Membership.course_id == course_id))
            session.execute(sa.delete(Course).where(Course.id == course_id))
    return target_id


class _Resource(DeepLinkResource):
    def to_dict(self) -> dict[str, object]:
        item = super().to_dict()
        item["window"] = {"targetName": "_blank"}  # the pages refuse frames (clickjacking)
        lineitem = self.get_lineitem()
        if lineitem is not None and lineitem.get_end_date_time():
            # Deep Linking 2.0's lineItem carries the column's due date; pylti1p3 drops it.
            item["lineItem"]["endDateTime"] = lineitem.get_end_date_time()  # type: ignore[index]
        return item


def deep_link_return_url(user: User, message_launch: Any, course_id: int) -> str:
    """Where a reply to this deep-linking launch goes, once the user may place things from
    this course (its instructor) and the launch opens it; refused otherwise, before anything
    is made for the reply (`services.lti.lms_setup`)."""
    from grader.services.courses.staff import staff

    staff(user, course_id, change=True)
    _launch_context(message_launch, course_id)
    claims = message_launch.get_launch_data()
    return _return_url((claims.get(DL_SETTINGS) or {}).get("deep_link_return_url"))


def deep_link_reply(
    user: User, message_launch: Any, course_id: int, choice: str, launch_url: str
) -> tuple[str, str]:
    """The platform's return URL and the signed LtiDeepLinkingResponse placing `choice`."""
    return_url = deep_link_return_url(user, message_launch, course_id)
    match = re.fullmatch(r"a:(\d+)|s:(\d+):(\d+)", choice or "")
    if not match:
        raise Invalid("choose an assignment or an exercise")
    assignment = db.session.get(Assignment, int(match.group(1) or match.group(2)))
    if assignment is None or assignment.course_id != course_id:
        raise NotFound("no such assignment in this course")
    custom = {"assignment_id": str(assignment.id), "slot": ""}
    title, points, resource_id = (
        assignment.title,
        float(max(len(assignment.slots), 1)),
        f"assignment-{assignment.id}",
    )
    due = assignment.due_at
    if match.group(3) is not None:
        slot = next((s for s in assignment.slots if s.index == int(match.group(3))), None)
        if slot is None:
            raise NotFound("no such exercise in this assignment")
        custom["slot"] = str(slot.index)
        title = f"{assignment.title}: {slot.title or f'exercise {slot.index + 1}'}"
        points, resource_id = 1.0, f"slot-{slot.id}"
        due = slot.effective_due_at
    lineitem = (
        LineItem()
        .set_label(title[:200])
        .set_score_maximum(points)
        .set_resource_id(resource_id)
        .set_tag("alpha-beta-grader")
    )
    if due is not None:
        lineitem.set_end_date_time(iso_utc(due))
    resource = (
        _Resource()
        .set_url(launch_url)
        .set_title(title[:200])
        .set_custom_params(custom)
        .set_lineitem(lineitem)
    )
    return return_url, message_launch.get_deep_link().get_response_jwt([resource])


# -- an LMS link launched before it opens anything -------------------------------------------


def _unplaced_link(message_launch: Any, course_id: int) -> tuple[LtiContext, str, str | None]:
    """The context, resource link id and line item URL of a plain launch (not deep linking)
    into `course_id` through a link that opens nothing yet."""
    claims = message_launch.get_launch_data()
    if message_launch.is_deep_link_launch():
        raise Invalid("this is a deep-linking request: choose on its own page")
    found = _context_of(claims)
    if found is None or found.course_id != course_id:
        raise Forbidden("this LMS launch is for another course")
    resource = _claim(claims, "resource_link") or {}
    link_id = resource.get("id") if isinstance(resource, dict) else None
    if not isinstance(link_id, str) or not link_id or len(link_id) > 255:
        raise Invalid("the LMS sent no link (resource_link claim) to place it in")
    placed = db.session.scalar(
        sa.select(LtiResourceLink.id).where(
            LtiResourceLink.context_id == found.id, LtiResourceLink.resource_link_id == link_id
        )
    )
    if placed is not None:
        raise Conflict("this LMS link already opens an assignment")
    ags = claims.get(AGS_CLAIM)
    lineitem = _service_url(ags.get("lineitem")) if isinstance(ags, dict) else None
    return found, link_id, lineitem


def check_unplaced_link(user: User, message_launch: Any, course_id: int) -> None:
    """Refuses unless the user is the course's instructor and the launch came through an LMS
    link of this course that opens nothing yet: checked before anything is made for it."""
    from grader.services.courses.staff import staff

    staff(user, course_id, change=True)
    _unplaced_link(message_launch, course_id)


def place_unplaced_link(
    user: User, message_launch: Any, course_id: int, assignment_id: int
) -> None:
    """The LMS link this launch came through opens the assignment from now on; its scores go
    to the line item the launch named (or one made at the first score, as for deep links)."""
    check_unplaced_link(user, message_launch, course_id)
    context, link_id, lineitem = _unplaced_link(message_launch, course_id)
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None or assignment.course_id != course_id:
        raise NotFound("no such assignment in this course")
    try:
        with writing() as session:
            session.add(
                LtiResourceLink(
                    context_id=context.id,
                    resource_link_id=link_id,
                    assignment_id=assignment.id,
                    lineitem_url=lineitem,
                )
            )
    except sa.exc.IntegrityError:  # placed by another request meanwhile
        raise Conflict("this LMS link already opens an assignment") from None


_HOST = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?")


def _return_url(value: Any) -> str:
    """The platform's deep-linking return URL, if it is a plain http(s) URL: it becomes a form's
    action and, by its origin, the page's CSP `form-action`, which odd characters would widen."""
    url = _service_url(value)
    if url is None or re.search(r"[\s'\"<>;]", url) or not _HOST.fullmatch(urlsplit(url).netloc):
        raise Invalid("the LMS sent no usable deep-linking return URL")
    return url
