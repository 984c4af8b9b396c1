"""Flask-style fixtures: each web test gets its own app on a real SQLite file.

The schema comes from the real migrations, run once per session into a template file that
each test copies (running Alembic per test would cost a second each).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader import freeze_at_exit

# The test platforms run on loopback; tests/security/test_lti_outbound.py lifts this.
os.environ["GRADER_LTI_ALLOW_PRIVATE"] = "1"

from tests.app_support import (
    FAST_ARGON2_ENV,
    PASSWORD,
    app_config,
    bearer,
    csrf_from,
    enrol,
    install_url_builder_cache,
)

# The test machine is shared and busy: a worker the tests start times every timing test as it
# is (tests/harness/test_contention.py sets its own share to test the deferral).
os.environ["GRADER_TIMING_BUSY_SHARE"] = "0"

# Password hashes at the tests' cost in every app, server and `grader` command the tests start.
os.environ.update(FAST_ARGON2_ENV)

# The test session holds the apps its tests build until it ends: the service's exit policy for
# such a process (grader.freeze_at_exit), set here where the process starts.
freeze_at_exit()

# `make test` runs pytest in pytest-xdist's worker processes (gw0, gw1, ...; "" without xdist),
# side by side on one machine. What two workers would otherwise share is made each one's own:
# the users the sandbox's grading slots run as (uid base + slot), so the harness tests' check for
# leftover processes (tests/harness/_helpers.py) counts only processes this worker started, never
# another worker's engine in the same slot number. Ports are always free ones (live_server.py),
# files live under each test's or each session's own temporary folder, PostgreSQL and Redis are
# each worker's own servers (tests/jobs/conftest.py).
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if WORKER:
    os.environ["GRADER_SANDBOX_UID_BASE"] = str(61000 + 1000 * (int(WORKER[2:]) + 1))

# The harness's fixtures (the sandbox, the tiny suite, submissions of the sample engines), for
# tests/harness and the `grader engine` and `grader checkers` commands in tests/cli.
pytest_plugins = ["tests.harness.fixtures"]

# tests/image checks a built image's filesystem: `make test-image` builds it and runs them.
collect_ignore = [] if os.environ.get("GRADER_TEST_IMAGE_ROOT") else ["image"]

# Each web test makes its own app (create_app), and a new app compiles a URL builder for each of
# its 150 rules: Werkzeug writes each builder as Python source and compiles it, 0.3 s of CPU an
# app, most of a small test's time. The builder's code depends only on the rule's parsed parts,
# its defaults and whether it appends unknown arguments (it reads the rule's converters through
# its `self` when called), so within a test process the same rule's builder is compiled once and
# bound to each new app's rule. The URLs built are Werkzeug's own; tests/web/test_app.py checks
# them against a builder compiled afresh.
install_url_builder_cache()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `backends` need the servers `make test-backends` installs (PostgreSQL,
    Redis): they run in that configuration only, and are deselected (not skipped) elsewhere."""
    if WORKER and config.getvalue("loadgroup"):
        _check_groups(items)
    if os.environ.get("GRADER_TEST_BACKENDS") == "postgres-redis":
        return
    kept = [item for item in items if item.get_closest_marker("backends") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


def _check_groups(items: list[pytest.Item]) -> None:
    """`--dist loadgroup` sends a group's tests to one worker by the suffix pytest-xdist adds to
    their node ids (after this module's hooks' turn, being tried last). A pytest whose node ids
    drop the suffix would spread a group over every worker, each setting up its costly session
    fixture again, without a word: stop the run instead."""
    lost = [i.nodeid for i in items if i.get_closest_marker("xdist_group") and "@" not in i.nodeid]
    if lost:
        raise pytest.UsageError(
            f"--dist loadgroup is not grouping {len(lost)} tests (first: {lost[0]}): this "
            "pytest and pytest-xdist do not work together (pyproject.toml pins pytest)"
        )


@pytest.fixture(autouse=True)
def reference_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The reference's answers and timings (`GRADER_CACHE_DIR`) kept in the test's own folder,
    for the app, the `grader` commands and the workers a test starts: never the user's cache,
    which other workers and other checkouts on the machine write, so what a test sees computed
    or read is its own run's."""
    folder = tmp_path / "reference-cache"
    monkeypatch.setenv("GRADER_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file brought to the latest schema by `flask db upgrade`'s own code."""
    from flask_migrate import upgrade

    from grader import create_app
    from grader.extensions import db

    folder = tmp_path_factory.mktemp("template")
    path = folder / "template.sqlite3"
    mp = pytest.MonkeyPatch()
    mp.setenv("GRADER_INSTANCE_PATH", str(folder / "instance"))
    try:
        app = create_app(app_config(path))
        with app.app_context():
            upgrade(directory=app.config["GRADER_MIGRATIONS_DIR"])
            db.engine.dispose()  # checkpoints the WAL into the file before it is copied
    finally:
        mp.undo()
    return path


@pytest.fixture
def db_file(tmp_path: Path, migrated_template: Path) -> Path:
    path = tmp_path / "grader.sqlite3"
    shutil.copy(migrated_template, path)
    return path


@pytest.fixture
def app(tmp_path: Path, db_file: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from grader import create_app
    from grader.extensions import db

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    application = create_app(app_config(db_file))
    yield application
    with application.app_context():
        db.engine.dispose()


@pytest.fixture
def smtp() -> Iterator[Any]:
    """The test mail backend (tests/mail_support.py), serving on a loopback port."""
    from tests.mail_support import smtp_sink

    with smtp_sink() as server:
        yield server


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def runner(app: Any) -> Any:
    """The `grader` command's groups on the test's app (create_app leaves them out)."""
    from grader import cli

    cli.init_app(app)
    return app.test_cli_runner()


class Factory:
    """Makes users, courses and assignments through the services, as the CLI does."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def user(self, email: str, role: str = "student", password: str = PASSWORD) -> int:
        from grader.services import accounts

        with self.app.app_context():
            return accounts.create_user(email, password, role).id

    def course(self, name: str = "Course", instructor: str | None = None) -> tuple[int, str]:
        from grader.services.courses import courses

        with self.app.app_context():
            course = courses.create_course(name, instructor)
            return course.id, course.join_code

    def member(self, course_id: int, email: str, role: str = "student") -> None:
        with self.app.app_context():
            enrol(course_id, email, role)

    def assignment(self, course_id: int, preset: str = "standard", **kw: Any) -> int:
        from grader.services.courses import courses

        with self.app.app_context():
            return courses.create_assignment(course_id, preset, **kw).id

    def token(self, email: str, scopes: tuple[str, ...] | None = None) -> str:
        """A token with `scopes` (every scope by default: the tests act as full clients)."""
        from grader.services import accounts

        with self.app.app_context():
            return accounts.issue_token(
                accounts.user_by_email(email).id, scopes=scopes or accounts.SCOPES
            )

    def lms_identity(self, user_id: int, sub: str) -> None:
        """The account's identity at a registered LMS, as a launch from it records one (the mark
        of an account an LMS made or linked)."""
        import sqlalchemy as sa

        from grader.extensions import db
        from grader.models import LtiRegistration, LtiUser

        issuer = "https://lms.example.edu"
        with self.app.app_context():
            registration = db.session.scalar(
                sa.select(LtiRegistration).where(LtiRegistration.issuer == issuer)
            )
            if registration is None:
                registration = LtiRegistration(
                    issuer=issuer,
                    client_id="grader",
                    auth_login_url=f"{issuer}/auth",
                    auth_token_url=f"{issuer}/token",
                    key_set_url=f"{issuer}/jwks",
                )
                db.session.add(registration)
                db.session.flush()
            db.session.add(LtiUser(registration_id=registration.id, sub=sub, user_id=user_id))
            db.session.commit()

    def classroom(self) -> dict[str, Any]:
        """An instructor and a student in one course with a `standard` assignment."""
        self.user("teacher@example.com", "instructor")
        self.user("student@example.com")
        course_id, join_code = self.course("Search 101", "teacher@example.com")
        self.member(course_id, "student@example.com")
        return {
            "course_id": course_id,
            "join_code": join_code,
            "assignment_id": self.assignment(course_id),
        }


@pytest.fixture
def factory(app: Any) -> Factory:
    return Factory(app)


@pytest.fixture
def room(app: Any, factory: Factory) -> Any:
    """The dashboard's course of `tests/instructor_support.py` (`make_room`): an instructor, a
    TA, two students, an outsider and an assignment with the textbook tree and a generated slot.
    A test file whose tests need another course overrides it with a `room` fixture of its own."""
    from tests.instructor_support import make_room

    return make_room(app, factory)


@pytest.fixture
def classroom(factory: Factory) -> dict[str, Any]:
    """The API tests' course (`Factory.classroom`): an instructor and a student in one course
    with a `standard` assignment."""
    return factory.classroom()


@pytest.fixture
def student_headers(factory: Factory, classroom: dict[str, Any]) -> dict[str, str]:
    """The classroom's student's token (every scope) as the API's Authorization header."""
    return bearer(factory.token("student@example.com"))


class AuthActions:
    def __init__(self, client: Any) -> None:
        self._client = client

    def login(self, email: str = "student@example.com", password: str = PASSWORD) -> Any:
        token = csrf_from(self._client.get("/login").get_data(as_text=True))
        return self._client.post(
            "/login", data={"email": email, "password": password, "csrf_token": token}
        )

    def csrf(self) -> str:
        """The session's CSRF token, as the page gives it to its script."""
        return csrf_from(self._client.get("/practice").get_data(as_text=True))

    def logout(self) -> Any:
        return self._client.post("/logout", data={"csrf_token": self.csrf()})


@pytest.fixture
def auth(client: Any) -> AuthActions:
    return AuthActions(client)
