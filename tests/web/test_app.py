"""The factory, settings, SQLite setup and migrations."""

from __future__ import annotations

import sqlite3
import threading

import pytest
import sqlalchemy as sa

from grader import create_app
from grader.extensions import db
from grader.services.transactions import writing
from tests.app_support import FAST_ARGON2


def test_settings_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "inst"))
    monkeypatch.delenv("GRADER_DATABASE_URL", raising=False)
    monkeypatch.delenv("GRADER_SECRET_KEY", raising=False)
    app = create_app({"GRADER_ARGON2": FAST_ARGON2})
    assert (
        app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'inst' / 'grader.sqlite3'}"
    )
    key = app.config["SECRET_KEY"]
    assert len(key) == 64 and (tmp_path / "inst" / "secret_key").read_text() == key
    assert create_app().config["SECRET_KEY"] == key  # kept, not made again

    monkeypatch.setenv("GRADER_SECRET_KEY", "from-env")
    monkeypatch.setenv("GRADER_DATABASE_URL", f"sqlite:///{tmp_path / 'other.db'}")
    app = create_app()
    assert app.config["SECRET_KEY"] == "from-env"
    assert app.config["SQLALCHEMY_DATABASE_URI"].endswith("other.db")
    assert app.config["SESSION_COOKIE_HTTPONLY"] and app.config["SESSION_COOKIE_SAMESITE"] == "Lax"


def test_bad_setting_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("GRADER_SQLITE_WRITE_BEGIN", "sometimes")
    with pytest.raises(ValueError, match="IMMEDIATE or DEFERRED"):
        create_app()


def test_the_collector_is_paused_while_an_app_is_built_and_left_as_it_was(tmp_path, monkeypatch):
    import gc

    import grader.web

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "inst"))
    seen = []
    wire = grader.web.init_app
    monkeypatch.setattr(
        grader.web, "init_app", lambda app: (seen.append(gc.isenabled()), wire(app))
    )
    create_app({"GRADER_ARGON2": FAST_ARGON2})
    assert seen == [False] and gc.isenabled()
    monkeypatch.setenv("GRADER_SQLITE_WRITE_BEGIN", "sometimes")
    with pytest.raises(ValueError, match="IMMEDIATE or DEFERRED"):  # a failed build, too
        create_app({"GRADER_ARGON2": FAST_ARGON2})
    assert gc.isenabled()
    monkeypatch.delenv("GRADER_SQLITE_WRITE_BEGIN")
    gc.disable()
    try:
        create_app({"GRADER_ARGON2": FAST_ARGON2})
        assert seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()


def test_argon2_cost_from_environment_defaults_to_production(tmp_path, monkeypatch):
    from grader.config import argon2_cost

    assert argon2_cost({}) == {"time_cost": 3, "memory_cost": 65536, "parallelism": 1}
    assert argon2_cost({"GRADER_ARGON2_TIME_COST": "", "GRADER_ARGON2_MEMORY_KIB": " "}) == (
        argon2_cost({})
    )
    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv("GRADER_ARGON2_TIME_COST", "2")
    monkeypatch.setenv("GRADER_ARGON2_MEMORY_KIB", "19456")
    assert create_app().config["GRADER_ARGON2"] == {
        "time_cost": 2,
        "memory_cost": 19456,
        "parallelism": 1,
    }


@pytest.mark.parametrize(
    ("variable", "value", "words"),
    [
        ("GRADER_ARGON2_TIME_COST", "0", "GRADER_ARGON2_TIME_COST must be from 1 to"),
        ("GRADER_ARGON2_TIME_COST", "-3", "GRADER_ARGON2_TIME_COST must be from 1 to"),
        ("GRADER_ARGON2_TIME_COST", "2.5", "GRADER_ARGON2_TIME_COST must be a whole number"),
        ("GRADER_ARGON2_MEMORY_KIB", "7", "GRADER_ARGON2_MEMORY_KIB must be from 8 to"),
        ("GRADER_ARGON2_MEMORY_KIB", "64M", "GRADER_ARGON2_MEMORY_KIB must be a whole number"),
        ("GRADER_ARGON2_MEMORY_KIB", str(2**32), "GRADER_ARGON2_MEMORY_KIB must be from 8 to"),
    ],
)
def test_an_argon2_cost_argon2_cannot_use_is_refused_at_start_up(
    tmp_path, monkeypatch, variable, value, words
):
    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path))
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError, match=words):
        create_app()


def test_sqlite_pragmas(app):
    with app.app_context():
        pragma = {
            name: db.session.execute(sa.text(f"PRAGMA {name}")).scalar()
            for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous")
        }
    assert pragma == {
        "journal_mode": "wal",
        "foreign_keys": 1,
        "busy_timeout": 10_000,
        "synchronous": 1,
    }


def test_write_transactions_begin_immediate_and_reads_deferred(app):
    statements: list[str] = []
    with app.app_context():
        sa.event.listen(
            db.engine, "before_cursor_execute", lambda *args: statements.append(args[2])
        )
        db.session.execute(sa.text("SELECT 1"))
        with writing() as session:
            session.execute(sa.text("SELECT 1"))
    begins = [s for s in statements if s.startswith("BEGIN")]
    assert begins == ["BEGIN", "BEGIN IMMEDIATE"]


def test_deferred_read_then_write_fails_where_immediate_waits(db_file):
    """Why writes take the lock at BEGIN: SQLite cannot upgrade a stale read transaction."""
    a = sqlite3.connect(db_file, isolation_level=None, timeout=5)
    b = sqlite3.connect(db_file, isolation_level=None, timeout=5)
    a.execute("BEGIN")
    a.execute("SELECT count(*) FROM user").fetchone()
    b.execute("BEGIN IMMEDIATE")
    b.execute("INSERT INTO course (name, join_code, created_at) VALUES ('x', 'X1', '2026-01-01')")
    b.execute("COMMIT")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        a.execute(
            "INSERT INTO course (name, join_code, created_at) VALUES ('y', 'Y1', '2026-01-01')"
        )
    a.execute("ROLLBACK")
    a.close()
    b.close()


def test_concurrent_writers_do_not_get_locked(app, factory):
    """Threads with their own connections read, then write through `writing()`: none fails."""
    from grader.services import accounts

    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            with app.app_context():
                for i in range(15):
                    accounts.user_by_email("nobody@example.com")  # a read transaction first
                    accounts.create_user(f"w{n}-{i}@example.com", None)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with app.app_context():
        assert db.session.scalar(sa.text("SELECT count(*) FROM user")) == 60


def test_migrations_match_the_models(app, runner):
    """`db check` exits non-zero when the models differ from the migrated schema."""
    result = runner.invoke(args=["db", "check"])
    assert result.exit_code == 0, result.output


def test_migrations_run_from_a_config_made_in_code(tmp_path, monkeypatch):
    """Alembic's env reads logging settings only when there is an ini file: a Config made in
    code, with none, migrates too (it once passed None to logging's fileConfig)."""
    from alembic import command
    from alembic.config import Config

    from tests.app_support import app_config

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    app = create_app(app_config(tmp_path / "fresh.sqlite3"))
    with app.app_context():
        config = Config()
        config.set_main_option("script_location", app.config["GRADER_MIGRATIONS_DIR"])
        command.upgrade(config, "head")
        assert "attempt" in sa.inspect(db.engine).get_table_names()
        db.engine.dispose()


def test_every_url_builder_is_the_one_werkzeug_compiles(app):
    """The tests' cache of URL builders (tests/app_support.py) gives each rule of a new app the
    code Werkzeug compiles for that rule itself, the builders with unknown arguments and without."""
    from werkzeug.routing import Rule

    compile_afresh = Rule._compile_builder.original
    rules = list(app.url_map.iter_rules())
    assert len(rules) > 100
    for rule in rules:
        assert rule._build.__func__.__code__ == compile_afresh(rule, False).__code__, rule
        assert rule._build_unknown.__func__.__code__ == compile_afresh(rule, True).__code__, rule


def test_healthz_and_ping(client):
    assert client.get("/healthz").get_json() == {"status": "ok", "workers": 0}
    assert client.get("/api/ping").get_json() == {"status": "ok"}


def test_security_headers(client):
    response = client.get("/login")
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Cache-Control"] == "no-store"


def test_unknown_api_route_is_json(client):
    response = client.get("/api/nothing-here")
    assert response.status_code == 404 and "error" in response.get_json()


def test_a_locked_database_answers_503_and_stores_nothing(app, client, factory):
    """A writer that cannot get the lock within the busy timeout gets a clear 503."""
    factory.user("student@example.com")
    token = factory.token("student@example.com")
    app.config["GRADER_SQLITE_BUSY_TIMEOUT_MS"] = 50
    with app.app_context():
        db.engine.dispose()
        sa.event.listen(
            db.engine, "connect", lambda conn, _record: conn.execute("PRAGMA busy_timeout=50")
        )
    blocker = sqlite3.connect(
        app.config["SQLALCHEMY_DATABASE_URI"].removeprefix("sqlite:///"), isolation_level=None
    )
    blocker.execute("BEGIN IMMEDIATE")
    try:
        response = client.post(
            "/api/exercises", json={"kind": "prune"}, headers={"Authorization": f"Bearer {token}"}
        )
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert response.status_code == 503 and response.headers["Retry-After"] == "1"
    assert "nothing was stored" in response.get_json()["error"]
    with app.app_context():
        assert db.session.scalar(sa.text("SELECT count(*) FROM exercise")) == 0


# -- process policy: set where a long-running process starts, never on import ---------------------

# A clean interpreter runs ``code`` after registering, first, an exit handler that prints whether
# the collector was frozen by then (exit handlers run last registered first, so ours runs after
# any gc.freeze a later registration asked for).
_FROZEN_AT_EXIT = (
    "import atexit, gc\n"
    "atexit.register(lambda: print('frozen' if gc.get_freeze_count() else 'not frozen'))\n"
)


def _frozen_at_exit(code: str, tmp_path) -> str:
    import os
    import subprocess
    import sys

    env = {**os.environ, "GRADER_INSTANCE_PATH": str(tmp_path / "inst")}
    done = subprocess.run(
        [sys.executable, "-c", _FROZEN_AT_EXIT + code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_importing_the_package_leaves_the_collector_as_it_is(tmp_path):
    """The student kit, and any program importing grader, keep the interpreter's own policy."""
    code = "import grader, grader.gametree, grader.checkers, grader.cli\nkept = [[] for _ in range(99)]\n"
    assert _frozen_at_exit(code, tmp_path) == "not frozen"


def test_the_grader_command_and_a_gunicorn_worker_freeze_the_collector_at_exit(tmp_path):
    assert _frozen_at_exit("from grader.cli import make_app\nmake_app()\n", tmp_path) == "frozen"
    hook = "from grader.gunicorn_conf import post_worker_init\npost_worker_init(None)\n"
    assert _frozen_at_exit(hook, tmp_path) == "frozen"


def test_a_gunicorn_worker_freezes_its_loaded_app_and_collects_what_loading_left(tmp_path):
    """Once a worker has loaded its app, the app's objects are out of the collector's passes,
    and a cycle loading left unreachable is freed first, not frozen for the worker's life."""
    import os
    import subprocess
    import sys

    code = (
        "import gc, weakref\n"
        "from grader import create_app\n"
        "app = create_app()\n"
        "class Node: pass\n"
        "left = Node(); left.me = left; gone = weakref.ref(left); del left\n"
        "from grader.gunicorn_conf import post_worker_init\n"
        "post_worker_init(None)\n"
        "print(gc.get_freeze_count() > 100_000, gone() is None)\n"
    )
    env = {**os.environ, "GRADER_INSTANCE_PATH": str(tmp_path / "inst")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.split() == ["True", "True"]
