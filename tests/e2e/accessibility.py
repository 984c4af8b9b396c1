"""axe-core (the npm package, installed by `make test` into node_modules) run in a page by
Playwright, and the page's sideways overflow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

# axe runs every rule whose violations can be kept (below): a rule that declares its impact gives
# each of its violations that impact, so the rules declared "minor" or "moderate" (color-contrast
# aside) could only find what axe_violations leaves out, and are not run.
RUN = """async () => {
  const rules = {};
  for (const rule of axe._audit.rules) {
    if (['minor', 'moderate'].includes(rule.impact) && rule.id !== 'color-contrast') {
      rules[rule.id] = {enabled: false};
    }
  }
  const result = await axe.run(document, {resultTypes: ['violations'], rules});
  return result.violations.filter(v => ['serious', 'critical'].includes(v.impact) ||
    v.id === 'color-contrast').map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '')
      .split('\\n').slice(0, 3).join(' '))}));
}"""


def axe_script() -> str:
    """axe-core's script file; the test fails (never skips) where it is missing: `make test`
    installs it (npm ci), so its absence is a broken setup."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` (make test does)")
    return str(AXE)


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """The serious and critical violations axe finds in the page, and every contrast one."""
    script = axe_script()
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=script)
    found: list[dict[str, Any]] = page.evaluate(RUN)
    return found


def sideways(page: Any) -> int:
    """How many pixels the page scrolls sideways (0 when it fits the window's width)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


# Per word of every rendered table cell (a run of non-space characters in one text node), the
# lines its Range's client rects sit on: more than one is a word broken inside itself. A
# compound word may break after its hyphen between letters, as print does ("alpha-/beta"); a
# number, a date, a move ("9-13"), an e-mail never. Text in a <pre> (output as the engine or
# harness wrote it, opened on demand) is left out.
BROKEN_WORDS = r"""() => {
  const lines = (rects) => {
    const tops = [];
    for (const r of rects) {
      if (r.width < 1 || r.height < 1) continue;
      if (!tops.some((t) => Math.abs(t - r.top) < r.height / 2)) tops.push(r.top);
    }
    return tops.length;
  };
  const broken = [];
  for (const cell of document.querySelectorAll("main td, main th")) {
    if (!cell.getClientRects().length) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest("pre")) continue;
      for (const word of node.data.matchAll(/\S+/g)) {
        let start = word.index;
        for (const piece of word[0].split(/(?<=\p{L}-)(?=\p{L})/u)) {
          const range = document.createRange();
          range.setStart(node, start);
          range.setEnd(node, start + piece.length);
          const n = lines(range.getClientRects());
          if (n > 1) {
            const where = cell.closest("table")?.dataset.role || cell.closest("table")?.className;
            broken.push(`"${piece}" on ${n} lines in a ${cell.tagName.toLowerCase()} of ` +
              `table ${where || "(unnamed)"}: "${cell.textContent.trim().slice(0, 60)}"`);
          }
          start += piece.length;
        }
      }
    }
  }
  return broken;
}"""


def broken_words(page: Any) -> list[str]:
    """The words of the page's table cells that break inside themselves, each with its cell."""
    return page.evaluate(BROKEN_WORDS)
