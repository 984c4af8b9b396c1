"""The reference solver: alpha-beta with a full trace, under explicit conventions, and plain minimax;
through chance nodes, expectimax and expectiminimax, with Ballard's Star1 cutting at chance nodes
when the exercise states bounds [L, U] on the leaf values.

One search routine serves the reference and every misconception variant (``grader.gametree.variants``):
a variant is the same search under different ``TreeSearchRules``, never a second copy of the algorithm.

Conventions (stored with every exercise, see ARCHITECTURE.md):
- ``ties=prune``: a node stops when alpha >= beta (AIMA); ``ties=explore``: only when its value is
  strictly outside the window (a MAX node when value > beta, a MIN node when value < alpha; CS188).
- ``values=soft``: a node returns its best value so far (fail-soft); ``values=hard``: a node returns
  its value clamped to its window (fail-hard): a cut node reports the bound it crossed, and a node
  whose children all failed reports the bound it was given.
- ``order=ltr``: children left to right; ``order=rtl``: right to left.
- ``bounds=[L, U]``: every leaf value lies in [L, U]. A chance node's value is the weighted sum of
  its children's (exact fractions). Star1 (Ballard 1983, in the form of Hauk, Buro and Schaeffer,
  "Rediscovering *-Minimax Search", CG 2004): after children 1..k, with probability mass P seen and
  weighted sum S, the node's value lies in [S + (1 - P) L, S + (1 - P) U]; the node is cut when that
  interval lies wholly outside its window (at or past it under ``ties=prune``, strictly past it
  under ``ties=explore``), and child i (probability p) is searched with the window
  (max(A, L), min(B, U)), A = (alpha - S - (1 - P - p) U) / p, B = (beta - S - (1 - P - p) L) / p.
  Without both bounds finite no chance node is cut and no bound passes through one: each child of
  a chance node starts with the full window (the result says so in ``note``).
"""

# Whole: the one reference search and its trace: every rule variant runs `_Search`.

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from grader.gametree.exact import exact, exact_text, fmt, weighted, whole
from grader.gametree.numbers import read_number
from grader.gametree.tree import (
    Node,
    Path,
    Role,
    Tree,
    TreeFormatError,
    Value,
    child_path,
    parse_players,
    probability_text,
    uniform,
)

INF = math.inf


class Ties(enum.StrEnum):
    """When a node stops: PRUNE when alpha >= beta (AIMA); EXPLORE only strictly outside the
    window (CS188)."""

    PRUNE = "prune"
    EXPLORE = "explore"


class ValuesRule(enum.StrEnum):
    """What a node returns: SOFT its best value so far (fail-soft); HARD that value clamped to
    its window (fail-hard)."""

    SOFT = "soft"
    HARD = "hard"


class Order(enum.StrEnum):
    """The order children are searched in: LTR left to right, RTL right to left."""

    LTR = "ltr"
    RTL = "rtl"


# Each convention's options as stored (plain text; the API's document lists them from here).
TIES: tuple[str, ...] = tuple(t.value for t in Ties)
VALUES: tuple[str, ...] = tuple(v.value for v in ValuesRule)
ORDERS: tuple[str, ...] = tuple(o.value for o in Order)


#: The one pair of conventions no search runs under, (ties, values), and why: a fail-hard node
#: returns exactly the bound, which the strict rule never counts as outside the window, so
#: cutoffs would only ever follow leaves. The API's document states it from here.
REFUSED_PAIR = (Ties.EXPLORE.value, ValuesRule.HARD.value)
REFUSED_PAIR_WORDS = "ties=explore needs values=soft (fail-hard returns the bound itself)"


def refused_pair(ties: str, values: str) -> str | None:
    """The words refusing ``ties`` with ``values`` (None: they go together)."""
    return REFUSED_PAIR_WORDS if (ties, values) == REFUSED_PAIR else None


@dataclass(frozen=True, slots=True)
class Conventions:
    """The conventions an exercise is searched under (text for each option is accepted and held
    as its member, which equals that text)."""

    ties: Ties = Ties.PRUNE
    values: ValuesRule = ValuesRule.SOFT
    order: Order = Order.LTR
    depth: int | None = None  # the depth limit in plies (None: search to the leaves)
    # [L, U]: every leaf value lies within (Star1 cuts at chance nodes when both are finite)
    bounds: tuple[Value, Value] | None = None

    def __post_init__(self) -> None:
        if self.bounds is not None:
            if not isinstance(self.bounds, list | tuple) or len(self.bounds) != 2:
                raise ValueError(f"bounds are [L, U], got {self.bounds!r}")
            low, high = (read_number(b) for b in self.bounds)
            if not low <= high or low == INF or high == -INF:
                raise ValueError(f"bounds [L, U] need L <= U, got {self.bounds!r}")
            object.__setattr__(self, "bounds", (low, high))
        if self.depth is not None and (
            isinstance(self.depth, bool)
            or not isinstance(self.depth, int)
            or not 1 <= self.depth <= 64
        ):
            raise ValueError(f"depth must be a whole number of plies 1..64, got {self.depth!r}")
        options: tuple[tuple[str, type[enum.StrEnum], tuple[str, ...]], ...] = (
            ("ties", Ties, TIES),
            ("values", ValuesRule, VALUES),
            ("order", Order, ORDERS),
        )
        for name, option, allowed in options:
            given = getattr(self, name)
            if not isinstance(given, str) or given not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {given!r}")
            object.__setattr__(self, name, option(given))
        problem = refused_pair(self.ties, self.values)
        if problem:
            raise ValueError(problem)

    @classmethod
    def from_dict(cls, data: dict | None) -> Conventions:
        if data is not None and not isinstance(data, dict):
            raise ValueError(f"conventions are an object, got {type(data).__name__}")
        data = dict(data or {})
        unknown = set(data) - {"ties", "values", "order", "depth", "bounds"}
        if unknown:
            raise ValueError(
                f"unknown convention {sorted(unknown)[0]!r} (ties, values, order, depth, bounds)"
            )
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ties": self.ties, "values": self.values, "order": self.order}
        if self.depth is not None:
            data["depth"] = self.depth
        if self.bounds is not None:
            data["bounds"] = [jsonable(b) for b in self.bounds]
        return data

    @property
    def star1(self) -> bool:
        """Whether both leaf bounds are finite, so Star1 can cut at chance nodes."""
        return self.bounds is not None and all(math.isfinite(b) for b in self.bounds)

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
            if self.ties == Ties.PRUNE
            else "a node stops only when its value is strictly outside (alpha, beta)"
        )
        values = (
            "a cut node returns its best value so far"
            if self.values == ValuesRule.SOFT
            else "a node returns its value clamped to its window (a cut node returns the bound)"
        )
        order = "left to right" if self.order == Order.LTR else "right to left"
        if self.bounds is not None:
            depth += " " + self.describe_bounds()
        if not with_values:
            return f"Children are searched {order}; {ties}." + depth
        return f"Children are searched {order}; {ties}; {values}." + depth

    def describe_bounds(self) -> str:
        """The leaf bounds in words, and what Star1 does with them."""
        if self.bounds is None:
            return ""
        low, high = (fmt(b) for b in self.bounds)
        if not self.star1:
            return (
                f"Leaf values lie in [{low}, {high}]: with a bound infinite nothing is cut at or "
                "below a chance node."
            )
        rule = "at or past" if self.ties == Ties.PRUNE else "strictly past"
        return (
            f"Leaf values lie in [{low}, {high}]. A chance node is cut (Star1) once its value, "
            f"bounded by [S + (1 - P)·{low}, S + (1 - P)·{high}] after the children seen "
            f"(weighted sum S, probability P), lies {rule} its window."
        )


@dataclass(frozen=True, slots=True)
class TreeSearchRules:
    """How one search behaves: the conventions, plus the switches the misconception variants flip."""

    conventions: Conventions = Conventions()
    players: tuple[str, ...] | None = None  # None: the tree's own players
    pruning: bool = True  # False: plain minimax, every node visited
    shallow: bool = False  # True: a child gets only its parent's own bound (no deep cutoffs)
    swap_bounds: bool = False  # True: MAX tightens beta and MIN tightens alpha
    prune_internal: bool = True  # False: after a cutoff, internal children are still searched
    # Chance nodes, as the chance misconceptions get them wrong:
    chance_as: str | None = None  # "min": a chance node searched as MIN (the pessimist)
    uniform_chance: bool = False  # True: the plain average, whatever the probabilities
    cut_chance_as_min: bool = False  # True: chance nodes cut as MIN would, with no bounds
    star1_unseen: bool = True  # False: Star1's bounds forget the probability mass not yet seen
    star1_windows: bool = True  # False: a chance node's children get its own window, unscaled


class StepKind(enum.StrEnum):
    """What a search step records (``Step``'s docstring)."""

    ENTER = "enter"
    LEAF = "leaf"
    BOUND = "bound"
    CUTOFF = "cutoff"
    RETURN = "return"
    WINDOW = "window"  # a chance node's child given its Star1 window
    WEIGH = "weigh"  # a chance node's child weighed in


class Side(enum.StrEnum):
    """A side of the search window: the bound a step moved, or the one a cutoff crossed."""

    ALPHA = "alpha"
    BETA = "beta"


@dataclass(frozen=True, slots=True)
class Step:
    """One event of the search, for replays and explanations.

    ``kind`` is ``enter`` (the node is entered with the window alpha, beta), ``leaf`` (a leaf is
    evaluated to ``value``), ``bound`` (``bound`` = ``alpha`` or ``beta`` changed to ``value``),
    ``cutoff`` (the remaining children ``pruned`` are skipped) or ``return`` (the node returns
    ``value``). ``alpha`` and ``beta`` are the node's window after the event.

    At a chance node two more: ``window`` (Star1 gives ``child``, of ``probability``, the window
    [``lower``, ``upper``] by Ballard's formulas, with ``total`` = S and ``mass`` = P seen so far)
    and ``weigh`` (``child`` returned: its weighted contribution is ``value``, the running sum
    ``total``, the probability seen ``mass``, and the node's value lies in [``lower``,
    ``upper``]). A chance node's ``cutoff`` has ``bound`` ``alpha`` (its interval lies at or
    below alpha) or ``beta`` (at or above beta), ``value`` the side of the interval that crossed.
    """

    index: int
    kind: StepKind
    path: Path
    alpha: Value
    beta: Value
    value: Value | None = None
    bound: Side | None = None
    pruned: tuple[Path, ...] = ()
    child: Path | None = None
    probability: Fraction | None = None
    total: Value | None = None
    mass: Fraction | None = None
    lower: Value | None = None
    upper: Value | None = None


class Cutoff(NamedTuple):
    """A cutoff at ``path``: a ``beta`` cutoff at a MAX node or an ``alpha`` cutoff at a MIN node;
    at a chance node (``lower`` and ``upper`` set: the interval its value lies in), ``beta`` when
    the interval lies at or above beta, ``alpha`` when at or below alpha (Star1).

    ``deep`` when the bound that caused it was inherited from above the parent; ``source`` is the
    node that set that bound.
    """

    path: Path
    kind: Side
    alpha: Value
    beta: Value
    value: Value
    deep: bool
    source: Path | None
    pruned: tuple[Path, ...]
    step: int
    lower: Value | None = None
    upper: Value | None = None

    @property
    def chance(self) -> bool:
        return self.lower is not None


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
    # Where the tree has chance nodes: whether Star1 cut with finite bounds, and, when it could
    # not, why nothing was cut below chance nodes.
    star1: bool = False
    note: str | None = None
    # Each MAX or MIN node's best child (its index), kept where the search chose it: the first
    # child, in search order, whose returned value is best for the node's player. A chance node
    # chooses none. The replay's "Best line" and any kind read it here, never recomputing it.
    best_children: dict[Path, int] = field(default_factory=dict)

    @property
    def conventions(self) -> Conventions:
        return self.rules.conventions

    def best_child(self, path: Path) -> Path | None:
        """The path of the best child of the node at ``path``; None for a leaf, a chance node or
        a node never visited."""
        index = self.best_children.get(path)
        return None if index is None else child_path(path, index)

    def best_line(self) -> tuple[Path, ...]:
        """The line of best play: the root, then at each node its best child, to a leaf or a
        chance node."""
        line = [""]
        while (child := self.best_child(line[-1])) is not None:
            line.append(child)
        return tuple(line)

    def player(self, path: Path) -> str:
        """``max``, ``min`` or ``chance`` (a node written as a chance node is one whatever its
        level)."""
        if self.tree.node(path).chance is not None:
            return Role.CHANCE
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
            probabilities = self.tree.probabilities(path) if self.tree.has_chance else None
            if probabilities is not None:
                entry["probabilities"] = [probability_text(p) for p in probabilities]
            if result is not None:
                entry.update(
                    value=jsonable(result.value),
                    alpha=jsonable(result.alpha),
                    beta=jsonable(result.beta),
                )
            best = self.best_child(path)
            if best is not None:
                entry["best"] = best
            nodes[path] = entry
        chance: dict[str, Any] = (
            {"star1": self.star1, "note": self.note} if self.tree.has_chance else {}
        )
        return {
            **chance,
            "value": jsonable(self.value),
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
                    "value": jsonable(c.value),
                    "deep": c.deep,
                    "source": c.source,
                    "pruned": list(c.pruned),
                    "step": c.step,
                    **(
                        {"lower": jsonable(c.lower), "upper": jsonable(c.upper)}
                        if c.lower is not None and c.upper is not None
                        else {}
                    ),
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
                    **({"value": jsonable(s.value)} if s.value is not None else {}),
                    **({"bound": s.bound} if s.bound else {}),
                    **({"pruned": list(s.pruned)} if s.pruned else {}),
                    **_chance_fields(s),
                }
                for s in self.trace
            ],
        }


def _chance_fields(step: Step) -> dict[str, Any]:
    """A chance step's own fields, JSON-ready (none for MAX/MIN steps)."""
    if step.child is None:
        return {}
    fields: dict[str, Any] = {"child": step.child}
    if step.probability is not None:
        fields["probability"] = probability_text(step.probability)
    if step.total is not None:
        fields["sum"] = jsonable(step.total)
    if step.mass is not None:
        fields["mass"] = probability_text(step.mass)
    if step.lower is not None:
        fields["lower"] = jsonable(step.lower)
    if step.upper is not None:
        fields["upper"] = jsonable(step.upper)
    return fields


def jsonable(x: Value) -> Value | str:
    """A value for JSON: infinities as "inf" and "-inf", a fraction as its exact text "14/3"
    (``numbers.read_number`` reads both back); ints and floats as they are."""
    if x == INF:
        return "inf"
    if x == -INF:
        return "-inf"
    if isinstance(x, Fraction):
        return exact_text(x) if x.denominator != 1 else int(x)
    return x


# The members the search's inner loop compares and records, as module globals: an enum
# member's attribute lookup costs about 0.5 us, which the loop would pay per node.
_ALPHA = Side.ALPHA
_BETA = Side.BETA
_BOUND = StepKind.BOUND
_CHANCE = Role.CHANCE
_CUTOFF = StepKind.CUTOFF
_ENTER = StepKind.ENTER
_EXPLORE = Ties.EXPLORE
_HARD = ValuesRule.HARD
_LEAF = StepKind.LEAF
_MAX = Role.MAX
_RETURN = StepKind.RETURN
_RTL = Order.RTL
_WEIGH = StepKind.WEIGH
_WINDOW = StepKind.WINDOW


class _Search:
    """One alpha-beta (or minimax) run under ``rules``, recording everything it does."""

    def __init__(self, tree: Tree, rules: TreeSearchRules) -> None:
        tree = tree.cut(rules.conventions.depth)  # horizon and terminal nodes become leaves
        self.tree = tree
        self.rules = rules
        self.players = parse_players(rules.players, chance=True) if rules.players else tree.players
        self.explore = rules.conventions.ties == _EXPLORE
        self.hard = rules.conventions.values == _HARD
        self.rtl = rules.conventions.order == _RTL
        self.trace: list[Step] = []
        self.nodes: dict[Path, NodeResult] = {}
        self.best_children: dict[Path, int] = {}
        self.leaf_order: list[Path] = []
        self.visited: list[Path] = []
        self.cutoffs: list[Cutoff] = []
        self.saw_chance = False  # a chance node was searched (set by visit_chance)
        bounds = rules.conventions.bounds
        # Star1's [L, U], exact; None when a bound is infinite or none is stated.
        self.bounds: tuple[Value, Value] | None = None
        if bounds is not None and rules.conventions.star1:
            self.bounds = (exact(bounds[0]), exact(bounds[1]))
        if bounds is not None:
            self._check_bounds(bounds)

    def _check_bounds(self, bounds: tuple[Value, Value]) -> None:
        """Every leaf (as the search sees it) lies within the stated bounds."""
        low, high = bounds
        labels = self.tree.labels()
        for path, node in self.tree.walk():
            if node.is_leaf and node.value is not None and not low <= node.value <= high:
                raise TreeFormatError(
                    f"leaf {labels[path]} is {fmt(node.value)}, outside the bounds "
                    f"[{fmt(low)}, {fmt(high)}] the leaf values lie in"
                )

    def _step(
        self,
        kind: StepKind,
        path: Path,
        alpha: Value,
        beta: Value,
        value: Value | None = None,
        bound: Side | None = None,
        pruned: tuple[Path, ...] = (),
    ) -> int:
        index = len(self.trace)
        self.trace.append(Step(index, kind, path, alpha, beta, value, bound, pruned))
        return index

    def _chance_step(
        self, kind: StepKind, path: Path, alpha: Value, beta: Value, **fields: Any
    ) -> int:
        """A step at a chance node, with its own fields (``Step``'s docstring)."""
        index = len(self.trace)
        self.trace.append(Step(index, kind, path, alpha, beta, **fields))
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
        note = None
        star1 = self.saw_chance and self.rules.pruning and self.bounds is not None
        if self.saw_chance and self.rules.pruning and self.bounds is None:
            note = (
                "No finite bounds [L, U] on the leaf values are stated, so Star1 cuts nothing "
                "below a chance node: its value cannot be bounded before every child is seen, "
                "and no bound passes through it (each child starts with the full window "
                "(-∞, +∞); only MAX and MIN nodes below it cut, on bounds set beneath it)."
            )
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
            star1=star1,
            note=note,
            best_children=self.best_children,
        )

    def role(self, node: Node, depth: int) -> str:
        """``max``, ``min`` or ``chance`` as this search plays the node."""
        role = self.players[depth % len(self.players)]
        if node.chance is not None:
            role = _CHANCE
        if role == _CHANCE and self.rules.chance_as is not None:
            return self.rules.chance_as
        return role

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
        self._step(_ENTER, path, alpha, beta)
        if node.is_leaf:
            value = node.value
            assert value is not None  # a leaf holds its number (checked when the tree is read)
            self.leaf_order.append(path)
            self._step(_LEAF, path, alpha, beta, value=value)
            self.nodes[path] = NodeResult(value, alpha, beta)
            return value, None

        role = self.players[depth % len(self.players)]
        if node.chance is not None or role == _CHANCE:
            role = self.role(node, depth)
            if role == _CHANCE:
                return self.visit_chance(
                    node, path, depth, alpha, beta, alpha_src, beta_src, parent
                )
        is_max = role == _MAX
        # The bound this node tightens (alpha at MAX, beta at MIN; swapped in that variant).
        tighten_alpha = is_max != rules.swap_bounds
        alpha_in, beta_in = alpha, beta
        best: Value = -INF if is_max else INF
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
                    self._step(_BOUND, path, alpha, beta, bound=_ALPHA, value=alpha)
            elif value < beta:
                beta, beta_src = value, path
                self._step(_BOUND, path, alpha, beta, bound=_BETA, value=beta)
            if checking and not self.explore and alpha >= beta:
                cut_at = position
        if cut_at is not None and cut_at < len(order) - 1:
            kind = _BETA if is_max else _ALPHA
            source = beta_src if is_max else alpha_src
            step = self._step(_CUTOFF, path, alpha, beta, value=best, pruned=tuple(skipped))
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
        self._step(_RETURN, path, alpha, beta, value=value)
        self.nodes[path] = NodeResult(value, alpha, beta)
        if best_move is not None:
            self.best_children[path] = best_move
        return value, best_move

    def visit_chance(
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
        """A chance node: the weighted sum of its children; with bounds, Star1 (module docstring)."""
        rules = self.rules
        self.saw_chance = True
        n = len(node.children)
        probabilities = uniform(n) if rules.uniform_chance or node.chance is None else node.chance
        star1 = rules.pruning and self.bounds is not None and not rules.cut_chance_as_min
        as_min = rules.pruning and rules.cut_chance_as_min
        low, high = self.bounds if self.bounds is not None else (-INF, INF)
        alpha_in, beta_in = alpha, beta
        total: Value = 0  # S: the weighted sum of the children seen
        mass = Fraction(0)  # P: their probability
        least: Value = INF  # the least child value (a chance node cut as if MIN returns it)
        cut_at: int | None = None
        crossed: tuple[Side, Value, Value, Value] | None = None  # bound, value, lower, upper
        skipped: list[Path] = []
        order = list(range(n - 1, -1, -1) if self.rtl else range(n))
        for position, i in enumerate(order):
            child, p = node.children[i], probabilities[i]
            cpath = child_path(path, i)
            if cut_at is not None and (rules.prune_internal or child.is_leaf):
                skipped.append(cpath)
                continue
            window: tuple[Value, Value, Path | None, Path | None] = (-INF, INF, None, None)
            if as_min:  # passed down as a MIN node passes its window
                window = (alpha, beta, alpha_src, beta_src)
            elif star1 and cut_at is None:
                window = self._star1_window(path, cpath, p, alpha, beta, total, mass, low, high)
            value, _ = self.visit(child, cpath, depth + 1, *window, path)
            contribution = weighted(p, value)
            total, mass = whole(exact(total) + contribution), mass + p
            least = min(least, value)
            lower, upper = self._interval(total, mass, low, high)
            self._chance_step(
                _WEIGH,
                path,
                alpha,
                beta,
                value=contribution,
                child=cpath,
                probability=p,
                total=total,
                mass=mass,
                lower=lower,
                upper=upper,
            )
            if cut_at is not None:
                continue
            if as_min:
                if value < beta:
                    beta, beta_src = value, path
                    self._step(_BOUND, path, alpha, beta, bound=_BETA, value=beta)
                if least < alpha if self.explore else alpha >= beta:
                    cut_at, crossed = position, (_ALPHA, least, lower, upper)
            elif star1:
                if upper < alpha if self.explore else upper <= alpha:
                    cut_at, crossed = position, (_ALPHA, upper, lower, upper)
                elif lower > beta if self.explore else lower >= beta:
                    cut_at, crossed = position, (_BETA, lower, lower, upper)
        value = total
        if crossed is not None and cut_at is not None and cut_at < n - 1:
            kind, value, lower, upper = crossed
            source = alpha_src if kind == _ALPHA else beta_src
            step = self._chance_step(
                _CUTOFF,
                path,
                alpha,
                beta,
                value=value,
                bound=kind,
                pruned=tuple(skipped),
                lower=lower,
                upper=upper,
            )
            self.cutoffs.append(
                Cutoff(
                    path=path,
                    kind=kind,
                    alpha=alpha,
                    beta=beta,
                    value=value,
                    deep=source is not None and source not in (parent, path),
                    source=source,
                    pruned=tuple(skipped),
                    step=step,
                    lower=lower,
                    upper=upper,
                )
            )
        if self.hard and rules.pruning:
            value = max(alpha_in, min(beta_in, value))
        self._step(_RETURN, path, alpha, beta, value=value)
        self.nodes[path] = NodeResult(value, alpha, beta)
        return value, None

    def _interval(
        self, total: Value, mass: Fraction, low: Value, high: Value
    ) -> tuple[Value, Value]:
        """[S + (1 - P) L, S + (1 - P) U]: where a chance node's value lies after the children
        seen (forgetting the unseen mass, as one misconception does: [S, S])."""
        unseen = 1 - mass if self.rules.star1_unseen else Fraction(0)
        return (whole(total + weighted(unseen, low)), whole(total + weighted(unseen, high)))

    def _star1_window(
        self,
        path: Path,
        cpath: Path,
        p: Fraction,
        alpha: Value,
        beta: Value,
        total: Value,
        mass: Fraction,
        low: Value,
        high: Value,
    ) -> tuple[Value, Value, Path | None, Path | None]:
        """Ballard's window for the child of probability ``p``: (max(A, L), min(B, U)) with
        A = (alpha - S - (1 - P - p) U) / p and B = (beta - S - (1 - P - p) L) / p; the chance
        node is the source of both bounds."""
        unseen = 1 - mass - p if self.rules.star1_unseen else Fraction(0)
        a = whole((exact(alpha) - total - weighted(unseen, high)) / p)
        b = whole((exact(beta) - total - weighted(unseen, low)) / p)
        child_alpha, child_beta = max(a, low), min(b, high)
        if not self.rules.star1_windows:  # the misconception: the node's own window, unscaled
            child_alpha, child_beta = alpha, beta
        self._chance_step(
            _WINDOW,
            path,
            alpha,
            beta,
            child=cpath,
            probability=p,
            total=total,
            mass=mass,
            lower=child_alpha,
            upper=child_beta,
        )
        return (child_alpha, child_beta, path, path)


# The last KEPT_SEARCHES searches of exercise-sized trees are kept: a generator's checks of a
# tree it accepts, and the calibration or grading of that tree, search it again by the same rules.
# A search is a function of the tree (immutable) and its rules alone, so a kept one is the same.
# A result holds about 1 KB a leaf: at most some 16 MB kept.
KEPT_LEAVES = 256
KEPT_SEARCHES = 64


def search(tree: Tree, rules: TreeSearchRules) -> SearchResult:
    if tree.leaf_count() > KEPT_LEAVES:
        return _Search(tree, rules).run()
    return _kept_search(tree, rules)


@functools.lru_cache(maxsize=KEPT_SEARCHES)
def _kept_search(tree: Tree, rules: TreeSearchRules) -> SearchResult:
    return _Search(tree, rules).run()


def solve(tree: Tree, conventions: Conventions | None = None) -> SearchResult:
    """The reference alpha-beta search of ``tree`` under ``conventions`` (AIMA's by default)."""
    return search(tree, TreeSearchRules(conventions or Conventions()))


def minimax(tree: Tree, conventions: Conventions | None = None) -> SearchResult:
    """Plain minimax: every node visited, every value exact."""
    return search(tree, TreeSearchRules(conventions or Conventions(), pruning=False))
