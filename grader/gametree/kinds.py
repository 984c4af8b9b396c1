"""Exercise kinds and grading: each kind turns a search into an answer key, checks and normalizes a
student's answer, scores it with partial credit, names the misconception it matches, and points at
the first step of the reference search where it departs from the key.

Scoring (every total lies in [0, 1]): each kind counts the answer's errors e, and the score is
``1 - e/5 - e(e-1)/20`` (at least 0): 1 for the key, 0.8 for one slip, 0.5 for two errors, 0.1 for
three, 0 from four on. A misconception changes an answer in several places on the trees the
presets generate, so it earns at most 0.5 on average, while a single slip keeps 0.8
(``grader tree calibrate`` measures this). The errors:
- ``prune``: the subtrees marked but not pruned plus the subtrees pruned but not marked (each
  counted by its root, after normalizing both sets: marking a node marks its subtree; a node whose
  children are all marked is marked), plus one for a wrong root value.
- ``values``: visited internal nodes whose value is wrong or missing, plus values given for nodes
  that are pruned.
- ``bounds``: each wrong or missing alpha and beta, plus bounds given for pruned nodes.
- ``leaf-order``: the longer order's length minus the longest common subsequence of the two
  orders (two leaves swapped, one missing or one extra leaf: one error).
- ``minimax``: internal nodes whose value is wrong or missing.
- ``best-order`` (no errors to count): least possible leaves / leaves the answer's ordering
  evaluates.
The parts report the share right of each part, as before. A grade keeps the errors it counted
(``Grade.scoring``: each kind of error with the nodes where it is), and ``scoring_words`` says
from them how the score came about: the errors, then the rule.
"""

from __future__ import annotations

import bisect
import functools
import json
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from grader.gametree.drawing import PaperBoxes
from grader.gametree.exact import matches
from grader.gametree.explain import Explainer, fmt, ordinal
from grader.gametree.numbers import NumberError, read_number
from grader.gametree.optimum import MAX_DP_SIZE, MAX_LEAVES, Optimizer, dp_size, uniform_dp_size
from grader.gametree.solver import (
    INF,
    Conventions,
    SearchResult,
    jsonable,
    minimax,
    solve,
)
from grader.gametree.tree import Path, Tree, Value, child_path
from grader.gametree.variants import Variant, diagnosis_words, variants_for


class UngradableAnswer(ValueError):
    """An answer that cannot be graded: a missing part, an unknown path, a value of the wrong type."""


@dataclass(frozen=True)
class Grade:
    score: float
    parts: dict[str, float]
    feedback: list[str]
    # The misconception that explains the answer: where several give it (`candidates`, in the
    # library's order), the first; `diagnosis_text` then names them all.
    diagnosis: str | None = None
    diagnosis_text: str | None = None
    first_wrong: dict[str, Any] | None = None
    key: dict[str, Any] = field(default_factory=dict)
    # The reference search the key comes from (for the replay); not part of the stored grade.
    search: SearchResult | None = field(default=None, repr=False, compare=False)
    # best-order: the answer's order and the best order searched, drawn on the tree as given.
    replays: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    candidates: tuple[str, ...] = ()
    # How the score came about, as facts (stored with the attempt): {"errors": {what: [paths]}}
    # for the kinds that count errors, {"leaves": n, "fewest": m} for best-order.
    scoring: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "parts": self.parts,
            "feedback": self.feedback,
            "diagnosis": self.diagnosis,
            "diagnosis_text": self.diagnosis_text,
            "first_wrong": self.first_wrong,
            "scoring": self.scoring,
        }


# The keys of each kind's answer: anything else is refused, never stored.
ANSWER_KEYS = {
    "prune": ("pruned", "value"),
    "values": ("values",),
    "bounds": ("bounds",),
    "leaf-order": ("leaf_order",),
    "best-order": ("order", "leaves"),  # "leaves" as the key has it: a claim, not graded
    "minimax": ("values",),
}


def _part(answer: object, name: str, kind: str) -> Any:
    if not isinstance(answer, dict):
        raise UngradableAnswer(f"a {kind} answer is a JSON object, got {type(answer).__name__}")
    unknown = sorted(set(answer) - set(ANSWER_KEYS[kind]), key=str)
    if unknown:
        raise UngradableAnswer(
            f"a {kind} answer has only {', '.join(map(repr, ANSWER_KEYS[kind]))}; "
            f"{str(unknown[0])[:40]!r} is not one"
        )
    if name not in answer:
        raise UngradableAnswer(f"a {kind} answer needs {name!r}")
    return answer[name]


def _number(x: object, what: str) -> Value:
    """A number as an answer writes one (``numbers.read_number``: a JSON number, or text such
    as ``−5``, ``14 / 3``, ``−∞``); UngradableAnswer naming ``what`` for anything else."""
    try:
        return read_number(x)
    except NumberError as error:
        raise UngradableAnswer(f"{what} {error}") from None


def _internal_path(tree: Tree, path: object, what: str) -> Path:
    if not isinstance(path, str) or not tree.has(path):
        raise UngradableAnswer(f"no node at path {path!r} in {what}")
    if tree.node(path).is_leaf:
        raise UngradableAnswer(f"{path!r} in {what} is a leaf; give values for internal nodes only")
    return path


def error_score(errors: int) -> float:
    """1 for no error, 0.8 for one, 0.5 for two, 0.1 for three, 0 from four on."""
    return max(0.0, 1 - errors / 5 - errors * (errors - 1) / 20)


def _score_text(score: float) -> str:
    return "1" if score == 1 else "0" if score == 0 else f"{score:.2f}"


def error_rule() -> str:
    """``error_score`` in words, read off the function: "no error 1, 1 error 0.80, ..."."""
    steps, errors = ["no error 1"], 1
    while error_score(errors) > 0:
        plural = "" if errors == 1 else "s"
        steps.append(f"{errors} error{plural} {_score_text(error_score(errors))}")
        errors += 1
    return ", ".join([*steps, f"{errors} or more 0"])


# Each kind of error a kind counts, as a student reads it: singular, plural, what it means (or
# ""), and whether its nodes are named (the root's value is always the root's; which leaves are
# out of order is one choice among several, so they are counted, not named).
ERROR_WORDS: dict[str, tuple[str, str, str, bool]] = {
    "extra-mark": ("extra mark", "extra marks", "searched, not pruned", True),
    "missing-mark": ("missing mark", "missing marks", "pruned, not marked", True),
    "root-value": ("wrong root value", "wrong root values", "", False),
    "wrong-value": ("wrong value", "wrong values", "", True),
    "missing-value": ("missing value", "missing values", "", True),
    "pruned-value": ("value given", "values given", "pruned, so no value", True),
    "wrong-alpha": ("wrong alpha", "wrong alphas", "", True),
    "wrong-beta": ("wrong beta", "wrong betas", "", True),
    "missing-alpha": ("missing alpha", "missing alphas", "", True),
    "missing-beta": ("missing beta", "missing betas", "", True),
    "pruned-bounds": ("bounds given", "bounds given", "pruned, so no bounds", True),
    "out-of-order": ("leaf out of order", "leaves out of order", "", False),
    "replaced-leaf": (
        "wrong leaf",
        "wrong leaves",
        "never evaluated, in place of one that is",
        True,
    ),
    "missing-leaf": ("missing leaf", "missing leaves", "", True),
    "extra-leaf": ("extra leaf", "extra leaves", "never evaluated", True),
}
NAMED_NODES = 8  # at most this many nodes are named per kind of error; the rest are counted


def _places(paths: list[Path], labels: Mapping[Path, str]) -> str:
    names = [labels.get(p, p or "root") for p in paths]
    if len(names) > NAMED_NODES:
        names = [*names[:NAMED_NODES], f"{len(names) - NAMED_NODES} more"]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def errors_words(errors: Mapping[str, list[Path]], labels: Mapping[Path, str] | None) -> str:
    """Counted errors and the score they give: "3 errors: 1 extra mark at L (searched, not
    pruned); 2 missing marks at I and J (pruned, not marked). Score 0.10, by the rule: no error
    1, ...". ``labels`` None: the nodes are not named (the key is not shown yet)."""
    count = _count(errors)
    rule = f"by the rule: {error_rule()}."
    if not count:
        return f"No error: score 1, {rule}"
    items = []
    for what, paths in errors.items():
        if not paths:
            continue
        one, many, meaning, named = ERROR_WORDS[what]
        item = f"{len(paths)} {one if len(paths) == 1 else many}"
        if named and labels is not None:
            item += f" at {_places(paths, labels)}"
        items.append(item + (f" ({meaning})" if meaning else ""))
    plural = "" if count == 1 else "s"
    score = _score_text(error_score(count))
    return f"{count} error{plural}: {'; '.join(items)}. Score {score}, {rule}"


def _root_paths(paths: frozenset[Path] | set[Path]) -> list[Path]:
    """The roots of the subtrees ``paths`` is made of, in the tree's order (depth first)."""
    return sorted(
        (p for p in paths if p == "" or p.rpartition(".")[0] not in paths), key=_tree_order
    )


def _tree_order(path: Path) -> list[int]:
    return [int(x) for x in path.split(".")] if path else []


def _count(errors: Mapping[str, list[Path]]) -> int:
    return sum(len(paths) for paths in errors.values())


def _where(explainer: Explainer, path: Path, message: str, step: int | None) -> dict[str, Any]:
    return {"path": path, "label": explainer.label(path), "step": step, "message": message}


# The canonical answer of each kind: what `normalize` reads and `project` computes, compared
# with ==, so equal answers are equal values.
Pruned = tuple[frozenset[Path], Value]  # the closed set of pruned nodes, the root's value
NodeValues = dict[Path, Value]  # internal node -> the value it returns
NodeBounds = dict[Path, tuple[Value, Value]]  # internal node -> (alpha, beta) as it returns
LeafOrder = tuple[Path, ...]  # the leaves in the order they are evaluated
ChildOrders = dict[Path, list[int]]  # internal node -> its children's old indices, new order


@dataclass(frozen=True)
class Paper:
    """An exercise on paper: what to write where (``boxes``), what is written in them
    (``marks``: the key's or an entered answer's), subtrees struck through, and answers written
    on lines below the tree ((name, written) pairs)."""

    instruction: str
    boxes: PaperBoxes
    marks: dict[Path, str] = field(default_factory=dict)
    lines: tuple[tuple[str, str], ...] = ()
    struck: tuple[Path, ...] = ()


def _internal(tree: Tree) -> tuple[Path, ...]:
    return tuple(p for p, node in tree.walk() if not node.is_leaf)


def _written(x: object) -> str:
    """A value as a hand would write it in a box: ``∞`` for infinity, no trailing ``.0``."""
    if x is None or x == "":
        return ""
    value = read_number(x)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return fmt(value).replace("+∞", "∞")


class ExerciseKind:
    """One kind of exercise. Subclasses work on plain data; the caller stores the result."""

    name: ClassVar[str]
    title: ClassVar[str]  # what pages call the kind ("Order of evaluation", not "leaf-order")
    prompt: ClassVar[str]
    parts: ClassVar[tuple[str, ...]]

    # -- what a subclass provides ------------------------------------------------------------
    def normalize(self, tree: Tree, answer: object) -> Any:
        """The answer in a canonical, comparable form; UngradableAnswer when it cannot be read."""
        raise NotImplementedError

    def project(self, result: SearchResult, variant: Variant | None = None) -> Any:
        """The canonical answer a search (the reference or a variant's) gives."""
        raise NotImplementedError

    def to_answer(self, canonical: Any) -> dict[str, Any]:
        """A canonical answer back in the JSON shape students submit."""
        raise NotImplementedError

    def assess(
        self, tree: Tree, key: Any, answer: Any
    ) -> tuple[dict[str, list[Path]], dict[str, float]]:
        """The errors the score counts (each kind of error with its nodes, one entry an error)
        and the share right of each part."""
        raise NotImplementedError

    def first_wrong(self, explainer: Explainer, key: Any, answer: Any) -> dict[str, Any] | None:
        raise NotImplementedError

    def agrees(self, exact: Any, answer: Any) -> bool:
        """Whether ``answer`` (normalized) is the canonical answer ``exact`` (a key's or a
        variant's) under the answer-matching rule: equal, a value shown rounded (a chance
        node's fraction) also matched by its 2-place decimal (``exact.matches``)."""
        return bool(exact == answer)

    def reference(self, tree: Tree, conventions: Conventions) -> SearchResult:
        return solve(tree, conventions)

    def check_tree(self, tree: Tree) -> None:
        """ValueError when an exercise of this kind cannot be made on ``tree``: a tree with
        chance nodes, for a kind that does not grade them (``chance_trees``)."""
        if tree.has_chance and not self.chance_trees:
            raise ValueError(
                f"a {self.name} exercise is not made on a tree with chance nodes: "
                + self.no_chance_reason
            )

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        """An answer of this kind in words, nodes named by ``label``."""
        raise NotImplementedError

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        """How an answer of this kind is written on a printed sheet: the boxes, and ``answer``
        (a key, or an answer entered) written into them."""
        raise NotImplementedError

    # -- what the kind says of itself (the generator, calibration, costly work and pages ask
    # the kind, never its name) ------------------------------------------------------------
    # Misconception variants change its answers: it calibrates, its trees can discriminate.
    calibrates: ClassVar[bool] = True
    # Its answer depends on the `values` convention (soft or hard), so the conventions say it.
    reads_values: ClassVar[bool] = True
    # Offered on the game practice form.
    in_game_practice: ClassVar[bool] = True

    # Its reference search prunes (minimax's does not).
    prunes: ClassVar[bool] = True
    # Its score counts errors (`error_score`), so an answer is some errors away from a key.
    counts_errors: ClassVar[bool] = True
    # Made on trees with chance nodes (expectimax, expectiminimax, Star1); if not, why not.
    chance_trees: ClassVar[bool] = True
    no_chance_reason: ClassVar[str] = ""
    # Its answer holds values (a chance node's are matched by `exact.matches`, a rule stated
    # with the exercise).
    holds_values: ClassVar[bool] = True

    def conventions_words(self, conventions: Conventions, tree: Tree | None = None) -> str:
        """The conventions a student needs for an exercise of this kind, in words; on a
        ``tree`` with chance nodes, also how a chance node's value is found and, for a kind
        whose answer holds values, how one is written (the answer-matching rule)."""
        words = conventions.describe(pruning=self.prunes, with_values=self.reads_values)
        if tree is None or not tree.has_chance:
            return words
        chance = (
            " A chance node (a circle) takes the weighted average of its children: each "
            "child's value times the probability on its edge, summed."
        )
        if self.prunes and conventions.bounds is None:
            chance += (
                " No bounds on the leaf values are stated, so nothing is cut at or below a "
                "chance node before all its children are seen (Star1 needs both bounds)."
            )
        if self.holds_values:
            chance += (
                " Values are exact: write a fraction (14/3) or its decimal rounded to 2 places "
                "(4.67); 4.7 or 4.666 is not 14/3."
            )
        return words + chance

    def optimum_states(self, tree: Tree) -> int | None:
        """The states the move-ordering optimum visits when grading on ``tree`` (an estimate made
        before it runs, stored with the exercise so a costly grading is refused unbuilt); None
        for a kind that grades without it."""
        return None

    def generator_problems(self, branching: int, depth: int, distinct_values: int) -> list[str]:
        """Why trees of this kind cannot be generated this large (at most ``branching`` children,
        ``depth`` levels, ``distinct_values`` leaf values), beyond the generator's own limits."""
        return []

    def slips(self, tree: Tree, key: Any, rng: random.Random) -> list[Any]:
        """Single slips of the canonical ``key`` (calibration's "a slip" answers)."""
        return []

    def distance(self, key: Any, answer: Any) -> int:
        """At how many nodes two canonical answers differ (a tree exposes a misconception whose
        answer is at a distance from the key)."""
        if isinstance(key, dict) and isinstance(answer, dict):
            return sum(key.get(p) != answer.get(p) for p in set(key) | set(answer))
        return int(key != answer)

    def answer_replays(
        self, tree: Tree, conventions: Conventions, answer: object
    ) -> dict[str, Any] | None:
        """Searches drawn for an answer beyond the reference search's replay (None: none)."""
        return None

    def graded_differences(
        self,
        drawn: Tree,
        conventions: Conventions,
        answer: object,
        first_wrong: object,
        solution: dict[str, Any],
    ) -> dict[str, Any] | None:
        """Where an answer drawn beside the key differs from it, when the grade says so rather
        than the key node by node: ``{"differ": [paths], "legend": words}``. None (the default):
        the key is the one right answer, compared node by node."""
        return None

    # -- shared ------------------------------------------------------------------------------
    def score(self, tree: Tree, key: Any, answer: Any) -> tuple[float, dict[str, float]]:
        """The score (``error_score`` of the errors ``assess`` counts) and the parts."""
        errors, parts = self.assess(tree, key, answer)
        return error_score(_count(errors)), parts

    def scoring_words(self, scoring: Mapping[str, Any], labels: Mapping[Path, str] | None) -> str:
        """How a grade's score came about, from its ``scoring``: the errors counted (each
        kind's nodes named by ``labels``; None names none) and the rule."""
        return errors_words(scoring.get("errors", {}), labels)

    def describe(self, answer: object, labels: Mapping[Path, str]) -> str:
        """An answer (or a key) in words with node labels, to read beside another: "—" for no
        answer, its JSON where it is not this kind's shape (stored answers are never refused)."""
        if not isinstance(answer, dict):
            return "—"

        def label(path: Path) -> str:
            return labels.get(path, path or "root")

        try:
            return self.words(answer, label)
        except (AttributeError, TypeError, IndexError, ValueError):
            return json.dumps(answer)

    def analysis(self, tree: Tree, conventions: Conventions) -> tuple[SearchResult, Any]:
        """The reference search and the canonical key (cached: an exercise is graded often)."""
        return _memo(_analysis, self.name, tree.cut(conventions.depth), conventions)

    def key(self, tree: Tree, conventions: Conventions) -> dict[str, Any]:
        return self.to_answer(self.analysis(tree, conventions)[1])

    def variant_answers(
        self, tree: Tree, conventions: Conventions
    ) -> tuple[tuple[Variant, Any], ...]:
        """Each applicable variant with its canonical answer (cached like ``analysis``)."""
        return _memo(_variant_answers, self.name, tree.cut(conventions.depth), conventions)

    def explaining(self, tree: Tree, conventions: Conventions, canonical: Any) -> list[Variant]:
        """The misconceptions whose answer on ``tree`` (already cut at the depth limit) is
        ``canonical`` under the answer-matching rule and is not the key, in the library's order:
        the diagnosis is the first, its words name them all."""
        key = self.analysis(tree, conventions)[1]
        return [
            variant
            for variant, answer in self.variant_answers(tree, conventions)
            if self.agrees(answer, canonical) and answer != key
        ]

    def grade(self, tree: Tree, conventions: Conventions, answer: object) -> Grade:
        # A depth limit or terminal nodes: the exercise is the tree the search sees (same paths).
        tree = tree.cut(conventions.depth)
        canonical = self.normalize(tree, answer)
        result, key = self.analysis(tree, conventions)
        errors, parts = self.assess(tree, key, canonical)
        score = round(min(1.0, max(0.0, error_score(_count(errors)))), 6)
        scoring = {"errors": {what: paths for what, paths in errors.items() if paths}}
        if self.agrees(key, canonical):
            return Grade(
                1.0,
                parts,
                ["Correct."],
                key=self.to_answer(key),
                search=result,
                scoring=scoring,
            )
        candidates = self.explaining(tree, conventions, canonical)
        diagnosis = candidates[0].code if candidates else None
        text = diagnosis_words(candidates, tree, conventions) if candidates else None
        explainer = Explainer(result)
        where = self.first_wrong(explainer, key, canonical)
        feedback = [m for m in (text, where and where["message"]) if m]
        return Grade(
            score,
            parts,
            feedback,
            diagnosis,
            text,
            where,
            key=self.to_answer(key),
            search=result,
            candidates=tuple(v.code for v in candidates),
            scoring=scoring,
        )


# Exercise-sized trees are cached; a huge typed tree is solved each time rather than kept.
CACHED_LEAVES = 2000


def _memo(cached: Any, kind: str, tree: Tree, conventions: Conventions) -> Any:
    if tree.leaf_count() > CACHED_LEAVES:
        return cached.__wrapped__(kind, tree, conventions)
    return cached(kind, tree, conventions)


@functools.lru_cache(maxsize=512)
def _analysis(kind: str, tree: Tree, conventions: Conventions) -> tuple[SearchResult, Any]:
    exercise = KINDS[kind]
    result = exercise.reference(tree, conventions)
    return result, exercise.project(result)


@functools.lru_cache(maxsize=512)
def _variant_answers(
    kind: str, tree: Tree, conventions: Conventions
) -> tuple[tuple[Variant, Any], ...]:
    exercise = KINDS[kind]
    return tuple(
        (v, exercise.project(v.run(tree, conventions), v))
        for v in variants_for(kind, tree, conventions)
    )


def _in_order(nodes: Iterable[Path]) -> list[Path]:
    return sorted(nodes, key=_tree_order)


def normalize_pruned(tree: Tree, marked: set[Path]) -> frozenset[Path]:
    """Marking a node marks its subtree; a node whose children are all marked is marked."""
    nodes = list(tree.walk())  # breadth-first: a parent comes before its children
    closed: set[Path] = set()
    for path, _node in nodes:
        if path in marked or (path and path.rpartition(".")[0] in closed):
            closed.add(path)
    for path, node in reversed(nodes):
        if not node.is_leaf and all(
            child_path(path, i) in closed for i in range(len(node.children))
        ):
            closed.add(path)
    return frozenset(closed)


class PruneKind(ExerciseKind):
    name = "prune"
    title = "Pruned nodes"
    prompt = (
        "Mark every node alpha-beta never visits (marking a node marks its whole subtree) "
        "and give the value of the root."
    )
    parts = ("pruned", "value")
    reads_values = False

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        pruned = sorted((label(p) for p in answer.get("pruned", [])), key=lambda s: (len(s), s))
        return f"pruned: {', '.join(pruned) or 'none'}; root value {answer.get('value')}"

    def normalize(self, tree: Tree, answer: object) -> Pruned:
        pruned = _part(answer, "pruned", self.name)
        if not isinstance(pruned, list):
            raise UngradableAnswer("'pruned' must be a list of paths")
        if len(pruned) > tree.node_count():
            raise UngradableAnswer("'pruned' lists more paths than the tree has nodes")
        for path in pruned:
            if not isinstance(path, str) or not tree.has(path):
                raise UngradableAnswer(f"no node at path {path!r} in 'pruned'")
            if path == "":
                raise UngradableAnswer("the root is always searched; it cannot be pruned")
        value = _number(_part(answer, "value", self.name), "'value'")
        return (normalize_pruned(tree, set(pruned)), value)

    def slips(self, tree: Tree, key: Pruned, rng: random.Random) -> list[Pruned]:
        pruned, value = key
        answers = [(pruned, value + 1)]
        roots = [p for p in pruned if p.rpartition(".")[0] not in pruned]
        if roots:
            missing = rng.choice(sorted(roots))
            answers.append((frozenset(p for p in pruned if not _under(p, missing)), value))
        visited_leaves = [p for p in tree.leaves() if p not in pruned]
        extra = rng.choice(visited_leaves)
        answers.append((normalize_pruned(tree, set(pruned) | {extra}), value))
        return answers

    def distance(self, key: Pruned, answer: Pruned) -> int:
        assert isinstance(key, tuple) and isinstance(answer, tuple)  # (pruned, root value) pairs
        (k, kv), (a, av) = key, answer
        return len(k ^ a) + (kv != av)

    def project(self, result: SearchResult, variant: Variant | None = None) -> Pruned:
        pruned = set(result.pruned_all)
        if variant is not None and variant.marks_cut_nodes:
            pruned |= {c.path for c in result.cutoffs}
        return (normalize_pruned(result.tree, pruned), result.value)

    def to_answer(self, canonical: Pruned) -> dict[str, Any]:
        pruned, value = canonical  # a fraction's value as its text, "14/3"
        return {"pruned": _root_paths(pruned), "value": jsonable(value)}

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        pruned = tuple(answer.get("pruned", [])) if answer else ()
        return Paper(
            "Cross (✗) the box of every node alpha-beta never visits: crossing the root of a "
            "pruned subtree is enough. Write the root's value below the tree.",
            PaperBoxes(tuple(p for p, _ in tree.walk() if p), chars=1),
            {p: "✗" for p in pruned},
            (("Root value", _written(answer.get("value")) if answer else ""),),
            pruned,
        )

    def agrees(self, exact: Pruned, answer: Pruned) -> bool:
        return exact[0] == answer[0] and matches(answer[1], exact[1])

    def assess(
        self, tree: Tree, key: Pruned, answer: Pruned
    ) -> tuple[dict[str, list[Path]], dict[str, float]]:
        (k, kv), (a, av) = key, answer
        jaccard = 1.0 if not (k | a) else len(k & a) / len(k | a)
        right = matches(av, kv)
        errors = {
            "extra-mark": _root_paths(a - k),
            "missing-mark": _root_paths(k - a),
            "root-value": [] if right else [""],
        }
        return errors, {"pruned": round(jaccard, 6), "value": float(right)}

    def first_wrong(
        self, explainer: Explainer, key: Pruned, answer: Pruned
    ) -> dict[str, Any] | None:
        marked, value = answer
        for step in explainer.result.trace:
            if step.kind == "enter" and step.path in marked and step.path:
                return _where(explainer, step.path, explainer.visited_not_pruned(step), step.index)
            if step.kind == "cutoff" and any(p not in marked for p in step.pruned):
                cutoff = next(c for c in explainer.result.cutoffs if c.step == step.index)
                return _where(explainer, step.path, explainer.cutoff(cutoff), step.index)
        if not matches(value, key[1]):
            return _where(
                explainer,
                "",
                explainer.wrong_value("", value, f"The root's value is {fmt(key[1])}: "),
                len(explainer.result.trace) - 1,
            )
        return None


class ValuesKind(ExerciseKind):
    name = "values"
    title = "Values returned"
    prompt = "Give the value each internal node returns when alpha-beta searches it; leave pruned nodes empty."
    parts = ("values",)

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        values = sorted(
            answer.get("values", {}).items(), key=lambda kv: (len(kv[0].split(".")), kv[0])
        )
        return ", ".join(f"{label(p)} = {v}" for p, v in values) or "none"

    def normalize(self, tree: Tree, answer: object) -> NodeValues:
        values = _part(answer, "values", self.name)
        if not isinstance(values, dict):
            raise UngradableAnswer("'values' must map paths to numbers")
        return {
            _internal_path(tree, p, "'values'"): _number(v, f"the value at {p!r}")
            for p, v in values.items()
            if v is not None and v != ""
        }

    def project(self, result: SearchResult, variant: Variant | None = None) -> NodeValues:
        return {p: r.value for p, r in result.nodes.items() if not result.tree.node(p).is_leaf}

    def slips(self, tree: Tree, key: NodeValues, rng: random.Random) -> list[NodeValues]:
        path = rng.choice(sorted(key))
        return [{**key, path: key[path] + 1}]

    def to_answer(self, canonical: NodeValues) -> dict[str, Any]:
        # A copy (the canonical key is cached), a fraction as its exact text "14/3".
        return {"values": {p: jsonable(v) for p, v in canonical.items()}}

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        values = answer.get("values", {}) if answer else {}
        return Paper(
            self.paper_instruction,
            PaperBoxes(_internal(tree)),
            {p: _written(v) for p, v in values.items()},
        )

    paper_instruction = (
        "Write in its box the value each internal node returns; leave the boxes of pruned "
        "nodes empty."
    )

    def agrees(self, exact: NodeValues, answer: NodeValues) -> bool:
        return set(exact) == set(answer) and all(matches(answer[p], v) for p, v in exact.items())

    def assess(
        self, tree: Tree, key: NodeValues, answer: NodeValues
    ) -> tuple[dict[str, list[Path]], dict[str, float]]:
        right = sum(1 for p, v in key.items() if matches(answer.get(p), v))
        extra = _in_order(set(answer) - set(key))
        share = right / (len(key) + len(extra)) if key else 1.0
        errors = {
            "wrong-value": [
                p for p in _in_order(key) if p in answer and not matches(answer[p], key[p])
            ],
            "missing-value": [p for p in _in_order(key) if p not in answer],
            "pruned-value": extra,
        }
        return errors, {"values": round(share, 6)}

    def first_wrong(
        self, explainer: Explainer, key: NodeValues, answer: NodeValues
    ) -> dict[str, Any] | None:
        for step in explainer.result.trace:
            p = step.path
            if step.kind == "return" and not matches(answer.get(p), key[p]):
                return _where(explainer, p, explainer.wrong_value(p, answer.get(p)), step.index)
        for p in sorted(set(answer) - set(key)):
            return _where(explainer, p, explainer.pruned_leaf(p), None)
        return None


class BoundsKind(ExerciseKind):
    name = "bounds"
    title = "Alpha and beta"
    prompt = (
        "Give alpha and beta at each internal node when alpha-beta returns from it "
        "(write inf or -inf for infinity); leave pruned nodes empty."
    )
    parts = ("bounds",)
    chance_trees = False
    no_chance_reason = (
        "alpha and beta below a chance node are Star1's windows, which this kind does not grade"
    )

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        return (
            "; ".join(
                f"{label(p)}: α {b[0]}, β {b[1]}"
                for p, b in sorted(answer.get("bounds", {}).items())
            )
            or "none"
        )

    def normalize(self, tree: Tree, answer: object) -> NodeBounds:
        bounds = _part(answer, "bounds", self.name)
        if not isinstance(bounds, dict):
            raise UngradableAnswer("'bounds' must map paths to [alpha, beta]")
        result = {}
        for p, pair in bounds.items():
            if pair is None:
                continue
            path = _internal_path(tree, p, "'bounds'")
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise UngradableAnswer(f"the bounds at {p!r} must be [alpha, beta]")
            result[path] = (_number(pair[0], f"alpha at {p!r}"), _number(pair[1], f"beta at {p!r}"))
        return result

    def project(self, result: SearchResult, variant: Variant | None = None) -> NodeBounds:
        return {
            p: (r.alpha, r.beta) for p, r in result.nodes.items() if not result.tree.node(p).is_leaf
        }

    def slips(self, tree: Tree, key: NodeBounds, rng: random.Random) -> list[NodeBounds]:
        path = rng.choice(sorted(key))
        alpha, beta = key[path]
        finite = alpha if alpha not in (INF, -INF) else 0
        return [{**key, path: (finite + 1, beta)}]

    def to_answer(self, canonical: NodeBounds) -> dict[str, Any]:
        return {"bounds": {p: [jsonable(a), jsonable(b)] for p, (a, b) in canonical.items()}}

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        bounds = answer.get("bounds", {}) if answer else {}
        return Paper(
            "Write alpha (α) and beta (β) at each internal node when alpha-beta returns from it "
            "(∞ for infinity); leave the boxes of pruned nodes empty.",
            PaperBoxes(_internal(tree), rows=("α", "β")),
            {p: f"{_written(a)}\n{_written(b)}" for p, (a, b) in bounds.items()},
        )

    def assess(
        self, tree: Tree, key: NodeBounds, answer: NodeBounds
    ) -> tuple[dict[str, list[Path]], dict[str, float]]:
        right = 0.0
        errors: dict[str, list[Path]] = {
            "wrong-alpha": [],
            "wrong-beta": [],
            "missing-alpha": [],
            "missing-beta": [],
        }
        for p in _in_order(key):
            a, b = key[p]
            got = answer.get(p)
            if got is None:
                errors["missing-alpha"].append(p)
                errors["missing-beta"].append(p)
                continue
            right += 0.5 * (got[0] == a) + 0.5 * (got[1] == b)
            if got[0] != a:
                errors["wrong-alpha"].append(p)
            if got[1] != b:
                errors["wrong-beta"].append(p)
        errors["pruned-bounds"] = _in_order(set(answer) - set(key))
        share = right / (len(key) + len(errors["pruned-bounds"])) if key else 1.0
        return errors, {"bounds": round(share, 6)}

    def first_wrong(
        self, explainer: Explainer, key: NodeBounds, answer: NodeBounds
    ) -> dict[str, Any] | None:
        for step in explainer.result.trace:
            p = step.path
            if step.kind == "return" and answer.get(p) != key[p]:
                return _where(explainer, p, explainer.bounds(p), step.index)
        for p in sorted(set(answer) - set(key)):
            return _where(explainer, p, explainer.pruned_leaf(p), None)
        return None


class LeafOrderKind(ExerciseKind):
    name = "leaf-order"
    title = "Order of evaluation"
    prompt = "List the leaves in the order alpha-beta evaluates them; leave out the pruned ones."
    parts = ("leaf_order",)
    reads_values = False
    holds_values = False

    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        return ", ".join(label(p) for p in answer.get("leaf_order", []))

    def normalize(self, tree: Tree, answer: object) -> LeafOrder:
        order = _part(answer, "leaf_order", self.name)
        if not isinstance(order, list):
            raise UngradableAnswer("'leaf_order' must be a list of leaf paths")
        for p in order:
            if not isinstance(p, str) or not tree.has(p) or not tree.node(p).is_leaf:
                raise UngradableAnswer(f"{p!r} in 'leaf_order' is not a leaf of this tree")
        if len(set(order)) != len(order):
            raise UngradableAnswer("a leaf is listed twice in 'leaf_order'")
        return tuple(order)

    def project(self, result: SearchResult, variant: Variant | None = None) -> LeafOrder:
        return result.leaf_order

    def slips(self, tree: Tree, key: LeafOrder, rng: random.Random) -> list[LeafOrder]:
        order = list(key)
        answers = [tuple(order[1:])]
        if len(order) > 1:
            i = rng.choice(range(len(order) - 1))
            swapped = order[:]
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            answers.append(tuple(swapped))
        return answers

    def distance(self, key: LeafOrder, answer: LeafOrder) -> int:
        if not (isinstance(key, tuple) and isinstance(answer, tuple)):
            return super().distance(key, answer)
        return sum(
            i >= len(key) or i >= len(answer) or key[i] != answer[i]
            for i in range(max(len(key), len(answer)))
        )

    def to_answer(self, canonical: LeafOrder) -> dict[str, Any]:
        return {"leaf_order": list(canonical)}

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        order = answer.get("leaf_order", []) if answer else []
        return Paper(
            "Number the leaves in the order alpha-beta evaluates them (1 for the first); leave "
            "the boxes of pruned leaves empty.",
            PaperBoxes(tuple(tree.leaves()), chars=2),
            {p: str(i + 1) for i, p in enumerate(order)},
        )

    def assess(
        self, tree: Tree, key: LeafOrder, answer: LeafOrder
    ) -> tuple[dict[str, list[Path]], dict[str, float]]:
        """The errors are the longer order's length minus the longest common subsequence: the
        shared leaves outside one such subsequence (out of order), and the larger of the missing
        and the extra leaves, a missing leaf and an extra one pairing as one error."""
        longest = max(len(key), len(answer))
        in_order = _lcs_items(key, answer)
        share = len(in_order) / longest if longest else 1.0
        listed, evaluated = set(answer), set(key)
        missing = [p for p in key if p not in listed]
        extra = [p for p in answer if p not in evaluated]
        pairs = min(len(missing), len(extra))
        errors = {
            "out-of-order": [p for p in key if p in listed and p not in in_order],
            "replaced-leaf": extra[:pairs],
            "missing-leaf": missing[pairs:],
            "extra-leaf": extra[pairs:],
        }
        return errors, {"leaf_order": round(share, 6)}

    def first_wrong(
        self, explainer: Explainer, key: LeafOrder, answer: LeafOrder
    ) -> dict[str, Any] | None:
        for i, expected in enumerate(key):
            got = answer[i] if i < len(answer) else None
            if got != expected:
                step = next(
                    s.index
                    for s in explainer.result.trace
                    if s.kind == "leaf" and s.path == expected
                )
                message = (
                    f"The {ordinal(i)} leaf evaluated is {explainer.label(expected)}"
                    + (f", not {explainer.label(got)}" if got else "")
                    + "."
                )
                if got is not None and got not in key:
                    message += " " + explainer.pruned_leaf(got)
                # The leaf marked is the one the student put there; the step, the key's.
                return _where(explainer, got or expected, message, step)
        if len(answer) > len(key):
            extra = answer[len(key)]
            return _where(explainer, extra, explainer.pruned_leaf(extra), None)
        return None


class MinimaxKind(ValuesKind):
    name = "minimax"
    title = "Minimax values"
    prompt = "Give the minimax value of every internal node (no pruning)."
    parts = ("values",)
    paper_instruction = "Write in its box the minimax value of every internal node (no pruning)."
    prunes = False

    def reference(self, tree: Tree, conventions: Conventions) -> SearchResult:
        return minimax(tree, conventions)


class BestOrderKind(ExerciseKind):
    name = "best-order"
    title = "Best move order"
    prompt = (
        "Reorder the children of the nodes so that alpha-beta evaluates as few leaves as possible."
    )
    parts = ("leaves",)
    calibrates = False  # scored by leaves evaluated: no misconception variants
    counts_errors = False
    reads_values = False
    in_game_practice = False
    chance_trees = False
    no_chance_reason = "the ordering optimum searches MAX and MIN nodes only"
    holds_values = False

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
        orders = _part(answer, "order", self.name)
        assert isinstance(answer, dict)  # _part refused anything else
        claimed = answer.get("leaves")
        if claimed is not None and (type(claimed) is not int or claimed < 0):
            raise UngradableAnswer("'leaves', when given, is a whole number of leaves")
        if not isinstance(orders, dict):
            raise UngradableAnswer("'order' must map paths to lists of child indices")
        for p, order in orders.items():
            path = _internal_path(tree, p, "'order'")
            n = len(tree.node(path).children)
            if (
                not isinstance(order, list)
                or any(type(i) is not int for i in order)
                or sorted(order) != list(range(n))
            ):
                raise UngradableAnswer(f"the order at {p!r} must list each of 0..{n - 1} once")
        return {p: list(order) for p, order in orders.items()}

    def explaining(self, tree: Tree, conventions: Conventions, canonical: Any) -> list[Variant]:
        """The misconceptions whose answer on ``tree`` (already cut at the depth limit) is
        ``canonical`` under the answer-matching rule and is not the key, in the library's order:
        the diagnosis is the first, its words name them all."""
        key = self.analysis(tree, conventions)[1]
        return [
            variant
            for variant, answer in self.variant_answers(tree, conventions)
            if self.agrees(answer, canonical) and answer != key
        ]

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
            f"Score {_score_text(round(fewest / got, 6))} = {fewest}/{got} ({rule})."
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
            PaperBoxes(_internal(tree), chars=3 * widest),
            {p: " ".join(labels[child_path(p, i)] for i in o) for p, o in orders.items()},
            (("Leaves evaluated", str(answer.get("leaves", "")) if answer else ""),),
        )

    def analysis(self, tree: Tree, conventions: Conventions) -> tuple[SearchResult, None]:
        # The replay shows the search of the tree as given; the key is an ordering, not a search.
        return solve(tree, conventions), None

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
        blamed = (
            f"The grade blames {labels[first_wrong['path']]} "
            "(hatched red and marked ✗ in both trees)"
        )
        return {
            "differ": [first_wrong["path"]],
            "legend": f"{counts} {blamed}: {first_wrong.get('message', '')}",
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
            original[p]: {**entry, "label": labels[original[p]]}
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


def _under(path: Path, root: Path) -> bool:
    return path == root or path.startswith(root + ".")


def _lcs_items(a: tuple, b: tuple) -> set:
    """The items of one longest common subsequence of two sequences without repeats, in
    O(n log n): the longest increasing run of b's items' positions in a."""
    where = {x: i for i, x in enumerate(a)}
    positions = [where[y] for y in b if y in where]
    tails: list[int] = []  # tails[k]: the least last position of an increasing run of k + 1
    ends: list[int] = []  # ends[k]: the index in `positions` of that run's last item
    before = [-1] * len(positions)  # the index of the item before each in its run
    for i, position in enumerate(positions):
        k = bisect.bisect_left(tails, position)
        before[i] = ends[k - 1] if k else -1
        tails[k : k + 1] = [position]
        ends[k : k + 1] = [i]
    items = set()
    i = ends[-1] if ends else -1
    while i >= 0:
        items.add(a[positions[i]])
        i = before[i]
    return items


KINDS: dict[str, ExerciseKind] = {
    k.name: k
    for k in (
        PruneKind(),
        ValuesKind(),
        BoundsKind(),
        LeafOrderKind(),
        BestOrderKind(),
        MinimaxKind(),
    )
}


def grade(kind: str, tree: Tree, conventions: Conventions, answer: object) -> Grade:
    """Grade ``answer`` to an exercise of ``kind``; UngradableAnswer when it cannot be graded."""
    if kind not in KINDS:
        raise UngradableAnswer(f"unknown exercise kind {kind!r} ({', '.join(KINDS)})")
    return KINDS[kind].grade(tree, conventions, answer)


__all__ = [
    "INF",
    "KINDS",
    "ExerciseKind",
    "Grade",
    "UngradableAnswer",
    "error_rule",
    "error_score",
    "errors_words",
    "grade",
    "normalize_pruned",
]
