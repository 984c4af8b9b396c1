"""What pages call the things the code names by a code: a misconception ("no-pruning" -> "No
pruning"), an exercise kind ("leaf-order" -> "Order of evaluation") and the conventions ("prune,
soft, ltr"). The one mapping of each: the templates' filters and the `_words.html` macros (the
words, the code on hover), the charts' labels and the forms' choices all read these."""

from __future__ import annotations

from collections.abc import Mapping

from grader.gametree import Conventions
from grader.gametree.exact import fmt
from grader.models import SLOT_KINDS

# Each convention's choices in words, as the tree forms offer them and the editor lists them.
TIES = {
    "prune": "prune when alpha >= beta (AIMA)",
    "explore": "prune only when strictly outside (CS188)",
}
CUT_NODES_REPORT = {"soft": "their best value so far", "hard": "the bound"}
CHILDREN = {"ltr": "left to right", "rtl": "right to left"}


def misconception_name(code: str) -> str:
    """A misconception's code in plain words: "no-pruning" -> "No pruning"."""
    return code.replace("-", " ").replace("_", " ").capitalize()


def kind_name(kind: str) -> str:
    """A kind as pages call it, its registry's title: an exercise kind's class's ("Order of
    evaluation" for leaf-order), "Checkers engine" for an engine slot; an unknown one as it is."""
    found = SLOT_KINDS.get(kind)
    return found.title if found is not None else kind


def conventions_brief(stored: Mapping[str, object]) -> str:
    """A slot's stored conventions in the forms' words, for a list: "prune when alpha >= beta
    (AIMA); cut nodes report their best value so far; children left to right", and the leaf
    bounds and depth limit where stated."""
    found = Conventions.from_dict(dict(stored))
    words = (
        f"{TIES[found.ties]}; cut nodes report {CUT_NODES_REPORT[found.values]}; "
        f"children {CHILDREN[found.order]}"
    )
    if found.bounds is not None:  # the leaf bounds a chance tree's Star1 cuts with
        words += f"; leaf bounds {fmt(found.bounds[0])}..{fmt(found.bounds[1])}"
    return words + (f"; depth limit {found.depth} plies" if found.depth is not None else "")


__all__ = [
    "CHILDREN",
    "CUT_NODES_REPORT",
    "TIES",
    "conventions_brief",
    "kind_name",
    "misconception_name",
]
