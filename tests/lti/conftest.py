from collections.abc import Iterator
from typing import Any

import pytest

from tests.lti.lti_support import Env, bench


@pytest.fixture
def lti_env(app: Any, client: Any) -> Iterator[Env]:
    yield from bench(app, client)
