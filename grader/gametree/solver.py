"""The reference solver: alpha-beta with a full trace, under explicit conventions, and plain minimax.

One search routine serves the reference and every misconception variant (``grader.gametree.variants``):
a variant is the same search under different ``TreeSearchRules``, never a second copy of the algorithm.

Conventions (stored with every exercise, see ARCHITECTURE.md):
- ``ties=prune``: a node stops when alpha >= beta (AIMA); ``ties=explore``: only when its value is
  strictly outside the window (a MAX node when value > beta, a MIN node when value < alpha; CS188).
- ``values=soft``: a node returns its best value so far (fail-soft); ``values=hard``: a node returns
  its value clamped to its window (fail-hard): a cut node reports the bound it crossed, and a node
  whose children all failed reports the bound it was given.
- ``order=ltr``: children left to right; ``order=rtl``: right to left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from grader.gametree.tree import Node, Path, Tree, Value, child_path, parse_players

INF = math.inf
TIES = ("prune", "explore")
VALUES = ("soft", "hard")
ORDERS = ("ltr", "rtl")


@dataclass(frozen=True, slots=True)
class Conventions:
    ties: str = "prune"
    values: str = "soft"
    order: str = "ltr"
    depth: int | None = None  # the depth limit in plies (None: search to the leaves)

    def __post_init__(self) -> None:
        if self.depth is not None and (
            isinstance(self.depth, bool)
            or not isinstance(self.depth, int)
            or not 1 <= self.depth <= 64
        ):
            raise ValueError(f"depth must be a whole number of plies 1..64, got {self.depth!r}")
        for name, allowed in (("ties", TIES), ("values", VALUES), ("order", ORDERS)):
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"{name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}"
                )
        if self.ties == "explore" and self.values == "hard":
            # A fail-hard node returns exactly the bound, which the strict rule never counts as
            # outside the window: cutoffs would only ever follow leaves.
            raise ValueError("ties=explore needs values=soft (fail-hard returns the bound itself)")

    @classmethod
    def from_dict(cls, data: dict | None) -> Conventions:
        if data is not None and not isinstance(data, dict):
            raise ValueError(f"conventions are an object, got {type(data).__name__}")
        data = dict(data or {})
        unknown = set(data) - {"ties", "values", "order", "depth"}
        if unknown:
            raise ValueError(
                f"unknown convention {sorted(unknown)[0]!r} (ties, values, order, depth)"
            )
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ties": self.ties, "values": self.values, "order": self.order}
        if self.depth is not None:
            data["depth"] = self.depth
        return data

    def describe(self, *, pruning: bool = True, with_values: bool = True) -> str:
        """The conventions in words (all of them by default): a search without ``pruning`` is
        plain minimax; ``with_values`` False leaves out how cut nodes report values, for answers
        it cannot change (each exercise kind says which: ``ExerciseKind.conventions_words``)."""
        depth = (
            f" The search stops {self.depth} plies below the root: a node there is scored by its "
            "evaluation and never expanded."
            if self.depth is not None
            else ""
        )
        if not pruning:
            return (
                "Plain minimax: every node is searched and nothing is pruned; a MAX node takes the "
                "largest value of its children, a MIN node the smallest." + depth
            )
        ties = (
            "a node stops as soon as alpha >= beta"
            if self.ties == "prune"
            else "a node stops only when its value is strictly outside (alpha, beta)"
        )
        values = (
            "a cut node returns its best value so far"
            if self.values == "soft"
            else "a node returns its value clamped to its window (a cut node returns the bound)"
        )
        order = "left to right" if self.order == "ltr" else "right to left"
        if not with_values:
            return f"Children are searched {order}; {ties}." + depth
        return f"Children are searched {order}; {ties}; {values}." + depth


@dataclass(frozen=True, slots=True)
class TreeSearchRules:
    """How one search behaves: the conventions, plus the switches the misconception variants flip."""

    conventions: Conventions = Conventions()
    players: tuple[str, ...] | None = None  # None: the tree's own players
    pruning: bool = True  # False: plain minimax, every node visited
    shallow: bool = False  # True: a child gets only its parent's own bound (no deep cutoffs)
    swap_bounds: bool = False  # True: MAX tightens beta and MIN tightens alpha
    prune_internal: bool = True  # False: after a cutoff, internal children are still searched


@dataclass(frozen=True, slots=True)
class Step:
    """One event of the search, for replays and explanations.

    ``kind`` is ``enter`` (the node is entered with the window alpha, beta), ``leaf`` (a leaf is
    evaluated to ``value``), ``bound`` (``bound`` = ``alpha`` or ``beta`` changed to ``value``),
    ``cutoff`` (the remaining children ``pruned`` are skipped) or ``return`` (the node returns
    ``value``). ``alpha`` and ``beta`` are the node's window after the event.
    """

    index: int
    kind: str
    path: Path
    alpha: Value
    beta: Value
    value: Value | None = None
    bound: str | None = None
    pruned: tuple[Path, ...] = ()


class Cutoff(NamedTuple):
    """A cutoff at ``path``: a ``beta`` cutoff at a MAX node or an ``alpha`` cutoff at a MIN node.

    ``deep`` when the bound that caused it was inherited from above the parent; ``source`` is the
    node that set that bound.
    """

    path: Path
    kind: str
    alpha: Value
    beta: Value
    value: Value
    deep: bool
    source: Path | None
    pruned: tuple[Path, ...]
    step: int


class NodeResult(NamedTuple):
    """A visited node when it returns: its value and its alpha and beta at that moment."""

    value: Value
    alpha: Value
    beta: Value


@dataclass(frozen=True)
class SearchResult:
    """What a search did. ``pruned`` holds the roots of the pruned subtrees, ``pruned_all`` every
    node never visited; both in label (breadth-first) order."""

    tree: Tree
    rules: TreeSearchRules
    value: Value
    best_move: int | None
    leaf_order: tuple[Path, ...]
    visited: tuple[Path, ...]  # in the order they were entered
    pruned: tuple[Path, ...]
    pruned_all: tuple[Path, ...]
    nodes: dict[Path, NodeResult]
    cutoffs: tuple[Cutoff, ...]
    trace: tuple[Step, ...]
    players: tuple[str, ...] = field(default=())

    @property
    def conventions(self) -> Conventions:
        return self.rules.conventions

    def player(self, path: Path) -> str:
        return self.players[(path.count(".") + 1 if path else 0) % len(self.players)]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form; infinities are written as the strings "inf" and "-inf".

        Built once per result (graded results are cached and served often): do not change it."""
        if "_dict" not in self.__dict__:
            self.__dict__["_dict"] = self._build_dict()
        return self.__dict__["_dict"]

    def _build_dict(self) -> dict[str, Any]:
        labels = self.tree.labels()
        nodes = {}
        for path, _node in self.tree.walk():
            entry: dict[str, Any] = {"label": labels[path], "player": self.player(path)}
            result = self.nodes.get(path)
            entry["visited"] = result is not None
            if result is not None:
                entry.update(
                    value=result.value, alpha=jsonable(result.alpha), beta=jsonable(result.beta)
                )
            nodes[path] = entry
        return {
            "value": self.value,
            "best_move": self.best_move,
            "leaf_order": list(self.leaf_order),
            "pruned": list(self.pruned),
            "pruned_all": list(self.pruned_all),
            "conventions": self.conventions.to_dict(),
            "players": list(self.players),
            "cutoffs": [
                {
                    "path": c.path,
                    "label": labels[c.path],
                    "kind": c.kind,
                    "alpha": jsonable(c.alpha),
                    "beta": jsonable(c.beta),
                    "value": c.value,
                    "deep": c.deep,
                    "source": c.source,
                    "pruned": list(c.pruned),
                    "step": c.step,
                }
                for c in self.cutoffs
            ],
            "nodes": nodes,
            "trace": [
                {
                    "step": s.index,
                    "kind": s.kind,
                    "path": s.path,
                    "alpha": jsonable(s.alpha),
                    "beta": jsonable(s.beta),
                    **({"value": s.value} if s.value is not None else {}),
                    **({"bound": s.bound} if s.bound else {}),
                    **({"pruned": list(s.pruned)} if s.pruned else {}),
                }
                for s in self.trace
            ],
        }


def jsonable(x: Value) -> Value | str:
    if x == INF:
        return "inf"
    if x == -INF:
        return "-inf"
    return x


def from_jsonable(x: object) -> Value:
    """A number, or one of the infinity spellings people type, to a number."""
    if isinstance(x, bool):
        raise ValueError(f"not a number: {x!r}")
    if isinstance(x, int | float):
        if math.isnan(x):
            raise ValueError(f"not a number: {x!r}")
        return x
    if isinstance(x, str):
        text = x.strip().lower().replace("∞", "inf").replace("infinity", "inf")
        if text in ("inf", "+inf"):
            return INF
        if text == "-inf":
            return -INF
        try:  # a whole number typed as text stays exact, however many digits it has
            return int(text)
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return int(number) if number.is_integer() else number
    raise ValueError(f"not a number: {x!r}")


class _Search:
    """One alpha-beta (or minimax) run under ``rules``, recording everything it does."""

    def __init__(self, tree: Tree, rules: TreeSearchRules) -> None:
        tree = tree.cut(rules.conventions.depth)  # horizon and terminal nodes become leaves
        self.tree = tree
        self.rules = rules
        self.players = parse_players(rules.players) if rules.players else tree.players
        self.explore = rules.conventions.ties == "explore"
        self.hard = rules.conventions.values == "hard"
        self.rtl = rules.conventions.order == "rtl"
        self.trace: list[Step] = []
        self.nodes: dict[Path, NodeResult] = {}
        self.leaf_order: list[Path] = []
        self.visited: list[Path] = []
        self.cutoffs: list[Cutoff] = []

    def _step(
        self,
        kind: str,
        path: Path,
        alpha: Value,
        beta: Value,
        value: Value | None = None,
        bound: str | None = None,
        pruned: tuple[Path, ...] = (),
    ) -> int:
        index = len(self.trace)
        self.trace.append(Step(index, kind, path, alpha, beta, value, bound, pruned))
        return index

    def run(self) -> SearchResult:
        value, best_move = self.visit(self.tree.root, "", 0, -INF, INF, None, None, None)
        visited = set(self.visited)
        pruned_all, pruned = [], []
        for path, _node in self.tree.walk():
            if path not in visited:
                pruned_all.append(path)
                parent = path.rpartition(".")[0]
                if parent in visited:
                    pruned.append(path)
        return SearchResult(
            tree=self.tree,
            rules=self.rules,
            value=value,
            best_move=best_move,
            leaf_order=tuple(self.leaf_order),
            visited=tuple(self.visited),
            pruned=tuple(pruned),
            pruned_all=tuple(pruned_all),
            nodes=self.nodes,
            cutoffs=tuple(self.cutoffs),
            trace=tuple(self.trace),
            players=self.players,
        )

    def visit(
        self,
        node: Node,
        path: Path,
        depth: int,
        alpha: Value,
        beta: Value,
        alpha_src: Path | None,
        beta_src: Path | None,
        parent: Path | None,
    ) -> tuple[Value, int | None]:
        """Search ``node`` with the window (alpha, beta); returns its value and best child index."""
        rules = self.rules
        self.visited.append(path)
        self._step("enter", path, alpha, beta)
        if node.is_leaf:
            value = node.value
            assert value is not None  # a leaf holds its number (checked when the tree is read)
            self.leaf_order.append(path)
            self._step("leaf", path, alpha, beta, value=value)
            self.nodes[path] = NodeResult(value, alpha, beta)
            return value, None

        is_max = self.players[depth % len(self.players)] == "max"
        # The bound this node tightens (alpha at MAX, beta at MIN; swapped in that variant).
        tighten_alpha = is_max != rules.swap_bounds
        alpha_in, beta_in = alpha, beta
        best = -INF if is_max else INF
        best_move: int | None = None
        cut_at: int | None = None  # index in visit order of the last child searched before a cut
        order = list(
            range(len(node.children) - 1, -1, -1) if self.rtl else range(len(node.children))
        )
        skipped: list[Path] = []
        for position, i in enumerate(order):
            child = node.children[i]
            cpath = child_path(path, i)
            if cut_at is not None and (rules.prune_internal or child.is_leaf):
                skipped.append(cpath)
                continue
            if rules.shallow:
                # Only this node's own best so far goes down: no bound from above the parent.
                window: tuple[Value, Value, Path | None, Path | None] = (
                    (best, INF, path, None) if is_max else (-INF, best, None, path)
                )
                value, _ = self.visit(child, cpath, depth + 1, *window, path)
            else:
                value, _ = self.visit(
                    child, cpath, depth + 1, alpha, beta, alpha_src, beta_src, path
                )
            if (value > best) if is_max else (value < best):
                best, best_move = value, i
            checking = rules.pruning and cut_at is None
            if checking and self.explore and (best > beta if is_max else best < alpha):
                # CS188: return at once when strictly outside the window, bounds untouched.
                cut_at = position
                continue
            if tighten_alpha:
                if value > alpha:
                    alpha, alpha_src = value, path
                    self._step("bound", path, alpha, beta, bound="alpha", value=alpha)
            elif value < beta:
                beta, beta_src = value, path
                self._step("bound", path, alpha, beta, bound="beta", value=beta)
            if checking and not self.explore and alpha >= beta:
                cut_at = position
        if cut_at is not None and cut_at < len(order) - 1:
            kind = "beta" if is_max else "alpha"
            source = beta_src if is_max else alpha_src
            step = self._step("cutoff", path, alpha, beta, value=best, pruned=tuple(skipped))
            self.cutoffs.append(
                Cutoff(
                    path=path,
                    kind=kind,
                    alpha=alpha,
                    beta=beta,
                    value=best,
                    deep=source is not None and source not in (parent, path),
                    source=source,
                    pruned=tuple(skipped),
                    step=step,
                )
            )
        value = best
        if self.hard and rules.pruning:  # plain minimax has no window: its values are exact
            value = max(alpha_in, min(beta_in, best))
        self._step("return", path, alpha, beta, value=value)
        self.nodes[path] = NodeResult(value, alpha, beta)
        return value, best_move


def search(tree: Tree, rules: TreeSearchRules) -> SearchResult:
    return _Search(tree, rules).run()


def solve(tree: Tree, conventions: Conventions | None = None) -> SearchResult:
    """The reference alpha-beta search of ``tree`` under ``conventions`` (AIMA's by default)."""
    return search(tree, TreeSearchRules(conventions or Conventions()))


def minimax(tree: Tree, conventions: Conventions | None = None) -> SearchResult:
    """Plain minimax: every node visited, every value exact."""
    return search(tree, TreeSearchRules(conventions or Conventions(), pruning=False))
