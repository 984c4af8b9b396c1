"""Every checkers test starts with the cores' caches empty (tests/core_caches.py): a result
cached by one test (or by the unmutated run mutmut forks its mutants from) is never served to
another."""

from __future__ import annotations

import pytest

from tests.core_caches import clear_core_caches


@pytest.fixture(autouse=True)
def _fresh_core_caches() -> None:
    clear_core_caches()
