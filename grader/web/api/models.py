"""Every request and response model of the JSON API: spectree validates requests with them and
writes the OpenAPI document from them, so the document cannot drift from what the server
accepts."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, RootModel, WithJsonSchema
from spectree.model_adapter.pydantic_adapter import BaseFile

from grader.gametree import KINDS

_KIND = Field(description="the exercise kind", json_schema_extra={"enum": list(KINDS)})
#: Stored conventions: ties, values, order (text), depth (plies), bounds [L, U].
_Conventions = dict[str, str | int | list[int | float | str]]


#: A typed tree's node, as the document states it (the service's parser checks every level):
#: a leaf's value, a list of children, or an object that needs `children`: with an evaluation,
#: or a chance node with its children's probabilities.
_NODE: dict[str, Any] = {
    "oneOf": [
        {"type": "number", "description": "a leaf's value"},
        {"type": "array", "minItems": 1, "description": "an internal node's children"},
        {
            "type": "object",
            "description": "an internal node with an evaluation, or a chance node",
            "properties": {
                "eval": {"type": "number"},
                "children": {"type": "array", "minItems": 1},
                "terminal": {"type": "boolean"},
                "chance": {
                    "description": 'a chance node: its children\'s probabilities ("1/3", 0.25; '
                    "each > 0, summing to 1), or true for equally likely",
                    "oneOf": [
                        {"type": "array", "items": {"type": ["number", "string"]}},
                        {"const": True},
                    ],
                },
            },
            "required": ["children"],
            "additionalProperties": False,
        },
    ]
}
_TREE_SCHEMA = WithJsonSchema(
    {"anyOf": [{"type": "array", "minItems": 1, "items": _NODE}, {"type": "null"}]}
)


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Body(Request):
    """A JSON body: types as the document states them (no true for 1, no "3" for 3)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class CreateExercise(Body):
    """A practice exercise: generated from `params`, or typed as `tree` or `leaves`."""

    kind: str = _KIND
    params: dict[str, Any] | None = Field(
        None, description="generator parameters (depth, branching, values, min_cutoffs, ...)"
    )
    conventions: _Conventions | None = Field(
        None,
        description="ties prune|explore, values soft|hard, order ltr|rtl, depth (plies), "
        "bounds [L, U] (the leaf values' bounds, with which Star1 cuts at chance nodes)",
    )
    tree: Annotated[list[Any] | None, _TREE_SCHEMA] = Field(
        None,
        description="a typed tree as nested lists of numbers; "
        '{"eval": v, "children": [...]} for a node with an evaluation, '
        '{"chance": ["1/3", "2/3"], "children": [...]} for a chance node',
    )
    players: list[str] | None = Field(
        None, description="player per level (max, min, chance), default max,min"
    )
    leaves: str | None = Field(
        None, max_length=8000, description="leaf values, comma-separated (needs branching, depth)"
    )
    branching: int | None = Field(None, ge=1, le=8)
    depth: int | None = Field(None, ge=1, le=8)


class SubmitAttempt(Body):
    answer: dict[str, Any] = Field(description="the answer in the shape the kind asks for")


class PreviewRequest(Body):
    kind: str = "prune"
    conventions: _Conventions = Field(default_factory=dict)
    params: dict[str, Any] = Field(default_factory=dict)
    tree: list[Any] | None = Field(
        None, description="a fixed tree (nested lists) instead of params"
    )
    players: list[str] | None = None


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


class Exercise(BaseModel):
    id: int
    kind: str
    prompt: str
    tree: list[Any] = Field(description="nested lists; numbers are leaf values")
    players: list[str]
    labels: dict[str, str] = Field(description="node path -> label (A, B, ...)")
    conventions: _Conventions
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
    due_at: str | None
    solution_available: bool = Field(
        description="whether GET attempts_url's attempts carry the solution"
    )
    solution_when: str = Field(description="when the key and the replay are shown, in words")
    urls: dict[str, str] = Field(description="self, attempts, page; new_variant where allowed")


class Aim(BaseModel):
    aim: str | None = Field(description="what the weak-spots tree was made to expose, in words")


class Solution(BaseModel):
    key: dict[str, Any] = Field(description="the correct answer in the answer's own shape")
    search: dict[str, Any] | None = Field(
        description="the reference alpha-beta search: value, best_move, leaf_order, pruned, "
        "pruned_all, cutoffs, nodes (alpha/beta per node), trace (steps); null in "
        "the response to an attempt on a tree of 512 nodes or more (the response's "
        "bound), present in GET /api/attempts/{attempt_id}"
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
    score: float
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
    seed: str | None
    generator_version: str | None
    conventions: _Conventions
    created_at: str
    solution: Solution | None = Field(
        description="present once the solution may be shown (see the exercise's replay rules)"
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
    due_at: str | None
    urls: dict[str, str] = Field(
        description="page; exercise (exercise slots) or upload (engine slots)"
    )


class Assignment(BaseModel):
    id: int
    title: str
    course_id: int
    course: str
    preset: str | None
    due_at: str | None
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


class JsonObject(RootModel[dict[str, Any]]):
    """A JSON object whose keys the document does not list (a stored results file)."""


class OpenAPIDocument(BaseModel):
    openapi: str
    info: dict[str, Any]
    paths: dict[str, Any]
    components: dict[str, Any]


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
    progress: dict[str, Any] = Field(
        description="while running: tests_done, tests_total, games_done, games_total, label"
    )
    score: float | None
    max_score: float | None
    days_late: int
    penalty: float
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
        description="user_id, email, name, assignments (id -> points), slots, total"
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


class Regrade(BaseModel):
    id: int
    at: str
    by: str | None
    what: str
    changes: Any
    allow_lower: bool
    attempts_total: int
    attempts_changed: int
    details: Any


class Regrades(BaseModel):
    regrades: list[Regrade]


class Preview(BaseModel):
    tree: dict[str, Any]
    labels: dict[str, str]
    conventions: _Conventions
    key: dict[str, Any]
    search: dict[str, Any]
    samples: int
    discriminating: float
    separations: list[dict[str, Any]]
    calibration: list[dict[str, Any]]
