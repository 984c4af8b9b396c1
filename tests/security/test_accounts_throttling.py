"""Login throttling and weak passwords. The throttle runs against a real gunicorn with two
workers: its counts live in storage both workers share (a memory storage would let each worker
count alone, doubling every limit), and a throttled try is a 429 with Retry-After."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.security.accounts_support import PASSWORD, Browser, served

VICTIM, OTHER = "victim@example.com", "other@example.com"
PER_ACCOUNT, PER_ADDRESS = 5, 8


def _seed() -> None:
    from grader.services import accounts

    accounts.create_user(VICTIM, PASSWORD)
    accounts.create_user(OTHER, PASSWORD)


# make test's workers (--dist loadgroup): one of them runs the module, its server made once.
pytestmark = pytest.mark.xdist_group("test_accounts_throttling")


@pytest.fixture(scope="module")
def shared_server(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("throttling")
    with served(
        folder,
        migrated_template,
        _seed,
        workers=2,
        GRADER_LOGIN_LIMIT_ACCOUNT=f"{PER_ACCOUNT} per 15 minutes",
        GRADER_LOGIN_LIMIT_ADDRESS=f"{PER_ADDRESS} per 15 minutes",
    ) as (url, _):
        yield url, folder / "instance" / "ratelimits.sqlite3"


@pytest.fixture
def server(shared_server: tuple[str, Path]) -> str:
    """The module's server with no failed try counted yet: each test starts from zero, as on
    a server of its own (the counters are all the throttle keeps; the accounts stay as seeded,
    since a sign-in changes none of what these tests read)."""
    from grader.ratelimits import SQLiteStorage

    url, counters = shared_server
    SQLiteStorage(f"sqlite:///{counters}").reset()
    return url


def test_wrong_passwords_for_one_account_are_throttled_across_workers(server):
    attacker = Browser(server)
    tries = PER_ACCOUNT + 1  # under the address's limit, so only the account's can refuse
    statuses = [attacker.login(VICTIM, f"guess number {n}").status for n in range(tries)]
    # Every wrong try counts, whichever worker answered it.
    assert statuses == [200] * PER_ACCOUNT + [429]
    refused = attacker.login(VICTIM, PASSWORD)  # even the right password waits now
    assert refused.status == 429
    assert 0 < int(refused.headers["Retry-After"]) <= 15 * 60
    assert "Too many failed tries" in refused.text
    # Another visitor of another account is not locked out by it...
    assert Browser(server).login(OTHER).status == 302


def test_one_address_spraying_many_accounts_is_throttled(server):
    attacker = Browser(server)
    statuses = [
        attacker.login(f"user{n}@example.com", "Summer2024!x").status
        for n in range(PER_ADDRESS + 3)
    ]
    assert statuses[:PER_ADDRESS] == [200] * PER_ADDRESS
    assert set(statuses[PER_ADDRESS:]) == {429}
    # X-Forwarded-For is not believed without GRADER_TRUSTED_PROXIES: no way around it.
    spoofed = attacker.request(
        "/login",
        {"email": OTHER, "password": "wrong wrong wrong", "csrf_token": attacker.csrf()},
        headers={"X-Forwarded-For": "203.0.113.9"},
    )
    assert spoofed.status == 429


def test_successful_logins_do_not_count(server):
    for _ in range(PER_ACCOUNT + 2):
        browser = Browser(server)
        assert browser.login(VICTIM).status == 302


# -- weak passwords: the app's test client (the server adds nothing) -----------------------------


@pytest.mark.parametrize(
    "password, reason",
    [
        ("short1!", "at least 10 characters"),
        ("password123", "too common"),
        ("qwertyuiop", "too common"),
        ("1234567890", "too common"),
        ("newcomer@example.com", "too common"),
    ],
)
def test_weak_passwords_are_refused_with_a_reason(client, app, factory, password, reason):
    from grader.models import User

    _, code = factory.course("Search 101")
    page = client.get("/signup").get_data(as_text=True)
    from tests.app_support import csrf_from

    answer = client.post(
        "/signup",
        data={
            "email": "newcomer@example.com",
            "password": password,
            "confirm": password,
            "join_code": code,
            "csrf_token": csrf_from(page),
        },
    )
    assert answer.status_code == 200 and reason in answer.get_data(as_text=True)
    with app.app_context():
        from grader.extensions import db

        assert db.session.scalar(sa.select(sa.func.count(User.id))) == 0


def test_the_cli_and_the_account_page_refuse_weak_passwords_too(runner, app, factory, client, auth):
    factory.user("student@example.com")
    done = runner.invoke(
        args=["user", "password", "student@example.com", "--password", "password1"]
    )
    assert done.exit_code != 0 and "at least 10" in done.output
    done = runner.invoke(
        args=["user", "password", "student@example.com", "--password", "iloveyou12"]
    )
    assert done.exit_code != 0 and "too common" in done.output
    auth.login()
    answer = client.post(
        "/account/password",
        data={
            "current": PASSWORD,
            "password": "password123",
            "confirm": "password123",
            "csrf_token": auth.csrf(),
        },
        follow_redirects=True,
    )
    assert "too common" in answer.get_data(as_text=True)
    auth.logout()
    assert auth.login().status_code == 302  # the old password still holds


def test_a_stolen_session_cannot_guess_the_password_on_the_account_page(client, auth, factory):
    """The account page checks the current password, so it is throttled like a login."""
    factory.user("student@example.com")
    auth.login()
    statuses = [
        client.post(
            "/account/password",
            data={
                "current": f"guess number {n}",
                "password": "another good pass",
                "confirm": "another good pass",
                "csrf_token": auth.csrf(),
            },
        ).status_code
        for n in range(11)
    ]
    assert statuses == [302] * 10 + [429]


# -- with GRADER_QUEUE_URL=redis://: the counts live in Redis ------------------------------------


@pytest.fixture
def redis_url(tmp_path) -> Iterator[str]:
    import shutil
    import socket
    import subprocess
    import time

    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.mark.backends
def test_with_a_redis_queue_the_counts_live_in_redis(tmp_path, db_file, monkeypatch, redis_url):
    """The limiter's counts are in the Redis server (where every worker of every machine finds
    them; the gunicorn tests above show the sharing with the SQLite storage)."""
    import redis

    from grader import create_app
    from grader.services import accounts
    from tests.app_support import app_config, csrf_from

    monkeypatch.setenv("GRADER_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.setenv("GRADER_QUEUE_URL", redis_url)
    monkeypatch.setenv("GRADER_LOGIN_LIMIT_ACCOUNT", f"{PER_ACCOUNT} per 15 minutes")
    app = create_app(app_config(db_file))
    assert app.config["RATELIMIT_STORAGE_URI"] == redis_url
    with app.app_context():
        accounts.create_user(VICTIM, PASSWORD)
    client = app.test_client()
    statuses = []
    for n in range(PER_ACCOUNT + 1):
        token = csrf_from(client.get("/login").get_data(as_text=True))
        statuses.append(
            client.post(
                "/login",
                data={"email": VICTIM, "password": f"guess number {n}", "csrf_token": token},
            ).status_code
        )
    assert statuses == [200] * PER_ACCOUNT + [429]
    store = redis.Redis.from_url(redis_url)
    try:
        assert any(b"login-account" in key for key in store.keys("*"))
    finally:
        store.close()


@pytest.mark.parametrize(
    "queue, storage",
    [
        ("", "sqlite:///{instance}/ratelimits.sqlite3"),
        ("sqlite:///{instance}/q.sqlite", "sqlite:///{instance}/ratelimits.sqlite3"),
        ("redis://10.0.0.5:6379/0", "redis://10.0.0.5:6379/0"),
        ("unix:///run/redis.sock", "redis+unix:///run/redis.sock"),
    ],
)
def test_the_throttle_stores_where_every_worker_finds_it(tmp_path, queue, storage):
    from grader import config

    settings = config.load(
        tmp_path, {"SECRET_KEY": "k"}, environ={"GRADER_QUEUE_URL": queue.format(instance=tmp_path)}
    )
    assert settings["RATELIMIT_STORAGE_URI"] == storage.format(instance=tmp_path)


def test_linking_an_lms_account_guesses_passwords_no_faster_than_a_login(app, client):
    """/lti/account checks an existing account's password: the login's limits hold there too."""
    from grader.services import accounts
    from tests.app_support import csrf_from
    from tests.lti.lti_platform import LEARNER
    from tests.lti.lti_support import bench

    with app.app_context():
        accounts.create_user(VICTIM, PASSWORD)
    platform = bench(app, client)  # an LMS on a loopback port, while the generator lives
    env = next(platform)
    try:
        env.launch(client, env.member("mallory", [LEARNER]))
        statuses = []
        for n in range(11):
            token = csrf_from(client.get("/lti/account").get_data(as_text=True))
            statuses.append(
                client.post(
                    "/lti/account",
                    data={"csrf_token": token, "email": VICTIM, "password": f"guess number {n}"},
                ).status_code
            )
    finally:
        platform.close()
    assert statuses == [200] * 10 + [429]
