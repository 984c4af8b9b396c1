from collections.abc import Iterator
from typing import Any

import pytest

from tests.app_support import PASSWORD, csrf_from
from tests.lti.lti_support import Env, bench


@pytest.fixture
def lti_env(app: Any, client: Any) -> Iterator[Env]:
    yield from bench(app, client)


@pytest.fixture
def root(app: Any, runner: Any) -> Any:
    """A logged-in administrator's client."""
    runner.invoke(args=["user", "create", "root@uni.example", "--password", PASSWORD])
    runner.invoke(args=["user", "admin", "root@uni.example"])
    client = app.test_client()
    token = csrf_from(client.get("/login").get_data(as_text=True))
    client.post(
        "/login", data={"email": "root@uni.example", "password": PASSWORD, "csrf_token": token}
    )
    return client
