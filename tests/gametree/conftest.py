"""Every gametree test starts with empty grading caches: a result cached by one test (or by the
unmutated run mutmut forks its mutants from) is never served to another."""

from __future__ import annotations

import pytest

from grader.gametree import kinds


@pytest.fixture(autouse=True)
def _fresh_grading_caches() -> None:
    kinds._analysis.cache_clear()
    kinds._variant_answers.cache_clear()
