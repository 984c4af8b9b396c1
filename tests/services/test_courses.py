"""The courses service: assignments from presets, titles."""

from __future__ import annotations

from typing import Any

import pytest

from grader.services import Invalid
from grader.services.courses import courses


def test_an_assignment_needs_a_title_or_a_preset(app: Any, factory: Any) -> None:
    """An empty title without a preset is refused (it once reached `None.title`)."""
    course_id, _ = factory.course()
    with app.app_context():
        for title in (None, ""):
            with pytest.raises(Invalid, match="needs a title or a preset"):
                courses.create_assignment(course_id, None, title)
        named = courses.create_assignment(course_id, None, "Week 1")
        from_preset = courses.create_assignment(course_id, "standard", "")
        assert named.title == "Week 1" and named.slots == []
        assert from_preset.title == courses.load_preset("standard").title
        assert len(from_preset.slots) > 0
