"""The protocol every exercise kind follows, and what the kinds share.

A kind (``ExerciseKind``) turns a tree and its conventions into an answer key, reads and grades a
student's answer, says answers in words and on paper, gives examples for the tests, and states
the facts the rest of the code asks it (never its name): the JSON shape of its answer, the
misconception variants that change its answers, and the trees it is made on. A kind knows nothing
of pages: the web layer finds a kind's script and styles from its name. ``CountedKind`` is the
kind whose score counts errors (``scoring.error_score``): a key projected from a reference
search, an answer some errors away from it, the misconception it matches named.
"""

# Whole: the protocol a kind implements and what kinds share, read as one.

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, NamedTuple

from grader.gametree.drawing import PaperBoxes
from grader.gametree.exact import matches
from grader.gametree.explain import Explainer, fmt
from grader.gametree.kinds.scoring import count, error_score, errors_words
from grader.gametree.numbers import NumberError, read_number
from grader.gametree.solver import Conventions, SearchResult, solve
from grader.gametree.tree import Path, Tree, Value
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
    # Searches drawn beside the reference search (best-order's answer and best order).
    replays: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    candidates: tuple[str, ...] = ()
    # How the score came about, as facts stored with the attempt: {"errors": {what: [paths]}}
    # for a kind that counts errors, else the kind's own (``ExerciseKind.scoring_words`` reads it).
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


# What one part of an answer holds, as the API states it (the API's schemas turn each into a
# model's field): node paths; node paths, none twice; a number as an answer writes one (a JSON
# number or text such as "−5", "14 / 3", "∞"); a number or blank per internal node; a pair
# [alpha, beta] or null per internal node; child indices (each once) per internal node; a count.
PartType = Literal[
    "paths", "unique-paths", "number", "numbers-by-node", "pairs-by-node", "orders-by-node", "count"
]


@dataclass(frozen=True)
class AnswerPart:
    type: PartType
    description: str = ""
    required: bool = True


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


# The trees the kinds' examples are drawn on: AIMA's (C's last two leaves pruned), and one of four
# levels with a pruned leaf and a pruned MIN subtree.
EXAMPLE_TREES: dict[str, list[Any]] = {
    "textbook": [[3, 12, 8], [2, 4, 6], [14, 5, 2]],
    "four levels": [[[2, 3], [5, 9]], [[0, 1], [7, 5]]],
}


@dataclass(frozen=True)
class Example:
    """An exercise of a kind with an answer, for the tests that take every kind (the pages', the
    browser's), as PrairieLearn's elements bring their own test cases: ``name`` says which
    ("right", "wrong", or another), ``wrong_at`` the nodes where the answer differs from the key
    as the pages draw them, ``score`` the score its grade gives (None: not stated)."""

    name: str
    tree: Tree
    answer: dict[str, Any]
    wrong_at: frozenset[Path] = frozenset()
    score: float | None = None


# -- reading an answer ---------------------------------------------------------------------------


def part(kind: ExerciseKind, answer: object, name: str) -> Any:
    """The part ``name`` of an answer of ``kind``; UngradableAnswer for a non-object, a key the
    kind's answer does not have, or the part missing."""
    keys = kind.answer_keys
    if not isinstance(answer, dict):
        raise UngradableAnswer(
            f"a {kind.name} answer is a JSON object, got {type(answer).__name__}"
        )
    unknown = sorted(set(answer) - set(keys), key=str)
    if unknown:
        raise UngradableAnswer(
            f"a {kind.name} answer has only {', '.join(map(repr, keys))}; "
            f"{str(unknown[0])[:40]!r} is not one"
        )
    if name not in answer:
        raise UngradableAnswer(f"a {kind.name} answer needs {name!r}")
    return answer[name]


def number(x: object, what: str) -> Value:
    """A number as an answer writes one (``numbers.read_number``: a JSON number, or text such
    as ``−5``, ``14 / 3``, ``−∞``); UngradableAnswer naming ``what`` for anything else."""
    try:
        return read_number(x)
    except NumberError as error:
        raise UngradableAnswer(f"{what} {error}") from None


def internal_path(tree: Tree, path: object, what: str) -> Path:
    if not isinstance(path, str) or not tree.has(path):
        raise UngradableAnswer(f"no node at path {path!r} in {what}")
    if tree.node(path).is_leaf:
        raise UngradableAnswer(f"{path!r} in {what} is a leaf; give values for internal nodes only")
    return path


# -- paths, places and paper ---------------------------------------------------------------------


def tree_order(path: Path) -> list[int]:
    return [int(x) for x in path.split(".")] if path else []


def in_order(nodes: Any) -> list[Path]:
    return sorted(nodes, key=tree_order)


def where(explainer: Explainer, path: Path, message: str, step: int | None) -> dict[str, Any]:
    return {"path": path, "label": explainer.label(path), "step": step, "message": message}


def internal(tree: Tree) -> tuple[Path, ...]:
    return tuple(p for p, node in tree.walk() if not node.is_leaf)


def written(x: object) -> str:
    """A value as a hand would write it in a box: ``∞`` for infinity, no trailing ``.0``."""
    if x is None or x == "":
        return ""
    value = read_number(x)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return fmt(value).replace("+∞", "∞")


class ExerciseKind:
    """One kind of exercise: the protocol. Subclasses work on plain data; the caller stores the
    result. A subclass is registered with ``registry.register``."""

    name: ClassVar[str]
    title: ClassVar[str]  # what pages call the kind ("Order of evaluation", not its name)
    prompt: ClassVar[str]
    parts: ClassVar[tuple[str, ...]]
    # The answer's JSON shape: each key with what it holds. Its first key is one no other shape
    # has, unless the shapes are the same (the API tells an answer's shape by it).
    answer_shape: ClassVar[dict[str, AnswerPart]]
    # What the answer's model says of itself in the API's document.
    answer_doc: ClassVar[str]

    # -- generator facts --------------------------------------------------------------------------
    # The misconception variants (codes) whose answers can differ from this kind's key: it
    # calibrates and its trees can discriminate when there are any.
    variants: ClassVar[tuple[str, ...]] = ()
    # The variants this kind's answer shows most plainly (adaptive practice gives this kind to a
    # student whose answers match one of them).
    reveals: ClassVar[tuple[str, ...]] = ()
    # A kind without misconception variants may name the answers a student gives blind, without
    # doing the exercise (best-order: the order as given): a band's `never_key` names them and
    # calibration scores them beside the key (`blind_facts`).
    blind_answers: ClassVar[tuple[str, ...]] = ()
    # Made on trees with chance nodes (expectimax, expectiminimax, Star1); if not, why not.
    chance_trees: ClassVar[bool] = True
    no_chance_reason: ClassVar[str] = ""
    # Offered on the game practice form.
    in_game_practice: ClassVar[bool] = True
    # Its score counts errors (`scoring.error_score`), so an answer is some errors away from a key.
    counts_errors: ClassVar[bool] = False
    # Its grading rule's version, stored with every attempt it grades: raised whenever the same
    # answer on the same tree would be graded differently, so a term's regrade finds the attempts
    # an older rule graded (services/teaching/term_regrade.py).
    rule_version: ClassVar[str] = "1"

    # -- words facts ------------------------------------------------------------------------------
    # Its answer depends on the `values` convention (soft or hard), so the conventions say it.
    reads_values: ClassVar[bool] = True
    # Its reference search prunes (minimax's does not).
    prunes: ClassVar[bool] = True
    # Its answer holds values (a chance node's are matched by `exact.matches`, a rule stated
    # with the exercise).
    holds_values: ClassVar[bool] = True

    @property
    def answer_keys(self) -> tuple[str, ...]:
        """The keys of this kind's answer: anything else is refused, never stored."""
        return tuple(self.answer_shape)

    @property
    def calibrates(self) -> bool:
        """Misconception variants change its answers: it calibrates, its trees can discriminate."""
        return bool(self.variants)

    @property
    def measured(self) -> bool:
        """Calibration measures it: misconception variants or blind answers to score."""
        return self.calibrates or bool(self.blind_answers)

    def blind_facts(
        self, tree: Tree, conventions: Conventions, rng: random.Random | None = None
    ) -> BlindFacts:
        """What a tree asks of a kind with ``blind_answers`` (``tree`` cut at the depth limit):
        the answers to give, each blind answer's score, and with ``rng`` a slip's score."""
        raise NotImplementedError

    # -- grading ----------------------------------------------------------------------------------
    def grade(self, tree: Tree, conventions: Conventions, answer: object) -> Grade:
        """Grade ``answer``; UngradableAnswer when it cannot be read."""
        raise NotImplementedError

    def key(self, tree: Tree, conventions: Conventions) -> dict[str, Any]:
        """The key, in the JSON shape students submit."""
        raise NotImplementedError

    def search(self, tree: Tree, conventions: Conventions) -> SearchResult:
        """The search a replay of the exercise shows (of the tree cut at the depth limit)."""
        return solve(tree.cut(conventions.depth), conventions)

    def analysis(self, tree: Tree, conventions: Conventions) -> tuple[SearchResult, Any]:
        """The search a replay shows and the canonical key it projects to: None for a kind
        whose key is not read off a search."""
        return self.search(tree, conventions), None

    def normalize(self, tree: Tree, answer: object) -> Any:
        """The answer in a canonical, comparable form; UngradableAnswer when it cannot be read."""
        raise NotImplementedError

    def scoring_words(self, scoring: Mapping[str, Any], labels: Mapping[Path, str] | None) -> str:
        """How a grade's score came about, from its ``scoring`` (nodes named by ``labels``; None
        names none)."""
        raise NotImplementedError

    def check_tree(self, tree: Tree) -> None:
        """ValueError when an exercise of this kind cannot be made on ``tree``: a tree with
        chance nodes, for a kind that does not grade them (``chance_trees``)."""
        if tree.has_chance and not self.chance_trees:
            raise ValueError(
                f"a {self.name} exercise is not made on a tree with chance nodes: "
                + self.no_chance_reason
            )

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
        than the key node by node: ``{"differ": [paths], "legend": words}`` (and, where the grade
        blames one node, ``blamed``: its label, ``counts`` and ``why``: the legend's parts).
        None (the default): the key is the one right answer, compared node by node."""
        return None

    # -- words and paper --------------------------------------------------------------------------
    def words(self, answer: dict[str, Any], label: Callable[[Path], str]) -> str:
        """An answer of this kind in words, nodes named by ``label``."""
        raise NotImplementedError

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        """How an answer of this kind is written on a printed sheet: the boxes, and ``answer``
        (a key, or an answer entered) written into them."""
        raise NotImplementedError

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

    # -- examples ---------------------------------------------------------------------------------
    def examples(self) -> tuple[Example, ...]:
        """Small exercises with answers, a wrong one first and a right one (under the default
        conventions), which the tests that take every kind grade and draw."""
        raise NotImplementedError(f"the {self.name} kind gives no examples")

    # -- generator facts that need a tree ---------------------------------------------------------
    def slips(self, tree: Tree, key: Any, rng: random.Random) -> list[Any]:
        """Single slips of the canonical ``key`` (calibration's "a slip" answers)."""
        return []

    def distance(self, key: Any, answer: Any) -> int:
        """At how many nodes two canonical answers differ (a tree exposes a misconception whose
        answer is at a distance from the key)."""
        if isinstance(key, dict) and isinstance(answer, dict):
            return sum(key.get(p) != answer.get(p) for p in set(key) | set(answer))
        return int(key != answer)

    def optimum_states(self, tree: Tree) -> int | None:
        """The states the move-ordering optimum visits when grading on ``tree`` (an estimate made
        before it runs, stored with the exercise so a costly grading is refused unbuilt); None
        for a kind that grades without it."""
        return None

    def generator_problems(self, branching: int, depth: int, distinct_values: int) -> list[str]:
        """Why trees of this kind cannot be generated this large (at most ``branching`` children,
        ``depth`` levels, ``distinct_values`` leaf values), beyond the generator's own limits."""
        return []


class BlindFacts(NamedTuple):
    """A tree as a kind with ``blind_answers`` measures it: the answers a student gives (its
    ``answers`` band), each blind answer's score (1.0: it gives the key), and a slip's score
    (None when none was drawn or the tree allows none)."""

    answers: int
    scores: dict[str, float]
    slip: float | None = None


class Scored(NamedTuple):
    """An answer of a kind that counts errors, scored: the score, the share right of each part,
    and the errors counted (each kind of error with its nodes)."""

    score: float
    parts: dict[str, float]
    errors: dict[str, list[Path]]


class CountedKind(ExerciseKind):
    """A kind whose key is projected from a reference search and whose score counts an answer's
    errors against it (``scoring.error_score``); the misconception an answer matches is named."""

    counts_errors: ClassVar[bool] = True

    # -- what a subclass provides -----------------------------------------------------------------
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

    def answer_count(self, canonical: Any) -> int:
        """How many answers a student gives for the canonical answer ``canonical`` (a key): its
        values, bounds or leaves; calibration's spread of what a tree asks."""
        return len(canonical)

    # -- the template -----------------------------------------------------------------------------
    def score(self, tree: Tree, key: Any, answer: Any) -> Scored:
        """The score (``error_score`` of the errors ``assess`` counts, in [0, 1]), the share right
        of each part and the errors: what ``grade`` scores by, and calibration and the
        generator too."""
        errors, parts = self.assess(tree, key, answer)
        return Scored(round(min(1.0, max(0.0, error_score(count(errors)))), 6), parts, errors)

    def scoring_words(self, scoring: Mapping[str, Any], labels: Mapping[Path, str] | None) -> str:
        """The errors counted (each kind's nodes named by ``labels``; None names none) and the
        rule."""
        return errors_words(scoring.get("errors", {}), labels)

    def analysis(self, tree: Tree, conventions: Conventions) -> tuple[SearchResult, Any]:
        """The reference search and the canonical key (cached: an exercise is graded often)."""
        return _memo(_analysis, self, tree.cut(conventions.depth), conventions)

    def search(self, tree: Tree, conventions: Conventions) -> SearchResult:
        return self.analysis(tree, conventions)[0]

    def key(self, tree: Tree, conventions: Conventions) -> dict[str, Any]:
        return self.to_answer(self.analysis(tree, conventions)[1])

    def variant_answers(
        self, tree: Tree, conventions: Conventions
    ) -> tuple[tuple[Variant, Any], ...]:
        """Each applicable variant with its canonical answer (cached like ``analysis``)."""
        return _memo(_variant_answers, self, tree.cut(conventions.depth), conventions)

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
        score, parts, errors = self.score(tree, key, canonical)
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
        found = self.first_wrong(explainer, key, canonical)
        feedback = [m for m in (text, found and found["message"]) if m]
        return Grade(
            score,
            parts,
            feedback,
            diagnosis,
            text,
            found,
            key=self.to_answer(key),
            search=result,
            candidates=tuple(v.code for v in candidates),
            scoring=scoring,
        )


# Exercise-sized trees are cached; a huge typed tree is solved each time rather than kept. The
# caches are keyed by the kind itself, so a kind reaches them without the registry.
CACHED_LEAVES = 2000


def _memo(cached: Any, kind: CountedKind, tree: Tree, conventions: Conventions) -> Any:
    if tree.leaf_count() > CACHED_LEAVES:
        return cached.__wrapped__(kind, tree, conventions)
    return cached(kind, tree, conventions)


@functools.lru_cache(maxsize=512)
def _analysis(kind: CountedKind, tree: Tree, conventions: Conventions) -> tuple[SearchResult, Any]:
    result = kind.reference(tree, conventions)
    return result, kind.project(result)


@functools.lru_cache(maxsize=512)
def _variant_answers(
    kind: CountedKind, tree: Tree, conventions: Conventions
) -> tuple[tuple[Variant, Any], ...]:
    return tuple(
        (v, kind.project(v.run(tree, conventions), v))
        for v in variants_for(kind.name, tree, conventions)
    )


__all__ = [
    "CACHED_LEAVES",
    "EXAMPLE_TREES",
    "AnswerPart",
    "BlindFacts",
    "CountedKind",
    "Example",
    "ExerciseKind",
    "Grade",
    "Paper",
    "Scored",
    "UngradableAnswer",
    "counted",
    "internal",
    "internal_path",
    "matches",
    "number",
    "part",
    "where",
    "written",
]


def counted(kind: ExerciseKind) -> CountedKind:
    """``kind`` as one that counts errors against a key projected from a search (what
    calibration and the generator's exposing trees read); TypeError for a kind that does not."""
    if not isinstance(kind, CountedKind):
        raise TypeError(f"a {kind.name} exercise counts no errors against a projected key")
    return kind
