"""The Accessibility Conformance Report in docs/accessibility.md stays whole and true to the
tests: every WCAG 2.1 Level A and AA success criterion (all 50) has exactly one row with one of
VPAT 2.5's four conformance levels, the criteria WCAG 2.2 adds at A and AA have theirs, every row
that says Supports names a test (`tests/...py::test_name`), and every test a row names
(`tests/...py` or `tests/...py::test_name`) exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "accessibility.md"

WCAG21_A = [
    "1.1.1 Non-text Content",
    "1.2.1 Audio-only and Video-only (Prerecorded)",
    "1.2.2 Captions (Prerecorded)",
    "1.2.3 Audio Description or Media Alternative (Prerecorded)",
    "1.3.1 Info and Relationships",
    "1.3.2 Meaningful Sequence",
    "1.3.3 Sensory Characteristics",
    "1.4.1 Use of Color",
    "1.4.2 Audio Control",
    "2.1.1 Keyboard",
    "2.1.2 No Keyboard Trap",
    "2.1.4 Character Key Shortcuts",
    "2.2.1 Timing Adjustable",
    "2.2.2 Pause, Stop, Hide",
    "2.3.1 Three Flashes or Below Threshold",
    "2.4.1 Bypass Blocks",
    "2.4.2 Page Titled",
    "2.4.3 Focus Order",
    "2.4.4 Link Purpose (In Context)",
    "2.5.1 Pointer Gestures",
    "2.5.2 Pointer Cancellation",
    "2.5.3 Label in Name",
    "2.5.4 Motion Actuation",
    "3.1.1 Language of Page",
    "3.2.1 On Focus",
    "3.2.2 On Input",
    "3.3.1 Error Identification",
    "3.3.2 Labels or Instructions",
    "4.1.1 Parsing",
    "4.1.2 Name, Role, Value",
]
WCAG21_AA = [
    "1.2.4 Captions (Live)",
    "1.2.5 Audio Description (Prerecorded)",
    "1.3.4 Orientation",
    "1.3.5 Identify Input Purpose",
    "1.4.3 Contrast (Minimum)",
    "1.4.4 Resize Text",
    "1.4.5 Images of Text",
    "1.4.10 Reflow",
    "1.4.11 Non-text Contrast",
    "1.4.12 Text Spacing",
    "1.4.13 Content on Hover or Focus",
    "2.4.5 Multiple Ways",
    "2.4.6 Headings and Labels",
    "2.4.7 Focus Visible",
    "3.1.2 Language of Parts",
    "3.2.3 Consistent Navigation",
    "3.2.4 Consistent Identification",
    "3.3.3 Error Suggestion",
    "3.3.4 Error Prevention (Legal, Financial, Data)",
    "4.1.3 Status Messages",
]
WCAG22_NEW = [
    "2.4.11 Focus Not Obscured (Minimum) (AA)",
    "2.5.7 Dragging Movements (AA)",
    "2.5.8 Target Size (Minimum) (AA)",
    "3.2.6 Consistent Help (A)",
    "3.3.7 Redundant Entry (A)",
    "3.3.8 Accessible Authentication (Minimum) (AA)",
]
LEVELS = {"Supports", "Partially Supports", "Does Not Support", "Not Applicable"}


def _report() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Accessibility Conformance Report")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def _rows() -> list[list[str]]:
    rows = []
    for line in _report().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and re.match(r"\d+\.\d+\.\d+ ", cells[0]):
            rows.append(cells)
    return rows


def test_the_50_criteria_of_wcag_2_1_a_and_aa_each_have_one_row() -> None:
    assert len(WCAG21_A) == 30 and len(WCAG21_AA) == 20
    names = [row[0] for row in _rows()]
    for criterion in WCAG21_A + WCAG21_AA + WCAG22_NEW:
        assert names.count(criterion) == 1, criterion
    assert sorted(names) == sorted(WCAG21_A + WCAG21_AA + WCAG22_NEW)


def test_each_row_has_a_vpat_level_and_a_remark() -> None:
    for row in _rows():
        assert len(row) == 3, row
        assert row[1] in LEVELS, row
        assert row[2], row
        # A row that claims support names a test that shows it; one that rests on review alone
        # says Partially Supports, and why.
        if row[1] == "Supports":
            assert re.search(r"`tests/[\w/]+\.py::test_\w+`", row[2]), row


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def test_every_test_the_report_names_exists() -> None:
    named = re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", _report())
    assert len(named) > 30
    for path, function in named:
        file = ROOT / path
        assert file.is_file(), path
        if function:
            assert function in _defined(file), f"{path}::{function}"
