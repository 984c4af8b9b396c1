"""Game trees: n-ary nodes with numeric leaves, players per level (MAX, MIN and CHANCE), paths and
labels, and formats.

A chance node averages its children, weighted by exact probabilities (``fractions.Fraction``):
every node of a ``chance`` level of the players sequence (uniform), or a node written
``{"chance": ["1/3", "2/3"], "children": [...]}`` in the nested form (``"chance": true`` for
uniform), whatever its level.

Formats: nested lists (``[[3, 12, 8], [2, 4, 6]]``), a JSON object (``{"tree": ..., "players": ...}``),
the Delphi visualizer's comma-separated leaves (``parse_leaves``), and UC Berkeley CS188's
``GraphGameTreeTest`` ``.test`` files (``Tree.from_cs188`` / ``tree.to_cs188``).
"""

# Whole: the tree model and its formats, which read into and write one `Node`.

from __future__ import annotations

import enum
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from grader.gametree.exact import exact, parse_probability

Value = int | float | Fraction  # a Fraction only ever as a chance node's value (exact.py)
Path = str  # child indices from the root joined by dots; "" is the root


class Role(enum.StrEnum):
    """What a node does: MAX maximizes, MIN minimizes, CHANCE averages its children weighted by
    their probabilities. Equal to the text a players sequence stores (``"max"``, ...)."""

    MAX = "max"
    MIN = "min"
    CHANCE = "chance"


_ROLE = {role.value: role for role in Role}
_CHANCE = Role.CHANCE  # as a module global: an enum member's lookup costs about 0.5 us
# The players sequences as stored: plain text, so a tree's JSON and repr are its players' words.
PLAYERS: tuple[str, ...] = (Role.MAX.value, Role.MIN.value)
ROLES: tuple[str, ...] = tuple(_ROLE)  # what a level of the players sequence may be
_MAX_NODES = 200_000  # a bound on what any input may build
MAX_PLAYERS = 16  # a player sequence longer than any exercise's depth means nothing
# The digits of an exact value's numerator or denominator (`Tree.exact_digits`): past any tree an
# exercise needs (a generated chance tree: 12 digits at most), well below the 4,300 digits past
# which Python refuses to write an int as text.
MAX_EXACT_DIGITS = 1000
_LOG10_2 = math.log10(2)


class TreeFormatError(ValueError):
    """A tree, a path or a player sequence that cannot be read."""


class ProbabilityError(TreeFormatError):
    """A chance node's probabilities that are not exact, positive and summing to 1 (the message
    names the node by its label)."""


@dataclass(frozen=True, slots=True)
class Node:
    """A leaf (``value`` set, no children) or an internal node (children). An internal node may
    carry an evaluation in ``value`` (used when a depth limit makes it a horizon node) and may be
    ``terminal`` (a win or lose state: scored by its evaluation where it stands, never expanded)."""

    value: Value | None = None
    children: tuple[Node, ...] = ()
    terminal: bool = False
    # A chance node's probabilities, one per child, as written (None: not marked as chance here;
    # a node of a chance level without them is uniform).
    chance: tuple[Fraction, ...] | None = None

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


def parse_players(players: str | Sequence[str] | None, *, chance: bool = False) -> tuple[str, ...]:
    """``"max,min,min"`` or a sequence of names to a validated tuple; None gives ``max,min``.
    ``chance``: a level may also be ``chance`` (a tree's players; the MAX/MIN generator's
    parameters keep to max and min)."""
    if players is None:
        return PLAYERS
    items = players.split(",") if isinstance(players, str) else list(players)
    if len(items) > MAX_PLAYERS:
        raise TreeFormatError(f"at most {MAX_PLAYERS} players in the sequence, got {len(items)}")
    result = tuple(str(p).strip().lower() for p in items)
    allowed = ROLES if chance else PLAYERS
    if not result or any(p not in allowed for p in result):
        names = "'max', 'min' and 'chance'" if chance else "'max' and 'min'"
        raise TreeFormatError(f"players must be a list of {names}, got {players!r}")
    return result


def uniform(n: int) -> tuple[Fraction, ...]:
    """The probabilities of a chance node with ``n`` equally likely children."""
    return (Fraction(1, n),) * n


def probability_text(p: Fraction) -> str:
    """A probability as the nested form writes it: ``"1/3"``, ``"1"``."""
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _probabilities(raw: object, children: int) -> tuple[Fraction, ...]:
    """A node object's ``"chance"``: a list of one probability per child, or ``true`` for
    uniform. ValueError (without the node's label, added by the caller) otherwise."""
    if raw is True:
        return uniform(children)
    if not isinstance(raw, list | tuple):
        raise ValueError(
            f'"chance" is a list of probabilities (one per child) or true for uniform, got {raw!r}'
        )
    if len(raw) != children:
        raise ValueError(f"{len(raw)} probabilities for {children} children")
    result = tuple(parse_probability(p) for p in raw)
    if any(p <= 0 for p in result):
        zero = next(p for p in result if p <= 0)
        raise ValueError(f"every probability must be > 0, got {probability_text(zero)}")
    total = sum(result, Fraction(0))
    if total != 1:
        raise ValueError(f"the probabilities sum to {probability_text(total)}, not exactly 1")
    return result


def _check_value(value: object, what: str = "a leaf value") -> Value:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TreeFormatError(f"{what} must be a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise TreeFormatError(f"{what} must be finite, got {value!r}")
    return value


_NODE_KEYS = {"eval", "children", "terminal", "chance"}


def _node_object(
    obj: dict[str, Any],
    build: Callable[[Any, int], Node],
    refused: Callable[[str], None],
) -> Node:
    """``{"eval": v, "children": [...], "terminal": false, "chance": [...]}``: an internal node
    with an evaluation, or a chance node. A problem with the probabilities goes to ``refused``
    (told with the node's label once the whole tree is read)."""
    unknown = set(obj) - _NODE_KEYS
    if unknown:
        raise TreeFormatError(
            f"unknown key {sorted(unknown)[0]!r} in a node object "
            "(eval, children, terminal, chance)"
        )
    children = obj.get("children")
    if not isinstance(children, list | tuple) or not children:
        raise TreeFormatError('a node object needs "children": a non-empty list')
    terminal = obj.get("terminal", False)
    if not isinstance(terminal, bool):
        raise TreeFormatError(f'"terminal" must be true or false, got {terminal!r}')
    value = obj.get("eval")
    if value is not None:
        value = _check_value(value, "an evaluation")
    if terminal and value is None:
        raise TreeFormatError('a terminal node needs an evaluation ("eval")')
    chance = None
    if "chance" in obj:
        try:
            chance = _probabilities(obj["chance"], len(children))
        except ValueError as error:
            refused(str(error))
    return Node(value, tuple(build(child, i) for i, child in enumerate(children)), terminal, chance)


class Tree:
    """A game tree with a player per level (the sequence repeats when the tree is deeper)."""

    __slots__ = (
        "_chance",
        "_digits",
        "_evaluated",
        "_families",
        "_hash",
        "_index",
        "_labels",
        "_leaves",
        "players",
        "root",
    )

    def __init__(self, root: Node, players: str | Sequence[str] | None = None) -> None:
        self.root = root
        self.players = parse_players(players, chance=True)
        self._index: dict[Path, Node] | None = None
        self._hash: int | None = None
        self._labels: dict[Path, str] | None = None
        self._leaves: list[Path] | None = None
        self._families: list[tuple[Path, Path | None, tuple[Path, ...]]] | None = None
        self._evaluated: bool | None = None
        self._chance: bool | None = None
        self._digits: int | None = None

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_nested(cls, nested: object, players: str | Sequence[str] | None = None) -> Tree:
        """Nested lists of numbers: a number is a leaf, a list an internal node, and
        ``{"eval": v, "children": [...]}`` an internal node with an evaluation (add
        ``"terminal": true`` for a win or lose state that is scored where it stands, and
        ``"chance": ["1/3", "2/3"]`` or ``"chance": true`` for a chance node). Probabilities that
        are not exact, positive and summing to 1 raise ProbabilityError naming the node."""
        count = 0
        problems: list[tuple[Path, str]] = []

        def build(obj: object, depth: int, path: Path) -> Node:
            nonlocal count
            count += 1
            if count > _MAX_NODES or depth > 64:
                raise TreeFormatError(f"a tree may have at most {_MAX_NODES} nodes and depth 64")
            if isinstance(obj, list | tuple):
                if not obj:
                    raise TreeFormatError("an internal node needs at least one child, got []")
                return Node(
                    None,
                    tuple(
                        build(child, depth + 1, child_path(path, i)) for i, child in enumerate(obj)
                    ),
                )
            if isinstance(obj, dict):
                return _node_object(
                    obj,
                    lambda child, i: build(child, depth + 1, child_path(path, i)),
                    lambda problem: problems.append((path, problem)),
                )
            return Node(_check_value(obj))

        if not isinstance(nested, list | tuple | dict):
            raise TreeFormatError("a tree must be a nested list, e.g. [[3, 12, 8], [2, 4, 6]]")
        tree = cls(build(nested, 0, ""), players)
        if problems:  # told once the tree is whole, so the node has its label
            labels = tree.labels()
            path, problem = min(problems, key=lambda item: tree.paths().index(item[0]))
            raise ProbabilityError(f"chance node {labels[path]}: {problem}")
        if tree.exact_digits() > MAX_EXACT_DIGITS:
            raise TreeFormatError(
                f"its exact values could take more than {MAX_EXACT_DIGITS} digits to write, "
                "the most a value may have (each chance node's denominators multiply those "
                "below it: share denominators, or use fewer and smaller ones)"
            )
        return tree

    @classmethod
    def from_dict(cls, data: object) -> Tree:
        """The JSON object form: ``{"tree": nested, "players": ["max", "min"]}``."""
        if not isinstance(data, dict) or "tree" not in data:
            raise TreeFormatError('a tree object needs a "tree" key holding nested lists')
        return cls.from_nested(data["tree"], data.get("players"))

    # -- export -------------------------------------------------------------------------------
    def to_nested(self) -> object:
        """The nested form ``from_nested`` reads: a list, or an object when the root has an
        evaluation."""

        def dump(node: Node) -> object:
            if node.is_leaf:
                return node.value
            children = [dump(c) for c in node.children]
            if node.value is None and not node.terminal and node.chance is None:
                return children
            return {
                **({"eval": node.value} if node.value is not None or node.chance is None else {}),
                "children": children,
                **({"terminal": True} if node.terminal else {}),
                **(
                    {"chance": [probability_text(p) for p in node.chance]}
                    if node.chance is not None
                    else {}
                ),
            }

        return dump(self.root)

    def exact_digits(self) -> int:
        """A bound on the digits of the numerator and of the denominator of every value a search
        of this tree computes exactly (computed once). A value's denominator divides the least
        common multiple of its children's, times that of the node's own probabilities at a
        chance node (a weighted sum), or its evaluation's; and its magnitude is at most the
        largest of the leaves and evaluations, so its numerator has at most that many digits
        more. The count stops a little past `MAX_EXACT_DIGITS`: bounded work on any tree."""
        if self._digits is not None:
            return self._digits
        cap = int((MAX_EXACT_DIGITS + 1) / _LOG10_2) + 1  # bits: past it, the tree is refused
        largest = 1

        def denominator(node: Node, depth: int) -> int:
            nonlocal largest
            own = 1
            if isinstance(node.value, int):  # most values: no fraction to make
                largest = max(largest, abs(node.value) + 1)
            elif node.value is not None:
                value = Fraction(exact(node.value))
                largest = max(largest, abs(value.numerator) // value.denominator + 1)
                own = value.denominator
            if node.is_leaf:
                return own
            below = 1
            for child in node.children:
                child_denominator = denominator(child, depth + 1)
                if child_denominator != 1:
                    below = math.lcm(below, child_denominator)
                    if below.bit_length() > cap:
                        return below
            chance = node.chance
            if chance is None and self.player_at(depth) == _CHANCE:
                chance = uniform(len(node.children))
            if chance is not None:
                below *= math.lcm(*(p.denominator for p in chance))
            return math.lcm(own, below)

        bits = denominator(self.root, 0).bit_length() + largest.bit_length()
        self._digits = math.ceil(bits * _LOG10_2)
        return self._digits

    @property
    def has_chance(self) -> bool:
        """Whether some internal node is a chance node (computed once)."""
        if self._chance is None:
            self._chance = any(
                not node.is_leaf and (node.chance is not None or self.player_at(depth) == _CHANCE)
                for depth, node in self._walk_depths()
            )
        return self._chance

    def _walk_depths(self) -> Iterator[tuple[int, Node]]:
        for path, node in self.walk():
            yield path_depth(path), node

    def probabilities(self, path: Path) -> tuple[Fraction, ...] | None:
        """A chance node's probabilities (uniform where none are written); None for MAX, MIN
        and leaves."""
        node = self.node(path)
        if node.is_leaf:
            return None
        if node.chance is not None:
            return node.chance
        if self.player(path) == _CHANCE:
            return uniform(len(node.children))
        return None

    @property
    def has_evaluations(self) -> bool:
        """Whether some internal node carries an evaluation or is terminal (computed once)."""
        if self._evaluated is None:
            self._evaluated = any(
                not node.is_leaf and (node.value is not None or node.terminal)
                for _, node in self.walk()
            )
        return self._evaluated

    def cut(self, plies: int | None = None) -> Tree:
        """The tree a depth-limited search sees: a node ``plies`` below the root (the horizon) and
        a terminal node become leaves holding their evaluation; the evaluations of the internal
        nodes left (always expanded, so never used) are dropped. Paths are unchanged; the result
        is a plain tree of numbers and lists. TreeFormatError when a horizon or terminal node has
        no evaluation."""
        if plies is not None and plies < 1:
            raise TreeFormatError(f"a depth limit is at least 1 ply, got {plies}")
        if (plies is None or plies >= self.depth()) and not self.has_evaluations:
            return self
        labels = self.labels()

        def build(node: Node, path: Path, depth: int) -> Node:
            if node.is_leaf:
                return node
            if node.terminal or depth == plies:
                if node.value is None:
                    why = "is terminal" if node.terminal else f"lies at the depth limit ({plies})"
                    raise TreeFormatError(f"node {labels[path]} {why} but has no evaluation")
                return Node(node.value)
            return Node(
                None,
                tuple(
                    build(c, child_path(path, i), depth + 1) for i, c in enumerate(node.children)
                ),
                chance=node.chance,
            )

        return Tree(build(self.root, "", 0), self.players)

    def canonical(self, *, values: str = "exact") -> tuple:
        """A form equal for two trees that differ only in the order of children (and players
        equal): what a tree is, whatever order it is drawn in. ``values="order"`` also makes it
        equal for two trees whose numbers (leaves and evaluations) differ by a map that keeps
        their key: a strictly increasing one on a MAX/MIN tree (minimax and alpha-beta read only
        the numbers' order, ties included), a positive affine one on a tree with chance nodes
        (an expectation reads their differences too)."""
        numbers = sorted({v for _, n in self.walk() if (v := n.value) is not None})
        if values == "exact":
            normal: dict[Value, float | Fraction] = {v: float(v) for v in numbers}
        elif self.has_chance and len(numbers) > 1:
            low, span = Fraction(numbers[0]), Fraction(numbers[-1]) - Fraction(numbers[0])
            normal = {v: (Fraction(v) - low) / span for v in numbers}
        else:
            normal = {v: rank for rank, v in enumerate(numbers)}

        def form(node: Node) -> tuple:
            if node.is_leaf:
                assert node.value is not None  # a leaf holds its number (checked when read)
                return (normal[node.value],)
            value = None if node.value is None else normal[node.value]
            if node.chance is not None:  # a child goes with its probability
                weighted = sorted(
                    zip(node.chance, (form(c) for c in node.children), strict=True), key=repr
                )
                return (value, node.terminal, "chance", tuple(weighted))
            children = sorted((form(c) for c in node.children), key=repr)
            return (value, node.terminal, tuple(children))

        return (self.players, form(self.root))

    def to_dict(self) -> dict:
        return {"tree": self.to_nested(), "players": list(self.players)}

    # -- navigation ---------------------------------------------------------------------------
    def player_at(self, depth: int) -> Role:
        return _ROLE[self.players[depth % len(self.players)]]

    def player(self, path: Path) -> Role:
        """``max``, ``min`` or ``chance``: the level's player, or ``chance`` where the node
        itself is written as a chance node."""
        if self.node(path).chance is not None:
            return _CHANCE
        return self.player_at(path_depth(path))

    def walk(self) -> Iterator[tuple[Path, Node]]:
        """Every (path, node), breadth-first, left to right: the label order."""
        return iter(self._nodes().items())

    def _nodes(self) -> dict[Path, Node]:
        """Path to node in the label order, built once (a tree is immutable): every walk, the
        grader's included, reads it rather than descending the tree again."""
        if self._index is None:
            index: dict[Path, Node] = {}
            level: list[tuple[Path, Node]] = [("", self.root)]
            while level:
                index.update(level)
                level = [
                    (child_path(path, i), child)
                    for path, node in level
                    for i, child in enumerate(node.children)
                ]
            self._index = index
        return self._index

    def node(self, path: Path) -> Node:
        try:
            return self._nodes()[path]
        except (KeyError, TypeError):
            raise TreeFormatError(f"no node at path {path!r}") from None

    def has(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        try:
            self.node(path)
        except TreeFormatError:
            return False
        return True

    def paths(self) -> list[Path]:
        return list(self._nodes())

    def labels(self) -> dict[Path, str]:
        """Path to label; computed once (a tree is immutable): do not change the dict."""
        if self._labels is None:
            self._labels = {path: label_for(i) for i, (path, _) in enumerate(self.walk())}
        return self._labels

    def leaves(self) -> list[Path]:
        return list(self._leaf_paths())

    def _leaf_paths(self) -> list[Path]:
        """The leaves in the label order, found once: do not change the list."""
        if self._leaves is None:
            self._leaves = [path for path, node in self.walk() if node.is_leaf]
        return self._leaves

    def families(self) -> list[tuple[Path, Path | None, tuple[Path, ...]]]:
        """(path, its parent's path (None at the root), its children's paths) of every node, in
        the label order; built once, so a walk that asks for parents and children builds no
        path: do not change the list."""
        if self._families is None:
            index = self._nodes()
            same = {path: path for path in index}  # the index's own strings, kept once
            self._families = [
                (
                    path,
                    same[parent_path(path)] if path else None,
                    tuple(same[child_path(path, i)] for i in range(len(node.children))),
                )
                for path, node in index.items()
            ]
        return self._families

    def depth(self) -> int:
        return max(path_depth(p) for p in self._leaf_paths())

    def subtree(self, path: Path) -> list[Path]:
        """``path`` and every node below it."""
        return [p for p in self.paths() if is_ancestor(path, p)]

    def leaf_count(self) -> int:
        return len(self._leaf_paths())

    def node_count(self) -> int:
        return len(self._nodes())

    def reordered(self, orders: Mapping[Path, Sequence[int]]) -> Tree:
        """A copy with the children of each listed node put in the given order (old indices)."""

        def build(node: Node, path: Path) -> Node:
            if node.is_leaf:
                return node
            order = list(orders.get(path, range(len(node.children))))
            if sorted(order) != list(range(len(node.children))):
                raise TreeFormatError(
                    f"the order at {path!r} must be a permutation of 0..{len(node.children) - 1}"
                )
            children = tuple(build(node.children[i], child_path(path, i)) for i in order)
            chance = None if node.chance is None else tuple(node.chance[i] for i in order)
            return Node(node.value, children, node.terminal, chance)

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
        """The tree of a CS188 ``GraphGameTreeTest`` file (see ``read_cs188`` for the rest)."""
        return read_cs188(text).tree

    def to_cs188(self, alg: str | None = None, plies: int | None = None) -> str:
        """Write a CS188 ``GraphGameTreeTest``; states are named by label. Internal evaluations go
        into the evaluation block, terminal nodes and leaves into ``win_states``; ``plies`` (the
        exercise's depth limit) must be whole rounds of every agent, as CS188 counts depth.
        ``alg`` defaults to ``AlphaBetaAgent`` (ghosts MIN) or ``ExpectimaxAgent`` (ghosts chance
        nodes, every one uniform: CS188's ghosts choose uniformly at random)."""
        agents = len(self.players)
        ghost = "chance" if alg is None and "chance" in self.players else "min"
        if alg is not None and alg in EXPECTIMAX_ALGORITHMS:
            ghost = "chance"
        alg = alg or ("ExpectimaxAgent" if ghost == "chance" else "AlphaBetaAgent")
        if self.players != ("max",) + (ghost,) * (agents - 1) or agents < 2:
            ghosts = "minimizers" if ghost == "min" else "chance nodes (expectimax)"
            raise TreeFormatError(
                f"CS188 trees have one maximizer followed by {ghosts} "
                f"(max,{ghost} or max,{ghost},{ghost}...), not {','.join(self.players)}"
            )
        for path, node in self.walk():
            written = node.chance is not None and node.chance != uniform(len(node.children))
            if written or (node.chance is not None and self.player_at(path_depth(path)) != ghost):
                raise TreeFormatError(
                    f"CS188 ghosts choose uniformly at random: chance node {self.labels()[path]} "
                    "has its own probabilities"
                )
        if plies is not None and plies % agents:
            raise TreeFormatError(
                f"CS188's depth counts whole rounds of every agent: a depth limit of {plies} plies "
                f"is not a multiple of {agents} agents"
            )
        depth = plies // agents if plies is not None else -(-self.depth() // agents)
        labels = self.labels()
        successors, evaluation, wins = [], [], []
        for path, node in self.walk():
            if node.value is not None:
                evaluation.append(f"{labels[path]} {float(node.value)!r}")
            if node.is_leaf or node.terminal:
                wins.append(labels[path])
            for i in range(len(node.children)):
                successors.append(f"{labels[path]} a{i} {labels[child_path(path, i)]}")
        return "\n".join(
            [
                'class: "GraphGameTreeTest"',
                f'alg: "{alg}"',
                f'depth: "{depth}"',
                "",
                f'num_agents: "{agents}"',
                "",
                f'start_state: "{labels[""]}"',
                f'win_states: "{" ".join(wins)}"',
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


# CS188's expectimax agent (q4), and the name one public rework of the project gives it.
EXPECTIMAX_ALGORITHMS = ("ExpectimaxAgent", "AgentPacmanExpectimax")


@dataclass(frozen=True)
class CS188Problem:
    """A CS188 ``GraphGameTreeTest``: the tree (evaluations on internal states, win and lose
    states terminal; every ghost a uniform chance node under an expectimax algorithm), its depth
    limit in plies (CS188's depth x agents: one ply per agent), the algorithm it tests, and the
    state and action names by path."""

    tree: Tree
    plies: int | None
    depth: int | None
    alg: str
    states: dict[Path, str]
    actions: dict[Path, str]  # the action that leads to the node at each path

    def state_names(self, paths: Sequence[Path]) -> list[str]:
        return [self.states[p] for p in paths]


def read_cs188(text: str) -> CS188Problem:
    """Read a CS188 ``GraphGameTreeTest`` file: start state, successors, evaluation, agents,
    depth, win and lose states. What cannot be represented (a state reached twice, an action
    given twice, a terminal state or a state at the depth limit without an evaluation, an unknown
    field) is refused with TreeFormatError."""
    fields = _parse_cs188(text)
    known = {
        "class",
        "alg",
        "depth",
        "diagram",
        "num_agents",
        "start_state",
        "win_states",
        "lose_states",
        "successors",
        "evaluation",
    }
    unknown = set(fields) - known
    if unknown:
        raise TreeFormatError(f"unknown CS188 field {sorted(unknown)[0]!r}; refusing to ignore it")
    if fields.get("class", "GraphGameTreeTest") != "GraphGameTreeTest":
        raise TreeFormatError(
            f"only GraphGameTreeTest files are game trees, not {fields['class']!r}"
        )
    for key in ("start_state", "successors", "evaluation"):
        if key not in fields:
            raise TreeFormatError(f"a CS188 game tree test needs a {key!r} field")
    numbers: dict[str, int] = {}
    for key, default in (("num_agents", "2"), ("depth", None)):
        raw = fields.get(key, default)
        if raw is None:
            continue
        try:
            numbers[key] = int(raw)
        except ValueError:
            raise TreeFormatError(f"{key} must be a whole number, got {raw!r}") from None
    agents = numbers["num_agents"]
    if not 2 <= agents <= MAX_PLAYERS:
        raise TreeFormatError(f"num_agents must be 2..{MAX_PLAYERS}, got {agents}")
    depth = numbers.get("depth")
    if depth is not None and depth < 1:
        raise TreeFormatError(f"depth must be at least 1, got {depth}")
    successors: dict[str, dict[str, str]] = {}  # state: action: next state, in file order
    for line in fields["successors"].splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3:
            raise TreeFormatError(f"a successors line is 'state action next', got {line!r}")
        state, action, nxt = parts
        if action in successors.get(state, {}):
            raise TreeFormatError(f"state {state!r} has the action {action!r} twice")
        successors.setdefault(state, {})[action] = nxt
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
        evaluation[parts[0]] = _check_value(
            int(number) if number.is_integer() else number, f"the evaluation of {parts[0]}"
        )
    terminal = set(fields.get("win_states", "").split()) | set(
        fields.get("lose_states", "").split()
    )
    plies = depth * agents if depth is not None else None
    seen: set[str] = set()
    states: dict[Path, str] = {}
    actions: dict[Path, str] = {}

    def build(state: str, path: Path, ply: int) -> Node:
        if state in seen:
            raise TreeFormatError(f"state {state!r} is reached twice; only trees are supported")
        if len(seen) >= _MAX_NODES or ply > 64:
            raise TreeFormatError(f"a tree may have at most {_MAX_NODES} nodes and depth 64")
        seen.add(state)
        states[path] = state
        value = evaluation.get(state)
        scored_here = state in terminal or (plies is not None and ply >= plies)
        if scored_here and value is None:
            why = "is a win or lose state" if state in terminal else "lies at the depth limit"
            raise TreeFormatError(f"state {state!r} {why} but has no evaluation")
        if state not in successors:
            if value is None:
                raise TreeFormatError(f"leaf state {state!r} has no evaluation")
            return Node(value)
        children = []
        for i, (action, nxt) in enumerate(successors[state].items()):
            cpath = child_path(path, i)
            actions[cpath] = action
            children.append(build(nxt, cpath, ply + 1))
        return Node(value, tuple(children), state in terminal)

    # States the start state cannot reach play no part in the game (CS188 ignores them too).
    root = build(fields["start_state"], "", 0)
    ghost = "chance" if fields.get("alg", "") in EXPECTIMAX_ALGORITHMS else "min"
    tree = Tree(root, ("max",) + (ghost,) * (agents - 1))
    return CS188Problem(tree, plies, depth, fields.get("alg", ""), states, actions)


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


def _where(text: str, at: int) -> str:
    """Character `at` of `text` in words, with the text around it."""
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    before = text[max(0, at - 12) : at].replace("\n", " ")
    after = text[at : at + 12].replace("\n", " ")
    place = f"character {at + 1}" if "\n" not in text.strip() else f"line {line}, column {column}"
    return f"at {place}, between \u201c{before}\u201d and \u201c{after}\u201d"


def parse_nested(text: str) -> list:
    """A nested list typed as text, ``[[3, 12, 8], [2, 4, 6]]``; a mistake is told in words
    (which bracket is unclosed or unmatched, where a comma or a number is missing)."""
    stack: list[int] = []
    for at, char in enumerate(text):
        if char == "[":
            stack.append(at)
            if len(stack) > 64:  # checked before json.loads, which would recurse that deep
                raise TreeFormatError(
                    f"the list is nested more than 64 levels deep {_where(text, at)}"
                )
        elif char == "]":
            if not stack:
                raise TreeFormatError(f"a \u201c]\u201d closes nothing {_where(text, at)}")
            stack.pop()
    if stack:
        raise TreeFormatError(
            f"{len(stack)} \u201c[\u201d never closed; the first unclosed one is "
            f"{_where(text, stack[0])}"
        )
    if not text.strip():
        raise TreeFormatError("the nested list is empty: type one such as [[3, 12], [2, 4]]")
    try:
        nested = json.loads(text)
    except json.JSONDecodeError as error:
        found = text[error.pos : error.pos + 1]
        if error.msg.startswith("Expecting ',' delimiter"):
            what = "a comma is missing"
        elif error.msg.startswith("Expecting value"):
            what = (
                f"\u201c{found}\u201d is not a number"
                if found and found not in ",]"
                else "a number or a list is missing"
            )
        elif error.msg.startswith("Extra data"):
            what = "something follows the end of the list"
        else:
            what = "the list cannot be read"
        raise TreeFormatError(f"{what} {_where(text, error.pos)}") from None
    if not isinstance(nested, list):
        raise TreeFormatError("the tree must be a list in brackets, such as [[3, 12], [2, 4]]")
    return nested


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
    "EXPECTIMAX_ALGORITHMS",
    "PLAYERS",
    "ROLES",
    "Node",
    "Path",
    "ProbabilityError",
    "Role",
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
    "probability_text",
    "uniform",
    "validate_path",
]
