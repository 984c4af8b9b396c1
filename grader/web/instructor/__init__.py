"""The instructor dashboard (/instructor): one blueprint, `instructor`, whose routes live in one
module a domain (courses, roster, deadlines, editor, gradebook, regrades), each with its forms beside it
in `<domain>_forms.py`; thin views over the services, which check who may do what (its JSON API
is web/api/instructor.py). One blueprint keeps every endpoint's name (`instructor.edit_slot`)."""

from __future__ import annotations

from grader.web.instructor import courses, deadlines, editor, gradebook, regrades, roster
from grader.web.instructor.blueprint import bp

__all__ = ["bp", "courses", "deadlines", "editor", "gradebook", "regrades", "roster"]
