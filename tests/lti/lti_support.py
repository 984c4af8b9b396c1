"""The LTI test bench: the platform (lti_platform.py) served on loopback, registered with the
tool, and the browser's part of a launch (login initiation, the platform's auto-post form, the
POST to the tool), driven through the tool's test client."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests

from grader.models import User
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, Member, Platform, Served, form_fields

LAUNCH_URL = "http://localhost/lti/launch"


@dataclass
class Env:
    app: Any
    client: Any
    platform: Platform
    last_login: Any = None

    def member(
        self, sub: str, roles: list[str] | None = None, name: str = "", email: str = ""
    ) -> Member:
        member = Member(sub, name or sub.title(), email or f"{sub}@uni.example", roles or [LEARNER])
        self.platform.members.append(member)
        return member

    def login(
        self, client: Any, member: Member, base_url: str = "http://localhost", **claims: Any
    ) -> dict[str, str]:
        """Login initiation at the tool; the auth request it sends the browser to."""
        hint = f"hint-{member.sub}-{len(self.platform.pending)}"
        self.platform.pending[hint] = self.platform.launch_claims(member, **claims)
        response = client.post(
            "/lti/login",
            data={
                "iss": self.platform.issuer,
                "login_hint": member.sub,
                "lti_message_hint": hint,
                "target_link_uri": LAUNCH_URL,
                "client_id": self.platform.client_id,
                "lti_deployment_id": self.platform.deployment_id,
            },
            base_url=base_url,
        )
        self.last_login = response
        assert response.status_code == 302, response.get_data(as_text=True)
        location = response.headers["Location"]
        assert location.startswith(self.platform.base + "/auth?")
        return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()} | {"_url": location}

    def launch(
        self, client: Any, member: Member, base_url: str = "http://localhost", **claims: Any
    ) -> Any:
        """The whole launch as a browser makes it; the tool's answer to the POST."""
        auth = self.login(client, member, base_url, **claims)
        page = requests.get(auth["_url"], timeout=10)
        assert page.status_code == 200, page.text
        fields = form_fields(page.text)
        return client.post("/lti/launch", data=fields, base_url=base_url)

    def user(self, sub: str) -> User | None:
        import sqlalchemy as sa

        from grader.extensions import db
        from grader.models import LtiUser

        with self.app.app_context():
            link = db.session.scalar(sa.select(LtiUser).where(LtiUser.sub == sub))
            return db.session.get(User, link.user_id) if link else None


def register_platform(platform: Platform) -> Any:
    """The platform registered with the app (in its context), as an administrator does: the
    one set-up every LTI test uses. The registration."""
    from grader.services import lti

    return lti.register(
        None,
        issuer=platform.issuer,
        client_id=platform.client_id,
        auth_login_url=f"{platform.base}/auth",
        auth_token_url=f"{platform.base}/token",
        key_set_url=f"{platform.base}/jwks",
        deployment_ids=[platform.deployment_id],
    )


def bench(app: Any, client: Any) -> Iterator[Env]:
    """The platform served and registered with the app (a fixture's body: `yield from`)."""
    from grader import jobs

    served = Served(Platform())
    platform = served.platform
    platform.tool_redirect_uris = [LAUNCH_URL, LAUNCH_URL.replace("http:", "https:")]
    with app.app_context():
        register_platform(platform)
    platform.tool_jwks = client.get("/lti/jwks").get_json()  # the admin pastes the tool's keys
    # The queue runs each job as it is enqueued (after the commit), in place of a worker.
    jobs.queue(app).immediate = True
    try:
        yield Env(app, client, platform)
    finally:
        served.close()


__all__ = ["INSTRUCTOR", "LEARNER", "Env", "bench", "register_platform"]
