"""An LMS course set up from inside the LMS: an instructor makes an assignment from a preset
and places it in one submit, from the deep-linking picker or from the first launch of a link
that opens nothing yet, without leaving the LMS.

The assignment is made the dashboard's one way (`editor.create_assignment`, its checks
included), and placed the LTI package's way (`lti.deep_link_reply`, `lti.place_unplaced_link`).
Everything that could refuse the placing is checked before the assignment is made, so a refused
request makes nothing. This room sits beside `lti`, not in it: the editor reaches `lti` (a
regrade sends scores), so `lti` cannot reach the editor back.
"""

from __future__ import annotations

from typing import Any

from grader.models import Assignment, User, utcnow
from grader.services import Invalid, lti
from grader.services.courses import courses, zones
from grader.services.teaching import editor


def _check(data: editor.AssignmentInput, preset: str, course_id: int) -> None:
    if not preset:
        raise Invalid("choose a preset")
    editor.check_assignment(data)
    if data.due_at is not None and data.due_at <= utcnow():
        zone = courses.find_course(course_id).timezone
        raise Invalid(f"the due date is in the past ({zones.words(data.due_at, zone)})")


def place_new_assignment(
    user: User,
    message_launch: Any,
    course_id: int,
    data: editor.AssignmentInput,
    preset: str,
    launch_url: str,
) -> tuple[str, str]:
    """A new assignment from a preset, placed by the deep-linking launch at once: the
    platform's return URL and the signed reply (as `lti.deep_link_reply`)."""
    lti.deep_link_return_url(user, message_launch, course_id)  # refusals before anything is made
    _check(data, preset, course_id)
    made = editor.create_assignment(user, course_id, data, preset=preset)
    return lti.deep_link_reply(user, message_launch, course_id, f"a:{made.id}", launch_url)


def link_new_assignment(
    user: User, message_launch: Any, course_id: int, data: editor.AssignmentInput, preset: str
) -> Assignment:
    """A new assignment from a preset, opened from now on by the LMS link this (plain) launch
    came through; its scores go to that link's line item."""
    lti.check_unplaced_link(user, message_launch, course_id)
    _check(data, preset, course_id)
    made = editor.create_assignment(user, course_id, data, preset=preset)
    lti.place_unplaced_link(user, message_launch, course_id, made.id)
    return made
