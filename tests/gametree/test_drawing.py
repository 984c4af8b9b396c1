"""Trees drawn for paper (gametree/drawing.py): the SVG says every label and value once, at its
printed size, with no two texts on top of each other; the LaTeX compiles."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.gametree import KINDS, Conventions, GeneratorParams, Tree, generate
from grader.gametree.drawing import FONT_MM, PT_MM, text_mm, tree_latex, tree_svg

SVG = "{http://www.w3.org/2000/svg}"
TEXTBOOK = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]


def texts(svg: str) -> list[tuple[float, float, str]]:
    root = ET.fromstring(svg)
    return [
        (float(t.get("x")), float(t.get("y")), t.text or "")
        for t in root.iter(f"{SVG}text")
        if t.text
    ]


def boxes(svg: str) -> list[tuple[float, float, float, float, str]]:
    """Each text's box (x0, y0, x1, y1), from its anchor and the font's advance."""
    root = ET.fromstring(svg)
    out = []
    for t in root.iter(f"{SVG}text"):
        if not t.text:
            continue
        bold = t.get("class") == "mark"
        x, y, width = float(t.get("x")), float(t.get("y")), text_mm(t.text, bold=bold)
        anchor = t.get("text-anchor")
        x0 = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
        out.append((x0, y - FONT_MM * 0.75, x0 + width, y + FONT_MM * 0.2, t.text))
    return out


def overlapping(
    found: list[tuple[float, float, float, float, str]], gap: float = 0.0
) -> list[tuple[str, str]]:
    """The pairs closer than ``gap`` (touching, at 0.3 mm)."""
    pairs = []
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            if a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap:
                pairs.append((a[4], b[4]))
    return pairs


def test_the_textbook_tree_says_each_label_and_leaf_value() -> None:
    tree = Tree.from_nested(TEXTBOOK)
    svg = tree_svg(tree)
    words = [w for _, _, w in texts(svg)]
    for label in tree.labels().values():
        assert words.count(label) == 1
    values = [w for w in words if w.lstrip("-").isdigit()]
    assert values == [str(tree.node(p).value) for p in tree.leaves()]
    root = ET.fromstring(svg)
    assert root.get("font-size") == f"{FONT_MM:.2f}".rstrip("0") and FONT_MM / PT_MM >= 9


def shapes(svg: str) -> list[tuple[float, float, float, float, str]]:
    """Each internal node's shape's box (its triangle's or circle's)."""
    root = ET.fromstring(svg)
    out = []
    for e in root:
        if "node" in (e.get("class") or "") and "leaf" not in e.get("class"):
            if e.tag == f"{SVG}circle":
                x, y, r = float(e.get("cx")), float(e.get("cy")), float(e.get("r"))
                out.append((x - r, y - r, x + r, y + r, "shape"))
            else:
                pts = [tuple(map(float, p.split(","))) for p in e.get("points").split()]
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                out.append((min(xs), min(ys), max(xs), max(ys), "shape"))
    return out


def rects(svg: str) -> list[tuple[float, float, float, float, str]]:
    root = ET.fromstring(svg)
    out = []
    for r in root.iter(f"{SVG}rect"):
        if r.get("class") == "box":
            x, y = float(r.get("x")), float(r.get("y"))
            out.append((x, y, x + float(r.get("width")), y + float(r.get("height")), "box"))
    return out


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["prune", "values", "bounds", "leaf-order"]),
    low=st.sampled_from([2, 3]),
)
def test_depth_four_exam_trees_fit_a_landscape_page_with_no_text_on_text(
    seed: int, kind: str, low: int
) -> None:
    # The presets' depth-4 trees (2-3 children a node): up to 81 leaves, more than a 277 mm
    # line holds side by side at 9 pt, so values and labels take turns on two rows.
    tree = generate(GeneratorParams(depth=4, branching=(low, 3), values=(-20, 20)), seed)
    paper = KINDS[kind].paper(tree, KINDS[kind].key(tree, Conventions()))
    svg = tree_svg(
        tree, width_mm=277, height_mm=138, boxes=paper.boxes, marks=paper.marks, lines=paper.lines
    )
    root = ET.fromstring(svg)
    assert float(root.get("width").removesuffix("mm")) <= 277  # never scaled down to fit
    # Labels and values apart from each other (marks sit inside their boxes, checked apart).
    marks = set(paper.marks.values()) | {"✗"}
    plain = [b for b in boxes(svg) if b[4] not in marks or b[4].lstrip("-").isdigit()]
    assert overlapping([b for b in plain if not b[4].endswith(":")], gap=0.3) == []
    # Nor a label over a node's shape (where "AM", "AN" and "AO" read as one word).
    assert overlapping([*plain, *shapes(svg)], gap=0.1) == overlapping(plain, gap=0.1)
    assert overlapping(rects(svg)) == []  # nor two answer boxes


def test_the_key_marks_the_pruned_subtrees_and_writes_the_root_value() -> None:
    tree = Tree.from_nested(TEXTBOOK)
    kind = KINDS["prune"]
    paper = kind.paper(tree, kind.key(tree, Conventions()))
    svg = tree_svg(
        tree, boxes=paper.boxes, marks=paper.marks, struck=paper.struck, lines=paper.lines
    )
    root = ET.fromstring(svg)
    marks = [t for t in root.iter(f"{SVG}text") if t.get("class") == "mark"]
    assert sorted(t.text for t in marks) == ["3", "✗", "✗"]
    struck = [line for line in root.iter(f"{SVG}line") if "struck" in (line.get("class") or "")]
    assert len(struck) == 2  # the edges into I and J


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex (TeX Live) here")
def test_the_latex_compiles_with_pdflatex(tmp_path: Path) -> None:
    tree = Tree.from_nested(TEXTBOOK)
    kind = KINDS["values"]
    paper = kind.paper(tree, kind.key(tree, Conventions()))
    source = tmp_path / "tree.tex"
    source.write_text(tree_latex(tree, marks=paper.marks, lines=[("Root value", "3 ∞ ✗")]))
    subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", source.name],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        timeout=300,
    )
    text = subprocess.run(
        ["pdftotext", "-layout", str(tmp_path / "tree.pdf"), "-"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for label in tree.labels().values():
        assert label in text
    for value in ("12", "14", "Root value"):
        assert value in text


def test_a_chance_tree_on_paper_has_circles_and_each_probability_on_its_edge():
    """Chance nodes are circles; each child's probability is written once, above the child."""
    tree = Tree.from_nested(
        [
            {"chance": ["1/3", "2/3"], "children": [4, 5]},
            {"chance": ["1/4", "1/2", "1/4"], "children": [0, 9, 3]},
        ],
        "max,chance",
    )
    paper = KINDS["values"].paper(tree, KINDS["values"].key(tree, Conventions(bounds=(0, 10))))
    root = ET.fromstring(tree_svg(tree, boxes=paper.boxes, marks=paper.marks))
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert len(root.findall(".//s:circle[@class='node chance']", ns)) == 2
    assert len(root.findall(".//s:polygon[@class='node max']", ns)) == 1
    probs = root.findall(".//s:text[@class='prob']", ns)
    assert [t.text for t in probs] == ["1/3", "2/3", "1/4", "1/2", "1/4"]
    # Each above its leaf: higher on the page than the leaf's square, over the leaf's column.
    leaves = root.findall(".//s:rect[@class='node leaf']", ns)
    for text, leaf in zip(probs, leaves, strict=True):
        top = float(leaf.get("y"))
        middle = float(leaf.get("x")) + float(leaf.get("width")) / 2
        assert float(text.get("y")) < top and abs(float(text.get("x")) - middle) < 3
    # The key's values as the rule shows them: 14/3 written 4.67.
    assert "4.67" in [t.text for t in root.findall(".//s:text[@class='mark']", ns)]
    latex = tree_latex(tree)
    assert latex.count("circle (") == 2 and "{2/3} (" in latex


def attached(svg: str, paths: set[str]) -> None:
    """Each of ``paths`` has one answer box, and it is its node: a leaf's box is where its edge
    (or the edge's line on down) ends; no leaf is drawn apart from its box."""
    root = ET.fromstring(svg)
    found: dict[str, list[ET.Element]] = {}
    for r in root.iter(f"{SVG}rect"):
        if r.get("class") == "box" and r.get("data-path"):
            found.setdefault(r.get("data-path"), []).append(r)
    ends = [
        (float(line.get("x2")), float(line.get("y2")))
        for line in root.iter(f"{SVG}line")
        if "edge" in (line.get("class") or "")
    ]
    leaves = {r.get("data-path") for r in root.iter(f"{SVG}rect") if r.get("class") == "node leaf"}
    for path in paths:
        (box,) = found[path]
        x, y, w = float(box.get("x")), float(box.get("y")), float(box.get("width"))
        # An edge ends on the middle of its top.
        assert any(abs(ex - x - w / 2) < 0.02 and abs(ey - y) < 0.02 for ex, ey in ends), path
        assert path not in leaves  # the leaf is its box, not a square beside it


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["prune", "leaf-order"]),
    low=st.sampled_from([2, 3]),
)
def test_each_leaf_box_is_its_leaf_and_the_key_marks_it_there(
    seed: int, kind: str, low: int
) -> None:
    tree = generate(GeneratorParams(depth=4, branching=(low, 3), values=(-20, 20)), seed)
    paper = KINDS[kind].paper(tree, KINDS[kind].key(tree, Conventions()))
    svg = tree_svg(tree, width_mm=277, height_mm=138, boxes=paper.boxes, marks=paper.marks)
    leaves = set(tree.leaves())
    attached(svg, {p for p in paper.boxes.paths if p in leaves})
    # Every mark of the key is written inside the box of the node it marks.
    root = ET.fromstring(svg)
    inside: dict[str, str] = {}
    items = list(root)
    for box, text in itertools.pairwise(items):
        if box.get("class") == "box" and text.get("class") == "mark":
            x, y = float(box.get("x")), float(box.get("y"))
            tx, ty = float(text.get("x")), float(text.get("y"))
            assert x < tx < x + float(box.get("width")) and y < ty < y + float(box.get("height"))
            inside[box.get("data-path")] = text.text
    assert inside == {p: m for p, m in paper.marks.items() if m}


def test_probabilities_are_dark_text_on_a_white_ground() -> None:
    tree = Tree.from_nested([{"chance": ["1/3", "2/3"], "children": [4, 5]}], "max,chance")
    root = ET.fromstring(tree_svg(tree))
    style = "".join(s.text or "" for s in root.iter(f"{SVG}style"))
    assert ".prob{fill:#111}" in style and "stroke:#fff" not in style
