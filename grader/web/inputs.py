"""What every request is parsed with before any view sees it: strict JSON (no NaN, no Infinity,
no number too large for a float, bounded nesting) and ids that fit the database's integers."""

from __future__ import annotations

import json
import math
from typing import Any

from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from grader.models import MAX_ID

MAX_JSON_DEPTH = 32  # answers and trees nest far less (a typed tree: its depth cap, 16)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def json_depth(data: Any) -> int:
    """How deeply lists and objects nest in ``data`` (0 for a scalar), without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) \
            else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def strict_loads(text: str | bytes) -> Any:
    """JSON as RFC 8259 has it; ValueError (a 400) for NaN, Infinity, 1e400 and deep nesting."""
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError(f"JSON nested more than {MAX_JSON_DEPTH} deep") from None
    if json_depth(data) > MAX_JSON_DEPTH:
        raise ValueError(f"JSON nested more than {MAX_JSON_DEPTH} deep")
    return data


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
