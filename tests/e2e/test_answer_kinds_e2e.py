"""The instructor's drill-down of one student in a real headless Chromium, for every exercise kind:
the student's answer and the key drawn side by side on the tree, each in its kind's terms (values
as v= notes, bounds as α= and β= notes, the leaf order's numbers, the pruned subtrees shaded, a
best-order's children in its order), and exactly the nodes where they differ hatched and marked ✗
in both trees; for an answer wrong at known nodes and for one right everywhere. A best-order's key
is one of the best orderings, so the page draws what the grade says: another best ordering than
the key's has no ✗ and its legend says so with the leaf count; a worse one is marked only at the
node its grade blames (its first_wrong), the legend giving both counts.

The cases (tests/e2e/kinds_support.py) are made from the reference keys; what each side must show
is worked out here from the answer and the key, and read from the page's DOM, never from its
scripts, each side's drawing in one reading (read again until it shows all, as `expect` waits).
The page is signed in and loaded once for every kind; a script error in it fails the tests.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import KINDS, Conventions, Tree
from grader.gametree.kinds import normalize_pruned
from grader.web.words import kind_name
from tests.e2e.e2e_support import INSTRUCTOR, LiveServer, open_page, sign_in
from tests.e2e.kinds_support import Case, answer_cases

pytestmark = pytest.mark.e2e

# Each node's place left to right, as drawn (its group's translate(x, y)).
PLACES = "nodes => nodes.map(n => [n.dataset.path, n.transform.baseVal.consolidate().matrix.e])"

HATCH = re.compile(r"url\(.*#hatch-wrong")  # the computed fill of a hatched node
DIFFERS = re.compile(r", differs$")  # the end of a differing node's aria-label


@dataclass
class Drawn:
    """What one side must show: notes beside nodes, marks (glyphs), the shaded nodes, and each
    internal node's children in the order drawn (old indices)."""

    notes: dict[str, list[str]] = field(default_factory=dict)
    marks: dict[str, str] = field(default_factory=dict)
    shaded: frozenset[str] = frozenset()
    order: dict[str, list[int]] = field(default_factory=dict)


def _shown(value: Any) -> str:
    """A value as the page writes it: infinity as a signed ∞ (a minus sign, U+2212)."""
    return {"inf": "+∞", "+inf": "+∞", "-inf": "−∞"}.get(str(value), str(value))


def _drawn(kind: str, tree: Tree, reply: dict[str, Any]) -> Drawn:
    """What an answer (or the key) of `kind` says on the tree, in the kind's terms; a kind that
    draws nothing on the nodes (an answer that is one number) draws nothing here."""
    drawn = Drawn(order={p: list(range(len(n.children))) for p, n in tree.walk() if not n.is_leaf})
    if kind == "prune":
        drawn.shaded = normalize_pruned(tree, set(reply["pruned"]))
        drawn.notes[""] = [f"v={_shown(reply['value'])}"]
    elif kind in ("values", "minimax"):
        drawn.notes = {p: [f"v={_shown(v)}"] for p, v in reply["values"].items()}
    elif kind == "bounds":
        drawn.notes = {
            p: [f"α={_shown(alpha)}", f"β={_shown(beta)}"]
            for p, (alpha, beta) in reply["bounds"].items()
        }
    elif kind == "leaf-order":
        drawn.marks = {p: str(i + 1) for i, p in enumerate(reply["leaf_order"])}
    elif kind == "best-order":
        drawn.order.update(reply["order"])
    return drawn


def _legend(case: Case) -> str:
    """The legend under the two trees: the kind's own where its grade says where an answer
    differs (best-order's leaf counts), else the nodes that differ."""
    if case.legend is not None:
        return case.legend
    labels = [case.tree.labels()[p] for p, _ in case.tree.walk() if p in case.wrong_at]
    if labels:
        return f"They differ at {', '.join(labels)} (hatched red and marked ✗ in both trees)."
    return "The answer matches the key at every node."


# One side's drawing, read in one go: each node's classes, the computed fill of its shapes,
# its marks' texts and its aria-label; each note's lines by the node it belongs to.
SIDE = """side => {
  const text = (e) => e.textContent.replace(/\\s+/g, " ").trim();
  const nodes = [...side.querySelectorAll(".node")].map((n) => ({
    path: n.dataset.path,
    classes: [...n.classList],
    fills: [...n.querySelectorAll(".shape")].map((s) => getComputedStyle(s).fill),
    marks: [...n.querySelectorAll(".mark")].map(text),
    label: n.getAttribute("aria-label"),
  }));
  const notes = {};
  for (const note of side.querySelectorAll(".note")) {
    notes[note.dataset.path] = [...(notes[note.dataset.path] || []),
      ...[...note.querySelectorAll("tspan")].map(text)];
  }
  return {nodes, notes, count: side.querySelectorAll(".note").length};
}"""


def _side_problems(drawing: dict[str, Any], case: Case, drawn: Drawn) -> list[str]:
    """Where one side's drawing (read by SIDE) differs from what it must show."""
    paths = [path for path, _node in case.tree.walk()]
    found = [node["path"] for node in drawing["nodes"]]
    if sorted(found) != sorted(paths):
        return [f"nodes drawn {found}, not one each of {paths}"]
    problems = []
    for node in drawing["nodes"]:
        path = node["path"]
        wrong = path in case.wrong_at
        for name, on in (("wrong", wrong), ("shaded", path in drawn.shaded)):
            if (name in node["classes"]) != on:
                problems.append(f"{path!r}: class {name} {'missing' if on else 'set'}")
        # Hatched as drawn (the computed fill), whatever else the node is (shaded...).
        if len(node["fills"]) != 1 or bool(HATCH.search(node["fills"][0])) != wrong:
            problems.append(f"{path!r}: shape fill {node['fills']}, hatched: {wrong}")
        # A node's own mark (a leaf's number in the order) stays; a differing node without one
        # is marked ✗.
        mark = drawn.marks.get(path, "✗" if wrong else "")
        if node["marks"] != [mark]:
            problems.append(f"{path!r}: marks {node['marks']}, not [{mark!r}]")
        if bool(node["label"] is not None and DIFFERS.search(node["label"])) != wrong:
            problems.append(f"{path!r}: aria-label {node['label']!r}, differs: {wrong}")
    if drawing["count"] != len(drawn.notes):
        problems.append(f"{drawing['count']} notes, not {len(drawn.notes)}")
    for path, lines in drawn.notes.items():
        if drawing["notes"].get(path) != lines:
            problems.append(f"{path!r}: note {drawing['notes'].get(path)}, not {lines}")
    return problems


def _check_side(side: Any, case: Case, drawn: Drawn, timeout: float = 5.0) -> None:
    """The side shows `drawn`: read again until it does, for as long as Playwright's `expect`
    waits, then fails naming every difference."""
    deadline = time.monotonic() + timeout
    while problems := _side_problems(side.evaluate(SIDE), case, drawn):
        assert time.monotonic() < deadline, "\n".join(problems)
        side.page.wait_for_timeout(100)
    # Read once the drawing is done (the checks above waited for it): children left to right.
    x = dict(side.locator(".node").evaluate_all(PLACES))
    for path, order in drawn.order.items():
        kids = case.tree.node(path).children
        seen = sorted(range(len(kids)), key=lambda i: x[f"{path}.{i}" if path else str(i)])
        assert seen == order, f"children of {path or 'the root'!r} drawn as {seen}, not {order}"


@pytest.fixture(scope="module")
def drill_down(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    """The instructor's drill-down page, signed in and loaded once for every kind (the tests
    only read it); a script error in it fails the module's last test."""
    with open_page(browser, live_server.url) as page:
        sign_in(page, INSTRUCTOR)
        page.goto(live_server.drill_down)
        yield page


@pytest.mark.parametrize("kind", list(KINDS))
def test_answer_and_key_drawn_in_the_kinds_terms(
    drill_down: Any, screenshots: Path, kind: str
) -> None:
    cases = [case for case in answer_cases() if case.kind == kind]
    assert [case.name for case in cases][:2] == ["wrong", "right"]
    page = drill_down
    for case in cases:
        article = page.locator("article.slot-attempts").filter(
            has_text=f": {case.title} ({kind_name(kind)})"
        )
        box = article.locator("[data-compare]")
        labels = [case.tree.labels()[p] for p, _ in case.tree.walk() if p in case.wrong_at]
        # Set once both trees are drawn: the differing nodes' labels, in label order.
        expect(box).to_have_attribute("data-differ", " ".join(labels))
        expect(box.locator(".legend")).to_have_text(_legend(case))
        graded = KINDS[kind].grade(case.tree, Conventions(), case.answer)
        score = expect(article.locator("h3"))
        if graded.score < 1:
            score.not_to_contain_text("score 1.00")
        else:
            score.to_contain_text("score 1.00")
        # How the score came about, in the kind's own words (nodes named: the key is shown).
        words = KINDS[kind].scoring_words(graded.scoring, case.tree.labels())
        expect(article.locator('[data-role="scoring"]')).to_contain_text(words.split(". ")[0])
        for side, reply in (("answer", case.answer), ("key", case.key)):
            _check_side(box.locator(f'[data-side="{side}"]'), case, _drawn(kind, case.tree, reply))
        name = case.name.replace(" ", "-")
        box.screenshot(path=str(screenshots / f"drill-down-{kind}-{name}.png"))
