"""What the account attacks need: a seeded database served by a real gunicorn, and a tiny
browser (urllib with a cookie jar, redirects not followed) to replay stolen cookies."""

from __future__ import annotations

import contextlib
import http.cookiejar
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.app_support import PASSWORD, csrf_from
from tests.live_server import seeding, serve


@dataclass
class Answer:
    status: int
    headers: Any
    text: str

    @property
    def location(self) -> str:
        return self.headers.get("Location", "")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Browser:
    """One visitor: its own cookies; answers as they come (a redirect is not followed)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self._opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()
        )

    def request(
        self, path: str, data: dict[str, str] | None = None, headers: dict[str, str] | None = None
    ) -> Answer:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(self.base + path, data=body, headers=headers or {})
        try:
            with self._opener.open(req, timeout=30) as response:
                return Answer(response.status, response.headers, response.read().decode())
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.headers, error.read().decode())

    def csrf(self, path: str = "/login") -> str:
        return csrf_from(self.request(path).text)

    def post_form(self, path: str, data: dict[str, str], form_page: str | None = None) -> Answer:
        return self.request(path, {**data, "csrf_token": self.csrf(form_page or path)})

    def login(self, email: str, password: str = PASSWORD, remember: bool = False) -> Answer:
        data = {"email": email, "password": password}
        if remember:
            data["remember"] = "y"
        return self.post_form("/login", data)

    def cookies(self) -> dict[str, str]:
        return {c.name: c.value for c in self.jar}

    def set_cookies(self, cookies: dict[str, str]) -> None:
        """Replays cookies copied from another browser (a stolen cookie)."""
        self.jar.clear()
        host = urllib.parse.urlsplit(self.base).hostname
        for name, value in cookies.items():
            self.jar.set_cookie(
                http.cookiejar.Cookie(
                    0,
                    name,
                    value,
                    None,
                    False,
                    host,
                    False,
                    False,
                    "/",
                    True,
                    False,
                    None,
                    False,
                    None,
                    None,
                    {},
                )
            )

    def signed_in(self) -> bool:
        return self.request("/dashboard").status == 200


@contextlib.contextmanager
def served(
    folder: Path, template: Path, seed: Callable[[], Any], *, workers: int = 1, **env: str
) -> Iterator[tuple[str, Any]]:
    """A copy of the migrated `template` database (tests/conftest.py's `migrated_template`)
    with `seed()` run on it (in an app context), then gunicorn with `workers` processes on it;
    yields (url, what seed returned)."""

    settings = {
        "GRADER_INSTANCE_PATH": str(folder / "instance"),
        "GRADER_DATABASE_URL": f"sqlite:///{folder / 'grader.sqlite3'}",
        "GRADER_SECRET_KEY": "security-secret",
        **env,
    }
    with seeding(template, settings):
        seeded = seed()
    with serve(folder, settings, workers=workers) as url:
        yield url, seeded
