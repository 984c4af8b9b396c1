"""A pytest plugin for running one mutmut mutant again by hand, as mutmut's own children run it:
the mutant named in ``LATE_MUTANT`` is switched on only once the tests are collected (the modules
imported), so a mutant of a function run at import (board.py's tables) changes only what the
tests call, never the tables every other test uses.

    cp -r mutants /tmp/mutants-copy && cd /tmp/mutants-copy   # with the new tests copied in
    LATE_MUTANT=NAME PYTHONPATH=/path/to/repo/scripts pytest -p late_mutant -x tests/...
"""

from __future__ import annotations

import os

import pytest


def pytest_collection_finish(session: pytest.Session) -> None:
    os.environ["MUTANT_UNDER_TEST"] = os.environ["LATE_MUTANT"]
