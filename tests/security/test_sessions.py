"""Sessions that can be revoked, against a real gunicorn: a copied session or remember cookie
stops working after a sign-out, a "sign out everywhere", and a new password (page or CLI);
"keep me signed in" lasts 14 days at most."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import pytest

from tests.security.accounts_support import PASSWORD, Browser, served

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = pytest.mark.xdist_group("test_sessions")


STUDENT = "student@example.com"


def _seed() -> None:
    from grader.services import accounts

    accounts.create_user(STUDENT, PASSWORD)


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("sessions")
    env = {
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "security-secret",
    }
    with served(folder, migrated_template, _seed, workers=2) as (url, _):
        yield url, env


def _stolen(url: str, remember: bool) -> tuple[Browser, dict[str, str]]:
    """The victim signs in; the attacker copies the cookies (both of them, when remembered)."""
    victim = Browser(url)
    assert victim.login(STUDENT, remember=remember).status == 302
    cookies = victim.cookies()
    assert ("remember_token" in cookies) == remember
    return victim, cookies


def _works(url: str, cookies: dict[str, Any]) -> bool:
    attacker = Browser(url)
    attacker.set_cookies(cookies)
    return attacker.signed_in()


def _remember_only(cookies: dict[str, str]) -> dict[str, str]:
    return {"remember_token": cookies["remember_token"]}


def test_logout_revokes_the_copied_session_and_remember_cookies(server):
    url, _ = server
    victim, cookies = _stolen(url, remember=True)
    assert _works(url, cookies) and _works(url, _remember_only(cookies))  # the attack is real
    assert victim.post_form("/logout", {}, "/dashboard").status == 302
    assert not victim.signed_in()
    assert not _works(url, cookies)
    assert not _works(url, _remember_only(cookies))


def test_sign_out_everywhere_from_the_account_page(server):
    url, _ = server
    _, laptop = _stolen(url, remember=True)
    phone = Browser(url)
    assert phone.login(STUDENT).status == 302
    assert _works(url, laptop)
    assert phone.post_form("/account/sign-out-everywhere", {}, "/account").status == 302
    assert not phone.signed_in()
    assert not _works(url, laptop) and not _works(url, _remember_only(laptop))


def test_a_new_password_on_the_account_page_revokes_every_other_session(server):
    url, _ = server
    _, stolen = _stolen(url, remember=True)
    owner = Browser(url)
    owner.login(STUDENT)
    new = "a brand new passphrase"
    changed = owner.post_form(
        "/account/password", {"current": PASSWORD, "password": new, "confirm": new}, "/account"
    )
    assert changed.status == 302 and owner.signed_in()  # the one who changed it stays in
    assert not _works(url, stolen) and not _works(url, _remember_only(stolen))
    # and back, through the CLI below, so the other tests keep their password
    assert (
        owner.post_form(
            "/account/password",
            {"current": new, "password": PASSWORD, "confirm": PASSWORD},
            "/account",
        ).status
        == 302
    )


def test_grader_user_password_revokes_every_session(server):
    url, env = server
    _, stolen = _stolen(url, remember=True)
    assert _works(url, stolen)
    grader = Path(sys.executable).parent / "grader"
    done = subprocess.run(
        [str(grader), "user", "password", STUDENT, "--password", PASSWORD],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert not _works(url, stolen) and not _works(url, _remember_only(stolen))


def test_remember_lasts_14_days_at_most(server):
    url, _ = server
    browser = Browser(url)
    answer = browser.login(STUDENT, remember=True)
    remember = next(
        c for c in answer.headers.get_all("Set-Cookie") if c.startswith("remember_token=")
    )
    expires = next(
        part.split("=", 1)[1]
        for part in remember.split("; ")
        if part.lower().startswith("expires=")
    )
    lifetime = parsedate_to_datetime(expires) - dt.datetime.now(dt.UTC)
    assert dt.timedelta(days=13) < lifetime <= dt.timedelta(days=14)
    assert "HttpOnly" in remember
