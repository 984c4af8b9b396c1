"""Chromium's own accessibility tree, as the browser computes it and gives it to assistive
technology, read through the DevTools protocol (`Accessibility.getFullAXTree`), never computed
from the markup (Playwright's ARIA snapshots are: they pass where Chromium exposes something else).

`ax_tree(page)` is the page's tree; `tree_items(page, name)` the items of the WAI-ARIA tree named
`name`: every named node inside it, in Chromium's order, with its role, its level, its open state,
the named item it is nested in and its place among that item's named children (the protocol does
not report `aria-posinset` or `aria-setsize`: the place is the one the tree's own structure gives).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from grader.gametree import KINDS, Tree
from grader.gametree.tree import child_path

# The exercises whose trees tests/e2e/test_tree_aria.py reads (seeded by conftest, read only):
# each kind of the registry on its first example's tree (`ExerciseKind.examples`), and a chance
# tree of three players and three levels.
AX_TREES = {kind: KINDS[kind].examples()[0].tree.to_nested() for kind in KINDS}
AX_CHANCE = Tree.from_nested(
    [
        {"chance": ["1/2", "1/2"], "children": [[3, 5], [1, 8]]},
        {"chance": ["1/3", "2/3"], "children": [[4, 2], [6, 0, 7]]},
    ],
    "max,chance,min",
)


@dataclass
class AXNode:
    role: str
    name: str
    properties: dict[str, Any]
    children: list[AXNode] = field(default_factory=list)

    def walk(self) -> Iterator[AXNode]:
        """This node and every node under it, depth first, in Chromium's order."""
        yield self
        for child in self.children:
            yield from child.walk()


def ax_tree(page: Any) -> AXNode:
    """The page's whole accessibility tree as Chromium exposes it; ignored nodes are left out
    (their children take their place)."""
    session = page.context.new_cdp_session(page)
    try:
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    by_id = {node["nodeId"]: node for node in nodes}

    def build(raw: dict[str, Any]) -> list[AXNode]:
        children = [n for c in raw.get("childIds", []) if c in by_id for n in build(by_id[c])]
        if raw.get("ignored"):
            return children
        properties = {p["name"]: p["value"].get("value") for p in raw.get("properties", [])}
        role = raw.get("role", {}).get("value", "")
        name = raw.get("name", {}).get("value", "")
        return [AXNode(role, name, properties, children)]

    (root,) = build(nodes[0])
    return root


@dataclass(frozen=True)
class Item:
    role: str
    name: str
    level: int | None  # Chromium's level (aria-level, or what it infers from the nesting)
    expanded: bool | None  # None: no open state at all
    parent: str | None  # the name of the named node it is nested in (None: the tree's own)
    position: int  # its place among the named nodes nested in that parent, from 1
    set_size: int  # how many those are

    @property
    def label(self) -> str:
        """The node's label: its name up to the first comma ("B" of "B, MIN")."""
        return self.name.split(",")[0]


def tree_items(page: Any, name: str) -> list[Item]:
    """The named nodes of the tree (role "tree") whose name starts with `name`, in Chromium's
    order, each with where the structure puts it. Fails when no such tree is exposed."""
    trees = [n for n in ax_tree(page).walk() if n.role == "tree" and n.name.startswith(name)]
    assert len(trees) == 1, f"{len(trees)} trees named {name!r} in Chromium's accessibility tree"
    items: list[Item] = []

    def named_children(node: AXNode) -> list[AXNode]:
        out = []
        for child in node.children:
            if child.name:
                out.append(child)
            else:
                out.extend(named_children(child))
        return out

    def visit(node: AXNode, parent: str | None) -> None:
        kids = named_children(node)
        for place, child in enumerate(kids, start=1):
            level = child.properties.get("level")
            expanded = child.properties.get("expanded")
            items.append(Item(child.role, child.name, level, expanded, parent, place, len(kids)))
            visit(child, child.name.split(",")[0])

    visit(trees[0], None)
    return items


def expected_items(tree: Tree) -> list[tuple[str, str, int, bool | None, str | None, int, int]]:
    """What the tree's structure says Chromium should expose, depth first, children in their
    order: (label, role, level, expanded, parent's label, place, siblings), as `Item` has them."""
    labels = tree.labels()
    out: list[tuple[str, str, int, bool | None, str | None, int, int]] = []

    def visit(path: str, parent: str | None, place: int, siblings: int, level: int) -> None:
        node = tree.node(path)
        expanded = None if node.is_leaf else True
        out.append((labels[path], "treeitem", level, expanded, parent, place, siblings))
        for i in range(len(node.children)):
            visit(child_path(path, i), labels[path], i + 1, len(node.children), level + 1)

    visit("", None, 1, 1, 1)
    return out


def as_expected(
    items: list[Item],
) -> list[tuple[str, str, int | None, bool | None, str | None, int, int]]:
    """`items` in `expected_items`' form."""
    return [(i.label, i.role, i.level, i.expanded, i.parent, i.position, i.set_size) for i in items]


def line(item: Item) -> str:
    """The item in the words docs/accessibility.md shows it with:
    `treeitem "B, MIN", level 2, expanded, 1 of 3 in A` (a leaf has no open state; a folded node
    is "collapsed"; the root is "1 of 1")."""
    parts = [f'{item.role} "{item.name}"', f"level {item.level}"]
    if item.expanded is not None:
        parts.append("expanded" if item.expanded else "collapsed")
    place = f"{item.position} of {item.set_size}"
    parts.append(f"{place} in {item.parent}" if item.parent else place)
    return ", ".join(parts)


def outline(items: list[Item]) -> list[str]:
    """The items' lines, each indented two spaces under the item it is nested in."""
    depth: dict[str, int] = {}
    out = []
    for item in items:
        depth[item.label] = 0 if item.parent is None else depth[item.parent] + 1
        out.append("  " * depth[item.label] + line(item))
    return out
