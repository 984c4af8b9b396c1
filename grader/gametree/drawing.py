"""A game tree drawn for paper and for other tools: a standalone SVG (the printed exam sheets,
and `grader tree export --format svg`) and a TikZ picture in LaTeX (`--format latex`).

Pure and standard library only, like the rest of the core. The SVG is laid out in millimetres
for a given printable width, so its text prints at the size it says: `FONT_MM` is 9.5 pt, and a
drawing never needs to be scaled down to fit (leaf labels and values are staggered on two rows
where leaves lie closer than a value's width). MAX nodes are triangles pointing up, MIN nodes
triangles pointing down, chance nodes circles with each child's probability written on its edge,
just above the child (and its boxes), leaves squares: the notation of AIMA and of the service's
pages.

An answer on paper is written in boxes the drawing carries: ``boxes`` are the paths that get one
(a kind says which: `ExerciseKind.paper_boxes`), ``marks`` what is written in them (the key, or
an entered answer); ``lines`` are answers written below the tree ("Root value").
"""

# Whole: one layout feeds both writers (SVG and TikZ); they change together.

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from xml.sax.saxutils import escape

from grader.gametree.tree import Path, Tree, child_path, path_depth, probability_text

PT_MM = 25.4 / 72  # one typographic point in millimetres
FONT_MM = 9.5 * PT_MM  # every text of the drawing (9.5 pt; the sheets promise at least 9 pt)
SMALL_FONT_MM = FONT_MM  # labels are as large as values: they are what answers name
CHAR_MM = 0.62 * FONT_MM  # a digit's advance in the sans-serif font, with room
SHAPE_MM = 4.6  # a node's triangle or square
MIN_PITCH_MM = 3.15  # the closest two leaves may lie (their texts then take turns on rows)
BOX_H_MM = 5.6  # an answer box's height
GAP_MM = 0.8  # the least room between two texts, or between a text and a box
# DejaVu Sans' advance widths (in ems) of what a drawing writes: labels, values, probabilities,
# marks. Anything else counts a full em, more than any of these.
_ADVANCE = {
    **dict.fromkeys("0123456789", 0.636),
    **dict(
        zip(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            (
                0.684,
                0.686,
                0.698,
                0.770,
                0.632,
                0.575,
                0.775,
                0.752,
                0.295,
                0.295,
                0.656,
                0.557,
                0.863,
                0.748,
                0.787,
                0.603,
                0.787,
                0.695,
                0.635,
                0.611,
                0.732,
                0.684,
                0.989,
                0.685,
                0.611,
                0.685,
            ),
            strict=True,
        )
    ),
    " ": 0.318,
    ".": 0.318,
    ",": 0.318,
    ":": 0.337,
    "/": 0.337,
    "-": 0.361,
    "−": 0.838,
    "+": 0.838,
    "∞": 0.833,
    "α": 0.659,
    "β": 0.653,
    "✗": 0.838,
}
BOLD = 1.15  # the bold face (marks) is at most this much wider


def text_mm(s: str, *, bold: bool = False) -> float:
    """How wide ``s`` prints at FONT_MM in DejaVu Sans (the sheets' font), in millimetres."""
    return sum(_ADVANCE.get(c, 1.0) for c in s) * FONT_MM * (BOLD if bold else 1.0)


@dataclass(frozen=True)
class PaperBoxes:
    """Which nodes of a sheet carry an answer box, and how wide the box is (in characters)."""

    paths: tuple[Path, ...]
    chars: int = 4  # room for "-12" or "14/3"
    rows: tuple[str, ...] = ("",)  # one box per row: ("α", "β") stacks two with their names


@dataclass(frozen=True)
class _Place:
    x: float
    y: float


def _layout(tree: Tree, pitch: float, level: float, top: float, left: float) -> dict[Path, _Place]:
    leaves = tree.leaves()
    xs: dict[Path, float] = {p: left + (i + 0.5) * pitch for i, p in enumerate(leaves)}
    paths = tree.paths()
    for path in reversed(paths):  # children before parents (breadth-first, reversed)
        node = tree.node(path)
        if not node.is_leaf:
            kids = [f"{path}.{i}" if path else str(i) for i in range(len(node.children))]
            xs[path] = (xs[kids[0]] + xs[kids[-1]]) / 2
    return {p: _Place(xs[p], top + path_depth(p) * level) for p in paths}


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, s: str, *, anchor: str = "middle", cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    return f'<text x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}"{c}>{escape(s)}</text>'


def _shape(player: str, leaf: bool, x: float, y: float, path: Path) -> str:
    h = SHAPE_MM / 2
    of = f'data-path="{path}"'
    if leaf:
        return (
            f'<rect class="node leaf" {of} x="{_num(x - h)}" y="{_num(y - h)}" '
            f'width="{_num(SHAPE_MM)}" height="{_num(SHAPE_MM)}"/>'
        )
    if player == "chance":
        return f'<circle class="node chance" {of} cx="{_num(x)}" cy="{_num(y)}" r="{_num(h)}"/>'

    if player == "max":
        pts = [(x, y - h), (x + h * 1.15, y + h), (x - h * 1.15, y + h)]
    else:
        pts = [(x, y + h), (x + h * 1.15, y - h), (x - h * 1.15, y - h)]
    points = " ".join(f"{_num(a)},{_num(b)}" for a, b in pts)
    return f'<polygon class="node {player}" {of} points="{points}"/>'


def tree_svg(
    tree: Tree,
    *,
    width_mm: float = 180.0,
    height_mm: float | None = None,
    boxes: PaperBoxes | None = None,
    marks: Mapping[Path, str] | None = None,
    struck: Sequence[Path] = (),
    lines: Sequence[tuple[str, str]] = (),
    title: str = "",
) -> str:
    """The tree as a standalone SVG document at most ``width_mm`` wide (and, when given,
    ``height_mm`` tall: the levels spread to fill it), its text at FONT_MM, never scaled.

    Every answer box is white and touches its node: an internal node's sits on top of it (or
    on a line up from it), and a leaf that carries a box is drawn as that box, where its edge
    ends; leaves without one are grey squares, so nothing but a box looks like one. Each box
    and each leaf names its node in ``data-path``. ``struck`` paths are drawn dashed and grey
    with their subtrees (the key's pruned subtrees); ``lines`` are ("Root value", written)
    pairs printed under the tree, with a box each."""
    marks = marks or {}
    boxes = boxes or PaperBoxes(())
    boxed = set(boxes.paths)
    labels = tree.labels()
    leaves = tree.leaves()
    depth = tree.depth()
    stacked = len(boxes.rows)
    written = [line for mark in marks.values() for line in mark.split("\n")]
    box_w = max(boxes.chars * CHAR_MM + 2, 6.0, *(text_mm(w, bold=True) + 1.2 for w in written))
    leaf_box = any(p in boxed for p in leaves)
    # Each child of a chance node: its probability, written on its edge above it.
    chances = {p: probability_text(q) for p, q in _probabilities(tree).items()}
    # What a leaf's column holds: its box (or square), then its label and its value.
    widest = max(max(text_mm(labels[p]), text_mm(_value_text(tree.node(p).value))) for p in leaves)
    widest_prob = max((text_mm(t) for t in chances.values()), default=0.0)
    need = max(widest, widest_prob, box_w if leaf_box else 0.0) + GAP_MM
    margin = 9.0  # room for the leftmost node's label
    pitch = max(MIN_PITCH_MM, min(need + 3, (width_mm - 2 * margin) / len(leaves)))
    width = 2 * margin + pitch * len(leaves)
    # Leaves too close for their texts side by side take turns on as many rows as it needs;
    # so do leaf boxes (on two rows at most, narrowed so a line passes between two of them).
    text_rows = max(1, math.ceil((widest + GAP_MM) / pitch))
    box_rows = 2 if leaf_box and box_w + GAP_MM > pitch else 1
    leaf_w = min(box_w, 2 * pitch - GAP_MM) if box_rows == 2 else box_w
    prob_rows = 2 if widest_prob + GAP_MM > pitch else 1
    box_block = BOX_H_MM * stacked
    # Internal nodes of a level whose neighbours lie closer than a box alternate two heights.
    levels: dict[int, list[Path]] = {}
    for p in tree.paths():
        if not tree.node(p).is_leaf and p in boxed:
            levels.setdefault(path_depth(p), []).append(p)
    text_row = FONT_MM + 1.2
    # From a leaf's centre down: its square's half, or its rows of boxes; then the text rows.
    shapes_below = (
        box_rows * BOX_H_MM + (box_rows - 1) * GAP_MM - SHAPE_MM / 2 if leaf_box else SHAPE_MM / 2
    )
    below = shapes_below + GAP_MM + text_rows * 2 * text_row
    lines_h = len(lines) * (BOX_H_MM + 3) + (3 if lines else 0)
    top = 3 + 2 * box_block if boxed else 3 + FONT_MM
    fixed = top + below + lines_h + 2
    level = max(SHAPE_MM + 2 * box_block + 4, 16.0) + (prob_rows * text_row if chances else 0.0)
    if height_mm is not None and depth:
        level = max(level, min(40.0, (height_mm - fixed) / depth))
    places = _layout(tree, pitch, level, top, margin)
    high: set[Path] = set()
    for level_paths in levels.values():
        for left, right in itertools.pairwise(level_paths):
            if left not in high and places[right].x - places[left].x < box_w + 1.5:
                high.add(right)
    leaf_y = top + depth * level
    leaf_top = leaf_y - SHAPE_MM / 2
    height = leaf_y + below + lines_h + 2
    struck_all = {p for s in struck for p in tree.subtree(s)}
    out: list[str] = [
        '<svg xmlns="http://www.w3.org/2000/svg" '
        f'width="{_num(width)}mm" height="{_num(height)}mm" '
        f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="DejaVu Sans, sans-serif" '
        f'font-size="{_num(FONT_MM)}" role="img">',
        f"<title>{escape(title or f'A game tree of {len(leaves)} leaves, depth {depth}')}</title>",
        "<style>"
        ".node{fill:#fff;stroke:#111;stroke-width:.35}.max{fill:#e8eefc}.min{fill:#fdecec}"
        ".leaf{fill:#c8c8c8}"
        ".edge{stroke:#111;stroke-width:.3}.struck{stroke:#999;stroke-dasharray:1 1}"
        ".lead{stroke:#bbb;stroke-width:.2}"
        ".box{fill:#fff;stroke:#111;stroke-width:.3}.mark{fill:#b00020;font-weight:bold}"
        ".chance{fill:#e6f6f8}.halo{fill:#fff}.prob{fill:#111}"
        "</style>",
    ]
    leaf_index = {p: i for i, p in enumerate(leaves)}
    named = _internal_labels(tree, places, labels, text_row)

    def box_row(path: Path) -> int:
        return leaf_index[path] % box_rows if path in boxed else 0

    for path in tree.paths():  # edges first, under the shapes
        if path:
            a, b = places[path.rpartition(".")[0]], places[path]
            cls = "edge struck" if path in struck_all else "edge"
            end = b.y - SHAPE_MM / 2
            out.append(
                f'<line class="{cls}" x1="{_num(a.x)}" y1="{_num(a.y + SHAPE_MM / 2)}" '
                f'x2="{_num(b.x)}" y2="{_num(end)}"/>'
            )
            if path in leaf_index and box_row(path):  # on down to a box of the second row
                out.append(
                    f'<line class="{cls}" x1="{_num(b.x)}" y1="{_num(end)}" x2="{_num(b.x)}" '
                    f'y2="{_num(end + box_row(path) * (BOX_H_MM + GAP_MM))}"/>'
                )
    shapes_bottom = leaf_y + shapes_below
    for path in tree.paths():
        node = tree.node(path)
        at = places[path]
        if node.is_leaf:
            if path in boxed:
                y = leaf_top + box_row(path) * (BOX_H_MM + GAP_MM)
                out.append(_box(at.x - leaf_w / 2, y, leaf_w, marks.get(path, ""), path))
                bottom = y + BOX_H_MM
            else:
                out.append(_shape(tree.player(path), True, at.x, at.y, path))
                bottom = at.y + SHAPE_MM / 2
            row = leaf_index[path] % text_rows
            y = shapes_bottom + GAP_MM + row * 2 * text_row
            if y - bottom > GAP_MM + 0.01:
                out.append(
                    f'<line class="lead" x1="{_num(at.x)}" y1="{_num(bottom)}" '
                    f'x2="{_num(at.x)}" y2="{_num(y + 0.4)}"/>'
                )
            out.append(_text(at.x, y + text_row - 0.4, labels[path]))
            out.append(_text(at.x, y + 2 * text_row - 0.4, _value_text(node.value)))
            continue
        out.append(_shape(tree.player(path), False, at.x, at.y, path))
        out.append(named[path])
        if path not in boxed:
            continue
        mark = marks.get(path, "")
        rows = mark.split("\n") if stacked > 1 else [mark]
        lift = box_block if path in high else 0.0
        for i, name in enumerate(boxes.rows):
            y = at.y - SHAPE_MM / 2 - lift - (stacked - i) * BOX_H_MM
            if name:
                out.append(_text(at.x - box_w / 2 - 0.8, y + BOX_H_MM - 1.5, name, anchor="end"))
            out.append(_box(at.x - box_w / 2, y, box_w, rows[i] if i < len(rows) else "", path))
        if lift:
            out.append(
                f'<line class="edge" x1="{_num(at.x)}" y1="{_num(at.y - SHAPE_MM / 2)}" '
                f'x2="{_num(at.x)}" y2="{_num(at.y - SHAPE_MM / 2 - lift)}"/>'
            )
    for path, text in chances.items():  # over the edges and boxes, on a white ground
        a, b = places[path.rpartition(".")[0]], places[path]
        top = b.y - SHAPE_MM / 2
        if path in boxed and not tree.node(path).is_leaf:
            top -= stacked * BOX_H_MM + (box_block if path in high else 0.0)
        if prob_rows == 2 and path in leaf_index and leaf_index[path] % 2:
            top -= text_row  # leaves closer than a probability: alternate two heights
        y = top - GAP_MM - FONT_MM * 0.25
        # Where the edge crosses that height, so the probability reads as the edge's.
        t = (y - FONT_MM / 3 - (a.y + SHAPE_MM / 2)) / max(
            b.y - SHAPE_MM / 2 - a.y - SHAPE_MM / 2, 1
        )
        x = a.x + (b.x - a.x) * min(1.0, max(0.0, t))
        w = text_mm(text) + 0.4
        out.append(
            f'<rect class="halo" x="{_num(x - w / 2)}" y="{_num(y - FONT_MM * 0.8)}" '
            f'width="{_num(w)}" height="{_num(FONT_MM * 1.05)}"/>'
        )
        out.append(_text(x, y, text, cls="prob"))
    y = leaf_y + below + 3
    for name, answer in lines:
        out.append(_text(margin, y + BOX_H_MM - 1.5, f"{name}:", anchor="start"))
        out.append(_box(margin + len(name) * CHAR_MM + 4, y, 30, answer))
        y += BOX_H_MM + 3
    out.append("</svg>")
    return "\n".join(out)


def _internal_labels(
    tree: Tree, places: Mapping[Path, _Place], labels: Mapping[Path, str], text_row: float
) -> dict[Path, str]:
    """Each internal node's label: left of its shape where that leaves room before the shape
    of its neighbour on the left; else under it on a white ground, a row lower than the label
    before it when the two would touch."""
    rows: dict[int, list[Path]] = {}
    for p in tree.paths():
        if not tree.node(p).is_leaf:
            rows.setdefault(path_depth(p), []).append(p)
    side = SHAPE_MM / 2 * 1.15  # a triangle's half width (a circle's is less)
    out: dict[Path, str] = {}
    for row in rows.values():
        fence = 0.0  # the right edge of the shape to the left
        under: tuple[float, int] | None = None  # the last label under a node: right end, row
        for p in row:
            at, label = places[p], labels[p]
            w = text_mm(label)
            end = at.x - SHAPE_MM / 2 - 1.4
            if end - w >= fence + GAP_MM:
                out[p] = _text(end, at.y + FONT_MM / 3, label, anchor="end")
            else:
                lower = 1 if under and under[1] == 0 and under[0] + GAP_MM > at.x - w / 2 else 0
                y = at.y + SHAPE_MM / 2 + GAP_MM + FONT_MM * 0.8 + lower * text_row
                out[p] = (
                    f'<rect class="halo" x="{_num(at.x - w / 2 - 0.2)}" '
                    f'y="{_num(y - FONT_MM * 0.8)}" width="{_num(w + 0.4)}" '
                    f'height="{_num(FONT_MM * 1.05)}"/>' + _text(at.x, y, label)
                )
                under = (at.x + w / 2, lower)
            fence = at.x + side
    return out


def _box(x: float, y: float, w: float, written: str, path: Path | None = None) -> str:
    of = f' data-path="{path}"' if path is not None else ""
    rect = (
        f'<rect class="box"{of} x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" '
        f'height="{_num(BOX_H_MM)}"/>'
    )
    if not written:
        return rect
    return rect + _text(x + w / 2, y + BOX_H_MM - 1.4, written, cls="mark")


def tree_in_words(tree: Tree) -> str:
    """The tree as a screen reader reads it: each internal node with its player and its
    children (a chance node's with their probabilities), then each leaf's value."""
    labels = tree.labels()
    chances = {p: probability_text(q) for p, q in _probabilities(tree).items()}
    said = []
    for path in tree.paths():
        node = tree.node(path)
        if node.is_leaf:
            continue
        kids = [child_path(path, i) for i in range(len(node.children))]
        named = ", ".join(
            f"{labels[k]} ({chances[k]})" if k in chances else labels[k] for k in kids
        )
        said.append(f"{labels[path]}, {tree.player(path).upper()}, has {named}.")
    values = ", ".join(f"{labels[p]} {_value_text(tree.node(p).value)}" for p in tree.leaves())
    return " ".join(said) + f" Leaves: {values}."


def _probabilities(tree: Tree) -> dict[Path, Fraction]:
    """Each child of a chance node with its probability (none on a MAX/MIN tree)."""
    if not tree.has_chance:
        return {}
    return {
        child_path(path, i): p
        for path in tree.paths()
        for i, p in enumerate(tree.probabilities(path) or ())
    }


def _value_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# -- LaTeX ------------------------------------------------------------------------------------

_LATEX_SPECIAL = {
    **{c: "\\" + c for c in "#$%&_{}"},
    "✗": "$\\times$",
    "∞": "$\\infty$",
    "−": "$-$",
    "α": "$\\alpha$",
    "β": "$\\beta$",
    "\n": ", ",
}


def _tex(s: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in s)


def tree_latex(
    tree: Tree,
    *,
    marks: Mapping[Path, str] | None = None,
    lines: Sequence[tuple[str, str]] = (),
    standalone: bool = True,
) -> str:
    """The tree as a TikZ picture, laid out as the SVG is (coordinates in millimetres): MAX and
    MIN triangles, chance circles with each child's probability on its edge, leaf squares, each
    node's label; ``marks`` (a key) written in red beside
    their nodes and ``lines`` below. A whole document by default: pdflatex compiles it with
    TeX Live's base packages and texlive-pictures (TikZ), nothing from texlive-latex-extra."""
    marks = marks or {}
    labels = tree.labels()
    pitch, level = 9.0, 16.0
    places = _layout(tree, pitch, level, 0.0, 0.0)
    h = SHAPE_MM / 2
    chances = {p: probability_text(q) for p, q in _probabilities(tree).items()}
    out = ["\\begin{tikzpicture}[x=1mm, y=-1mm, font=\\small]"]
    for path in tree.paths():
        if path:
            a, b = places[path.rpartition(".")[0]], places[path]
            prob = (
                f" node[pos=0.7, fill=white, inner sep=0.5pt, font=\\scriptsize] "
                f"{{{chances[path]}}}"
                if path in chances
                else ""
            )
            out.append(
                f"  \\draw ({_num(a.x)},{_num(a.y + h)}) --{prob} ({_num(b.x)},{_num(b.y - h)});"
            )
    for path in tree.paths():
        node, at = tree.node(path), places[path]
        x, y = _num(at.x), _num(at.y)
        if node.is_leaf:
            out.append(
                f"  \\draw[fill=white] ({_num(at.x - h)},{_num(at.y - h)}) rectangle "
                f"({_num(at.x + h)},{_num(at.y + h)});"
            )
            out.append(
                f"  \\node[below] at ({x},{_num(at.y + h)}) {{{_tex(_value_text(node.value))}}};"
            )
            out.append(f"  \\node[above, gray] at ({x},{_num(at.y - h)}) {{{_tex(labels[path])}}};")
        elif tree.player(path) == "chance":
            out.append(f"  \\draw[fill=cyan!8] ({x},{y}) circle ({_num(h)});")
            out.append(f"  \\node[left] at ({_num(at.x - h)},{y}) {{{_tex(labels[path])}}};")
        else:
            tip = at.y - h if tree.player(path) == "max" else at.y + h
            base = at.y + h if tree.player(path) == "max" else at.y - h
            fill = "blue!8" if tree.player(path) == "max" else "red!8"
            out.append(
                f"  \\draw[fill={fill}] ({x},{_num(tip)}) -- ({_num(at.x + h * 1.15)},{_num(base)})"
                f" -- ({_num(at.x - h * 1.15)},{_num(base)}) -- cycle;"
            )
            out.append(f"  \\node[left] at ({_num(at.x - h)},{y}) {{{_tex(labels[path])}}};")
        if path in marks:
            side = "below right" if node.is_leaf else "right"
            out.append(
                f"  \\node[{side}, text=red] at ({_num(at.x + h)},{y}) {{{_tex(marks[path])}}};"
            )
    bottom = max(p.y for p in places.values()) + 10
    for i, (name, value) in enumerate(lines):
        out.append(
            f"  \\node[right] at (0,{_num(bottom + 6 * i)}) "
            f"{{{_tex(name)}: \\textcolor{{red}}{{{_tex(value)}}}}};"
        )
    out.append("\\end{tikzpicture}")
    body = "\n".join(out) + "\n"
    if not standalone:
        return body
    return (
        "\\documentclass{article}\n"
        "\\usepackage[a4paper,landscape,margin=10mm]{geometry}\n"
        "\\usepackage{xcolor}\n\\usepackage{tikz}\n\\pagestyle{empty}\n"
        "\\begin{document}\n\\begin{center}\n" + body + "\\end{center}\n\\end{document}\n"
    )
