"""JSON read strictly, for whatever comes from outside (a request body, an engine's protocol
line): RFC 8259 numbers only (no NaN, no Infinity, nothing that overflows a float) and bounded
nesting, checked without recursion; and the one way results files are written (`json_text`).
Standard library only, and no other grader module: the web layer and the harness both use it,
so it sits below both (the web never loads the harness to read a request)."""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 40  # a typed tree with evaluations nests two a level: 16 levels, 32, and the body


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def json_depth(data: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply lists and objects nest in ``data`` (0 for a scalar), without recursion; stops
    counting past ``limit``."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if depth > limit:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """ValueError for anything but strict JSON nested at most ``max_depth`` deep (bytes that are
    not UTF-8 too: UnicodeDecodeError is a ValueError)."""
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError(f"JSON nested more than {max_depth} deep") from None
    if json_depth(data, max_depth) > max_depth:
        raise ValueError(f"JSON nested more than {max_depth} deep")
    return data


def json_text(data: dict[str, Any]) -> str:
    """A results file's text (results.json, rich.json): indented, UTF-8 as is, a final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
