"""A slot's pages are the web layer's to name: `web/slot_pages.py` maps each kind of slot to its
student and staff pages (that nothing below the web names an endpoint: tests/test_layers.py)."""

from __future__ import annotations

from grader.models import ENGINE_KIND, SLOT_KINDS, Slot
from grader.web.slot_pages import slot_url


def test_each_kind_of_slot_has_its_student_and_staff_pages(app) -> None:
    with app.test_request_context():
        for name in SLOT_KINDS:
            slot = Slot(assignment_id=7, index=2, kind=name)
            student, staff = slot_url(slot), slot_url(slot, staff=True)
            if name == ENGINE_KIND:
                assert (student, staff) == (
                    "/assignments/7/slots/2/engine",
                    "/instructor/assignments/7/slots/2/engines",
                )
            else:
                assert (student, staff) == (
                    "/assignments/7/slots/2",
                    "/instructor/assignments/7/slots/2",
                )
