"""axe-core (the npm package, installed by `make test` into node_modules) run in a page by
Playwright, and the page's sideways overflow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '')
      .split('\\n').slice(0, 3).join(' '))}));
}"""


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """The serious and critical violations axe finds in the page, and every contrast one."""
    if not AXE.exists():
        # Fail, never skip: `make test` installs it (npm ci), so its absence is a broken setup.
        pytest.fail(f"{AXE} is missing: run `npm ci` (make test does)")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(RUN)
    return [
        v for v in found if v["impact"] in ("serious", "critical") or v["id"] == "color-contrast"
    ]


def sideways(page: Any) -> int:
    """How many pixels the page scrolls sideways (0 when it fits the window's width)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
