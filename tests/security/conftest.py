"""Fixtures of the security tests."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def engine_slot(app: Any, factory: Any) -> dict[str, Any]:
    """An engine slot (the quick suite) in `Factory.classroom`'s assignment: the upload form's
    fields that name it, and its student's Authorization header."""
    from grader.services.engines import submissions

    room = factory.classroom()
    with app.app_context():
        slot = submissions.add_engine_slot(room["assignment_id"], suite="quick")
    return {
        "form": {"assignment_id": str(room["assignment_id"]), "slot_index": str(slot.index)},
        "headers": {"Authorization": f"Bearer {factory.token('student@example.com')}"},
    }
