"""Forced colours (Windows' contrast themes), in Chromium's emulation: the tree is drawn in the
theme's system colours only (Canvas, CanvasText, Highlight, LinkText), never the page's fixed
ones, so it follows whatever theme a person chose; every outline, edge, mark, focus ring and
replay step stays 3:1 against Canvas, every text 4.5:1; states keep what tells them apart
without colour (a pruned edge dashed, a wrong node hatched, the current step in Highlight).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.contrast_support import failures, measure
from tests.e2e.e2e_support import tree_drawn
from tests.e2e.test_contrast import _every_state

pytestmark = pytest.mark.e2e

SYSTEM = """() => {
  const probe = document.body.appendChild(document.createElement('span'));
  const out = {};
  for (const name of ['Canvas', 'CanvasText', 'Highlight', 'LinkText']) {
    probe.style.color = name;
    out[name] = getComputedStyle(probe).color;
  }
  probe.remove();
  return out;
}"""

DASHES = """() => [...document.querySelectorAll('svg.tree-svg .edge.pruned .edge-line')]
  .map((e) => getComputedStyle(e).strokeDasharray)"""


def _check(page: Any, pairs: list[dict[str, Any]]) -> None:
    system = page.evaluate(SYSTEM)
    colours = set(system.values())
    fixed = sorted(
        {
            f"{p['what']} ({p['state']}): {c}"
            for p in pairs
            for c in (p["fg"], p["bg"])
            if c not in colours
        }
    )
    assert not fixed, "\n".join(fixed)
    bad = failures(pairs)
    assert not bad, "\n".join(bad)
    current = {p["fg"] for p in pairs if p["what"] == "node outline" and "current" in p["state"]}
    assert current == {system["Highlight"]}
    rings = {p["fg"] for p in pairs if p["what"] == "focus ring"}
    assert rings == {system["Highlight"]}
    hatch = {(p["fg"], p["bg"]) for p in pairs if p["what"] == "hatch lines"}
    assert hatch == {(system["CanvasText"], system["Canvas"])}


def test_a_max_min_tree_in_a_contrast_theme(student, live_server) -> None:
    page = student
    page.emulate_media(forced_colors="active")
    page.goto(f"/exercises/{live_server.practice['forced']}")
    tree_drawn(page)
    assert page.evaluate("matchMedia('(forced-colors: active)').matches")
    pairs = _every_state(page, ["1.1", "1"], "8")
    _check(page, pairs)
    # At the replay's end, pruned edges stay dashed when every line is one colour.
    dashes = page.evaluate(DASHES)
    assert dashes and all(d != "none" for d in dashes), dashes


def test_a_chance_tree_in_a_contrast_theme(student, live_server) -> None:
    page = student
    page.emulate_media(forced_colors="active")
    page.goto(f"/exercises/{live_server.practice['forced-chance']}")
    tree_drawn(page)
    pairs = _every_state(page, ["1.1"], "4")
    assert "probability" in {p["what"] for p in pairs}
    _check(page, pairs)


def test_without_forced_colours_the_page_keeps_its_own(student, live_server) -> None:
    """The styles apply only in a contrast theme: the ordinary page keeps its palette."""
    page = student
    page.goto(f"/exercises/{live_server.practice['forced']}")
    tree_drawn(page)
    fills = {p["bg"] for p in measure(page) if p["what"] == "edge"}
    assert "rgb(239, 246, 255)" in fills  # the MAX row's band
