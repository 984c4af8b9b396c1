"""Request and response models of the JSON API; they validate and they document."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from grader.gametree import KINDS

_KIND = Field(description="the exercise kind", json_schema_extra={"enum": list(KINDS)})


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Body(Request):
    """A JSON body: types as the document states them (no true for 1, no "3" for 3)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class CreateExercise(Body):
    """A practice exercise: generated from `params`, or typed as `tree` or `leaves`."""

    kind: str = _KIND
    params: dict[str, Any] | None = Field(
        None, description="generator parameters (depth, branching, values, min_cutoffs, ...)")
    conventions: dict[str, str | int] | None = Field(
        None, description="ties prune|explore, values soft|hard, order ltr|rtl, depth (plies)")
    tree: list[Any] | None = Field(None, description="a typed tree as nested lists of numbers; "
                                   '{"eval": v, "children": [...]} for a node with an evaluation')
    players: list[str] | None = Field(None, description="player per level, default max,min")
    leaves: str | None = Field(None, max_length=8000,
                               description="leaf values, comma-separated (needs branching, depth)")
    branching: int | None = Field(None, ge=1, le=8)
    depth: int | None = Field(None, ge=1, le=8)


class SubmitAttempt(Body):
    answer: dict[str, Any] = Field(description="the answer in the shape the kind asks for")


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
    conventions: dict[str, str | int]
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
        description="whether GET attempts_url's attempts carry the solution")
    solution_when: str = Field(description="when the key and the replay are shown, in words")
    urls: dict[str, str] = Field(description="self, attempts, page; new_variant where allowed")


class Solution(BaseModel):
    key: dict[str, Any] = Field(description="the correct answer in the answer's own shape")
    search: dict[str, Any] = Field(
        description="the reference alpha-beta search: value, best_move, leaf_order, pruned, "
                    "pruned_all, cutoffs, nodes (alpha/beta per node), trace (steps)")
    replays: dict[str, Any] | None = Field(
        None, description="best-order: the searches of the answer's order ('yours') and of the "
                          "best order ('best'), with paths on the tree as drawn")


class Attempt(BaseModel):
    attempt_id: int
    exercise_id: int
    user: str | None
    kind: str
    answer: dict[str, Any]
    score: float
    parts: dict[str, Any]
    feedback: list[Any]
    diagnosis: str | None = Field(description="the misconception code, if one explains it")
    diagnosis_text: str | None
    first_wrong: dict[str, Any] | None = Field(
        description="path, label, step and message of the first wrong step")
    seed: str | None
    generator_version: str | None
    conventions: dict[str, str | int]
    created_at: str
    solution: Solution | None = Field(
        description="present once the solution may be shown (see the exercise's replay rules)")


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
        description="page; exercise (exercise slots) or upload (engine slots)")


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
