"""The one mapping of the tree forms to the services' parameters: the practice page and the slot
editor read the same fields the same way, and the editor's form goes back and forth to a slot."""

from __future__ import annotations

import pytest

from grader.gametree import Tree
from grader.models import Slot
from grader.services import Invalid
from grader.services.teaching import editor
from grader.web.forms import PracticeForm, TreeChoice
from grader.web.instructor.editor_forms import SlotForm

CONVENTIONS = {"ties": "explore", "values_rule": "hard", "order": "rtl"}
SOURCES = {
    "generate": {
        "depth": "4",
        "branching": "2-2",
        "values": "0..20",
        "min_cutoffs": "1",
        "players": "min, max",
        "evaluations": "y",
    },
    "leaves": {"leaves": "3,12,8,2,4,6,14,5,2", "leaf_branching": "3", "leaf_depth": "2"},
    "nested": {"nested": "[[3, 12, 8], [2, 4, 6], [14, 5, 2]]", "players": "max,min"},
}


def _form(app, cls, data):
    with app.test_request_context(method="POST", data=data):
        form = cls(meta={"csrf": False})
        assert form.validate(), form.errors
        return form


@pytest.mark.parametrize("source", SOURCES)
def test_practice_and_the_slot_editor_map_the_same_fields_alike(app, source):
    data = {"kind": "values", "source": source, **CONVENTIONS, "depth_limit": "", **SOURCES[source]}
    practice = _form(app, PracticeForm, data).tree_choice()
    slot = _form(app, SlotForm, data).tree_choice()
    conventions = {"ties": "explore", "values": "hard", "order": "rtl"}
    assert practice.kind == slot.kind == "values"
    assert practice.conventions == slot.conventions == conventions
    if source == "generate":
        assert practice.tree is None and slot.tree is None
        assert practice.params == {
            "depth": 4,
            "branching": "2-2",
            "values": "0..20",
            "min_cutoffs": 1,
            "evaluations": True,
            "players": ["min", "max"],
        }
        # The editor's own generator fields come on top of the shared ones.
        assert slot.params == {
            **practice.params,
            "min_deep_cutoffs": 0,
            "distinct": False,
            "discriminating": False,
        }
    else:
        aima = Tree.from_nested([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
        assert practice == slot == TreeChoice("values", conventions, {}, aima)


def test_practice_arguments_for_a_typed_and_a_generated_tree(app):
    typed = _form(
        app,
        PracticeForm,
        {
            "kind": "prune",
            "source": "nested",
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
            "depth_limit": "2",
            "nested": "[[1, 2], [3, 4]]",
            "players": "min,max",
        },
    )
    assert typed.practice_args() == {
        "kind": "prune",
        "conventions": {"ties": "prune", "values": "soft", "order": "ltr", "depth": 2},
        "tree": [[1, 2], [3, 4]],
        "players": ["min", "max"],
    }
    # Empty fields: the generator's defaults.
    empty = dict.fromkeys(("depth", "branching", "values", "min_cutoffs", "players"), "")
    generated = _form(
        app,
        PracticeForm,
        {
            "kind": "prune",
            "source": "generate",
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
            **empty,
        },
    )
    assert generated.practice_args()["params"] == {
        "depth": 3,
        "branching": "2-3",
        "values": "-9..9",
        "min_cutoffs": 0,
        "evaluations": False,
    }


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[1, 2], [3", "the nested list: "),
        ("[[1, NaN]]", "the nested list is not valid: "),
    ],
)
def test_a_nested_list_that_is_not_one_says_why(app, text, words):
    form = _form(
        app,
        PracticeForm,
        {
            "kind": "prune",
            "source": "nested",
            "ties": "prune",
            "values_rule": "soft",
            "order": "ltr",
            "nested": text,
        },
    )
    with pytest.raises(Invalid, match=f"^{words}"):
        form.tree_choice()


@pytest.mark.parametrize("fixed", [False, True])
def test_a_slot_goes_to_the_form_and_back_unchanged(app, fixed):
    spec = editor.SlotInput(
        kind="bounds",
        conventions={"ties": "explore", "values": "soft", "order": "rtl"},
        params={}
        if fixed
        else {
            "depth": 4,
            "branching": [2, 3],
            "values": [-5, 5],
            "min_cutoffs": 2,
            "min_deep_cutoffs": 1,
            "distinct": False,
            "discriminating": True,
            "players": ["min", "max"],
        },
        tree=Tree.from_nested([[3, 12], [2, 4]], players=["min", "max"]) if fixed else None,
        title="Bounds",
        attempts_allowed=2,
        practice_allowed=False,
        replay_allowed=True,
    )
    stored = editor.check_slot(spec)
    slot = Slot(
        kind=stored.kind,
        conventions=stored.conventions,
        params=stored.params,
        tree=stored.tree,
        title="Bounds",
        attempts_allowed=2,
        practice_allowed=False,
        replay_allowed=True,
        due_at=None,
    )
    with app.test_request_context():
        again = SlotForm.from_slot(slot).slot_input("UTC")
    assert editor.check_slot(again) == stored
    assert (again.title, again.attempts_allowed, again.practice_allowed, again.replay_allowed) == (
        "Bounds",
        2,
        False,
        True,
    )


def test_chance_settings_map_to_the_bounds_convention_and_star1_cutoffs(app):
    data = {
        "kind": "prune",
        "source": "generate",
        "ties": "prune",
        "values_rule": "soft",
        "order": "ltr",
        "depth": "4",
        "branching": "2-3",
        "values": "0..6",
        "min_cutoffs": "2",
        "players": "max,chance",
        "bounds": "0..6",
        "min_star1_cutoffs": "1",
    }
    for cls in (PracticeForm, SlotForm):
        choice = _form(app, cls, data).tree_choice()
        assert choice.conventions == {
            "ties": "prune",
            "values": "soft",
            "order": "ltr",
            "bounds": [0, 6],
        }
        assert choice.params["players"] == ["max", "chance"]
        assert choice.params["min_star1_cutoffs"] == 1
    with pytest.raises(Invalid, match=r"^leaf bounds: not a range"):
        _form(app, PracticeForm, {**data, "bounds": "zero to six"}).tree_choice()


def test_a_chance_slot_goes_to_the_form_and_back_unchanged(app):
    spec = editor.SlotInput(
        kind="prune",
        conventions={"ties": "prune", "values": "soft", "order": "ltr", "bounds": [0, 6]},
        params={
            "depth": 4,
            "branching": [2, 3],
            "values": [0, 6],
            "players": ["max", "chance"],
            "min_cutoffs": 3,
            "min_star1_cutoffs": 2,
            "misconception_errors": 2,
        },
    )
    stored = editor.check_slot(spec)
    assert stored.params["min_star1_cutoffs"] == 2 and stored.params["misconception_errors"] == 2
    slot = Slot(
        kind=stored.kind,
        conventions=stored.conventions,
        params=stored.params,
        tree=None,
        title=None,
        attempts_allowed=3,
        practice_allowed=True,
        replay_allowed=True,
        due_at=None,
    )
    with app.test_request_context():
        form = SlotForm.from_slot(slot)
        assert form.bounds.data == "0..6"
        again = form.slot_input("UTC")
    assert editor.check_slot(again) == stored


def test_a_generated_chance_tree_needs_its_bounds_and_its_leaves_within_them(app):
    base = {"depth": 3, "branching": [2, 3], "values": [0, 6], "players": ["max", "chance"]}
    conventions = {"ties": "prune", "values": "soft", "order": "ltr"}
    for params, more, words in (
        (base, {}, "needs the leaf bounds L..U stated"),
        ({**base, "values": [-1, 6]}, {"bounds": [0, 6]}, "must lie within the bounds 0..6"),
        ({**base, "distinct": True}, {"bounds": [0, 6]}, "distinct is for MAX/MIN trees"),
    ):
        with pytest.raises(Invalid, match=words):
            editor.check_slot(
                editor.SlotInput(kind="values", conventions={**conventions, **more}, params=params)
            )
    with pytest.raises(Invalid, match="min_star1_cutoffs is for chance trees"):
        editor.check_slot(
            editor.SlotInput(
                kind="values",
                conventions=conventions,
                params={**base, "players": ["max", "min"], "min_star1_cutoffs": 1},
            )
        )


def test_every_preset_slot_goes_to_the_form_and_back_with_its_band(app):
    """Editing a slot made from a shipped preset keeps its band of difficulty (nodes to mark,
    leaves evaluated, misconceptions two errors away, its tries): the form shows every field a
    preset's slot holds, so saving it unchanged stores the same parameters."""
    from grader import data
    from grader.services.courses.courses import read_preset

    for path in sorted(data.presets_dir().glob("*.toml")):
        for spec in read_preset(path, path.stem).slots:
            if spec.params is None:
                continue
            stored = editor.check_slot(
                editor.SlotInput(kind=spec.kind, conventions=spec.conventions, params=spec.params)
            )
            slot = Slot(
                kind=stored.kind,
                conventions=stored.conventions,
                params=stored.params,
                tree=None,
                title=None,
                attempts_allowed=3,
                practice_allowed=True,
                replay_allowed=True,
                due_at=None,
            )
            with app.test_request_context():
                again = SlotForm.from_slot(slot).slot_input("UTC")
            assert editor.check_slot(again) == stored, (path.stem, spec.title)
