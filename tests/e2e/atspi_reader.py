"""Reads a tree widget the way a Linux screen reader (Orca) does: through AT-SPI, the desktop's
accessibility bus, from the running Chromium's platform accessibility tree.

Run by tests/e2e/test_tree_atspi.py with Debian's own Python (`/usr/bin/python3`, which has
`pyatspi`; the project's virtualenv does not), inside the test's D-Bus session:

    python3 atspi_reader.py "Game tree of exercise" 13

prints, as JSON, the items of the one tree whose name starts with the first argument, depth
first in AT-SPI's order, once that tree has at least the second argument's number of items (the
renderer fills the platform tree a moment after the first query asks for it; this waits up to
30 s). Each item: its role name, its name, its level, its place and its set's size as AT-SPI
attributes say them, whether it is expandable and expanded, and the name of the tree item it is
nested in (null: the tree's own).
"""

from __future__ import annotations

import json
import sys
import time

import pyatspi  # type: ignore[import-not-found]  # Debian's python3-pyatspi


def _attributes(node: object) -> dict[str, str]:
    try:
        pairs = node.getAttributes()  # type: ignore[attr-defined]
    except Exception:  # a node gone while it was read
        return {}
    return dict(pair.split(":", 1) for pair in pairs if ":" in pair)


def _children(node: object) -> list[object]:
    found = []
    try:
        for i in range(node.childCount):  # type: ignore[attr-defined]
            child = node.getChildAtIndex(i)  # type: ignore[attr-defined]
            if child is not None:
                found.append(child)
    except Exception:
        pass
    return found


def _role(node: object) -> str:
    try:
        return str(node.getRoleName())  # type: ignore[attr-defined]
    except Exception:
        return ""


def _trees(node: object, prefix: str, depth: int = 0) -> list[object]:
    """Every AT-SPI node of role "tree" whose name starts with `prefix`, under `node`."""
    if depth > 60:
        return []
    if _role(node) == "tree" and str(node.name or "").startswith(prefix):  # type: ignore[attr-defined]
        return [node]
    return [t for child in _children(node) for t in _trees(child, prefix, depth + 1)]


def _items(tree: object) -> list[dict[str, object]]:
    items: list[dict[str, object]] = []

    def visit(node: object, parent: str | None) -> None:
        for child in _children(node):
            if _role(child) == "tree item":
                name = str(child.name or "")  # type: ignore[attr-defined]
                states = child.getState()  # type: ignore[attr-defined]
                attrs = _attributes(child)
                items.append(
                    {
                        "role": "tree item",
                        "name": name,
                        "level": int(attrs["level"]) if "level" in attrs else None,
                        "position": int(attrs["posinset"]) if "posinset" in attrs else None,
                        "set_size": int(attrs["setsize"]) if "setsize" in attrs else None,
                        "expandable": states.contains(pyatspi.STATE_EXPANDABLE),
                        "expanded": states.contains(pyatspi.STATE_EXPANDED),
                        "parent": parent,
                    }
                )
                visit(child, name.split(",")[0])
            else:  # a group or a plain container: its items belong to the same parent
                visit(child, parent)

    visit(tree, None)
    return items


def main() -> int:
    prefix, least = sys.argv[1], int(sys.argv[2])
    deadline = time.monotonic() + 30
    seen: list[dict[str, object]] = []
    trees: list[object] = []
    while time.monotonic() < deadline:
        desktop = pyatspi.Registry.getDesktop(0)
        trees = [t for app in _children(desktop) for t in _trees(app, prefix)]
        if len(trees) == 1:
            seen = _items(trees[0])
            if len(seen) >= least:
                break
        time.sleep(0.25)
    print(json.dumps({"trees": len(trees), "items": seen}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
