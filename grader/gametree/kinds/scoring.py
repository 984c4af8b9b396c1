"""The scoring rule of the kinds that count errors, and its words.

Scoring (every total lies in [0, 1]): a kind counts the answer's errors e, and the score is
``1 - e/5 - e(e-1)/20`` (at least 0): 1 for the key, 0.8 for one slip, 0.5 for two errors, 0.1 for
three, 0 from four on. A misconception changes an answer in several places on the trees the
presets generate, so it earns at most 0.5 on average, while a single slip keeps 0.8
(``grader tree calibrate`` measures this). Each kind's module says what it counts as an error.
A grade keeps the errors it counted (``Grade.scoring``: each kind of error with the nodes where
it is), and ``errors_words`` says from them how the score came about: the errors, then the rule.
"""

from __future__ import annotations

from collections.abc import Mapping

from grader.gametree.tree import Path


def error_score(errors: int) -> float:
    """1 for no error, 0.8 for one, 0.5 for two, 0.1 for three, 0 from four on."""
    return max(0.0, 1 - errors / 5 - errors * (errors - 1) / 20)


def score_text(score: float) -> str:
    return "1" if score == 1 else "0" if score == 0 else f"{score:.2f}"


def error_rule() -> str:
    """``error_score`` in words, read off the function: "no error 1, 1 error 0.80, ..."."""
    steps, errors = ["no error 1"], 1
    while error_score(errors) > 0:
        plural = "" if errors == 1 else "s"
        steps.append(f"{errors} error{plural} {score_text(error_score(errors))}")
        errors += 1
    return ", ".join([*steps, f"{errors} or more 0"])


# Each kind of error a kind counts, as a student reads it: singular, plural, what it means (or
# ""), and whether its nodes are named (the root's value is always the root's; which leaves are
# out of order is one choice among several, so they are counted, not named).
ERROR_WORDS: dict[str, tuple[str, str, str, bool]] = {
    "extra-mark": ("extra mark", "extra marks", "searched, not pruned", True),
    "missing-mark": ("missing mark", "missing marks", "pruned, not marked", True),
    "root-value": ("wrong root value", "wrong root values", "", False),
    "wrong-value": ("wrong value", "wrong values", "", True),
    "missing-value": ("missing value", "missing values", "", True),
    "pruned-value": ("value given", "values given", "pruned, so no value", True),
    "wrong-alpha": ("wrong alpha", "wrong alphas", "", True),
    "wrong-beta": ("wrong beta", "wrong betas", "", True),
    "missing-alpha": ("missing alpha", "missing alphas", "", True),
    "missing-beta": ("missing beta", "missing betas", "", True),
    "pruned-bounds": ("bounds given", "bounds given", "pruned, so no bounds", True),
    "out-of-order": ("leaf out of order", "leaves out of order", "", False),
    "replaced-leaf": (
        "wrong leaf",
        "wrong leaves",
        "never evaluated, in place of one that is",
        True,
    ),
    "missing-leaf": ("missing leaf", "missing leaves", "", True),
    "extra-leaf": ("extra leaf", "extra leaves", "never evaluated", True),
}
NAMED_NODES = 8  # at most this many nodes are named per kind of error; the rest are counted


def count(errors: Mapping[str, list[Path]]) -> int:
    return sum(len(paths) for paths in errors.values())


def _places(paths: list[Path], labels: Mapping[Path, str]) -> str:
    names = [labels.get(p, p or "root") for p in paths]
    if len(names) > NAMED_NODES:
        names = [*names[:NAMED_NODES], f"{len(names) - NAMED_NODES} more"]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def errors_words(errors: Mapping[str, list[Path]], labels: Mapping[Path, str] | None) -> str:
    """Counted errors and the score they give: "3 errors: 1 extra mark at L (searched, not
    pruned); 2 missing marks at I and J (pruned, not marked). Score 0.10, by the rule: no error
    1, ...". ``labels`` None: the nodes are not named (the key is not shown yet)."""
    total = count(errors)
    rule = f"by the rule: {error_rule()}."
    if not total:
        return f"No error: score 1, {rule}"
    items = []
    for what, paths in errors.items():
        if not paths:
            continue
        one, many, meaning, named = ERROR_WORDS[what]
        item = f"{len(paths)} {one if len(paths) == 1 else many}"
        if named and labels is not None:
            item += f" at {_places(paths, labels)}"
        items.append(item + (f" ({meaning})" if meaning else ""))
    plural = "" if total == 1 else "s"
    return (
        f"{total} error{plural}: {'; '.join(items)}. Score {score_text(error_score(total))}, {rule}"
    )
