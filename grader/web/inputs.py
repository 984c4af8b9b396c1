"""What every request is parsed with before any view sees it: strict JSON (no NaN, no Infinity,
no number too large for a float, bounded nesting) and ids that fit the database's integers."""

from __future__ import annotations

from typing import Any

from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from grader import strict_json
from grader.models import MAX_ID

MAX_JSON_DEPTH = strict_json.MAX_DEPTH


def strict_loads(text: str | bytes) -> Any:
    """JSON as RFC 8259 has it; ValueError (a 400) for NaN, Infinity, 1e400 and deep nesting."""
    return strict_json.loads(text, MAX_JSON_DEPTH)


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, with request bodies read by ``strict_loads``."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return strict_loads(s)


class IdConverter(IntegerConverter):
    """``<int:...>`` limited to what a database id can be: a larger number is a 404 whatever the
    method (a plain ``max`` would make werkzeug answer 405 where another method's rule shares
    the path)."""

    def to_python(self, value: str) -> int:
        number = super().to_python(value)
        if number > MAX_ID:
            raise NotFound("no such item")
        return number
