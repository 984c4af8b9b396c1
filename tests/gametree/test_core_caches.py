"""The cores' caches are found and emptied before each of their tests (tests/core_caches.py), so
no test, and no mutant of a mutation run, is served a result another computed."""

from __future__ import annotations

from grader.gametree import games, kinds, solve, solver
from grader.gametree.tree import Tree
from tests.core_caches import core_caches


def test_every_cache_of_the_cores_is_found_once() -> None:
    found = core_caches()
    assert len({id(c) for c in found}) == len(found)
    for cache in (solver._kept_search, kinds._analysis, kinds._variant_answers, games._ttt_exact):
        assert cache in found  # the solver's kept searches were once missed


def test_a_search_kept_by_an_earlier_test_is_not_served_to_this_one() -> None:
    kept = [c for c in core_caches() if hasattr(c, "cache_info")]
    assert kept and all(c.cache_info().currsize == 0 for c in kept)  # whatever ran before
    tree = Tree.from_nested([[3, 12], [2, 4]])
    first = solve(tree)
    assert solve(tree) is first and solver._kept_search.cache_info().currsize == 1
