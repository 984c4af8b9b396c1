"""What pages call the things the code names by a code: a misconception ("no-pruning" -> "No
pruning"), an exercise kind ("leaf-order" -> "Order of evaluation") and the conventions ("prune,
soft, ltr"). The one mapping of each: the templates' filters and the `_words.html` macros (the
words, the code on hover), the charts' labels and the forms' choices all read these."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from grader.gametree import Conventions
from grader.gametree.exact import fmt
from grader.models import SLOT_KINDS
from grader.services.courses import zones

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


def audit_sentences(changes: Mapping[str, object], zone: str) -> list[str]:
    """An audit entry's changes ({"field": [before, after]}, a regrade's "reason") as the
    sentences the audit log prints, never its stored JSON."""
    said = []
    for key, value in changes.items():
        if key == "reason":
            said.append(f"Reason: {value}")
            continue
        before, after = value if isinstance(value, list) and len(value) == 2 else (None, value)
        if key == "extension":
            said.append(_extension_sentence(before, after))
        elif key == "slip_days":
            said.append(f"Slip days per student: {before} before, {after} now.")
        elif key == "due_at":
            said.append(f"Due date: {_due(before, zone)} before, {_due(after, zone)} now.")
        elif key == "late_percent_per_day":
            said.append(f"Late penalty: {_late(before)} before, {_late(after)} now.")
        elif key == "conventions":
            said.append(
                f"Conventions: {conventions_words(before)} before, {conventions_words(after)} now."
            )
        elif key == "tree":
            said.append("The exercise's tree was replaced.")
        else:
            said.append(f"{misconception_name(key)}: {before} before, {after} now.")
    return said


def _extension_sentence(before: object, after: object) -> str:
    shown = after if isinstance(after, dict) else before
    if not isinstance(shown, dict):
        return "An extension changed."
    verb = "granted to" if isinstance(after, dict) else "removed from"
    terms = []
    if shown.get("due_at"):
        terms.append(f"due {shown['due_at']}")
    extra = int(shown.get("extra_attempts") or 0)
    if extra:
        terms.append(f"{extra} extra attempt{'' if extra == 1 else 's'}")
    if shown.get("waive_penalty"):
        terms.append("no late penalty")
    said = f"Extension {verb} {shown.get('who')} on {shown.get('where')}"
    return said + (f": {', '.join(terms)}." if terms else ".")


def _due(value: object, zone: str) -> str:
    if not isinstance(value, str):
        return "none"
    try:
        moment = dt.datetime.fromisoformat(value.removesuffix("Z"))
    except ValueError:
        return value
    return zones.words(moment.replace(tzinfo=None), zone)


def _late(value: object) -> str:
    if value is None:
        return "late work not taken"
    return f"{value:g}% a day" if isinstance(value, int | float) else str(value)


def conventions_words(value: object) -> str:
    """Stored conventions (a dict) as the sentence students read; anything else as it is."""
    if isinstance(value, dict):
        try:
            return Conventions.from_dict(value).describe()
        except (TypeError, ValueError):
            pass
    return str(value)


def graded_by(grader: str | None, rule: str | None, what: str = "rule") -> str:
    """What gave a stored score, in words: the grader's version and the kind rule's (`what`:
    "rule") or the suite's ("suite"); a score stored before versions were recorded says so."""
    if grader is None and rule is None:
        return "graded before versions were recorded (unknown versions)"
    return f"graded by grader {grader or 'unknown'}, {what} {rule or 'unknown'}"


__all__ = [
    "CHILDREN",
    "CUT_NODES_REPORT",
    "TIES",
    "audit_sentences",
    "conventions_brief",
    "conventions_words",
    "graded_by",
    "kind_name",
    "misconception_name",
]
