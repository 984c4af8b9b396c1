"""The assignment editor: assignments (release, due date, late policy, score policy) and their
slots (kind, generator parameters or a fixed textbook tree, conventions, attempts, practice),
a preview, and the textbook-tree builder (leaf values, nested lists, CS188 `.test` files).

Changing a slot's conventions or its fixed tree regrades its attempts in the same transaction
(`regrade.regrade_slot_in`); changing an assignment's due date or late policy recomputes lateness.
"""

# Whole: slots and assignments checked once for saving and preview alike.

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import (
    KINDS,
    VARIANTS,
    Conventions,
    GenerationError,
    GeneratorParams,
    Tree,
    TreeFormatError,
    generate,
    solve,
    variants_for,
)
from grader.gametree.calibrate import Row, calibrate_trees
from grader.gametree.kinds import counted
from grader.gametree.tree import read_cs188
from grader.gametree.variants import ALL_VARIANTS
from grader.models import SCORE_POLICIES, Assignment, Exercise, Slot, User
from grader.services import Conflict, Invalid, Unprocessable, costly
from grader.services.courses import courses
from grader.services.courses.staff import Staff, staff, staff_for_assignment, staff_for_slot
from grader.services.teaching.regrade import regrade_slot_in
from grader.services.transactions import writing
from grader.services.trees.exercises import generator_deadline, tree_of, typed_tree
from grader.services.trees.game_practice import game_params

PREVIEW_SAMPLES = 30
PREVIEW_SEED = "preview"
CALIBRATION_SAMPLES = 20  # trees the preview's calibration table is measured on


# -- the textbook-tree builder -------------------------------------------------------------------


def build_tree(
    source: str,
    *,
    leaves: str | None = None,
    branching: int | None = None,
    depth: int | None = None,
    nested: Any = None,
    cs188: str | None = None,
    players: Any = None,
) -> Tree:
    """A fixed tree from leaf values (the Delphi visualizer's comma-separated input with branching
    and depth), a nested list (typed, or drawn on the page), or a CS188 GraphGameTreeTest."""
    if source == "leaves":
        return typed_tree(leaves=leaves or "", branching=branching, depth=depth, players=players)
    if source in ("nested", "draw"):
        return typed_tree(tree=nested, players=players)
    if source == "cs188":
        try:
            problem = read_cs188(cs188 or "")
            # The tree as CS188 searches it: cut at the file's depth, win/lose states as leaves.
            tree = problem.tree.cut(problem.plies)
        except TreeFormatError as exc:
            raise Invalid(f"CS188 file: {exc}") from exc
        return typed_tree(tree=tree.to_nested(), players=tree.players)
    raise Invalid(f"unknown tree source {source!r}")


def export_cs188(slot: Slot | None = None, tree: Tree | None = None) -> str:
    if tree is None:
        if slot is None or slot.tree is None:
            raise Invalid("only fixed trees export to CS188")
        tree = Tree.from_dict(slot.tree)
    plies = Conventions.from_dict(slot.conventions).depth if slot is not None else None
    try:
        return tree.to_cs188(plies=plies)
    except TreeFormatError as exc:
        raise Invalid(str(exc)) from exc


def slot_tree_cs188(user: User, assignment_id: int, index: int) -> tuple[str, str]:
    """The slot's fixed tree as a CS188 `.test` file, and a file name."""
    _, slot = staff_for_slot(user, assignment_id, index)
    if slot.tree is None:
        raise Invalid("this exercise is generated; only fixed trees export to CS188")
    return export_cs188(slot), f"assignment-{assignment_id}-exercise-{index + 1}.test"


# -- slot specifications ---------------------------------------------------------------------


@dataclass(frozen=True)
class SlotInput:
    """What the editor sends for one slot; `tree` set makes it a fixed (textbook) exercise."""

    kind: str
    conventions: dict[str, Any]
    params: dict[str, Any] = field(default_factory=dict)
    tree: Tree | None = None
    title: str | None = None
    attempts_allowed: int | None = 3
    practice_allowed: bool = True
    replay_allowed: bool = True
    due_at: dt.datetime | None = None


@dataclass(frozen=True)
class CheckedSlot:
    kind: str
    conventions: dict[str, str]
    params: dict[str, Any]
    tree: dict[str, Any] | None


def check_slot(spec: SlotInput) -> CheckedSlot:
    """The slot's fields checked by the core's own validators (as presets are)."""
    if spec.kind not in KINDS:
        raise Invalid(f"kind must be one of {', '.join(KINDS)}, not {spec.kind!r}")
    try:
        conventions = Conventions.from_dict(spec.conventions).to_dict()
    except ValueError as exc:
        raise Invalid(f"conventions: {exc}") from exc
    if spec.attempts_allowed is not None and spec.attempts_allowed < 1:
        raise Invalid("attempts allowed: at least 1 (leave empty for unlimited)")
    if spec.tree is not None:
        try:  # a depth limit or terminal nodes: the exercise is the tree the search sees
            tree = spec.tree.cut(Conventions.from_dict(conventions).depth)
        except TreeFormatError as exc:
            raise Unprocessable(f"tree: {exc}") from exc
        try:  # the tree for its kind, as a typed practice tree is: no slot every attempt refuses
            KINDS[spec.kind].check_tree(tree)
        except ValueError as exc:
            raise Unprocessable(f"tree: {exc}") from exc
        # A tree from a game keeps what rebuilds its boards; other fixed trees keep nothing.
        return CheckedSlot(spec.kind, conventions, game_params(spec.params), tree.to_dict())
    try:
        params = GeneratorParams.from_dict(
            {**spec.params, "kind": spec.kind, "conventions": conventions}
        ).to_dict()
    except ValueError as exc:
        raise Unprocessable(f"generator parameters: {exc}") from exc
    return CheckedSlot(spec.kind, conventions, params, None)


# -- assignments ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssignmentInput:
    title: str
    release_at: dt.datetime | None = None
    due_at: dt.datetime | None = None
    late_percent_per_day: float | None = None
    score_policy: str = "best"
    # Scores and keys held from students until scores_release_at, or (None) their due date.
    hold_scores: bool = False
    scores_release_at: dt.datetime | None = None


def check_assignment(data: AssignmentInput) -> None:
    """Refuses an assignment's fields that cannot be saved (also before placing one in an LMS)."""
    if not (data.title or "").strip() or len(data.title) > 200:
        raise Invalid("an assignment needs a title (at most 200 characters)")
    if data.score_policy not in SCORE_POLICIES:
        raise Invalid(f"score policy must be one of {', '.join(SCORE_POLICIES)}")
    if data.late_percent_per_day is not None and not 0 <= data.late_percent_per_day <= 100:
        raise Invalid("late penalty: 0 to 100 percent per day")
    if data.release_at and data.due_at and data.release_at > data.due_at:
        raise Invalid("the release date is after the due date")
    if data.hold_scores and data.scores_release_at is None and data.due_at is None:
        raise Invalid("scores held until the due date need a due date (or a release date)")


def create_assignment(
    user: User, course_id: int, data: AssignmentInput, preset: str | None = None
) -> Assignment:
    """An assignment, empty or with a preset's slots."""
    staff(user, course_id, change=True)
    check_assignment(data)
    return courses.create_assignment(
        course_id,
        preset or None,
        data.title.strip(),
        data.due_at,
        release_at=data.release_at,
        late_percent_per_day=data.late_percent_per_day,
        score_policy=data.score_policy,
        hold_scores=data.hold_scores,
        scores_release_at=data.scores_release_at if data.hold_scores else None,
    )


def update_assignment(user: User, assignment_id: int, data: AssignmentInput) -> int:
    """Saves the assignment; a changed due date, late policy or score policy regrades (lateness)
    every slot with attempts, never lowering a score. Returns how many attempts changed."""
    staff_for_assignment(user, assignment_id, change=True)
    check_assignment(data)
    changed = 0
    with writing() as session:
        assignment = session.get_one(Assignment, assignment_id)
        before = {
            "due_at": assignment.due_at,
            "late_percent_per_day": assignment.late_percent_per_day,
        }
        assignment.title = data.title.strip()
        assignment.release_at = data.release_at
        assignment.due_at = data.due_at
        assignment.late_percent_per_day = data.late_percent_per_day
        assignment.score_policy = data.score_policy
        release = data.scores_release_at if data.hold_scores else None
        if (assignment.hold_scores, assignment.scores_release_at) != (data.hold_scores, release):
            # The release moments changed: the sweep sends to the LMS at the next one passed.
            assignment.scores_sent_at = None
        assignment.hold_scores = data.hold_scores
        assignment.scores_release_at = release
        after = {
            "due_at": assignment.due_at,
            "late_percent_per_day": assignment.late_percent_per_day,
        }
        diff = {
            k: [_jsonable(before[k]), _jsonable(after[k])] for k in before if before[k] != after[k]
        }
        if diff:
            for slot in assignment.slots:
                log = regrade_slot_in(session, slot, user.id, diff, allow_lower=False)
                changed += log.attempts_changed if log else 0
    return changed


def delete_assignment(user: User, assignment_id: int) -> str:
    """Deletes the assignment with its slots, exercises and attempts (instructors only)."""
    staff_for_assignment(user, assignment_id, change=True)
    with writing() as session:
        assignment = session.get_one(Assignment, assignment_id)
        title = assignment.title
        for slot in list(assignment.slots):
            session.delete(slot)
        session.delete(assignment)
    return title


def _jsonable(value: Any) -> Any:
    return value.isoformat() + "Z" if isinstance(value, dt.datetime) else value


# -- slots ---------------------------------------------------------------------------------------


def add_slot(user: User, assignment_id: int, spec: SlotInput) -> Slot:
    _, assignment = staff_for_assignment(user, assignment_id, change=True)
    checked = check_slot(spec)
    with writing() as session:
        return courses.append_slot(
            session,
            assignment,
            title=(spec.title or "").strip() or None,
            kind=checked.kind,
            params=checked.params,
            conventions=checked.conventions,
            tree=checked.tree,
            attempts_allowed=spec.attempts_allowed,
            practice_allowed=spec.practice_allowed,
            replay_allowed=spec.replay_allowed,
            due_at=spec.due_at,
        )


@dataclass(frozen=True)
class SlotSaved:
    slot: Slot
    regraded: int | None  # attempts whose score changed; None when nothing needed a regrade


def update_slot(
    user: User, assignment_id: int, index: int, spec: SlotInput, *, allow_lower: bool = False
) -> SlotSaved:
    """Saves a slot. New conventions or a new fixed tree apply to every student's exercise of
    the slot and regrade their attempts (no score goes down unless `allow_lower`), in one
    transaction with its audit row. New generator parameters apply to variants made from now on."""
    _, found = staff_for_slot(user, assignment_id, index, change=True)
    checked = check_slot(spec)
    with writing() as session:
        slot = session.get_one(Slot, found.id)
        has_exercises = (
            session.execute(
                sa.select(sa.func.count(Exercise.id)).where(Exercise.slot_id == slot.id)
            ).scalar_one()
            > 0
        )
        if has_exercises and checked.kind != slot.kind:
            raise Conflict(
                "students have started this exercise: its kind cannot change "
                "(add a new exercise instead)"
            )
        if has_exercises and (checked.tree is None) != (slot.tree is None):
            raise Conflict(
                "students have started this exercise: it cannot switch between a "
                "generated and a fixed tree"
            )
        changes: dict[str, list[Any]] = {}
        if checked.conventions != slot.conventions:
            changes["conventions"] = [slot.conventions, checked.conventions]
        if checked.tree != slot.tree:
            changes["tree"] = [slot.tree, checked.tree]
        if (spec.due_at or None) != slot.due_at:
            changes["due_at"] = [_jsonable(slot.due_at), _jsonable(spec.due_at)]
        slot.title = (spec.title or "").strip() or None
        slot.kind = checked.kind
        slot.params = checked.params
        slot.conventions = checked.conventions
        slot.tree = checked.tree
        slot.attempts_allowed = spec.attempts_allowed
        slot.practice_allowed = spec.practice_allowed
        slot.replay_allowed = spec.replay_allowed
        slot.due_at = spec.due_at
        log = None
        if changes and has_exercises:
            for exercise in session.scalars(sa.select(Exercise).where(Exercise.slot_id == slot.id)):
                exercise.conventions = checked.conventions
                if checked.tree is not None:
                    exercise.tree = checked.tree["tree"]
                    exercise.players = list(checked.tree["players"])
                    facts = costly.grading_facts(exercise.kind, tree_of(exercise))
                    exercise.node_count, exercise.dp_size = facts["node_count"], facts["dp_size"]
            session.flush()
            log = regrade_slot_in(session, slot, user.id, changes, allow_lower=allow_lower)
    return SlotSaved(slot, log.attempts_changed if log else None)


def delete_slot(user: User, assignment_id: int, index: int) -> None:
    """Deletes a slot with its exercises and attempts; later slots move up."""
    _, found = staff_for_slot(user, assignment_id, index, change=True)
    with writing() as session:
        session.delete(session.get(Slot, found.id))
        session.flush()
        later = list(
            session.scalars(
                sa.select(Slot)
                .where(Slot.assignment_id == assignment_id, Slot.index > index)
                .order_by(Slot.index)
            )
        )
        for slot in later:  # one at a time: (assignment, index) is unique
            slot.index -= 1
            session.flush()


# -- the preview ---------------------------------------------------------------------------------

# Why a misconception may not be told apart, and what to change.
HINTS = {
    "shallow-cutoffs": "needs a deep cutoff: depth 4 or more (min deep cutoffs 1)",
    "ties-flipped": "needs equal leaf values: a narrow value range, values not distinct",
    "leaves-only": "needs a cutoff above the leaf level: depth 3 or more",
    "wrong-order": "needs children whose order matters: more cutoffs (min cutoffs 2)",
    "cut-node-marked": "needs at least one cutoff",
    "no-pruning": "needs at least one cutoff",
    "bounds-swapped": "needs cutoffs at both MAX and MIN nodes: depth 3 or more",
    "values-convention": "needs a cut node whose value lies outside its window",
    "players-swapped": "rarely hidden; try more leaf values",
    "chance-as-min": "needs a chance node whose children differ",
    "chance-unweighted": "needs a chance node whose children are not equally likely",
    "chance-cut-as-min": "needs a chance node below a MAX node with a bound set (depth 3 or more)",
    "star1-unseen-mass": "needs Star1 cutoffs (min Star1 cutoffs 1) and finite bounds",
    "star1-windows": "needs a chance node whose child cuts on Star1's window (depth 4 or more)",
}


@dataclass(frozen=True)
class Separation:
    code: str
    applies: float  # share of samples where the variant applies to the kind and tree
    differs: float  # share where its answer differs from the key
    told_apart: float  # share where it differs from the key and from every other variant
    hint: str | None


@dataclass(frozen=True)
class Preview:
    tree: Tree
    conventions: Conventions
    key: dict[str, Any]
    search: dict[str, Any]
    samples: int
    separations: list[Separation]
    discriminating: float  # share of samples on which every applicable variant is told apart
    error: str | None = None
    # Mean scores of the key, a slip and each misconception on trees these parameters generate.
    calibration: list[Row] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tree": self.tree.to_dict(),
            "labels": self.tree.labels(),
            "conventions": self.conventions.to_dict(),
            "key": self.key,
            "search": self.search,
            "samples": self.samples,
            "discriminating": self.discriminating,
            "separations": [s.__dict__ for s in self.separations],
            "calibration": [row.to_dict() for row in self.calibration],
        }


def separations(
    kind: str, trees: list[Tree], conventions: Conventions
) -> tuple[list[Separation], float]:
    """Per misconception of `kind`, how often the trees tell it apart from the key and from the
    other variants (pure: the core's solver and variants only)."""
    exercise = counted(KINDS[kind])
    chance = any(tree.has_chance for tree in trees)  # the chance misconceptions on chance trees
    codes = [
        code for code, v in ALL_VARIANTS.items() if kind in v.kinds and (chance or code in VARIANTS)
    ]
    counts = {code: [0, 0, 0] for code in codes}
    all_apart = 0
    for tree in trees:
        key = exercise.project(solve(tree, conventions))
        answers = {
            v.code: exercise.project(v.run(tree, conventions), v)
            for v in variants_for(kind, tree, conventions)
        }
        every = bool(answers)
        for code in codes:
            if code not in answers:
                every = False
                continue
            counts[code][0] += 1
            if answers[code] != key:
                counts[code][1] += 1
                if all(a != answers[code] for c, a in answers.items() if c != code):
                    counts[code][2] += 1
                    continue
            every = False
        all_apart += every
    n = max(1, len(trees))
    result = []
    for code in codes:
        applies, differs, apart = (c / n for c in counts[code])
        result.append(
            Separation(code, applies, differs, apart, HINTS.get(code) if apart < 0.5 else None)
        )
    return result, all_apart / n


def preview(
    user: User, course_id: int, spec: SlotInput, *, samples: int = PREVIEW_SAMPLES
) -> Preview:
    """A sample variant with its key and reference search, and which misconceptions the slot's
    parameters can tell apart: `samples` trees generated WITHOUT the discriminating constraint
    (nor `misconception_errors`; a fixed tree: that one tree)."""
    staff(user, course_id)
    checked = check_slot(spec)
    with costly.permit("a preview"):  # staff only, clicked again and again: the permit bounds it
        return _preview(checked, samples)


def _preview(checked: CheckedSlot, samples: int) -> Preview:
    conventions = Conventions.from_dict(checked.conventions)
    if checked.tree is not None:
        tree = Tree.from_dict(checked.tree)
        trees = [tree]
        graded = trees
    else:
        params = GeneratorParams.from_dict(checked.params)
        loose = GeneratorParams.from_dict(
            {
                **checked.params,
                "discriminating": False,
                "max_tries": min(params.max_tries, 500),
                "misconception_errors": 0,
            }
        )
        deadline = generator_deadline(2)  # one budget for the sample variant and the samples
        try:
            tree = generate(params, PREVIEW_SEED, deadline)
        except GenerationError as exc:
            raise Unprocessable(f"the generator cannot meet these parameters: {exc}") from exc
        trees = []
        for i in range(max(1, min(samples, 100))):
            try:
                trees.append(generate(loose, f"{PREVIEW_SEED}-{i}", deadline))
            except GenerationError:
                continue
        # The calibration uses the slot's own parameters, as students will get them.
        graded = [tree]
        for i in range(CALIBRATION_SAMPLES - 1):
            try:
                graded.append(generate(params, f"{PREVIEW_SEED}-c{i}", deadline))
            except GenerationError:
                continue
    calibrates = KINDS[checked.kind].calibrates
    found, share = separations(checked.kind, trees, conventions) if calibrates else ([], 0.0)
    calibration = calibrate_trees(checked.kind, graded, conventions) if calibrates else []
    return Preview(
        tree,
        conventions,
        KINDS[checked.kind].key(tree, conventions),
        solve(tree, conventions).to_dict(),
        len(trees),
        found,
        share,
        calibration=calibration,
    )


def editor_slot(user: User, assignment_id: int, index: int) -> tuple[Staff, Slot, int]:
    """A slot for the editor, with how many attempts it has (to warn about regrades)."""
    as_staff, slot = staff_for_slot(user, assignment_id, index)
    from grader.models import Attempt

    attempts = db.session.execute(
        sa.select(sa.func.count(Attempt.id)).join(Exercise).where(Exercise.slot_id == slot.id)
    ).scalar_one()
    return as_staff, slot, attempts
