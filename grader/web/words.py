"""What pages call the things the code names by a code: a misconception ("no-pruning" -> "No
pruning") and an exercise kind ("leaf-order" -> "Order of evaluation"). The one mapping of each:
the templates' filters and the `_words.html` macros (the words, the code on hover), the charts'
labels and the forms' choices all read these."""

from __future__ import annotations

from grader.models import SLOT_KINDS


def misconception_name(code: str) -> str:
    """A misconception's code in plain words: "no-pruning" -> "No pruning"."""
    return code.replace("-", " ").replace("_", " ").capitalize()


def kind_name(kind: str) -> str:
    """A kind as pages call it, its registry's title: an exercise kind's class's ("Order of
    evaluation" for leaf-order), "Checkers engine" for an engine slot; an unknown one as it is."""
    found = SLOT_KINDS.get(kind)
    return found.title if found is not None else kind


__all__ = ["kind_name", "misconception_name"]
