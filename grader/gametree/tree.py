"""Game trees: n-ary nodes with numeric leaves, players per level, paths and labels, and formats.

Formats: nested lists (``[[3, 12, 8], [2, 4, 6]]``), a JSON object (``{"tree": ..., "players": ...}``),
the Delphi visualizer's comma-separated leaves (``parse_leaves``), and UC Berkeley CS188's
``GraphGameTreeTest`` ``.test`` files (``Tree.from_cs188`` / ``tree.to_cs188``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

Value = int | float
Path = str  # child indices from the root joined by dots; "" is the root
PLAYERS = ("max", "min")
_MAX_NODES = 200_000  # a bound on what any input may build


class TreeFormatError(ValueError):
    """A tree, a path or a player sequence that cannot be read."""


@dataclass(frozen=True, slots=True)
class Node:
    """A leaf (``value`` set, no children) or an internal node (children, ``value`` None)."""

    value: Value | None = None
    children: tuple[Node, ...] = ()

    @property
    def is_leaf(self) -> bool:
        return not self.children


def child_path(path: Path, index: int) -> Path:
    return f"{path}.{index}" if path else str(index)


def parent_path(path: Path) -> Path:
    return path.rpartition(".")[0]


def path_depth(path: Path) -> int:
    return path.count(".") + 1 if path else 0


def is_ancestor(ancestor: Path, path: Path) -> bool:
    """True when ``ancestor`` is ``path`` itself or lies above it."""
    return ancestor == "" or path == ancestor or path.startswith(ancestor + ".")


def label_for(index: int) -> str:
    """Breadth-first index to label: 0 -> A, 25 -> Z, 26 -> AA, 27 -> AB, ..."""
    label = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        label = chr(ord("A") + rest) + label
    return label


def parse_players(players: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"max,min,min"`` or a sequence of names to a validated tuple; None gives ``max,min``."""
    if players is None:
        return PLAYERS
    items = players.split(",") if isinstance(players, str) else list(players)
    result = tuple(str(p).strip().lower() for p in items)
    if not result or any(p not in PLAYERS for p in result):
        raise TreeFormatError(f"players must be a list of 'max' and 'min', got {players!r}")
    return result


def _check_value(value: object) -> Value:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TreeFormatError(f"a leaf value must be a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise TreeFormatError(f"a leaf value must be finite, got {value!r}")
    return value


class Tree:
    """A game tree with a player per level (the sequence repeats when the tree is deeper)."""

    __slots__ = ("_hash", "_index", "_labels", "players", "root")

    def __init__(self, root: Node, players: str | Sequence[str] | None = None) -> None:
        self.root = root
        self.players = parse_players(players)
        self._index: dict[Path, Node] | None = None
        self._hash: int | None = None
        self._labels: dict[Path, str] | None = None

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_nested(cls, nested: object, players: str | Sequence[str] | None = None) -> Tree:
        """Nested lists of numbers: a number is a leaf, a list an internal node."""
        count = 0

        def build(obj: object, depth: int) -> Node:
            nonlocal count
            count += 1
            if count > _MAX_NODES or depth > 64:
                raise TreeFormatError(f"a tree may have at most {_MAX_NODES} nodes and depth 64")
            if isinstance(obj, list | tuple):
                if not obj:
                    raise TreeFormatError("an internal node needs at least one child, got []")
                return Node(None, tuple(build(child, depth + 1) for child in obj))
            return Node(_check_value(obj))

        if not isinstance(nested, list | tuple):
            raise TreeFormatError("a tree must be a nested list, e.g. [[3, 12, 8], [2, 4, 6]]")
        return cls(build(nested, 0), players)

    @classmethod
    def from_dict(cls, data: object) -> Tree:
        """The JSON object form: ``{"tree": nested, "players": ["max", "min"]}``."""
        if not isinstance(data, dict) or "tree" not in data:
            raise TreeFormatError('a tree object needs a "tree" key holding nested lists')
        return cls.from_nested(data["tree"], data.get("players"))

    # -- export -------------------------------------------------------------------------------
    def to_nested(self) -> list:
        def dump(node: Node) -> object:
            return node.value if node.is_leaf else [dump(c) for c in node.children]

        return dump(self.root)  # type: ignore[return-value]

    def to_dict(self) -> dict:
        return {"tree": self.to_nested(), "players": list(self.players)}

    # -- navigation ---------------------------------------------------------------------------
    def player_at(self, depth: int) -> str:
        return self.players[depth % len(self.players)]

    def player(self, path: Path) -> str:
        return self.player_at(path_depth(path))

    def walk(self) -> Iterator[tuple[Path, Node]]:
        """Every (path, node), breadth-first, left to right: the label order."""
        level: list[tuple[Path, Node]] = [("", self.root)]
        while level:
            yield from level
            level = [
                (child_path(path, i), child)
                for path, node in level
                for i, child in enumerate(node.children)
            ]

    def node(self, path: Path) -> Node:
        if self._index is None:
            self._index = dict(self.walk())
        try:
            return self._index[path]
        except (KeyError, TypeError):
            raise TreeFormatError(f"no node at path {path!r}") from None

    def has(self, path: object) -> bool:
        try:
            self.node(path)  # type: ignore[arg-type]
        except TreeFormatError:
            return False
        return True

    def paths(self) -> list[Path]:
        return [path for path, _ in self.walk()]

    def labels(self) -> dict[Path, str]:
        """Path to label; computed once (a tree is immutable): do not change the dict."""
        if self._labels is None:
            self._labels = {path: label_for(i) for i, (path, _) in enumerate(self.walk())}
        return self._labels

    def leaves(self) -> list[Path]:
        return [path for path, node in self.walk() if node.is_leaf]

    def depth(self) -> int:
        return max(path_depth(p) for p in self.leaves())

    def subtree(self, path: Path) -> list[Path]:
        """``path`` and every node below it."""
        return [p for p in self.paths() if is_ancestor(path, p)]

    def leaf_count(self) -> int:
        return len(self.leaves())

    def reordered(self, orders: dict[Path, Sequence[int]]) -> Tree:
        """A copy with the children of each listed node put in the given order (old indices)."""

        def build(node: Node, path: Path) -> Node:
            if node.is_leaf:
                return node
            order = list(orders.get(path, range(len(node.children))))
            if sorted(order) != list(range(len(node.children))):
                raise TreeFormatError(
                    f"the order at {path!r} must be a permutation of 0..{len(node.children) - 1}"
                )
            return Node(None, tuple(build(node.children[i], child_path(path, i)) for i in order))

        return Tree(build(self.root, ""), self.players)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tree) and self.root == other.root and self.players == other.players

    def __hash__(self) -> int:
        if self._hash is None:  # nodes hash recursively; a tree is immutable, so once is enough
            self._hash = hash((self.root, self.players))
        return self._hash

    def __repr__(self) -> str:
        return f"Tree({self.to_nested()!r}, players={','.join(self.players)!r})"

    # -- UC Berkeley CS188 GraphGameTreeTest ----------------------------------------------------
    @classmethod
    def from_cs188(cls, text: str) -> Tree:
        """Read a CS188 ``GraphGameTreeTest`` file (its ``successors`` and ``evaluation`` blocks)."""
        fields = _parse_cs188(text)
        for key in ("start_state", "successors", "evaluation"):
            if key not in fields:
                raise TreeFormatError(f"a CS188 game tree test needs a {key!r} field")
        try:
            agents = int(fields.get("num_agents", "2"))
        except ValueError:
            raise TreeFormatError(
                f"num_agents must be a whole number, got {fields['num_agents']!r}"
            ) from None
        if agents < 2:
            raise TreeFormatError(f"num_agents must be at least 2, got {agents}")
        successors: dict[str, list[str]] = {}
        for line in fields["successors"].splitlines():
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 3:
                raise TreeFormatError(f"a successors line is 'state action next', got {line!r}")
            successors.setdefault(parts[0], []).append(parts[2])
        evaluation: dict[str, Value] = {}
        for line in fields["evaluation"].splitlines():
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 2:
                raise TreeFormatError(f"an evaluation line is 'state value', got {line!r}")
            try:
                number = float(parts[1])
            except ValueError:
                raise TreeFormatError(f"not a number in evaluation line {line!r}") from None
            evaluation[parts[0]] = _check_value(int(number) if number.is_integer() else number)

        seen: set[str] = set()

        def build(state: str) -> Node:
            if state in seen:
                raise TreeFormatError(f"state {state!r} is reached twice; only trees are supported")
            seen.add(state)
            if state in successors:
                return Node(None, tuple(build(s) for s in successors[state]))
            if state not in evaluation:
                raise TreeFormatError(f"leaf state {state!r} has no evaluation")
            return Node(evaluation[state])

        players = ("max",) + ("min",) * (agents - 1)
        return cls(build(fields["start_state"]), players)

    def to_cs188(self, alg: str = "AlphaBetaAgent") -> str:
        """Write a CS188 ``GraphGameTreeTest``; states are named by label."""
        agents = len(self.players)
        if self.players != ("max",) + ("min",) * (agents - 1) or agents < 2:
            raise TreeFormatError(
                "CS188 trees have one maximizer followed by minimizers "
                f"(max,min or max,min,min...), not {','.join(self.players)}"
            )
        depths = {path_depth(p) for p in self.leaves()}
        if len(depths) != 1 or max(depths) % agents:
            raise TreeFormatError(
                "CS188's depth counts whole rounds of every agent: the leaves must all lie at a "
                f"depth that is a multiple of {agents}"
            )
        labels = self.labels()
        successors, evaluation, leaves = [], [], []
        for path, node in self.walk():
            if node.is_leaf:
                evaluation.append(f"{labels[path]} {float(node.value)!r}")  # type: ignore[arg-type]
                leaves.append(labels[path])
            for i in range(len(node.children)):
                successors.append(f"{labels[path]} a{i} {labels[child_path(path, i)]}")
        return "\n".join(
            [
                'class: "GraphGameTreeTest"',
                f'alg: "{alg}"',
                f'depth: "{max(depths) // agents}"',
                "",
                f'num_agents: "{agents}"',
                "",
                f'start_state: "{labels[""]}"',
                f'win_states: "{" ".join(leaves)}"',
                'lose_states: ""',
                "",
                'successors: """',
                *successors,
                '"""',
                "",
                'evaluation: """',
                *evaluation,
                '"""',
                "",
            ]
        )


def _parse_cs188(text: str) -> dict[str, str]:
    """The ``key: "value"`` and ``key: \"\"\"block\"\"\"`` fields of a CS188 test file."""
    fields: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = re.match(r'^(\w+):\s*(""")?(.*)$', line)
        if not match:
            raise TreeFormatError(f"cannot read CS188 line {line!r}")
        key, block, rest = match.groups()
        if block:
            body = []
            for inner in lines:
                if inner.strip() == '"""':
                    break
                body.append(inner)
            else:
                raise TreeFormatError(f'the {key!r} block is not closed with """')
            fields[key] = "\n".join(body)
        else:
            fields[key] = rest.strip().strip('"')
    return fields


def parse_leaves(text: str, branching: int, depth: int) -> list:
    """The Delphi visualizer's input: comma-separated leaf values of a uniform tree.

    ``parse_leaves("3,12,8,2,4,6,14,5,2", branching=3, depth=2) == [[3,12,8],[2,4,6],[14,5,2]]``
    """
    if branching < 1 or depth < 1:
        raise TreeFormatError("branching and depth must be at least 1")
    if branching**depth > _MAX_NODES:
        raise TreeFormatError(f"a tree may have at most {_MAX_NODES} leaves")
    values: list[Value] = []
    for item in text.replace(";", ",").split(","):
        item = item.strip()
        if not item:
            continue
        try:
            number = float(item)
        except ValueError:
            raise TreeFormatError(f"not a number: {item!r}") from None
        values.append(_check_value(int(number) if number.is_integer() else number))
    expected = branching**depth
    if len(values) != expected:
        raise TreeFormatError(
            f"branching {branching} and depth {depth} need {expected} leaf values, "
            f"got {len(values)}"
        )
    level: list = values
    for _ in range(depth):
        level = [level[i : i + branching] for i in range(0, len(level), branching)]
    return level[0]


def validate_path(tree: Tree, path: object) -> Path:
    """A path from user input, checked to name a node of ``tree``."""
    if not isinstance(path, str) or not tree.has(path):
        raise TreeFormatError(f"no node at path {path!r}")
    return path


def ancestors(path: Path) -> list[Path]:
    """The proper ancestors of ``path``, root first."""
    if not path:
        return []
    parts = path.split(".")
    return [".".join(parts[:i]) for i in range(len(parts))]


__all__ = [
    "PLAYERS",
    "Node",
    "Path",
    "Tree",
    "TreeFormatError",
    "Value",
    "ancestors",
    "child_path",
    "is_ancestor",
    "label_for",
    "parent_path",
    "parse_leaves",
    "parse_players",
    "path_depth",
    "validate_path",
]
