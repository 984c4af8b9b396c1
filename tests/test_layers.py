"""Layers import-linter cannot see: no module below the web names a web endpoint or renders a
template. The web names its pages (`web/slot_pages.py`) and writes its HTML (`web/exam_sheets.py`
for the paper exam's documents); the services give it data."""

from __future__ import annotations

import re
from pathlib import Path

GRADER = Path(__file__).resolve().parents[1] / "grader"
BELOW_THE_WEB = sorted(
    [
        *(GRADER / "models").rglob("*.py"),
        GRADER / "jobs.py",
        *(GRADER / "services").rglob("*.py"),
        *(GRADER / "gametree").rglob("*.py"),
        *(GRADER / "checkers").rglob("*.py"),
        *(GRADER / "harness").rglob("*.py"),
    ]
)
RENDERS = re.compile(r"\b(render_template|render_template_string|jinja2|get_template)\b")


def test_no_module_below_the_web_names_an_endpoint(app) -> None:
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules() if "." in rule.endpoint}
    assert {"pages.slot", "instructor.edit_slot", "engines.slot_page"} <= endpoints
    named = [
        f"{path.relative_to(GRADER)}: {endpoint}"
        for path in BELOW_THE_WEB
        for endpoint in endpoints
        if f'"{endpoint}"' in (text := path.read_text()) or f"'{endpoint}'" in text
    ]
    assert named == []


def test_no_module_below_the_web_renders_a_template() -> None:
    rendering = [str(p.relative_to(GRADER)) for p in BELOW_THE_WEB if RENDERS.search(p.read_text())]
    assert rendering == []
