"""The test app's settings and form helpers. Tests import helpers from plain modules such as this
one (`from tests.app_support import ...`), never from a conftest: conftests hold fixtures only.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

FAST_ARGON2 = {"time_cost": 1, "memory_cost": 1024, "parallelism": 1}
#: The same cost as `GRADER_*` variables, for every server and `grader` command a test starts
#: (tests/conftest.py puts them in the tests' environment): production's cost is 0.25 s of CPU
#: per hash and per sign-in, spent on nothing a test checks.
FAST_ARGON2_ENV = {
    "GRADER_ARGON2_TIME_COST": str(FAST_ARGON2["time_cost"]),
    "GRADER_ARGON2_MEMORY_KIB": str(FAST_ARGON2["memory_cost"]),
}
PASSWORD = "correct horse battery"
_CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def app_config(db_file: Path, **extra: Any) -> dict[str, Any]:
    return {
        "TESTING": True,
        "SECRET_KEY": "test-secret",
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{db_file}",
        "GRADER_ARGON2": FAST_ARGON2,
        # Tree generation's wall-clock budget (0.3 s in service): a test of what is generated
        # must not fail because a loaded machine was slow; the budget's own tests set theirs.
        "GRADER_GENERATOR_SECONDS": 10.0,
        **extra,
    }


def csrf_from(html: str) -> str:
    match = _CSRF.search(html)
    assert match, "no CSRF token in the page"
    return match.group(1)


def enrol(course_id: int, email: str, role: str = "student") -> None:
    """Adds an account to a course the one way (inside an app context): the roster's rule, and
    the invite (to the course, or to a staff role) accepted by the account itself."""
    from grader.services import accounts
    from grader.services.courses import invites, roster

    if roster.add_member(None, course_id, email, role).startswith("invited"):
        invites.accept_as(accounts.user_by_email(email), course_id)


def upload_row(owner_id: int, slot_id: int, **fields: Any) -> Any:
    """An engine upload's row added to the session (inside an app context; the caller commits),
    for the tests that need one to exist and not its grading: a placeholder file of 1 byte for
    the quick suite, queued, unless `fields` say otherwise."""
    from grader.extensions import db
    from grader.models import Submission

    placeholder = {"sha256": "0" * 64, "stored_path": "x.py", "filename": "engine.py", "size": 1}
    upload = Submission(owner_id=owner_id, slot_id=slot_id, suite="quick", **placeholder | fields)
    db.session.add(upload)
    return upload


def bearer(token: str) -> dict[str, str]:
    """The API's Authorization header for a token."""
    return {"Authorization": f"Bearer {token}"}


def attempt_count(app: Any = None, *where: Any) -> int:
    """How many attempts are stored (those matching the SQLAlchemy conditions ``where``): read
    in ``app``'s context, or in the context already pushed when ``app`` is None."""
    import sqlalchemy as sa

    from grader.extensions import db
    from grader.models import Attempt

    query = sa.select(sa.func.count(Attempt.id)).where(*where)
    if app is None:
        return db.session.scalar(query) or 0
    with app.app_context():
        return db.session.scalar(query) or 0


def install_url_builder_cache() -> None:
    """Werkzeug's URL builders compiled once per rule and process (see tests/conftest.py):
    ``Rule._compile_builder`` memoised on what the code it compiles is made of."""
    from werkzeug.routing import Rule

    compile_builder = Rule._compile_builder
    if getattr(compile_builder, "cached", False):
        return
    compiled: dict[tuple[Any, ...], Any] = {}

    def cached(self: Rule, append_unknown: bool = True) -> Any:
        key = (
            self.rule,
            self.host if self.map and self.map.host_matching else self.subdomain,
            tuple(self._trace),
            repr(sorted((self.defaults or {}).items())),
            append_unknown,
        )
        builder = compiled.get(key)
        if builder is None:
            builder = compiled[key] = compile_builder(self, append_unknown)
        return builder

    cached.cached = True  # type: ignore[attr-defined]
    cached.original = compile_builder  # type: ignore[attr-defined]
    Rule._compile_builder = cached  # type: ignore[method-assign]
