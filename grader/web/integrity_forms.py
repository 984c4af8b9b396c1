"""The academic-integrity pages' forms."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import BooleanField, HiddenField


class SimilarityForm(FlaskForm):
    """The engine similarity check's button, with its one choice."""

    earlier = BooleanField(
        "Also compare with earlier offerings (your other courses' engine slots on the same suite)"
    )


class IntegrityAccessForm(FlaskForm):
    """Whether the course's TAs may read the academic-integrity pages."""

    ta_may_read = BooleanField("The course's TAs may read the academic-integrity pages")
    back = HiddenField()  # the page the form is on, to return to
