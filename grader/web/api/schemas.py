"""Every request and response model of the JSON API: spectree validates requests with them and
writes the OpenAPI document from them, so the document cannot drift from what the server
accepts."""

# Whole: every API model in one module, from which spectree writes the document.

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    GetJsonSchemaHandler,
    PlainValidator,
    RootModel,
    Tag,
    WithJsonSchema,
    create_model,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema
from spectree.model_adapter.pydantic_adapter import BaseFile

from grader.checkers.variants import either
from grader.gametree import KINDS, VARIANTS
from grader.gametree.generator import (
    DEFAULTS,
    MAX_BRANCHING,
    MAX_DEPTH,
    MAX_EVALUATION_NOISE,
    MAX_EXPOSE_NODES,
    MAX_MISCONCEPTION_ERRORS,
    MAX_TRIES,
    MAX_VALUE,
)
from grader.gametree.kinds import AnswerPart, ExerciseKind, default_kind
from grader.gametree.numbers import NUMBER_TEXT, NumberError, read_number
from grader.gametree.solver import ORDERS, REFUSED_PAIR, TIES, VALUES, refused_pair
from grader.gametree.tree import MAX_PLAYERS, ROLES

# -- what the document states beyond pydantic's own schema -----------------------------------------


class _Closed:
    """An object keyed by node paths: no other key (pydantic refuses it; the document says so)."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema["additionalProperties"] = False
        return schema


def _among(allowed: tuple[str, ...] | list[str], what: str) -> PlainValidator:
    """A string among `allowed` (the core's own list; the document states it as an enum)."""

    def check(value: object) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {str(value)[:40]!r}")
        return value

    return PlainValidator(check, json_schema_input_type=Literal[tuple(allowed)])


Kind = Annotated[str, _among(list(KINDS), "the exercise kind")]
Player = Annotated[str, _among(ROLES, "a player")]  # a tree's levels: max, min or chance
#: Conventions as stored and shown: ties, values, order (text), depth (plies), bounds [L, U].
StoredConventions = dict[str, str | int | list[int | float | str]]


def _integral(value: object) -> object:
    """A whole number written 3.0 is the integer JSON Schema says it is (3); anything else is
    left for the strict int to refuse (true, "3", 3.5)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: An integer as JSON Schema has it: 3 or 3.0, never 3.5, "3" or true (after any constraint:
#: `Annotated[int, Field(ge=0), INTEGRAL]`, so the document keeps the constraint).
INTEGRAL = BeforeValidator(_integral)
Integer = Annotated[int, INTEGRAL]

#: A number, as JSON has it: an int stays an int (a leaf's 3 is not 3.0), never true or false.
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]

#: A node's path: the child indices from the root, joined by dots ("1.0": the first child of
#: the root's second child); `NODE_PATH` also takes "", the root.
PATH = r"^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$"
NODE_PATH = r"^((0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*)?$"
Path = Annotated[str, Field(pattern=PATH)]
NodePath = Annotated[str, Field(pattern=NODE_PATH)]


def _score(value: object) -> int | float | str:
    """A number as an answer writes one (the core's grammar, ``gametree.numbers``: NumberError,
    a ValueError, carries its words into the 400), kept as sent: the grader reads it again."""
    read_number(value)
    if isinstance(value, int | float | str):
        return value
    raise NumberError(value)  # a Fraction: never in JSON


_SCORE_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {"type": "number"},
        {"type": "string", "pattern": NUMBER_TEXT},
    ],
    "description": "a number, or text: a whole number or decimal (-5, −5, 4.67), a fraction "
    "(14/3, 14 / 3: at most 30 digits a side), or infinity (inf, -inf, ∞, −∞); spaces "
    "around it are ignored",
}
Score = Annotated[int | float | str, PlainValidator(_score), WithJsonSchema(_SCORE_SCHEMA)]


def _score_or_blank(value: object) -> int | float | str | None:
    return value if value is None or value == "" else _score(value)


ScoreOrBlank = Annotated[
    int | float | str | None,
    PlainValidator(_score_or_blank),
    WithJsonSchema(
        {
            "oneOf": [*_SCORE_SCHEMA["oneOf"], {"const": ""}, {"type": "null"}],
            "description": "a number, or text as for a score (-5, −5, 14 / 3, −∞); empty or "
            "null for a node left blank",
        }
    ),
]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Body(Request):
    """A JSON body: types as the document states them (no true for 1, no "3" for 3)."""

    model_config = ConfigDict(extra="forbid", strict=True)


# -- a typed tree ----------------------------------------------------------------------------------


#: A chance node's child's probability: exact, as a fraction's text ("1/3") or a number (0.25).
Probability = Annotated[
    Number | Annotated[str, Field(pattern=r"^[0-9]+(/[1-9][0-9]*|\.[0-9]+)?$")],
    Field(description="a probability: 1/3, 0.25"),
]


class NodeObject(Body):
    """An internal node with an evaluation (where a depth limit stops the search), a terminal
    node (a win or loss, scored where it stands: it needs `eval`), or a chance node (`chance`:
    its children's probabilities, each > 0 and summing to 1, or true for equally likely; a
    422 names the node whose probabilities do not)."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "if": {"properties": {"terminal": {"const": True}}, "required": ["terminal"]},
            "then": {"properties": {"eval": {"type": "number"}}, "required": ["eval"]},
        },
    )

    eval: Number | None = None
    children: Annotated[list[TreeNode], Field(min_length=1)]
    terminal: bool = False
    chance: list[Probability] | Literal[True] | None = None

    @model_validator(mode="after")
    def _terminal_has_eval(self) -> NodeObject:
        if self.terminal and self.eval is None:
            raise ValueError('a terminal node needs an evaluation ("eval")')
        return self


def _node_shape(node: Any) -> str | None:
    """Which shape a node takes, by its JSON type (None: none, which pydantic says); a node
    already read (pydantic asks again to write it) by its model."""
    if isinstance(node, list):
        return "children"
    if isinstance(node, dict | NodeObject):
        return "object"
    if isinstance(node, int | float) and not isinstance(node, bool):
        return "leaf"
    return None


class TreeNode(
    RootModel[
        Annotated[
            Annotated[Number, Tag("leaf")]
            | Annotated[list["TreeNode"], Field(min_length=1), Tag("children")]
            | Annotated[NodeObject, Tag("object")],
            Discriminator(
                _node_shape,
                custom_error_type="node_shape",
                custom_error_message="a node is a number (a leaf), a list of children, or "
                'an object {"eval", "children", "terminal", "chance"}',
            ),
        ]
    ]
):
    """A node of a typed tree: a leaf's value, a list of children, or a node object."""

    model_config = ConfigDict(strict=True)


NodeObject.model_rebuild()

#: The root's children; the service also bounds the size (at most 1024 leaves, 2048 nodes, 16
#: levels below the root: a 422 beyond), which no schema states.
TypedTree = Annotated[list[TreeNode], Field(min_length=1)]
Players = Annotated[list[Player], Field(min_length=1, max_length=MAX_PLAYERS)]


class Conventions(Body):
    """How the search runs; each has its default; one pair of ties and values is refused (the
    schema's `not`)."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "not": {
                "properties": {
                    "ties": {"const": REFUSED_PAIR[0]},
                    "values": {"const": REFUSED_PAIR[1]},
                },
                "required": ["ties", "values"],
            }
        },
    )

    ties: Annotated[str, _among(TIES, "ties")] = Field(
        "prune",
        description="prune: cut when alpha >= beta; explore: only outside the window (CS188)",
    )
    values: Annotated[str, _among(VALUES, "values")] = Field(
        "soft", description="what a cut node returns"
    )
    order: Annotated[str, _among(ORDERS, "order")] = Field(
        "ltr", description="children searched left to right, or right to left"
    )
    depth: Annotated[int, Field(ge=1, le=64), INTEGRAL] | None = Field(
        None, description="a depth limit in plies"
    )
    bounds: Annotated[list[Score], Field(min_length=2, max_length=2)] | None = Field(
        None,
        description="[L, U]: the leaf values' bounds, with which Star1 cuts at chance nodes "
        "(both finite); L <= U, else a 422",
    )

    @model_validator(mode="after")
    def _explore_is_soft(self) -> Conventions:
        problem = refused_pair(self.ties, self.values)
        if problem:
            raise ValueError(problem)
        return self


# -- generator parameters --------------------------------------------------------------------------

_RANGE_TEXT = r"^-?[0-9]+((\.\.|:|-)-?[0-9]+)?$"


_RANGE_WORDS = "a number, [lo, hi], or text lo-hi, lo..hi, lo:hi"
_Width = Annotated[int, Field(ge=1, le=MAX_BRANCHING), INTEGRAL]
_Value = Annotated[int, Field(ge=-MAX_VALUE, le=MAX_VALUE), INTEGRAL]
_Count = Annotated[int, Field(ge=0), INTEGRAL]
#: Ranges as the generator reads them: a number, [lo, hi], or text ("2-3", "-9..9").
Branching = Annotated[
    _Width
    | Annotated[list[_Width], Field(min_length=2, max_length=2)]
    | Annotated[str, Field(pattern=rf"^[1-{MAX_BRANCHING}]((\.\.|:|-)[1-{MAX_BRANCHING}])?$")],
    Field(description=f"children per node, within 1..{MAX_BRANCHING}: {_RANGE_WORDS}"),
]
ValueRange = Annotated[
    _Value
    | Annotated[list[_Value], Field(min_length=2, max_length=2)]
    | Annotated[str, Field(pattern=_RANGE_TEXT)],
    Field(description=f"leaf values, within ±{MAX_VALUE}: {_RANGE_WORDS}"),
]
CountRange = Annotated[
    _Count
    | Annotated[list[_Count], Field(min_length=2, max_length=2)]
    | Annotated[str, Field(pattern=r"^[0-9]+((\.\.|:|-)[0-9]+)?$")],
    Field(description=f"how many leaves the search evaluates: {_RANGE_WORDS}"),
]


class GeneratorParams(Body):
    """What the generator makes trees from. Rules across parameters (branching ** depth at most
    5000 leaves, lo <= hi, enough values for distinct leaves, a depth limit above the trees'
    depth needing evaluations, what a misconception can expose) and constraints no tree meets
    within the time budget are a 422 that says which."""

    depth: Integer = Field(DEFAULTS["depth"], ge=1, le=MAX_DEPTH)
    branching: Branching = list(DEFAULTS["branching"])
    values: ValueRange = list(DEFAULTS["values"])
    distinct: bool = False
    players: Players | None = None
    min_cutoffs: Integer = Field(0, ge=0)
    min_deep_cutoffs: Integer = Field(0, ge=0)
    leaves_evaluated: CountRange | None = None
    discriminating: bool = False
    evaluations: bool = False
    evaluation_noise: Integer = Field(DEFAULTS["evaluation_noise"], ge=1, le=MAX_EVALUATION_NOISE)
    expose: Annotated[str, _among(list(VARIANTS), "expose")] | None = Field(
        None, description="a misconception whose answer the tree should expose"
    )
    expose_nodes: Integer = Field(DEFAULTS["expose_nodes"], ge=1, le=MAX_EXPOSE_NODES)
    expose_alone: bool = Field(
        False,
        description="and no other misconception gives that answer (an answer like it names "
        "that misconception alone); needs expose",
    )
    max_tries: Integer = Field(DEFAULTS["max_tries"], ge=1, le=MAX_TRIES)
    min_star1_cutoffs: Integer = Field(
        0, ge=0, description="chance trees: at least this many Star1 cutoffs"
    )
    misconception_errors: Integer = Field(
        0,
        ge=0,
        le=MAX_MISCONCEPTION_ERRORS,
        description="each misconception that changes the answer costs at least this many errors",
    )
    # A band of difficulty: what a class's trees may differ by.
    max_cutoffs: Integer | None = Field(None, ge=0, description="a band: at most this many cutoffs")
    pruned_nodes: CountRange | None = Field(
        None, description="a band: how many nodes to mark pruned (the topmost of each subtree)"
    )
    answers: CountRange | None = Field(
        None, description="a band: how many answers a student gives (the key's size)"
    )
    never_key: list[Annotated[str, _among(list(VARIANTS), "never_key")]] | None = Field(
        None, description="a band: misconceptions that never give the key on a tree"
    )


def _params_or_tree(schema: dict[str, Any]) -> None:
    """The document says what the validator refuses: generator parameters with a typed tree."""
    schema["not"] = {
        "required": ["params"],
        "properties": {"params": {"type": "object", "minProperties": 1}},
        "anyOf": [
            {"required": ["tree"], "properties": {"tree": {"type": "array"}}},
            {"required": ["leaves"], "properties": {"leaves": {"type": "string"}}},
        ],
    }
    schema["if"] = {"required": ["leaves"], "properties": {"leaves": {"type": "string"}}}
    schema["then"] = {
        "required": ["branching", "depth"],
        "properties": {"branching": {"type": "integer"}, "depth": {"type": "integer"}},
    }


#: Leaf values as the Delphi visualizer takes them: numbers separated by commas or semicolons.
_LEAVES = r"^[ ]*(-?[0-9]+(\.[0-9]+)?)?([ ]*[,;][ ]*(-?[0-9]+(\.[0-9]+)?)?)*[ ]*$"


class CreateExercise(Body):
    """A practice exercise: generated from `params`, or typed as `tree` or `leaves`."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_params_or_tree)

    kind: Kind = Field(description="the exercise kind")
    params: GeneratorParams | None = Field(
        None, description="generator parameters (not with a typed tree)"
    )
    conventions: Conventions | None = None
    tree: TypedTree | None = Field(
        None,
        description="a typed tree as nested lists of numbers; "
        '{"eval": v, "children": [...]} for a node with an evaluation, '
        '{"chance": ["1/3", "2/3"], "children": [...]} for a chance node',
    )
    players: Players | None = Field(
        None, description="player per level (max, min, chance), default max,min"
    )
    leaves: str | None = Field(
        None,
        max_length=8000,
        pattern=_LEAVES,
        description="leaf values, comma-separated (needs branching and depth; their count is "
        "branching ** depth, else a 422)",
    )
    branching: Annotated[int, Field(ge=1, le=8), INTEGRAL] | None = None
    depth: Annotated[int, Field(ge=1, le=8), INTEGRAL] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> CreateExercise:
        given = self.params is not None and bool(self.params.model_fields_set)  # {} gives none
        if given and (self.tree is not None or self.leaves is not None):
            raise ValueError("give either params (to generate) or a tree (typed), not both")
        if self.leaves is not None and (self.branching is None or self.depth is None):
            raise ValueError("typed leaves need branching and depth")
        return self


# -- answers, one shape per kind ------------------------------------------------------------------


def _unique(items: list[Any]) -> list[Any]:
    if len(set(map(str, items))) != len(items):
        raise ValueError("an item is listed twice")
    return items


#: What each part type a kind's answer shape names (``gametree.kinds.base.PartType``) is here.
_PART_TYPES: dict[str, Any] = {
    "paths": list[Path],
    "unique-paths": Annotated[
        list[Path], AfterValidator(_unique), Field(json_schema_extra={"uniqueItems": True})
    ],
    "number": Score,
    "numbers-by-node": Annotated[dict[NodePath, ScoreOrBlank], _Closed()],
    "pairs-by-node": Annotated[
        dict[NodePath, Annotated[list[Score], Field(min_length=2, max_length=2)] | None],
        _Closed(),
    ],
    "orders-by-node": Annotated[
        dict[
            NodePath,
            Annotated[
                list[Annotated[int, Field(ge=0), INTEGRAL]],
                AfterValidator(_unique),
                Field(min_length=1, json_schema_extra={"uniqueItems": True}),
            ],
        ],
        _Closed(),
    ],
    "count": Annotated[int, Field(ge=0), INTEGRAL],
}


def _field(part: AnswerPart) -> Any:
    description = part.description or None
    if part.required:
        return _PART_TYPES[part.type], Field(description=description)
    return _PART_TYPES[part.type] | None, Field(None, description=description)


def _answer_models() -> dict[str, type[Body]]:
    """Each registered kind's answer model, by the key that only its shape has (its first key);
    kinds whose answers have the same shape share one model, named after the first of them."""
    sharing: dict[str, list[ExerciseKind]] = {}
    for kind in KINDS.values():
        sharing.setdefault(next(iter(kind.answer_shape)), []).append(kind)
    models: dict[str, type[Body]] = {}
    for tag, kinds in sharing.items():
        first = kinds[0]
        if any(kind.answer_shape != first.answer_shape for kind in kinds):
            raise ValueError(f"the kinds {either([k.name for k in kinds])} share {tag!r} only")
        name = "".join(word.capitalize() for word in first.name.split("-")) + "Answer"
        fields: dict[str, Any] = {key: _field(part) for key, part in first.answer_shape.items()}
        doc = f"{', '.join(k.name for k in kinds)}: {first.answer_doc}"
        models[tag] = create_model(name, __base__=Body, __doc__=doc, **fields)
    return models


#: Each shape's model, by the key that only it has (each kind's ``answer_shape``).
_SHAPES: dict[str, type[Body]] = _answer_models()


def _shape(answer: Any) -> str | None:
    """Which shape an answer takes, by its keys (None: none, which pydantic says); an answer
    already read (pydantic asks again to write it) by its model."""
    for key, model in _SHAPES.items():
        if isinstance(answer, model):
            return key
    if isinstance(answer, dict):
        for key in answer:
            if key in _SHAPES:
                return key
    return None


def _shape_words(tag: str) -> str:
    """A shape by its keys: "pruned (and value)"."""
    shape = next(k for k in KINDS.values() if next(iter(k.answer_shape)) == tag).answer_shape
    others = [key for key, part in shape.items() if part.required and key != tag]
    return f"{tag} (and {either(others)})" if others else tag


if TYPE_CHECKING:
    Answer: TypeAlias = Body  # one of the shapes' models, each a Body
else:
    Answer = Annotated[
        Union[tuple(Annotated[model, Tag(tag)] for tag, model in _SHAPES.items())],  # noqa: UP007
        Discriminator(
            _shape,
            custom_error_type="answer_shape",
            custom_error_message="an answer is an object with one of "
            + either([_shape_words(tag) for tag in _SHAPES]),
        ),
    ]


class SubmitAttempt(Body):
    """An answer, in the shape of the exercise's kind: one shape is stated for each kind. An
    answer of another kind's shape, or naming nodes the exercise's tree does not have, is a 422
    whose `kind` names the exercise's kind."""

    answer: Answer


class PreviewRequest(Body):
    """A slot's parameters to preview: generated from `params`, or the fixed `tree`."""

    kind: Kind = default_kind()
    conventions: Conventions | None = None
    params: GeneratorParams | None = None
    tree: TypedTree | None = Field(
        None, description="a fixed tree (nested lists) instead of params"
    )
    players: Players | None = None


def _whole_number(value: object) -> int:
    """A form field's text as an int (the form gives text only; the range is the view's)."""
    try:
        return int(str(value))
    except (TypeError, ValueError):
        raise ValueError("assignment_id and slot_index must be whole numbers") from None


def _chosen_file(value: object) -> object:
    if getattr(value, "filename", None):  # a werkzeug FileStorage with a name
        return value
    raise ValueError("choose a file: engine.py or a .zip with engine.py at its top")


_FormId = Annotated[int, BeforeValidator(_whole_number)]


def _file_required(schema: dict[str, Any]) -> None:
    """The document says `file` is required (it is: its validator refuses none, with why)."""
    schema["properties"]["file"].pop("default", None)
    schema.setdefault("required", []).append("file")


class EngineUpload(Request):
    """A multipart/form-data upload of an engine."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_file_required)

    assignment_id: _FormId
    slot_index: _FormId
    file: Annotated[BaseFile, BeforeValidator(_chosen_file)] = Field(
        None,
        validate_default=True,
        description="engine.py (at most 256 KiB), or a .zip with engine.py at its top "
        "(at most 1 MiB); a file named otherwise (.png, .txt) is refused with a 400",
    )
    tournament: bool = Field(False, description="opt in to the slot's tournaments")


class AttemptQuery(Request):
    exercise_id: int | None = None
    assignment_id: int | None = None
    limit: int = Field(200, ge=1, le=1000)


class LateCost(BaseModel):
    """What late work costs, as the service stores it (`deadlines.lateness_for`)."""

    days_late: int = Field(description="whole days late: each started day counts")
    slip_days: int = Field(description="the course's slip days it spends")
    penalty: float = Field(description="the share taken off the score, 0 to 1")
    words: str = Field(description="the same, in the words the exercise page says")


class Exercise(BaseModel):
    id: int
    kind: str
    prompt: str
    tree: list[Any] = Field(description="nested lists; numbers are leaf values")
    players: list[str]
    labels: dict[str, str] = Field(description="node path -> label (A, B, ...)")
    conventions: StoredConventions
    conventions_text: str
    seed: str | None
    generator_version: str | None
    practice: bool
    assignment_id: int | None
    slot_index: int | None
    variant: int
    attempts_allowed: int | None = Field(description="null: unlimited")
    attempts_used: int
    practice_allowed: bool
    replay_allowed: bool
    due_at: str | None = Field(
        description="the caller's own due date (a student's extension counts), ISO 8601 with "
        "the offset of the course's time zone at that instant; null: none"
    )
    due_words: str = Field(description="the due date as the pages say it, in the course's zone")
    extended: bool = Field(description="whether the caller's due date is their extension's")
    timezone: str = Field(description="the course's IANA time zone (UTC for practice)")
    solution_available: bool = Field(
        description="whether GET attempts_url's attempts carry the solution"
    )
    solution_when: str = Field(description="when the key and the replay are shown, in words")
    late_cost: LateCost | None = Field(
        description="while an answer sent now would be late and is still taken: what it would "
        "cost; null when on time, for practice and once late answers are no longer taken"
    )
    urls: dict[str, str] = Field(description="self, attempts, page; new_variant where allowed")


class Aim(BaseModel):
    aim: str | None = Field(description="what the weak-spots tree was made to expose, in words")


class Solution(BaseModel):
    key: dict[str, Any] = Field(description="the correct answer in the answer's own shape")
    search: dict[str, Any] | None = Field(
        description="the reference alpha-beta search: value, best_move, leaf_order, pruned, "
        "pruned_all, cutoffs, nodes (alpha/beta per node, and its best child), trace (steps); "
        "the same for every attempt on the exercise, so null in the response to POST "
        "/api/exercises/{exercise_id}/attempts (which carries the key) and present in GET "
        "/api/attempts/{attempt_id}"
    )
    replays: dict[str, Any] | None = Field(
        None,
        description="best-order: the searches of the answer's order ('yours') and of the "
        "best order ('best'), with paths on the tree as drawn",
    )


class Attempt(BaseModel):
    attempt_id: int
    exercise_id: int
    user: str | None
    kind: str
    answer: dict[str, Any]
    score: float | None = Field(
        description="null while the assignment holds its scores from the student "
        "(released_at says until when; staff see every score)"
    )
    parts: dict[str, Any]
    feedback: list[Any]
    diagnosis: str | None = Field(
        description="the misconception code, if one explains it; where several give this "
        "answer, the first in the library's order (diagnosis_text names them all)"
    )
    diagnosis_text: str | None
    first_wrong: dict[str, Any] | None = Field(
        description="path, label, step and message of the first wrong step"
    )
    scoring_words: str | None = Field(
        description="how the score came about, in words: the errors counted (where they are "
        "once the solution may be shown), the scoring rule, any late penalty; null for an "
        "attempt graded before grades kept their errors"
    )
    seed: str | None
    generator_version: str | None
    conventions: StoredConventions
    created_at: str
    solution: Solution | None = Field(
        description="present once the solution may be shown (see the exercise's replay rules)"
    )
    released_at: str | None = Field(
        description="while the score is held: when it is released (ISO 8601, the course's "
        "offset); null once shown"
    )
    held_words: str | None = Field(description="while held: what the page says, in words")
    days_late: int = Field(description="whole days late (each started day counts); 0 on time")
    slip_days: int = Field(description="the course's slip days this attempt spent")
    penalty: float = Field(description="the share taken off the score for lateness, 0 to 1")
    late_words: str = Field(
        description='what lateness cost, in the words the result says; "" when on time'
    )


class AttemptList(BaseModel):
    attempts: list[Attempt]


class Slot(BaseModel):
    index: int
    title: str | None
    kind: str
    attempts_allowed: int | None
    practice_allowed: bool
    replay_allowed: bool
    due_at: str | None = Field(
        description="the caller's own due date (a student's extension counts), ISO 8601 with "
        "the offset of the course's time zone at that instant; null: none"
    )
    urls: dict[str, str] = Field(
        description="page; exercise (exercise slots) or upload (engine slots)"
    )


class Assignment(BaseModel):
    id: int
    title: str
    course_id: int
    course: str
    preset: str | None
    timezone: str = Field(description="the course's IANA time zone, which its dates are shown in")
    due_at: str | None = Field(
        description="the caller's own due date (a student's extension counts), ISO 8601 with "
        "the offset of the course's time zone at that instant; null: none"
    )
    slots: list[Slot]


class AssignmentList(BaseModel):
    assignments: list[Assignment]


class CourseRef(BaseModel):
    id: int
    name: str
    role: str


class Me(BaseModel):
    id: int
    email: str
    role: str
    courses: list[CourseRef]


class Status(BaseModel):
    status: str


class Error(BaseModel):
    """Every error the API gives (4xx, 5xx)."""

    error: str
    details: list[dict[str, Any]] | None = Field(
        None, description="a request that breaks its schema: each problem's loc and msg"
    )
    kind: str | None = Field(
        None,
        description="a 422 to an answer: the exercise's kind, whose shape the answer must take",
    )


class JsonObject(RootModel[dict[str, Any]]):
    """A JSON object whose keys the document does not list (a stored results file)."""


class OpenAPIDocument(BaseModel):
    openapi: str
    info: dict[str, Any]
    paths: dict[str, Any]
    components: dict[str, Any]


class FirstVerdict(BaseModel):
    """An upload's first verdict: its correctness tests (move generation, perft, search), given
    while the timing and the games still run. The final score adds the rest; LMS passback sends
    only the final score."""

    score: float = Field(description="the points of the correctness tests, before any penalty")
    max_score: float
    tests: int
    failed: int
    parts: list[str] = Field(description="the kinds of test it covers, by their titles")
    running: list[str] = Field(description="the kinds of test still to run, by their titles")


class TimingDeferred(BaseModel):
    """An upload whose timing was deferred because the grading machine was busy: it is
    queued again at low priority and its timing tests run again later; the score, and the LMS
    passback, come only then."""

    words: str = Field(description="what the page says: the machine's state and what happens")
    deferrals: int = Field(description="times its timing was deferred so far")


class EngineSubmission(BaseModel):
    id: int
    user: str | None
    assignment_id: int
    slot_index: int
    filename: str
    size: int
    sha256: str
    suite: str
    status: str = Field(description="queued, running, done, failed or superseded")
    attempts: int = Field(description="times a worker took it (internal errors, dead workers)")
    queue_position: int | None
    estimated_seconds: float | None = Field(
        description="while queued: seconds until the result, estimated from the suite's latest"
        " grading times and the grading slots alive (null: not queued, or nothing measured yet)"
    )
    progress: dict[str, Any] = Field(
        description="while running: tests_done, tests_total, games_done, games_total, label"
    )
    first_verdict: FirstVerdict | None = Field(
        description="while running, once the correctness tests have ended, and while queued "
        "again for a deferred timing (null while scores are held)"
    )
    timing_deferred: TimingDeferred | None = Field(
        default=None,
        description="while its timing waits for a quieter machine, or is being timed again",
    )
    score: float | None
    max_score: float | None
    days_late: int
    penalty: float
    slip_days: int = Field(description="the course's slip days this upload spent")
    late_words: str = Field(
        description='what lateness cost, in the words its page says; "" when on time'
    )
    error: str | None = Field(description="why it failed: the grader's fault, not charged")
    tournament_opt_in: bool
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    results: dict[str, Any] | None = Field(description="results.json (Gradescope) once done")
    summary: dict[str, Any] | None = Field(
        description="once done: tests; failed (the failed graded tests grouped by the mistake "
        "or verdict they share, each test's wrong parts in differs); passed (per test kind); "
        "timing (CPU vs reference per depth), games, elo"
    )
    released_at: str | None = Field(
        description="while its score is held from the caller, its owner: when it is released "
        "(ISO 8601, the course's offset); score, max_score, results and summary are null and "
        "its results, games and timing are refused (403) until then. Null once shown"
    )
    held_words: str | None = Field(description="while held: what the page says, in words")
    urls: dict[str, str]


class LeaderRow(BaseModel):
    user: str | None
    submission_id: int
    score: float | None
    max_score: float | None
    elo: float | None
    elo_text: str | None


class SlotEngines(BaseModel):
    submissions: list[EngineSubmission]
    leaderboard: list[LeaderRow]


class EngineGame(BaseModel):
    number: int
    name: str | None
    headers: dict[str, str]
    result: str | None
    pdn: str
    plies: list[dict[str, Any]] = Field(description="ply, move (PDN), fen; ply 0 the start")


class Gradebook(BaseModel):
    course_id: int
    course: str
    assignments: list[dict[str, Any]] = Field(
        description="id, title, points, score_policy, late_percent_per_day, slots"
    )
    students: list[dict[str, Any]] = Field(
        description="user_id, email, name, assignments (id -> points), slots, total, "
        "slip_days_used (id -> days), held_until (id -> when the student sees their scores on "
        "that assignment, ISO 8601 in the course's zone: only the sums held from them now)"
    )
    max_total: int


class AssignmentStatistics(BaseModel):
    id: int
    title: str
    slots: list[dict[str, Any]] = Field(
        description="per slot: students, attempts, mean_score, share_perfect, "
        "mean_first_score, discrimination, histogram"
    )


class Statistics(BaseModel):
    assignments: list[AssignmentStatistics]


class Misconceptions(BaseModel):
    codes: list[str]
    wrong_attempts: int
    total: dict[str, int]
    by_assignment: dict[str, dict[str, int]]
    by_slot: dict[str, dict[str, int]]
    by_week: dict[str, dict[str, int]]
    engine_codes: list[str]
    by_engine_slot: dict[str, dict[str, int]]
    engine_runs: dict[str, int]


class AuditEntry(BaseModel):
    """An entry of the course's audit log: a regrade, an extension granted or removed, the slip
    days' budget changed, with each score it changed."""

    id: int
    at: str
    by: str | None
    what: str
    changes: Any
    allow_lower: bool
    attempts_total: int
    attempts_changed: int
    details: Any


class AuditLog(BaseModel):
    entries: list[AuditEntry]


class DeprecatedRegrades(BaseModel):
    """The audit log under the name it had when it held regrades only (`GET
    /api/courses/{course_id}/regrades`, deprecated: read `.../audit`)."""

    regrades: list[AuditEntry]


class TermRegradeRequest(Body):
    """A regrade to compute into a preview: the course (neither id), one assignment, or one of
    its slots (both), and the reason each student whose score changes is told."""

    assignment_id: int | None = Field(None, ge=1)
    slot_index: int | None = Field(None, ge=0, description="needs assignment_id")
    reason: str = Field(min_length=1, max_length=300)


class TermRegradeChoice(Body):
    """What to do with a computed preview: replace every changed score, keep the higher of
    each, or discard it."""

    choice: Literal["replace", "keep_higher", "discard"]


class RegradeStudent(BaseModel):
    """A student whose score on a slot changes: the score that counts before and after (0..1,
    under the assignment's policy, after any late penalty), and what changed."""

    user_id: int
    student: str
    slot_id: int
    slot: str
    old: float
    new: float
    changes: list[str]


class RegradeSandboxRun(BaseModel):
    """An upload whose suite gained tests it never ran, those tests run in the sandbox by the
    regrade: its score before and with them (0..1 and in points), and each test that changed."""

    id: int = Field(description="the upload")
    user_id: int
    student: str
    slot_id: int
    slot: str
    old: float
    new: float
    old_points: list[float] = Field(description="[score, max_score] stored")
    new_points: list[float] = Field(description="[score, max_score] with the tests run")
    changes: list[str]


class RegradeHistogram(BaseModel):
    labels: list[str] = Field(description="each bin's change in percentage points")
    counts: list[int] = Field(description="the students in each bin")


class TermRegrade(BaseModel):
    """A term regrade: its status (queued, running, done, failed), and once done its preview;
    `choice` is null until the staff choose."""

    id: int
    course_id: int
    assignment_id: int | None
    slot_id: int | None
    scope: str
    reason: str
    status: str
    error: str | None
    created_at: str
    choice: str | None
    chosen_at: str | None
    examined: int | None = Field(None, description="scores other versions gave, scored again")
    current: int | None = Field(None, description="scores the versions of now gave, left alone")
    progress: str | None = Field(
        None, description="while it runs, in words: '3 of 12 uploads run in the sandbox'"
    )
    rerun: list[int] | None = Field(
        None, description="uploads the sandbox could not score (an error of the grader)"
    )
    sandbox: list[RegradeSandboxRun] | None = Field(
        None, description="uploads whose suite gained tests, those tests run in the sandbox"
    )
    students: list[RegradeStudent] | None = None
    histogram: RegradeHistogram | None = None


class TermRegrades(BaseModel):
    regrades: list[TermRegrade]


class TermRegradeApplied(BaseModel):
    changed: int = Field(description="scores changed")
    kept: int = Field(description="scores kept because the new one was lower (keep_higher)")
    stale: int = Field(description="scores left alone because they changed since the preview")


class Preview(BaseModel):
    tree: dict[str, Any]
    labels: dict[str, str]
    conventions: StoredConventions
    key: dict[str, Any]
    search: dict[str, Any]
    samples: int
    discriminating: float
    separations: list[dict[str, Any]]
    calibration: list[dict[str, Any]]
