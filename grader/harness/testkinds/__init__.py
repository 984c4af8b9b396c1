"""Test kinds, one module each (moves.py holds movegen and perft), registered in TEST_KINDS by
their class (base.py). Importing this package registers them all."""

from grader.harness.testkinds import moves, parallel, play, search, timing
from grader.harness.testkinds.base import TEST_KINDS, Group, TestKind, register

__all__ = [
    "TEST_KINDS",
    "Group",
    "TestKind",
    "moves",
    "parallel",
    "play",
    "register",
    "search",
    "timing",
]
