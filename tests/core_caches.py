"""The cores' memo caches (every `functools` cache in `grader.gametree` and `grader.checkers`,
found in their modules rather than listed), emptied before each of the cores' tests
(tests/gametree/conftest.py, tests/checkers/conftest.py).

A result one test cached is then never served to another, and none cached by the unmutated run
that mutmut forks its mutants from is served to a mutant: a kept search, say, would hand a
mutant of the solver the unmutated solver's result, and the mutant would survive untested."""

from __future__ import annotations

import sys
from collections.abc import Callable

CORES = ("grader.gametree", "grader.checkers")


def core_caches() -> list[Callable[..., object]]:
    """Every cache the cores' modules imported so far hold, each once (a package re-exports
    some of its modules' caches)."""
    found: dict[int, Callable[..., object]] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not any(name == c or name.startswith(c + ".") for c in CORES):
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                found.setdefault(id(value), value)
    return list(found.values())


def clear_core_caches() -> None:
    for cache in core_caches():
        cache.cache_clear()  # type: ignore[attr-defined]
