"""Uploads of engines as a student's API client sends them (`engine_slot`, the fixture of
tests/security/conftest.py), and the count of those stored."""

from __future__ import annotations

import io
from typing import Any


def post_engine(client: Any, engine_slot: dict[str, Any], data: bytes, name: str) -> Any:
    return client.post(
        "/api/engines",
        headers=engine_slot["headers"],
        data={**engine_slot["form"], "file": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
    )


def submissions_in_db(app: Any) -> int:
    import sqlalchemy as sa

    from grader.extensions import db
    from grader.models import Submission

    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count(Submission.id)))
