"""Seeded generation of exercise trees: the same seed and parameters give the same tree on every
machine, forever. Only ``random.Random.random()`` is drawn from (its sequence is the one the Python
documentation promises never to change); integers are derived from it here.

Bump ``GENERATOR_VERSION`` whenever a change would give any seed a different tree, and keep the old
behaviour reachable so stored exercises still rebuild.
"""

# Whole: every draw from the seeded stream in one file, so GENERATOR_VERSION holds.

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from fractions import Fraction
from typing import Any

from grader.gametree.exact import fmt
from grader.gametree.kinds import KINDS, error_score
from grader.gametree.kinds.base import counted
from grader.gametree.kinds.registry import default_kind
from grader.gametree.solver import (
    Conventions,
    SearchResult,
    TreeSearchRules,
    minimax,
    search,
    solve,
)
from grader.gametree.tree import MAX_EXACT_DIGITS, Node, Tree, child_path, parse_players
from grader.gametree.variants import VARIANTS, variants_for

GENERATOR_VERSION = 1
MAX_TRIES = 10_000  # with a CPU budget (``generate``'s deadline) on top
# The generator's limits, declared once: the API's schema, the forms and the CLI read them.
MAX_DEPTH = 8  # levels below the root
MAX_BRANCHING = 8  # children per node
MAX_VALUE = 10**6  # a leaf value's magnitude
MAX_GENERATED_LEAVES = 5000  # the widest branching to the power of the depth
MAX_EVALUATION_NOISE = 1000
MAX_EXPOSE_NODES = 100
MAX_MISCONCEPTION_ERRORS = 4  # chance trees: more than 4 errors already scores 0


class GenerationError(ValueError):
    """The constraints could not be met within the allowed effort, or the parameters are invalid."""


def _players(players: str | Sequence[str] | None) -> tuple[str, ...]:
    """The players' order as a generator's parameters give it (a chance level allowed); a bad
    one refused as a `GenerationError`."""
    try:
        return parse_players(players, chance=True)
    except ValueError as error:
        raise GenerationError(str(error)) from None


@dataclass(frozen=True)
class GeneratorParams:
    depth: int = 3
    branching: tuple[int, int] = (2, 3)
    values: tuple[int, int] = (-9, 9)
    distinct: bool = False
    players: tuple[str, ...] = ("max", "min")
    conventions: Conventions = field(default_factory=Conventions)
    min_cutoffs: int = 0
    min_deep_cutoffs: int = 0
    leaves_evaluated: tuple[int, int] | None = None
    discriminating: bool = False
    # An evaluation on every internal node: its minimax value off by 1..``evaluation_noise``
    # either way (correlated with the subtree's value, never equal), for depth-limited exercises.
    evaluations: bool = False
    evaluation_noise: int = 2
    kind: str = default_kind()  # the kind whose answers `discriminating` compares
    # A misconception to expose: that variant's answer of `kind` differs from the key at
    # `expose_nodes` nodes or more (see `exposing`); adaptive practice asks for it. With
    # `expose_alone`, no other misconception gives that answer either (see `tells_apart`), so
    # a student answering as that misconception does is graded as holding it alone.
    expose: str | None = None
    expose_nodes: int = 2
    expose_alone: bool = False
    max_tries: int = 2000
    # Chance trees (a `chance` level among the players): at least this many cutoffs at chance
    # nodes (Star1, under the conventions' bounds); see `chance_params`. Any tree: each
    # misconception that changes the answer at least this many errors from the key (`telling`).
    min_star1_cutoffs: int = 0
    misconception_errors: int = 0
    # A band of difficulty (see `band_problems`, `band_rejection`): at most this many cutoffs,
    # the nodes to mark pruned (the topmost of each pruned subtree) and the answers a student
    # gives (the size of the key of `kind`) within a range, and no tree on which one of
    # `never_key`'s misconceptions gives the key. Measured, like `leaves_evaluated`, on the
    # alpha-beta search under the conventions; what calibration's spread reports.
    max_cutoffs: int | None = None
    pruned_nodes: tuple[int, int] | None = None
    answers: tuple[int, int] | None = None
    never_key: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", _players(self.players))
        for name in ("branching", "values", "leaves_evaluated", "pruned_nodes", "answers"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "never_key", _codes(self.never_key))
        lo, hi = self.branching
        vlo, vhi = self.values
        problems = []
        if not 1 <= self.depth <= MAX_DEPTH:
            problems.append(f"depth must be 1..{MAX_DEPTH}, got {self.depth}")
        if not 1 <= lo <= hi <= MAX_BRANCHING:
            problems.append(f"branching must be a range within 1..{MAX_BRANCHING}, got {lo}-{hi}")
        if problems:  # before any power of them is computed: 10**9 ** 10**9 never finishes
            raise GenerationError("; ".join(problems))
        if vlo > vhi or abs(vlo) > MAX_VALUE or abs(vhi) > MAX_VALUE:
            problems.append(f"values must be a range lo..hi within ±{MAX_VALUE}, got {vlo}..{vhi}")
        if hi**self.depth > MAX_GENERATED_LEAVES:
            problems.append(
                f"{hi}^{self.depth} leaves is too many for an exercise "
                f"(at most {MAX_GENERATED_LEAVES})"
            )
        if self.distinct and vhi - vlo + 1 < hi**self.depth:
            problems.append(
                f"distinct values need at least {hi**self.depth} values, range {vlo}..{vhi} has "
                f"{vhi - vlo + 1}"
            )
        if self.kind not in KINDS:
            problems.append(f"unknown kind {self.kind!r} ({', '.join(KINDS)})")
        if not 1 <= self.evaluation_noise <= MAX_EVALUATION_NOISE:
            problems.append(
                f"evaluation_noise must be 1..{MAX_EVALUATION_NOISE}, got {self.evaluation_noise}"
            )
        limit = self.conventions.depth
        if limit is not None and limit < self.depth and not self.evaluations:
            problems.append(
                f"a depth limit of {limit} plies above the trees' depth {self.depth} needs "
                "evaluations on internal nodes (evaluations = true)"
            )
        if min(self.min_cutoffs, self.min_deep_cutoffs) < 0 or not 1 <= self.max_tries <= MAX_TRIES:
            problems.append(f"min_cutoffs, min_deep_cutoffs >= 0 and max_tries 1..{MAX_TRIES}")
        problems += band_problems(self)
        if self.kind in KINDS:
            kind = KINDS[self.kind]
            problems += kind.generator_problems(hi, self.depth, vhi - vlo + 1)
            if self.discriminating and not kind.calibrates:
                problems.append(f"{self.kind} has no misconception variants to discriminate")
        if self.expose is not None:
            variant = VARIANTS.get(self.expose)
            if variant is None:
                problems.append(f"unknown misconception {self.expose!r} ({', '.join(VARIANTS)})")
            elif self.kind not in variant.kinds:
                problems.append(
                    f"{self.expose} cannot change an answer of kind {self.kind} "
                    f"({', '.join(sorted(variant.kinds))})"
                )
        if not 1 <= self.expose_nodes <= MAX_EXPOSE_NODES:
            problems.append(f"expose_nodes must be 1..{MAX_EXPOSE_NODES}, got {self.expose_nodes}")
        if self.expose_alone and self.expose is None:
            problems.append("expose_alone needs expose: the misconception to tell apart")
        if self.chance:
            problems += self._chance_problems()
        else:
            if self.min_star1_cutoffs:
                problems.append("min_star1_cutoffs is for chance trees: players need chance")
            problems += _errors_problems(self.misconception_errors, self.kind)
        if problems:
            raise GenerationError("; ".join(problems))

    @property
    def chance(self) -> bool:
        """Whether the trees have chance levels (generated by `generate_chance`)."""
        return "chance" in self.players

    def _chance_problems(self) -> list[str]:
        """What a chance tree cannot have here, and the chance generator's own checks."""
        bounds = self.conventions.bounds
        problems = [
            f"{name} is for MAX/MIN trees, not chance trees"
            for name, used in (
                ("distinct", self.distinct),
                ("evaluations", self.evaluations),
                ("min_deep_cutoffs", self.min_deep_cutoffs),
                ("expose", self.expose is not None),
            )
            if used
        ]
        if not self.conventions.star1:
            problems.append(
                "a generated chance tree needs the leaf bounds L..U stated (both finite): its "
                "leaf values are drawn within them and Star1 cuts with them"
            )
        elif bounds is not None and not bounds[0] <= self.values[0] <= self.values[1] <= bounds[1]:
            low, high = self.values
            problems.append(
                f"the leaf values {low}..{high} must lie within the bounds "
                f"{fmt(bounds[0])}..{fmt(bounds[1])}"
            )
        if problems:
            return problems
        try:
            self.chance_params()
        except GenerationError as error:
            return [str(error)]
        return []

    def chance_params(self) -> ChanceParams:
        """The chance generator's parameters for these: leaves drawn from ``values``, within the
        bounds the conventions state."""
        return ChanceParams(
            depth=self.depth,
            branching=self.branching,
            players=self.players,
            bounds=self.values,
            conventions=self.conventions,
            min_cutoffs=self.min_cutoffs,
            min_star1_cutoffs=self.min_star1_cutoffs,
            discriminating=self.discriminating,
            kind=self.kind,
            max_tries=self.max_tries,
            misconception_errors=self.misconception_errors,
            max_cutoffs=self.max_cutoffs,
            leaves_evaluated=self.leaves_evaluated,
            pruned_nodes=self.pruned_nodes,
            answers=self.answers,
            never_key=self.never_key,
        )

    @classmethod
    def from_dict(cls, data: dict) -> GeneratorParams:
        """From JSON-like data: ranges as ``[lo, hi]``, ``"2-3"`` or ``"-9..9"``."""
        if not isinstance(data, dict):
            raise GenerationError("generator parameters must be an object")
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise GenerationError(
                f"unknown generator parameter {sorted(unknown)[0]!r} ({', '.join(sorted(known))})"
            )
        values = dict(data)
        try:
            for name in ("branching", "values", "leaves_evaluated", "pruned_nodes", "answers"):
                if values.get(name) is not None:
                    values[name] = parse_range(values[name])
            if "players" in values:
                values["players"] = parse_players(values["players"], chance=True)
            if "conventions" in values:
                values["conventions"] = Conventions.from_dict(values["conventions"])
            if values.get("expose") is not None and not isinstance(values["expose"], str):
                raise GenerationError(
                    f"expose must be a misconception code, got {values['expose']!r}"
                )
            for name in (
                "depth",
                "min_cutoffs",
                "min_deep_cutoffs",
                "min_star1_cutoffs",
                "misconception_errors",
                "max_tries",
                "evaluation_noise",
                "expose_nodes",
            ):
                if name in values and (
                    isinstance(values[name], bool) or not isinstance(values[name], int)
                ):
                    raise GenerationError(f"{name} must be a whole number, got {values[name]!r}")
            cutoffs = values.get("max_cutoffs")
            if cutoffs is not None and (isinstance(cutoffs, bool) or not isinstance(cutoffs, int)):
                raise GenerationError(f"max_cutoffs must be a whole number, got {cutoffs!r}")
            for name in ("distinct", "discriminating", "evaluations", "expose_alone"):
                if name in values and not isinstance(values[name], bool):
                    raise GenerationError(f"{name} must be true or false, got {values[name]!r}")
            return cls(**values)
        except GenerationError:
            raise
        except (ValueError, TypeError) as error:
            raise GenerationError(str(error)) from None

    def to_dict(self) -> dict:
        data = asdict(self)
        data["conventions"] = self.conventions.to_dict()
        for name in ("branching", "values", "leaves_evaluated", "players", *RANGE_BANDS):
            if data[name] is not None:
                data[name] = list(data[name])
        data["never_key"] = list(self.never_key)
        # A field is stored only where it differs from what a stored row without it means:
        # MAX/MIN trees' parameters hold no chance fields, and parameters that need not expose
        # a misconception alone hold no expose_alone (rows written without them read the same).
        if not self.chance:
            del data["min_star1_cutoffs"]
            if not self.misconception_errors:
                del data["misconception_errors"]
        if not self.expose_alone:
            del data["expose_alone"]
        for name in BAND_FIELDS:  # no band: stored as before bands were
            if data[name] in (None, []):
                del data[name]
        return data


#: The generator's defaults, as ``GeneratorParams`` declares them: what an omitted parameter
#: is, for the API's schema, the forms and the CLI alike.
DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in fields(GeneratorParams) if f.default is not MISSING
}


def range_text(pair: tuple[int, int], sep: str = "-") -> str:
    """A range as a form or the CLI writes it (``(2, 3)`` -> ``"2-3"``; ``sep=".."``: ``-9..9``),
    which ``parse_range`` reads back."""
    return f"{pair[0]}{sep}{pair[1]}"


def parse_range(text: object) -> tuple[int, int]:
    """``[2, 3]``, ``"2-3"``, ``"-9..9"`` or ``4`` to a pair of ints."""
    if isinstance(text, bool):
        raise GenerationError(f"not a range: {text!r}")
    if isinstance(text, int):
        return (text, text)
    if (
        isinstance(text, list | tuple)
        and len(text) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in text)
    ):
        return (text[0], text[1])
    if isinstance(text, str):
        s = text.strip()
        for sep in ("..", ":"):
            if sep in s:
                lo, _, hi = s.partition(sep)
                break
        else:
            # "2-3" but also "-9-9": the separator is a '-' that is not a leading sign
            cut = s.find("-", 1)
            lo, hi = (s[:cut], s[cut + 1 :]) if cut > 0 else (s, s)
        try:
            return (int(lo), int(hi))
        except ValueError:
            pass
    raise GenerationError(f"not a range: {text!r} (write 2-3, -9..9 or [lo, hi])")


def _below(rng: random.Random, n: int) -> int:
    """0..n-1 from ``rng.random()`` alone, so the sequence never changes between Python versions."""
    return min(int(rng.random() * n), n - 1)


def random_tree(params: GeneratorParams, rng: random.Random) -> Tree:
    lo, hi = params.branching
    vlo, vhi = params.values
    pool: list[int] = []
    if params.distinct:
        pool = list(range(vlo, vhi + 1))

    def leaf() -> Node:
        if params.distinct:
            return Node(pool.pop(_below(rng, len(pool))))
        return Node(vlo + _below(rng, vhi - vlo + 1))

    def build(depth: int) -> Node:
        if depth == params.depth:
            return leaf()
        width = lo + _below(rng, hi - lo + 1)
        return Node(None, tuple(build(depth + 1) for _ in range(width)))

    tree = Tree(build(0), params.players)
    return _with_evaluations(tree, params, rng) if params.evaluations else tree


def _with_evaluations(tree: Tree, params: GeneratorParams, rng: random.Random) -> Tree:
    """Every internal node gets its minimax value moved by 1..noise, up or down (drawn after the
    tree itself, so trees without evaluations are unchanged for every seed)."""
    exact = minimax(tree).nodes
    noise = params.evaluation_noise

    def build(node: Node, path: str) -> Node:
        if node.is_leaf:
            return node
        children = tuple(build(c, child_path(path, i)) for i, c in enumerate(node.children))
        step = 1 + _below(rng, noise)
        value = exact[path].value + (step if rng.random() < 0.5 else -step)
        return Node(value, children)

    return Tree(build(tree.root, ""), tree.players)


# -- bands of difficulty ---------------------------------------------------------------------------

RANGE_BANDS = ("pruned_nodes", "answers")
BAND_FIELDS = ("max_cutoffs", *RANGE_BANDS, "never_key")


def _codes(codes: object) -> tuple[str, ...]:
    """Misconception codes as a tuple: a list, a tuple, or one text with commas."""
    if isinstance(codes, str):
        return tuple(c.strip() for c in codes.split(",") if c.strip())
    if isinstance(codes, list | tuple) and all(isinstance(c, str) for c in codes):
        return tuple(codes)
    raise GenerationError(f"never_key must be misconception codes, got {codes!r}")


def _errors_problems(errors: int, kind: str) -> list[str]:
    """Why ``misconception_errors`` = ``errors`` cannot be asked of a ``kind`` exercise."""
    if not 0 <= errors <= MAX_MISCONCEPTION_ERRORS:
        return [f"misconception_errors must be 0..{MAX_MISCONCEPTION_ERRORS}, got {errors}"]
    if errors and not (kind in KINDS and KINDS[kind].counts_errors and KINDS[kind].calibrates):
        return [f"{kind} does not count errors against misconceptions"]
    return []


def _least_leaves(low: int, depth: int) -> int:
    """The fewest leaves alpha-beta can evaluate on a tree of ``depth`` levels whose nodes have at
    least ``low`` children (Knuth and Moore's minimal tree: ``b^⌈d/2⌉ + b^⌊d/2⌋ - 1``)."""
    return low ** ((depth + 1) // 2) + low ** (depth // 2) - 1


def band_problems(params: GeneratorParams | ChanceParams) -> list[str]:
    """Why the band ``params`` asks for cannot be met by any tree, in words (none: it may be)."""
    problems = []
    lo, hi = params.branching
    most_leaves = hi**params.depth
    most_nodes = sum(hi**level for level in range(1, params.depth + 1))
    for name in ("leaves_evaluated", *RANGE_BANDS):
        band = getattr(params, name)
        if band is not None and band[0] > band[1]:
            problems.append(f"{name} must be lo-hi, got {band}")
            return problems
    if params.max_cutoffs is not None:
        if params.max_cutoffs < 0:
            problems.append(f"max_cutoffs must be 0 or more, got {params.max_cutoffs}")
        elif params.max_cutoffs < params.min_cutoffs:
            problems.append(
                f"at most {params.max_cutoffs} cutoffs is fewer than the {params.min_cutoffs} "
                "asked for (min_cutoffs): no tree has both"
            )
        elif params.max_cutoffs == 0 and params.pruned_nodes and params.pruned_nodes[0] > 0:
            problems.append("a tree without cutoffs prunes no node: pruned_nodes must allow 0")
    if params.leaves_evaluated is not None:
        low, high = params.leaves_evaluated
        if low > most_leaves:
            problems.append(
                f"a tree of depth {params.depth} with at most {hi} children a node has at most "
                f"{most_leaves} leaves, fewer than the {low} to evaluate (leaves_evaluated)"
            )
        least = _least_leaves(lo, params.depth)
        alternating = params.players in (("max", "min"), ("min", "max"))
        # The minimal tree holds where MAX and MIN alternate and no bound on the leaves lets a
        # node stop at the best value it could have.
        if alternating and params.conventions.bounds is None and high < least:
            problems.append(
                f"alpha-beta evaluates at least {least} leaves of a tree of depth {params.depth} "
                f"with {lo} children a node or more (the minimal tree), more than the {high} "
                "allowed (leaves_evaluated)"
            )
    if params.pruned_nodes is not None:
        low, high = params.pruned_nodes
        if low > most_nodes:
            problems.append(
                f"a tree of depth {params.depth} with at most {hi} children a node has "
                f"{most_nodes} nodes below its root, fewer than the {low} to mark (pruned_nodes)"
            )
        if high < params.min_cutoffs:
            problems.append(
                f"each of the {params.min_cutoffs} cutoffs asked for (min_cutoffs) prunes a node "
                f"to mark: at most {high} (pruned_nodes) cannot be"
            )
    kind = KINDS.get(params.kind)
    # A kind without misconception variants that names its blind answers (best-order) is
    # measured by them (`ExerciseKind.blind_facts`).
    blind = kind.blind_answers if kind is not None and not kind.calibrates else ()
    if (params.answers is not None or params.never_key) and (
        kind is None or not (blind or (kind.counts_errors and kind.calibrates))
    ):
        problems.append(
            f"answers and never_key need a kind whose key counts answers and whose "
            f"misconceptions are known; {params.kind} is not one"
        )
    elif params.answers is not None and params.answers[0] > most_nodes + 1:
        problems.append(
            f"a tree of depth {params.depth} with at most {hi} children a node has {most_nodes} "
            f"nodes below its root, fewer than the {params.answers[0]} answers asked (answers)"
        )
    elif blind and hi < 2 and (params.never_key or (params.answers and params.answers[0] > 0)):
        problems.append(
            f"with one child a node there is no order to choose: every {params.kind} tree's "
            "order as given is the best, with no node to order (never_key, answers)"
        )
    elif blind and params.answers is not None and params.answers[0] > most_nodes // hi:
        problems.append(
            f"a tree of depth {params.depth} with at most {hi} children a node has "
            f"{most_nodes // hi} nodes with children, fewer than the {params.answers[0]} "
            "nodes to order asked (answers)"
        )
    for code in params.never_key:
        variant = VARIANTS.get(code)
        if blind:
            if code not in blind:
                problems.append(
                    f"never_key: {params.kind} has no misconception variants; the answer it can "
                    f"keep from giving the key is {', '.join(blind)}, not {code!r}"
                )
        elif variant is None:
            problems.append(f"never_key: unknown misconception {code!r} ({', '.join(VARIANTS)})")
        elif params.kind not in variant.kinds:
            problems.append(
                f"never_key: {code} never changes an answer of kind {params.kind}, so it gives "
                "the key on every tree"
            )
    return problems


def band_rejection(
    tree: Tree, result: SearchResult, params: GeneratorParams | ChanceParams
) -> str | None:
    """Why ``tree`` is outside the band of ``params``, in words (None: within it); ``result``
    the alpha-beta search of ``tree`` under the conventions."""
    if params.max_cutoffs is not None and len(result.cutoffs) > params.max_cutoffs:
        return f"more than {params.max_cutoffs} cutoffs"
    if params.leaves_evaluated is not None:
        lo, hi = params.leaves_evaluated
        if not lo <= len(result.leaf_order) <= hi:
            return f"leaves evaluated outside {lo}-{hi}"
    if params.pruned_nodes is not None:
        lo, hi = params.pruned_nodes
        if not lo <= len(result.pruned) <= hi:
            return f"nodes to mark pruned outside {lo}-{hi}"
    if params.answers is None and not params.never_key:
        return None
    cut = tree.cut(params.conventions.depth)
    if not KINDS[params.kind].counts_errors:  # measured by its blind answers (band_problems)
        facts = KINDS[params.kind].blind_facts(cut, params.conventions)
        if params.answers is not None:
            lo, hi = params.answers
            if not lo <= facts.answers <= hi:
                return f"answers to give outside {lo}-{hi}"
        for code in params.never_key:
            if facts.scores[code] == 1.0:
                return f"{code} gives the key"
        return None
    exercise = counted(KINDS[params.kind])
    key = exercise.analysis(cut, params.conventions)[1]
    if params.answers is not None:
        lo, hi = params.answers
        if not lo <= exercise.answer_count(key) <= hi:
            return f"answers to give outside {lo}-{hi}"
    if params.never_key:
        for variant, answer in exercise.variant_answers(cut, params.conventions):
            if variant.code in params.never_key and answer == key:
                return f"{variant.code} gives the key"
    return None


def _refusal(tries: int, reasons: dict[str, int]) -> str:
    """What most candidates failed on, in words, for a GenerationError."""
    if not reasons:
        return ""
    reason, count = max(reasons.items(), key=lambda item: item[1])
    return f" (most often: {reason}, {count} of {tries} candidates)"


def rejection(tree: Tree, params: GeneratorParams) -> str | None:
    """Why ``tree`` does not meet the constraints of ``params``, in words (None: it does)."""
    result = solve(tree, params.conventions)
    if len(result.cutoffs) < params.min_cutoffs:
        return f"fewer than {params.min_cutoffs} cutoffs"
    if sum(c.deep for c in result.cutoffs) < params.min_deep_cutoffs:
        return f"fewer than {params.min_deep_cutoffs} deep cutoffs"
    outside = band_rejection(tree, result, params)
    if outside is not None:
        return outside
    if params.expose is not None:
        found = exposing(tree, params.conventions, params.kind).get(params.expose, 0)
        if found < params.expose_nodes:
            return f"{params.expose} exposed at fewer than {params.expose_nodes} nodes"
        if params.expose_alone and not tells_apart(
            tree, params.conventions, params.kind, params.expose
        ):
            return f"{params.expose} not told apart from another misconception"
    if params.misconception_errors and not telling(
        tree, params.conventions, params.kind, params.misconception_errors, False, result
    ):
        return f"a misconception fewer than {params.misconception_errors} errors from the key"
    if params.discriminating and not is_discriminating(tree, params.conventions, params.kind):
        return "two answers alike (not discriminating)"
    return None


def accepts(tree: Tree, params: GeneratorParams) -> bool:
    """Whether ``tree`` meets the constraints of ``params``."""
    return rejection(tree, params) is None


def exposing(tree: Tree, conventions: Conventions, kind: str) -> dict[str, int]:
    """Each misconception whose answer of ``kind`` differs from the key on ``tree``, with the
    number of nodes where it differs: a tree exposes the misconceptions listed here."""
    if kind not in KINDS or not KINDS[kind].calibrates:
        return {}
    exercise = counted(KINDS[kind])
    tree = tree.cut(conventions.depth)
    key = exercise.analysis(tree, conventions)[1]
    found = {}
    for variant, answer in exercise.variant_answers(tree, conventions):
        distance = exercise.distance(key, answer)
        if distance:
            found[variant.code] = distance
    return found


def tells_apart(tree: Tree, conventions: Conventions, kind: str, code: str) -> bool:
    """Whether misconception ``code`` changes the answer of ``kind`` on ``tree`` and no other
    misconception gives the same answer: graded, an answer like it names ``code`` alone (the
    grader's own rule, ``ExerciseKind.explaining``)."""
    if not KINDS[kind].calibrates:
        return False
    exercise = counted(KINDS[kind])
    tree = tree.cut(conventions.depth)
    for variant, answer in exercise.variant_answers(tree, conventions):
        if variant.code == code:
            return [v.code for v in exercise.explaining(tree, conventions, answer)] == [code]
    return False


def is_discriminating(tree: Tree, conventions: Conventions, kind: str = default_kind()) -> bool:
    """The key and the answers of every variant that applies to ``kind`` are all different."""
    exercise = counted(KINDS[kind])
    seen = [exercise.project(solve(tree, conventions))]
    for variant in variants_for(kind, tree, conventions):
        answer = exercise.project(variant.run(tree, conventions), variant)
        if answer in seen:  # stop at the first collision: most candidates fail early
            return False
        seen.append(answer)
    return len(seen) > 1


def generate(params: GeneratorParams, seed: int | str, deadline: float | None = None) -> Tree:
    """A tree meeting ``params``, the same for the same seed on every machine; GenerationError
    after ``params.max_tries`` candidates, or once ``time.thread_time()`` passes ``deadline``
    (a request's CPU budget, the calling thread's own, so a busy machine does not shrink it: the
    tree, when found in time, is the same as without one).
    Players with a chance level: the chance generator's tree (``generate_chance``)."""
    if params.chance:
        return generate_chance(params.chance_params(), seed, deadline)
    rng = random.Random(f"grader-tree-v{GENERATOR_VERSION}:{seed}")
    reasons: dict[str, int] = {}
    for tries in range(params.max_tries):
        if deadline is not None and time.thread_time() > deadline:
            raise GenerationError(
                "no tree met the constraints within the time allowed; loosen them (fewer "
                "cutoffs, a wider value range, more branching or depth)" + _refusal(tries, reasons)
            )
        tree = random_tree(params, rng)
        reason = rejection(tree, params)
        if reason is None:
            return tree
        reasons[reason] = reasons.get(reason, 0) + 1
    raise GenerationError(
        f"no tree met the constraints in {params.max_tries} tries; loosen them (fewer cutoffs, "
        "a wider value range, more branching or depth: discriminating trees need depth 4 or more "
        "when players alternate) or allow more tries" + _refusal(params.max_tries, reasons)
    )


# -- chance trees (expectimax, expectiminimax, Star1) ---------------------------------------------

CHANCE_GENERATOR_VERSION = 1
# The readable probabilities a generated chance node uses: every way to share 1 among 2, 3 or 4
# children with 1/2, 1/3, 2/3, 1/4 and 3/4 (and 1/3 thrice), in a fixed order (seeds depend on it).
_H, _T, _Q = Fraction(1, 2), Fraction(1, 3), Fraction(1, 4)
CHANCE_SPLITS: dict[int, tuple[tuple[Fraction, ...], ...]] = {
    2: ((_H, _H), (_T, 1 - _T), (1 - _T, _T), (_Q, 1 - _Q), (1 - _Q, _Q)),
    3: ((_T, _T, _T), (_H, _Q, _Q), (_Q, _H, _Q), (_Q, _Q, _H)),
    4: ((_Q, _Q, _Q, _Q),),
}


@dataclass(frozen=True)
class ChanceParams:
    """What a generated chance tree must be: its shape and players (``chance`` levels), the
    range [L, U] its leaf values are drawn from (the bounds the exercise states, Star1's, unless
    the conventions state wider ones), the probabilities (uniform, or drawn from
    ``CHANCE_SPLITS``) and the constraints: at least ``min_cutoffs`` cutoffs in all and
    ``min_star1_cutoffs`` at chance nodes, and ``discriminating`` (the key and every
    misconception that applies to ``kind`` give pairwise different answers)."""

    depth: int = 3
    branching: tuple[int, int] = (2, 3)
    players: tuple[str, ...] = ("max", "chance")
    bounds: tuple[int, int] = (0, 10)
    uniform: bool = False
    conventions: Conventions = field(default_factory=Conventions)
    min_star1_cutoffs: int = 0
    discriminating: bool = False
    kind: str = default_kind()
    max_tries: int = 2000
    min_cutoffs: int = 0
    # Each misconception that changes the answer of `kind` answers with at least this many
    # errors (2: it earns at most 0.5 on the tree, so none passes for a slip).
    misconception_errors: int = 0
    # The band of difficulty, as `GeneratorParams` has it.
    max_cutoffs: int | None = None
    leaves_evaluated: tuple[int, int] | None = None
    pruned_nodes: tuple[int, int] | None = None
    answers: tuple[int, int] | None = None
    never_key: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", _players(self.players))
        for name in ("branching", "bounds"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in ("leaves_evaluated", *RANGE_BANDS):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "never_key", _codes(self.never_key))
        lo, hi = self.branching
        low, high = self.bounds
        problems = []
        if "chance" not in self.players:
            problems.append("a chance tree needs 'chance' among its players, e.g. max,chance")
        if not 1 <= self.depth <= 6:
            problems.append(f"depth must be 1..6, got {self.depth}")
        if not 2 <= lo <= hi <= 4:
            problems.append(
                f"branching must be a range within 2..4 (a chance node's split), got {lo}-{hi}"
            )
        if not -1000 <= low < high <= 1000 or not all(type(b) is int for b in self.bounds):
            problems.append(f"bounds must be whole numbers L < U within ±1000, got {low}..{high}")
        stated = self.conventions.bounds
        if stated is not None and not stated[0] <= low <= high <= stated[1]:
            problems.append(
                f"the leaf values {low}..{high} must lie within the conventions' bounds "
                f"{fmt(stated[0])}..{fmt(stated[1])}"
            )
        if self.conventions.depth is not None:
            problems.append("generated chance trees have no evaluations: no depth limit")
        if self.kind not in KINDS or not KINDS[self.kind].chance_trees:
            problems.append(f"a {self.kind} exercise is not made on chance trees")
        elif self.discriminating and not KINDS[self.kind].calibrates:
            problems.append(f"{self.kind} has no misconception variants to discriminate")
        if (
            min(self.min_star1_cutoffs, self.min_cutoffs) < 0
            or not 1 <= self.max_tries <= MAX_TRIES
        ):
            problems.append(f"min_cutoffs, min_star1_cutoffs >= 0 and max_tries 1..{MAX_TRIES}")
        problems += _errors_problems(self.misconception_errors, self.kind)
        if not problems:
            problems += band_problems(self)
        if not problems and chance_exact_digits(self) > MAX_EXACT_DIGITS:
            problems.append(f"its exact values could pass {MAX_EXACT_DIGITS} digits")
        if problems:
            raise GenerationError("; ".join(problems))
        if stated is None:  # the exercise states the range its leaves are drawn from
            object.__setattr__(self, "conventions", replace(self.conventions, bounds=self.bounds))


def chance_exact_digits(params: ChanceParams) -> int:
    """The declared bound on the digits of a generated chance tree's exact values (what
    `Tree.exact_digits` bounds for any tree): every chance node's probabilities have
    denominators dividing 12 (``CHANCE_SPLITS``, and uniform over 2..4 children), so a value's
    denominator divides 12 to the power of the levels, and its magnitude is at most the bounds'."""
    magnitude = max(abs(b) for b in params.bounds) + 1
    return math.ceil(params.depth * math.log10(12) + math.log10(magnitude)) + 1


def random_chance_tree(params: ChanceParams, rng: random.Random) -> Tree:
    """A tree of ``params``' shape: integer leaves in [L, U], each chance node's probabilities
    uniform or one of ``CHANCE_SPLITS`` for its width."""
    lo, hi = params.branching
    low, high = params.bounds

    def build(depth: int) -> Node:
        if depth == params.depth:
            return Node(low + _below(rng, high - low + 1))
        width = lo + _below(rng, hi - lo + 1)
        chance = None
        if params.players[depth % len(params.players)] == "chance" and not params.uniform:
            splits = CHANCE_SPLITS[width]
            chance = splits[_below(rng, len(splits))]
        return Node(None, tuple(build(depth + 1) for _ in range(width)), chance=chance)

    return Tree(build(0), params.players)


def accepts_chance(tree: Tree, params: ChanceParams) -> bool:
    """Whether ``tree`` meets the constraints of ``params``."""
    return chance_rejection(tree, params) is None


def chance_rejection(tree: Tree, params: ChanceParams) -> str | None:
    """Why ``tree`` does not meet the constraints of ``params``, in words (None: it does)."""
    result = solve(tree, params.conventions)
    if len(result.cutoffs) < params.min_cutoffs:
        return f"fewer than {params.min_cutoffs} cutoffs"
    if sum(c.chance for c in result.cutoffs) < params.min_star1_cutoffs:
        return f"fewer than {params.min_star1_cutoffs} Star1 cutoffs"
    outside = band_rejection(tree, result, params)
    if outside is not None:
        return outside
    if not (params.discriminating or params.misconception_errors):
        return None
    if telling(
        tree,
        params.conventions,
        params.kind,
        params.misconception_errors,
        params.discriminating,
        result,
    ):
        return None
    return "a misconception too close to the key, or two answers alike"


def telling(
    tree: Tree,
    conventions: Conventions,
    kind: str,
    errors: int,
    discriminating: bool = False,
    reference: SearchResult | None = None,
) -> bool:
    """Whether every misconception that applies to ``kind`` and changes its answer on ``tree``
    answers with at least ``errors`` errors (it scores at most ``error_score(errors)``, so none
    passes for fewer slips; one that gives the key is not exposed by this tree, as calibration
    counts it), and, when ``discriminating``, the key and their answers are pairwise different
    (``is_discriminating``). One pass, stopping at the first variant that fails; ``reference``:
    the alpha-beta search of ``tree`` already made (used when the kind's reference is it, and
    for a variant that searches by the reference's rules: ``cut-node-marked`` reports the same
    search otherwise)."""
    exercise = counted(KINDS[kind])
    made: dict[TreeSearchRules, SearchResult] = {}  # each search once, by its rules
    if reference is None or not exercise.prunes:
        reference = exercise.reference(tree, conventions)
    else:
        made[TreeSearchRules(conventions)] = reference
    key = exercise.project(reference)
    ceiling = error_score(errors)
    seen = [key]
    for variant in variants_for(kind, tree, conventions):
        rules = variant.rules(tree, conventions)
        if rules not in made:
            made[rules] = search(tree, rules)
        answer = exercise.project(made[rules], variant)
        if discriminating and answer in seen:
            return False
        if errors and answer != key and exercise.score(tree, key, answer)[0] > ceiling:
            return False
        seen.append(answer)
    return len(seen) > 1 or not discriminating


def generate_chance(params: ChanceParams, seed: int | str, deadline: float | None = None) -> Tree:
    """A chance tree meeting ``params``, the same for the same seed on every machine (a
    ``random.Random`` of its own, drawn from by ``random()`` alone); GenerationError as
    ``generate``."""
    rng = random.Random(f"grader-chance-tree-v{CHANCE_GENERATOR_VERSION}:{seed}")
    reasons: dict[str, int] = {}
    for tries in range(params.max_tries):
        if deadline is not None and time.thread_time() > deadline:
            raise GenerationError(
                "no chance tree met the constraints within the time allowed"
                + _refusal(tries, reasons)
            )
        tree = random_chance_tree(params, rng)
        reason = chance_rejection(tree, params)
        if reason is None:
            return tree
        reasons[reason] = reasons.get(reason, 0) + 1
    raise GenerationError(
        f"no chance tree met the constraints in {params.max_tries} tries; loosen them (fewer "
        "Star1 cutoffs, a wider branching or band, more depth) or allow more tries"
        + _refusal(params.max_tries, reasons)
    )
