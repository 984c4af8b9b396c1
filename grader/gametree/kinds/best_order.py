"""The best-order kind: reorder the children of the nodes so that alpha-beta evaluates as few
leaves as possible; and the replay remapping that draws a search of a reordered tree on the tree
as given.

Its score counts no errors: the least possible leaves over the leaves the answer's ordering
evaluates. Its key is one of the best orderings (``optimum.Optimizer``), not a search.
"""

# Whole: one kind (CTFd's plugin shape): its grade, its blind answer and the replays it draws
# share the optimum's ordering and the path mapping, read together.

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

from grader.gametree.drawing import PaperBoxes
from grader.gametree.kinds.base import (
    EXAMPLE_TREES,
    AnswerPart,
    BlindFacts,
    Example,
    ExerciseKind,
    Grade,
    Paper,
    UngradableAnswer,
    internal,
    internal_path,
    part,
)
from grader.gametree.kinds.registry import register
from grader.gametree.kinds.scoring import score_text
from grader.gametree.optimum import MAX_DP_SIZE, MAX_LEAVES, Optimizer, dp_size, uniform_dp_size
from grader.gametree.solver import Conventions, SearchResult, solve
from grader.gametree.tree import Path, Tree, child_path

ChildOrders = dict[Path, list[int]]  # internal node -> its children's old indices, new order


@register
class BestOrderKind(ExerciseKind):
    name = "best-order"
    title = "Best move order"
    prompt = (
        "Reorder the children of the nodes so that alpha-beta evaluates as few leaves as possible."
    )
    parts = ("leaves",)
    answer_shape: ClassVar[dict[str, AnswerPart]] = {
        "order": AnswerPart("orders-by-node"),
        "leaves": AnswerPart("count", "the leaves the order evaluates (a claim)", required=False),
    }
    answer_doc = "each reordered node's children, as their old indices in the new order."
    reads_values = False
    in_game_practice = False
    chance_trees = False
    no_chance_reason = "the ordering optimum searches MAX and MIN nodes only"
    holds_values = False
    # Leaving the tree as given is the answer given blind: on a tree whose given order is
    # already a best one, it earns full marks (a band's never_key can refuse such trees).
    blind_answers = ("as-given",)

    def blind_facts(
        self, tree: Tree, conventions: Conventions, rng: random.Random | None = None
    ) -> BlindFacts:
        """The nodes to order (those with two children or more that the best order's search
        enters: the order of the others changes nothing), the order as given's score, and with
        ``rng`` a slip's: the best order with the first two children searched at one of the
        deepest nodes to order swapped (None when that is another best order)."""
        tree = tree.cut(conventions.depth)
        least = Optimizer(tree, conventions).solve()
        original = _original_paths(tree, least.orders)
        searched = solve(least.tree, conventions)
        to_order = [original[p] for p in searched.visited if len(least.tree.node(p).children) >= 2]
        given = len(solve(tree, conventions).leaf_order)
        slip = None
        # A slip is at the last level ordered (a swap higher up is a misjudged subtree).
        levels = {p: len(p.split(".")) if p else 0 for p in to_order}
        deepest = [p for p in to_order if levels[p] == max(levels.values())]
        if rng is not None and deepest:
            path = deepest[min(int(rng.random() * len(deepest)), len(deepest) - 1)]
            order = list(least.orders[path])
            first, second = (-1, -2) if conventions.order == "rtl" else (0, 1)
            order[first], order[second] = order[second], order[first]
            got = _leaves_evaluated(tree, {**least.orders, path: order}, conventions)
            slip = round(least.leaves / got, 6) if got > least.leaves else None
        return BlindFacts(len(to_order), {"as-given": round(least.leaves / given, 6)}, slip)

    def examples(self) -> tuple[Example, ...]:
        tree = Tree.from_nested(EXAMPLE_TREES["textbook"])
        key = self.key(tree, Conventions())
        other = _another_best(tree, key)
        # Another best ordering with the root's children searched backwards: it differs from
        # the key at several nodes, but the grade blames one (its first_wrong).
        worse = {**other, "": list(reversed(other[""]))}
        answer = {"order": _as_submitted(tree, worse)}
        blamed = self.grade(tree, Conventions(), answer).first_wrong
        assert blamed is not None
        return (
            Example("wrong", tree, answer, frozenset({blamed["path"]})),
            Example("right", tree, {"order": _as_submitted(tree, key["order"])}, score=1.0),
            Example("another best", tree, {"order": _as_submitted(tree, other)}, score=1.0),
        )

    def optimum_states(self, tree: Tree) -> int | None:
        return dp_size(tree)

    def generator_problems(self, branching: int, depth: int, distinct_values: int) -> list[str]:
        if branching**depth > MAX_LEAVES:
            return [
                f"best-order trees have at most {MAX_LEAVES} leaves; {branching}^{depth} is more"
            ]
        if (size := uniform_dp_size(branching, depth, distinct_values)) > MAX_DP_SIZE:
            return [
                f"finding the best ordering of {branching}^{depth} leaves is too much work "
                f"({size:,} states, at most {MAX_DP_SIZE:,}): less branching or depth"
            ]
        return []

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        # "at A: D, B, C": each reordered node's children, first to last.
        return (
            "; ".join(
                f"at {label(p)}: " + ", ".join(label(child_path(p, i)) for i in order)
                for p, order in sorted(answer.get("order", {}).items())
            )
            or "as given"
        )

    def normalize(self, tree: Tree, answer: object) -> ChildOrders:
        """The answer's child orders, checked: ``{path: [old child indices]}``."""
        orders = part(self, answer, "order")
        assert isinstance(answer, dict)  # _part refused anything else
        claimed = answer.get("leaves")
        if claimed is not None and (type(claimed) is not int or claimed < 0):
            raise UngradableAnswer("'leaves', when given, is a whole number of leaves")
        if not isinstance(orders, dict):
            raise UngradableAnswer("'order' must map paths to lists of child indices")
        for p, order in orders.items():
            path = internal_path(tree, p, "'order'")
            n = len(tree.node(path).children)
            if (
                not isinstance(order, list)
                or any(type(i) is not int for i in order)
                or sorted(order) != list(range(n))
            ):
                raise UngradableAnswer(f"the order at {p!r} must list each of 0..{n - 1} once")
        return {p: list(order) for p, order in orders.items()}

    def grade(self, tree: Tree, conventions: Conventions, answer: object) -> Grade:
        tree = tree.cut(conventions.depth)
        orders = self.normalize(tree, answer)
        optimizer = Optimizer(tree, conventions)
        least = optimizer.solve()
        got = _leaves_evaluated(tree, orders, conventions)
        share = least.leaves / got
        parts = {"leaves": round(share, 6)}
        scoring = {"leaves": got, "fewest": least.leaves}
        key = {"order": least.orders, "leaves": least.leaves}
        search = solve(tree, conventions)
        replays = self.replays(tree, conventions, orders, least.orders)
        if got == least.leaves:
            return Grade(
                1.0,
                parts,
                ["Correct: no ordering evaluates fewer leaves."],
                key=key,
                search=search,
                replays=replays,
                scoring=scoring,
            )
        where = self._first_wrong(tree, orders, conventions, got)
        feedback = [f"Your ordering evaluates {got} leaves; the best evaluates {least.leaves}."]
        if where:
            feedback.append(where["message"])
        return Grade(
            round(share, 6),
            parts,
            feedback,
            None,
            None,
            where,
            key=key,
            search=search,
            replays=replays,
            scoring=scoring,
        )

    def scoring_words(self, scoring: Mapping[str, Any], labels: Mapping[Path, str] | None) -> str:
        """The fewest leaves possible over the leaves the answer's ordering evaluates."""
        got, fewest = scoring["leaves"], scoring["fewest"]
        rule = "the fewest leaves any ordering evaluates over the leaves yours evaluates"
        if got <= fewest:
            return f"Your ordering evaluates {got} leaves, the fewest possible: score 1 ({rule})."
        return (
            f"Your ordering evaluates {got} leaves; the fewest possible is {fewest}. "
            f"Score {score_text(round(fewest / got, 6))} = {fewest}/{got} ({rule})."
        )

    def replays(
        self, tree: Tree, conventions: Conventions, orders: dict, best: dict | None = None
    ) -> dict[str, Any]:
        """The searches of the answer's order and of the best order, each with its paths mapped
        back onto the tree as drawn: a replay on the student's drawing visits the children in the
        order searched. ``orders`` may be an unchecked answer's (it is checked here)."""
        tree = tree.cut(conventions.depth)
        orders = self.normalize(tree, {"order": orders})
        if best is None:
            best = Optimizer(tree, conventions).solve().orders
        labels = tree.labels()
        return {
            name: _search_on_drawing(
                solve(tree.reordered(o), conventions), _original_paths(tree, o), labels
            )
            for name, o in (("yours", orders), ("best", best))
        }

    # Each candidate change is one whole search: a bound on the work a hint may cost.
    HINT_SEARCHES = 300

    def _first_wrong(
        self, tree: Tree, orders: ChildOrders, conventions: Conventions, got: int
    ) -> dict[str, Any] | None:
        """The first node the answer's search enters where searching one other child first (the
        rest of the answer unchanged) evaluates fewer leaves in all; the numbers quoted are whole
        searches, so they agree with the summary. Nodes and children are named as drawn."""
        reordered = tree.reordered(orders)
        original = _original_paths(tree, orders)
        result = solve(reordered, conventions)
        labels = tree.labels()
        budget = self.HINT_SEARCHES
        for step in result.trace:
            if step.kind != "enter" or reordered.node(step.path).is_leaf:
                continue
            path = original[step.path]
            n = len(tree.node(path).children)
            current = list(orders.get(path, range(n)))
            first_searched = current[-1] if conventions.order == "rtl" else current[0]
            best_count, best_child = got, None
            for child in range(n):
                if child == first_searched or budget <= 0:
                    continue
                budget -= 1
                rest = [i for i in current if i != child]
                moved = [*rest, child] if conventions.order == "rtl" else [child, *rest]
                count = _leaves_evaluated(tree, {**orders, path: moved}, conventions)
                if count < best_count:
                    best_count, best_child = count, child
            if best_child is not None:
                name = labels[child_path(path, best_child)]
                message = (
                    f"At {labels[path]}, search {name} first: with the rest of your order "
                    f"unchanged, alpha-beta then evaluates {best_count} leaves instead of {got}."
                )
                return {"path": path, "label": labels[path], "step": None, "message": message}
        return None

    def key(self, tree: Tree, conventions: Conventions) -> dict[str, Any]:
        least = Optimizer(tree.cut(conventions.depth), conventions).solve()
        return {"order": least.orders, "leaves": least.leaves}

    def check_tree(self, tree: Tree) -> None:
        super().check_tree(tree)
        Optimizer.check(tree)

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        labels = tree.labels()
        orders = answer.get("order", {}) if answer else {}
        widest = max(len(n.children) for _, n in tree.walk())
        return Paper(
            "Write in the box of each node you reorder the labels of its children in the order "
            "alpha-beta should search them; then the number of leaves your ordering evaluates.",
            PaperBoxes(internal(tree), chars=3 * widest),
            {p: " ".join(labels[child_path(p, i)] for i in o) for p, o in orders.items()},
            (("Leaves evaluated", str(answer.get("leaves", "")) if answer else ""),),
        )

    def search(self, tree: Tree, conventions: Conventions) -> SearchResult:
        # The replay shows the search of the tree as given; the key is an ordering, not a search.
        return solve(tree, conventions)

    def answer_replays(
        self, tree: Tree, conventions: Conventions, answer: object
    ) -> dict[str, Any] | None:
        """The searches of the answer's order and of the best one (``replays``)."""
        if not isinstance(answer, dict):
            return None
        try:
            return self.replays(tree, conventions, answer.get("order", {}))
        except ValueError:  # an attempt stored before its answer's shape was checked this way
            return None

    def graded_differences(
        self,
        drawn: Tree,
        conventions: Conventions,
        answer: object,
        first_wrong: object,
        solution: dict[str, Any],
    ) -> dict[str, Any] | None:
        """The key is one of the best orderings: none differs for a best ordering, else the
        node the grade blames (``first_wrong``), with the leaf counts in the legend.
        ``solution`` holds the key and the ``replays`` of ``answer_replays``."""
        replays = solution.get("replays")
        if replays is None or not isinstance(answer, dict):  # stored before its shape was checked
            return {
                "differ": [],
                "legend": "The answer's ordering cannot be searched on this tree.",
            }
        tree = drawn.cut(conventions.depth)  # the tree searched
        least, got = solution["key"]["leaves"], len(replays["yours"]["leaf_order"])
        if got <= least:
            answered, key = answer.get("order", {}), solution["key"]["order"]
            same = all(
                answered.get(p, list(range(len(node.children))))
                == key.get(p, list(range(len(node.children))))
                for p, node in tree.walk()
                if not node.is_leaf
            )
            if same:
                words = f"The answer is the key's ordering: alpha-beta evaluates {least} leaves, "
                return {"differ": [], "legend": words + "the fewest possible."}
            words = f"Another best ordering: alpha-beta evaluates {got} leaves with it, as few as "
            return {"differ": [], "legend": words + "with the key's."}
        counts = f"The answer's ordering evaluates {got} leaves; the best evaluates {least}."
        labels = drawn.labels()  # named as the page draws them
        if not isinstance(first_wrong, dict) or first_wrong.get("path") not in labels:
            return {"differ": [], "legend": f"{counts} The grade blames no single node."}
        blamed, why = labels[first_wrong["path"]], first_wrong.get("message", "")
        return {
            "differ": [first_wrong["path"]],
            "legend": f"{counts} The grade blames {blamed}: {why}",
            "counts": counts,
            "blamed": blamed,
            "why": why,
        }


def _leaves_evaluated(tree: Tree, orders: dict, conventions: Conventions) -> int:
    return len(solve(tree.reordered(orders), conventions).leaf_order)


def _original_paths(tree: Tree, orders: dict) -> dict[Path, Path]:
    """Each path of ``tree.reordered(orders)`` to the path of the same node in ``tree``."""
    mapping: dict[Path, Path] = {"": ""}
    stack = [("", "")]
    while stack:
        new, old = stack.pop()
        node = tree.node(old)
        order = orders.get(old, range(len(node.children)))
        for j, i in enumerate(order):
            mapping[child_path(new, j)] = child_path(old, i)
            stack.append((child_path(new, j), child_path(old, i)))
    return mapping


def _search_on_drawing(
    result: SearchResult, original: dict[Path, Path], labels: dict[Path, str]
) -> dict[str, Any]:
    """``result.to_dict()`` of a search on a reordered tree with every path mapped by
    ``original`` to the same node's path in the tree as drawn, and that tree's ``labels``."""
    data = result.to_dict()

    def paths(items: list[Path]) -> list[Path]:
        return [original[p] for p in items]

    best = data["best_move"]
    return {
        **data,
        "best_move": None if best is None else int(original[str(best)]),
        **{name: paths(data[name]) for name in ("leaf_order", "pruned", "pruned_all")},
        "cutoffs": [
            {
                **c,
                "path": original[c["path"]],
                "label": labels[original[c["path"]]],
                "pruned": paths(c["pruned"]),
                "source": None if c["source"] is None else original[c["source"]],
            }
            for c in data["cutoffs"]
        ],
        "nodes": {
            original[p]: {
                **entry,
                "label": labels[original[p]],
                **({"best": original[entry["best"]]} if "best" in entry else {}),
            }
            for p, entry in data["nodes"].items()
        },
        "trace": [
            {
                **step,
                "path": original[step["path"]],
                **({"pruned": paths(step["pruned"])} if "pruned" in step else {}),
            }
            for step in data["trace"]
        ],
    }


# -- the examples' other best ordering, found by brute force over every ordering of a small tree --


def _as_submitted(tree: Tree, orders: dict[Path, list[int]]) -> dict[Path, list[int]]:
    """Child orders as the exercise page sends them: only the nodes whose order changed."""
    return {p: list(o) for p, o in orders.items() if o != list(range(len(tree.node(p).children)))}


def _orderings(tree: Tree) -> Iterator[dict[Path, list[int]]]:
    """Every ordering of the tree's children, each internal node listed."""
    internal = [p for p, node in tree.walk() if not node.is_leaf]
    choices = [itertools.permutations(range(len(tree.node(p).children))) for p in internal]
    for chosen in itertools.product(*choices):
        yield {p: list(order) for p, order in zip(internal, chosen, strict=True)}


def _differing(tree: Tree, orders: dict[Path, list[int]], other: dict[Path, list[int]]) -> int:
    """At how many internal nodes two orderings put the children in different orders."""
    internal = [(p, list(range(len(node.children)))) for p, node in tree.walk() if node.children]
    return sum(orders.get(p, given) != other.get(p, given) for p, given in internal)


def _another_best(tree: Tree, key: dict[str, Any]) -> dict[Path, list[int]]:
    """An ordering that evaluates as few leaves as the key's and differs from it at the most
    nodes (the first such)."""
    best = [
        orders
        for orders in _orderings(tree)
        if _leaves_evaluated(tree, orders, Conventions()) == key["leaves"]
    ]
    return max(best, key=lambda orders: _differing(tree, orders, key["order"]))
