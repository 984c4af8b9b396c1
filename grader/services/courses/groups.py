"""Named groups of a course's students ("accommodations 1.5x"), which an extension may name
instead of one student."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from grader.models import Extension, GroupMember, User
from grader.services import Invalid
from grader.services.courses.extensions import affected, student_in
from grader.services.courses.recompute import relate
from grader.services.courses.staff import staff
from grader.services.transactions import writing


def set_group(actor: User, course_id: int, name: str, emails: Iterable[str]) -> int:
    """Names a group of the course's students (its members are replaced); the count. The
    lateness of its members' work is recomputed under the group's extensions."""
    staff(actor, course_id, change=True)
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise Invalid("a group's name is 1 to 100 characters", field="name")
    with writing() as session:
        try:
            members = {student_in(session, course_id, e).id for e in emails if e.strip()}
        except Invalid as refused:  # about the list of e-mails, the input this service takes
            raise Invalid(str(refused), field="emails") from None
        before = set(
            session.scalars(
                sa.select(GroupMember.user_id).where(
                    GroupMember.course_id == course_id, GroupMember.name == name
                )
            )
        )
        session.execute(
            sa.delete(GroupMember).where(
                GroupMember.course_id == course_id, GroupMember.name == name
            )
        )
        for user_id in sorted(members):
            session.add(GroupMember(course_id=course_id, name=name, user_id=user_id))
        extensions = session.scalars(
            sa.select(Extension).where(
                Extension.course_id == course_id, Extension.group_name == name
            )
        )
        for extension in extensions:
            relate(session, sorted(before | members), affected(session, extension)[1])
    return len(members)
