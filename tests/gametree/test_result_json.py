"""A search result's JSON form (what the API, the replay and the stored grade read) holds every
field of the result, in the words of `jsonable` and `probability_text`, and the leaf bounds' words
(`Conventions.describe_bounds`) say what Star1 does: each checked against the search itself, on
MAX/MIN trees and on chance trees (chance_support.chance_trees), with and without bounds."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.gametree import Conventions, Tree, solve
from grader.gametree.solver import SearchResult, jsonable
from grader.gametree.tree import probability_text
from tests.gametree._helpers import ALL_CONVENTIONS, trees
from tests.gametree.chance_support import chance_trees, with_bounds

LOW, HIGH = 0, 10


def _check_json(result: SearchResult) -> None:
    data = result.to_dict()
    chance = result.tree.has_chance
    assert ("star1" in data, "note" in data) == (chance, chance)
    if chance:
        assert (data["star1"], data["note"]) == (result.star1, result.note)
    for path, entry in data["nodes"].items():
        probabilities = result.tree.probabilities(path) if chance else None
        if probabilities is None:
            assert "probabilities" not in entry
        else:
            assert entry["probabilities"] == [probability_text(p) for p in probabilities]
    assert len(data["cutoffs"]) == len(result.cutoffs)
    for written, cutoff in zip(data["cutoffs"], result.cutoffs, strict=True):
        if cutoff.chance:
            assert (written["lower"], written["upper"]) == (
                jsonable(cutoff.lower),
                jsonable(cutoff.upper),
            )
        else:
            assert "lower" not in written and "upper" not in written
    for written, step in zip(data["trace"], result.trace, strict=True):
        expected = {
            "child": step.child,
            "probability": None if step.probability is None else probability_text(step.probability),
            "sum": None if step.total is None else jsonable(step.total),
            "mass": None if step.mass is None else probability_text(step.mass),
            "lower": None if step.lower is None else jsonable(step.lower),
            "upper": None if step.upper is None else jsonable(step.upper),
        }
        if step.child is None:  # a MAX or MIN step: none of a chance step's fields
            assert not set(expected) & set(written)
        else:
            assert {k: written.get(k) for k in expected} == expected


@settings(max_examples=150, deadline=None)
@given(
    tree=chance_trees(LOW, HIGH),
    conventions=st.sampled_from(ALL_CONVENTIONS),
    bounds=st.sampled_from([None, (LOW, HIGH), ("-inf", HIGH)]),
)
def test_a_chance_results_json_holds_each_of_its_fields(tree, conventions, bounds):
    _check_json(solve(tree, conventions if bounds is None else with_bounds(conventions, *bounds)))


@settings(max_examples=100, deadline=None)
@given(tree=trees(), conventions=st.sampled_from(ALL_CONVENTIONS))
def test_a_max_min_results_json_has_no_chance_fields(tree, conventions):
    _check_json(solve(tree, conventions))


def test_the_json_of_a_star1_cut_gives_its_interval():
    """MAX over a leaf 5 and a chance node of two even children 4 and 6, leaves in [0, 6]:
    after the 4, the chance node lies in [2, 5] (S = 2, P = 1/2), at alpha = 5: cut by Star1
    when ties prune, not when they are explored (Ballard's rule, as the words say)."""
    tree = Tree.from_nested([5, {"chance": ["1/2", "1/2"], "children": [4, 6]}])
    pruned = solve(tree, Conventions(ties="prune", bounds=(0, 6)))
    (cut,) = [c for c in pruned.cutoffs if c.chance]
    assert (cut.path, cut.lower, cut.upper, pruned.pruned) == ("1", 2, 5, ("1.1",))
    _check_json(pruned)
    assert pruned.to_dict()["cutoffs"][-1]["upper"] == 5
    explored = solve(tree, Conventions(ties="explore", bounds=(0, 6)))
    assert not any(c.chance for c in explored.cutoffs) and not explored.pruned


def test_the_bounds_words_say_what_star1_does():
    """The words a student reads beside a bounded tree, checked against the cut above: "at or
    past" its window when ties prune (the bound 5 = alpha cut), "strictly past" when explored
    (the same bound did not)."""
    prune = Conventions(ties="prune", bounds=(0, 6))
    explore = Conventions(ties="explore", bounds=(0, 6))
    assert prune.describe_bounds() == (
        "Leaf values lie in [0, 6]. A chance node is cut (Star1) once its value, bounded by "
        "[S + (1 - P)·0, S + (1 - P)·6] after the children seen (weighted sum S, probability "
        "P), lies at or past its window."
    )
    assert explore.describe_bounds() == prune.describe_bounds().replace(
        "at or past", "strictly past"
    )
    half = Conventions(bounds=("-inf", Fraction(13, 2)))
    assert not half.star1 and half.describe_bounds() == (
        "Leaf values lie in [-∞, 6.5]: with a bound infinite nothing is cut at or below a "
        "chance node."
    )
    assert Conventions().describe_bounds() == "" and "Leaf values" not in Conventions().describe()
    both = Conventions(depth=2, bounds=(0, 6)).describe()
    assert "The search stops 2 plies below the root" in both
    assert both.endswith(" " + prune.describe_bounds())
