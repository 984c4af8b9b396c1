"""What every exercise kind shares (`grader/gametree/kinds/base.py`, `registry.py`): grading's
template, parts kept to six decimals, trees above the grading cache's size, the registry, the
examples every kind gives, answers in words and on paper, refusals in words.

Mutants of this kind's module no test here kills (docs/testing.md, "Mutation testing"), each
judged equivalent unless it says otherwise:
- ``ExerciseKind.grade``: ``score(None, ...)``: no kind's ``score`` reads the tree; ``min(2.0,
  ...)`` and rounding to 7 places: ``error_score`` of a whole number of errors is 1, 0.8, 0.5,
  0.1 (to 7 places too) or 0, never above 1.
- ``CountedKind.grade`` and ``CountedKind.score``: ``assess(None, ...)``: no built-in kind's
  ``assess`` reads the tree (the protocol passes it for kinds that would); ``min(2.0, ...)`` and
  rounding to 7 places, as in ``ExerciseKind.grade``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest

from grader.gametree import KINDS, Conventions, Order, Tree, grade, solve
from grader.gametree import kinds as kinds_module
from grader.gametree.kinds import CACHED_LEAVES, error_score
from tests.gametree.kinds._helpers import AG, AIMA, DEPTH_TREE, TIE, refused_words
from tests.kinds import built_in_kinds


def test_parts_keep_six_decimals():
    key = KINDS["values"].key(AG, Conventions())["values"]
    extra = grade("values", AG, Conventions(), {"values": dict(key, **{"1.1": 7})})
    assert extra.parts == {"values": 0.857143}  # 6 of 7
    bounds = KINDS["bounds"].key(AG, Conventions())["bounds"]
    one = grade("bounds", AG, Conventions(), {"bounds": dict(bounds, **{"1": [3, "inf"]})})
    assert one.parts == {"bounds": 0.916667}  # 5.5 of 6
    order = KINDS["leaf-order"].key(AG, Conventions())["leaf_order"]
    with_k = grade(
        "leaf-order", AG, Conventions(), {"leaf_order": [*order[:3], "0.1.1", *order[3:]]}
    )
    assert with_k.parts == {"leaf_order": 0.833333}  # 5 of 6
    # Marking only G: J = |{1.1, 1.1.0, 1.1.1}| / |{0.1.1, 1.1, 1.1.0, 1.1.1}| = 3/4; and a third.
    prune = grade("prune", AG, Conventions(), {"pruned": ["1.1"], "value": 3})
    assert prune.parts == {"pruned": 0.75, "value": 1.0}
    third = grade("prune", TIE, Conventions(), {"pruned": ["1.1", "2.1", "0.1"], "value": 4})
    assert third.parts == {"pruned": 0.666667, "value": 0.0}
    assert third.score == error_score(2) == 0.5


def test_error_score_by_count():
    assert [error_score(e) for e in range(6)] == [1.0, 0.8, 0.5, pytest.approx(0.1), 0.0, 0.0]


def test_scores_stay_in_zero_to_one():
    graded = grade("leaf-order", AG, Conventions(), {"leaf_order": []})
    assert graded.score == 0.0 and graded.parts == {"leaf_order": 0.0}


def _wide(leaves: int) -> Tree:
    return Tree.from_nested(
        [[1] * 10 for _ in range(leaves // 10)] + ([[2] * (leaves % 10)] if leaves % 10 else [])
    )


@pytest.mark.parametrize(("leaves", "cached"), [(CACHED_LEAVES, 1), (CACHED_LEAVES + 1, 0)])
def test_trees_above_the_cache_size_are_graded_but_not_kept(leaves, cached):
    assert CACHED_LEAVES == 2000
    tree = _wide(leaves)
    assert tree.leaf_count() == leaves
    key = KINDS["prune"].key(tree, Conventions())
    graded = grade("prune", tree, Conventions(), key)
    assert graded.score == 1.0
    wrong = grade("prune", tree, Conventions(), {"pruned": [], "value": key["value"] + 1})
    assert wrong.score == 0.0 and wrong.parts["value"] == 0.0
    assert kinds_module._analysis.cache_info().currsize == cached
    assert kinds_module._variant_answers.cache_info().currsize == cached


def test_a_grade_is_stored_with_every_field_a_student_sees() -> None:
    kind = KINDS["values"]
    variant, canonical = next(
        (v, a)
        for v, a in kind.variant_answers(AG, Conventions())
        if a != kind.analysis(AG, Conventions())[1]
    )
    graded = grade("values", AG, Conventions(), kind.to_answer(canonical))
    assert graded.diagnosis == variant.code and graded.diagnosis_text
    assert graded.to_dict() == {
        "score": graded.score,
        "parts": graded.parts,
        "feedback": graded.feedback,
        "diagnosis": variant.code,
        "diagnosis_text": graded.diagnosis_text,
        "first_wrong": graded.first_wrong,
        "scoring": graded.scoring,
    }
    assert graded.first_wrong is not None and 0 <= graded.score < 1
    assert graded.scoring["errors"]  # a wrong answer has errors to explain its score


def test_an_empty_answer_in_words_for_each_kind() -> None:
    labels: dict[str, str] = {}
    assert KINDS["values"].describe({}, labels) == "none"
    assert KINDS["minimax"].describe({}, labels) == "none"
    assert KINDS["bounds"].describe({}, labels) == "none"
    assert KINDS["leaf-order"].describe({}, labels) == ""
    assert KINDS["best-order"].describe({}, labels) == "as given"
    assert KINDS["prune"].describe({"value": 3}, labels) == "pruned: none; root value 3"


def test_answers_in_words_name_nodes_by_label_shallow_first() -> None:
    labels = {"": "A", "0": "B", "1": "C", "0.0": "D", "1.1": "AA"}
    # Values shallow first: C (depth 1) before D (depth 2), though "0.0" < "1" as text; a node
    # with no label is named by its path, the root "root".
    values = {"0.0": 2, "1": 5, "0": 3, "0.1": 1}
    assert KINDS["values"].describe({"values": values}, labels) == "B = 3, C = 5, D = 2, 0.1 = 1"
    assert KINDS["values"].describe({"values": {"": 4}}, {}) == "root = 4"
    assert KINDS["prune"].describe({"pruned": ["1.1", "0.1"], "value": 3}, labels) == (
        "pruned: AA, 0.1; root value 3"  # shorter labels first, not "0.1" < "AA"
    )
    assert KINDS["bounds"].describe({"bounds": {"0": [3, "inf"], "": [-1, 9]}}, labels) == (
        "A: α -1, β 9; B: α 3, β inf"
    )


def test_numbers_typed_as_text_are_read_by_the_grammar_and_refusals_quoted_to_forty_characters() -> (
    None
):
    # The answer grammar reads a whole number typed as text ("3", "−3"); 50 digits are past its
    # 30, refused and quoted to forty characters.
    assert KINDS["values"].normalize(AG, {"values": {"0": "3", "1": "−3"}}) == {"0": 3, "1": -3}
    assert refused_words("values", {"values": {"0": "7" * 50}}) == (
        f"the value at '0' must be a number, a fraction such as 14/3 (or inf, -inf), got '{'7' * 40}'"
    )


def test_under_a_depth_limit_an_answer_is_read_on_the_tree_the_search_sees() -> None:
    # Depth 1: B and C are leaves of the exercise, so a value given for B is a value for a leaf.
    depth1 = Conventions(depth=1)
    assert KINDS["values"].key(DEPTH_TREE, depth1) == {"values": {"": 7}}
    assert grade("values", DEPTH_TREE, depth1, {"values": {"": 7}}).score == 1.0
    with pytest.raises(kinds_module.UngradableAnswer, match="'0' in 'values' is a leaf"):
        grade("values", DEPTH_TREE, depth1, {"values": {"": 7, "0": 1}})


class _OwnKind(kinds_module.ExerciseKind):
    """A kind that keeps the protocol's own search and analysis (every built-in kind has its
    own), never registered."""

    name = "own-search"


def test_the_protocols_search_is_alpha_beta_on_the_tree_the_depth_limit_leaves() -> None:
    # The same tree and hand-worked figures as above: at depth 1, A reads its two children's
    # evaluations 1 and 7; with no limit, C is cut off after its first leaf 2 <= 3.
    own = _OwnKind()
    limited = own.search(DEPTH_TREE, Conventions(depth=1))
    assert (limited.value, limited.leaf_order, limited.pruned) == (7, ("0", "1"), ())
    whole = own.search(DEPTH_TREE, Conventions())
    assert (whole.value, whole.leaf_order, whole.pruned) == (
        3,
        ("0.0", "0.1", "0.2", "1.0"),
        ("1.1", "1.2"),
    )
    # Its analysis is that search, with no key read off it.
    search, key = own.analysis(DEPTH_TREE, Conventions(depth=1))
    assert key is None
    assert (search.value, search.leaf_order) == (7, ("0", "1"))


def test_the_protocols_search_reads_every_convention_not_the_depth_alone() -> None:
    # Right to left, C's leaves come first (6, 4, 2: C = 2), then B's 8, 12, 3, each above
    # alpha = 2, so nothing is cut: A = 3. At depth 1, C's evaluation 7 is read before B's 1.
    own = _OwnKind()
    rtl = own.search(DEPTH_TREE, Conventions(order=Order.RTL))
    assert (rtl.value, rtl.leaf_order, rtl.pruned) == (
        3,
        ("1.2", "1.1", "1.0", "0.2", "0.1", "0.0"),
        (),
    )
    limited = own.search(DEPTH_TREE, Conventions(order=Order.RTL, depth=1))
    assert (limited.value, limited.leaf_order, limited.pruned) == (7, ("1", "0"), ())


def test_misconception_answers_are_those_of_the_tree_the_search_sees() -> None:
    depth1 = Conventions(depth=1)
    for kind in ("prune", "values", "bounds", "leaf-order"):
        assert KINDS[kind].variant_answers(DEPTH_TREE, depth1) == (
            KINDS[kind].variant_answers(DEPTH_TREE.cut(1), depth1)
        )


@pytest.mark.parametrize(
    ("kind", "answer", "message"),
    [
        ("values", [3], "a values answer is a JSON object, got list"),
        ("values", {"values": {}, "zz": 1}, "a values answer has only 'values'; 'zz' is not one"),
        (
            "prune",
            {"pruned": [], "value": 3, "b": 0, 2: 0},
            "a prune answer has only 'pruned', 'value'; '2' is not one",
        ),  # keys of any type
        ("values", {}, "a values answer needs 'values'"),
        ("prune", {"pruned": []}, "a prune answer needs 'value'"),
    ],
)
def test_answers_of_the_wrong_shape_are_refused_in_words(
    kind: str, answer: object, message: str
) -> None:
    assert refused_words(kind, answer) == message


def test_an_unknown_kind_is_refused_with_the_kinds_there_are() -> None:
    with pytest.raises(kinds_module.UngradableAnswer) as refused:
        grade("nope", AG, Conventions(), {})
    assert str(refused.value) == f"unknown exercise kind 'nope' ({', '.join(KINDS)})"


def test_a_grade_keeps_the_key_and_names_no_misconception_it_did_not_find() -> None:
    key = KINDS["values"].key(AG, Conventions())
    right = grade("values", AG, Conventions(), key)
    assert right.score == 1.0 and right.key == key
    slip = grade("values", AG, Conventions(), {"values": dict(key["values"], **{"": 99})})
    assert slip.key == key
    assert slip.diagnosis is None and slip.diagnosis_text is None


class _CoreOnlyKind(kinds_module.ExerciseKind):
    """A kind only these tests register: it names one misconception variant."""

    name = "core-only"
    answer_shape: ClassVar[dict[str, kinds_module.AnswerPart]] = {
        "guess": kinds_module.AnswerPart("count")
    }
    variants = ("no-pruning",)


def test_a_registered_kind_joins_the_registry_last_with_its_variants_and_leaves_it_whole() -> None:
    from grader.gametree import VARIANTS

    before = list(KINDS)
    assert kinds_module.register(_CoreOnlyKind) is _CoreOnlyKind  # a class decorator
    try:
        assert list(KINDS) == [*before, "core-only"]
        assert isinstance(KINDS["core-only"], _CoreOnlyKind)
        assert kinds_module.ANSWER_KEYS["core-only"] == ("guess",)
        assert len(kinds_module.ANSWER_KEYS) == len(before) + 1
        assert "core-only" in VARIANTS["no-pruning"].kinds
        assert "core-only" not in VARIANTS["ties-flipped"].kinds
        with pytest.raises(ValueError) as twice:
            kinds_module.register(_CoreOnlyKind)
        assert str(twice.value) == "an exercise kind named 'core-only' is registered already"
    finally:
        kinds_module.unregister("core-only")
    assert list(KINDS) == before and "core-only" not in kinds_module.ANSWER_KEYS
    assert "core-only" not in VARIANTS["no-pruning"].kinds


def test_the_default_kind_is_the_first_registered_and_every_kind_has_its_answer_keys() -> None:
    assert kinds_module.default_kind() == next(iter(KINDS)) == "prune"
    assert list(kinds_module.ANSWER_KEYS) == list(KINDS)
    assert len(kinds_module.ANSWER_KEYS) == len(KINDS)
    # The package's own come first, in BUILT_IN's order; a plugin's after them.
    assert list(built_in_kinds()) == list(KINDS)[: len(kinds_module.BUILT_IN)]
    assert kinds_module.ANSWER_KEYS["prune"] == ("pruned", "value")
    assert kinds_module.ANSWER_KEYS["best-order"] == ("order", "leaves")


def test_each_kind_gives_examples_a_wrong_answer_first_then_a_right_one() -> None:
    for name, kind in KINDS.items():
        examples = kind.examples()
        assert [e.name for e in examples][:2] == ["wrong", "right"], name
        assert len({e.name for e in examples}) == len(examples), name
        for example in examples:
            graded = kind.grade(example.tree, Conventions(), example.answer)
            if example.score is not None:
                assert graded.score == example.score, (name, example.name)
            assert (graded.score == 1) == (example.name != "wrong"), (name, example.name)
            assert all(example.tree.has(p) for p in example.wrong_at), (name, example.name)


def test_only_the_kinds_with_misconception_variants_calibrate() -> None:
    assert {name for name, kind in built_in_kinds().items() if kind.calibrates} == {
        "prune",
        "values",
        "bounds",
        "leaf-order",
        "minimax",
    }
    assert all(kind.calibrates == bool(kind.variants) for kind in KINDS.values())


def test_a_kind_that_counts_no_errors_is_refused_where_errors_are_counted() -> None:
    assert kinds_module.counted(KINDS["values"]) is KINDS["values"]
    with pytest.raises(TypeError) as refused:
        kinds_module.counted(KINDS["best-order"])
    assert str(refused.value) == "a best-order exercise counts no errors against a projected key"


def test_a_kind_that_does_not_grade_chance_trees_refuses_one_with_its_reason() -> None:
    tree = Tree.from_nested([[1, 2], [3, 4]], "max,chance")
    with pytest.raises(ValueError) as refused:
        KINDS["bounds"].check_tree(tree)
    assert str(refused.value) == (
        "a bounds exercise is not made on a tree with chance nodes: alpha and beta below a "
        "chance node are Star1's windows, which this kind does not grade"
    )


def test_on_a_chance_tree_the_conventions_say_how_values_are_written_only_where_answers_hold_them() -> (
    None
):
    tree = Tree.from_nested([[1, 2], [3, 4]], "max,chance")
    average = (
        " A chance node (a circle) takes the weighted average of its children: each child's "
        "value times the probability on its edge, summed."
    )
    unbounded = (
        " No bounds on the leaf values are stated, so nothing is cut at or below a chance node "
        "before all its children are seen (Star1 needs both bounds)."
    )
    exact = (
        " Values are exact: write a fraction (14/3) or its decimal rounded to 2 places (4.67); "
        "4.7 or 4.666 is not 14/3."
    )
    conv = Conventions()
    plain = conv.describe(with_values=False)
    assert KINDS["leaf-order"].conventions_words(conv, tree) == plain + average + unbounded
    assert KINDS["values"].conventions_words(conv, tree) == (
        conv.describe() + average + unbounded + exact
    )
    bounded = Conventions(bounds=(0, 10))
    assert KINDS["values"].conventions_words(bounded, tree) == bounded.describe() + average + exact
    # On a tree without chance nodes, the conventions alone.
    assert KINDS["values"].conventions_words(conv, AIMA) == conv.describe()
    assert KINDS["values"].conventions_words(conv) == conv.describe()


def test_two_answers_differ_at_the_nodes_where_their_entries_differ() -> None:
    values = KINDS["values"]
    assert values.distance({"": 3, "0": 2}, {"": 3, "0": 1, "1": 5}) == 2
    assert values.distance({"": 3}, {"": 3}) == 0
    assert values.distance(3, 3) == 0 and values.distance(3, 4) == 1
    # An answer of another shape than the key's differs from it, whichever of the two it is.
    assert values.distance({"": 3}, 3) == 1 and values.distance(3, {"": 3}) == 1


def test_an_answer_in_words_names_a_node_without_a_label_by_its_path_and_the_root_as_root() -> None:
    assert KINDS["values"].describe({"values": {"": 3, "0": 2}}, {}) == "root = 3, 0 = 2"


@pytest.mark.parametrize("answer", [None, [], "3"])
def test_no_answer_or_one_that_is_no_mapping_is_described_as_a_dash(answer: object) -> None:
    assert KINDS["values"].describe(answer, AIMA.labels()) == "—"


def test_a_kind_that_gives_no_examples_says_which() -> None:
    with pytest.raises(NotImplementedError) as refused:
        _OwnKind().examples()
    assert str(refused.value) == "the own-search kind gives no examples"


@pytest.mark.parametrize(
    "answer",
    [
        {"bounds": [["0", [1, 2]]]},  # no mapping: AttributeError
        {"bounds": {"": 3}},  # a pair that is a number: TypeError
        {"bounds": {"": [1]}},  # a pair of one: IndexError
    ],
)
def test_an_answer_of_another_shape_is_described_as_its_json(answer: object) -> None:
    assert KINDS["bounds"].describe(answer, AIMA.labels()) == json.dumps(answer)


@pytest.mark.parametrize("kind", list(KINDS))
def test_an_answer_stored_in_another_shape_writes_nothing_on_paper(kind: str) -> None:
    # Stored answers are never refused: one without this kind's parts marks no box.
    paper = KINDS[kind].paper(AIMA, {"guess": 3})
    assert paper.marks == {} and paper.struck == ()
    assert all(written == "" for _, written in paper.lines)


def test_values_and_bounds_on_paper_have_a_box_at_each_internal_node() -> None:
    values, bounds = KINDS["values"].paper(AIMA), KINDS["bounds"].paper(AIMA)
    assert values.boxes.paths == bounds.boxes.paths == ("", "0", "1", "2")
    assert bounds.boxes.rows == ("α", "β") and values.marks == bounds.marks == {}
    assert values.instruction == (
        "Write in its box the value each internal node returns; leave the boxes of pruned "
        "nodes empty."
    )
    assert bounds.instruction == (
        "Write alpha (α) and beta (β) at each internal node when alpha-beta returns from it "
        "(∞ for infinity); leave the boxes of pruned nodes empty."
    )


def test_nodes_are_listed_by_child_number_not_as_text() -> None:
    from grader.gametree.kinds.base import in_order

    # As text "1.10" < "1.2"; in the tree the root's first child comes first, then 1.2, 1.10.
    assert in_order({"1.10", "1.2", "0", "1"}) == ["0", "1", "1.2", "1.10"]


def test_the_key_is_explained_by_no_misconception_even_one_that_gives_it() -> None:
    # By hand: B = min(1, 2) = 1, then C's first leaf 3 > 1 and its second 4: nothing is cut,
    # so plain minimax ("no-pruning") marks what the key marks.
    tree = Tree.from_nested([[1, 2], [3, 4]])
    kind, conventions = KINDS["prune"], Conventions()
    key = kind.analysis(tree, conventions)[1]
    assert any(answer == key for _, answer in kind.variant_answers(tree, conventions))
    assert kind.explaining(tree, conventions, key) == []


def test_a_grade_keeps_the_errors_it_counted() -> None:
    # AIMA's tree: C is cut off after its first leaf 2, so its leaves 1.1 and 1.2 are pruned;
    # an answer marking nothing misses both.
    graded = grade("prune", AIMA, Conventions(), {"pruned": [], "value": 3})
    missed = sorted(path for paths in graded.scoring["errors"].values() for path in paths)
    assert missed == ["1.1", "1.2"]
    right = grade("prune", AIMA, Conventions(), {"pruned": ["1.1", "1.2"], "value": 3})
    assert (right.score, right.scoring) == (1.0, {"errors": {}})  # stored: no error counted
    assert KINDS["prune"].scoring_words({}, None).startswith("No error: score 1, by the rule")


def test_the_counted_template_grades_by_its_own_score() -> None:
    """A kind that counts errors is graded by its `score` (the one scoring rule calibration and
    the generator read too), never by a copy of it inside `grade`."""
    values = KINDS["values"]

    class Halved(type(values)):  # type: ignore[misc]
        def score(self, tree: Tree, key: Any, answer: Any) -> Any:
            found = super().score(tree, key, answer)
            return found._replace(score=found.score / 2)

    wrong = values.examples()[0]
    graded = values.grade(wrong.tree, Conventions(), wrong.answer)
    assert 0 < graded.score < 1
    halved = Halved().grade(wrong.tree, Conventions(), wrong.answer)
    assert halved.score == graded.score / 2
    assert halved.scoring == graded.scoring
    canonical = values.normalize(wrong.tree, wrong.answer)
    key = values.analysis(wrong.tree, Conventions())[1]
    score, parts, errors = values.score(wrong.tree, key, canonical)
    assert (score, parts) == (graded.score, graded.parts)
    assert {what: paths for what, paths in errors.items() if paths} == graded.scoring["errors"]


def test_a_grade_carries_the_reference_search_and_each_misconception_that_fits() -> None:
    rules = Conventions()
    reference = solve(AG, rules)
    right = grade("values", AG, rules, KINDS["values"].key(AG, rules))
    assert right.search is not None and right.search.leaf_order == reference.leaf_order
    diagnosed = 0
    for variant, values in KINDS["values"].variant_answers(AG, rules):
        graded = grade("values", AG, rules, {"values": values})
        assert graded.search is not None and graded.search.leaf_order == reference.leaf_order
        if graded.score < 1:  # a misconception whose answer differs from the key's
            assert variant.code in graded.candidates
            assert graded.diagnosis == graded.candidates[0]
            diagnosed += 1
    assert diagnosed >= 4
