"""Where a slot's pages are: the web's endpoints for the student's page and the staff's page of
each kind of slot, by what it holds (`models.SlotKind.has_exercise`: an exercise the exercise
page serves, or an engine with its own pages)."""

from __future__ import annotations

from typing import NamedTuple

from flask import url_for

from grader.models import Slot


class SlotPages(NamedTuple):
    """The endpoints of a slot's two pages, each taking ``assignment_id`` and ``index``."""

    student: str
    staff: str


PAGES = {
    True: SlotPages("pages.slot", "instructor.edit_slot"),
    False: SlotPages("engines.slot_page", "engines.staff_slot"),
}


def slot_url(slot: Slot, *, staff: bool = False) -> str:
    """The URL of the slot's student page, or with ``staff`` its staff page."""
    pages = PAGES[slot.slot_kind.has_exercise]
    endpoint = pages.staff if staff else pages.student
    return url_for(endpoint, assignment_id=slot.assignment_id, index=slot.index)
