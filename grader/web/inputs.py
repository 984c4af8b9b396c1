"""What every request is parsed with before any view sees it: strict JSON (no NaN, no Infinity,
no number too large for a float, bounded nesting), ids that fit the database's integers, and an
engine upload's file (its body limit raised for the upload routes alone)."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from grader import strict_json
from grader.models import MAX_ID
from grader.services import Invalid
from grader.services.engines import uploads

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


# -- engine uploads: the pages' form and the API alike ----------------------------------------

UPLOAD_ENDPOINTS = {"engines.upload", "api.upload_engine"}


def upload_body_limit(endpoint: str | None, _values: Any) -> None:
    """Raise the body limit for the uploads alone (a URL value preprocessor of the app: it runs
    before any hook reads the form, CSRF's included)."""
    if endpoint in UPLOAD_ENDPOINTS:
        request.max_content_length = uploads.body_limit()


def uploaded_file() -> tuple[bytes, str]:
    """The upload's bytes (read no further than the body limit) and its name: the one reader of
    an engine upload, for the page's form and the API."""
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        raise Invalid("choose a file: engine.py or a .zip with engine.py at its top")
    return upload.read(uploads.body_limit() + 1), upload.filename
