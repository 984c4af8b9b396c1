"""Exercises: each student's variant of a slot, practice exercises, what the page may see."""

# Whole: variants and practice share one store of exercises and one tree cache.

from __future__ import annotations

import copy
import hashlib
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from flask import current_app, has_request_context
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.gametree import (
    GENERATOR_VERSION,
    KINDS,
    Conventions,
    GeneratorParams,
    Tree,
    generate,
    parse_leaves,
)
from grader.gametree.tree import TreeFormatError, path_depth
from grader.models import (
    Assignment,
    Attempt,
    Exercise,
    Membership,
    Slot,
    User,
    utcnow,
)
from grader.ratelimits import retry_after
from grader.services import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    RateLimited,
    Unprocessable,
    costly,
)
from grader.services.courses import deadlines, release, zones
from grader.services.courses.courses import get_slot, taught_course_ids
from grader.services.transactions import writing

MAX_LEAVES = 1024  # a typed practice tree the page can still draw
MAX_NODES = 2048  # and its chains of single children: the labels and the trace grow with nodes
MAX_DEPTH = 16  # twice the generator's deepest tree


# A student's variant: staff parameters, its seed cannot be redrawn, and its work is bounded by
# the parameters' max_tries; this CPU budget is only a backstop above a banded tree's 1.7 s.
SLOT_BUDGET_FACTOR = 30


def generator_deadline(factor: float = 1) -> float:
    """When this request's tree generation must stop: an instant of ``time.thread_time()``, the
    request thread's own CPU (``GRADER_GENERATOR_SECONDS`` times ``factor``), so a loaded
    machine refuses no tree an idle one makes."""
    return time.thread_time() + factor * current_app.config["GRADER_GENERATOR_SECONDS"]


def variant_seed(assignment_id: int, slot_index: int, user_id: int, variant: int) -> str:
    """The seed of one student's variant: the same four numbers always rebuild the same tree."""
    text = f"{assignment_id}:{slot_index}:{user_id}:{variant}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


#: A stored practice exercise: one of no slot, or a slot's practice variant.
PRACTICE = sa.or_(Exercise.slot_id.is_(None), Exercise.variant > 0)


def practice_count(user_id: int, session: Session | None = None) -> int:
    """The practice exercises stored for ``user_id``."""
    return int(
        (session or db.session).scalar(
            sa.select(sa.func.count(Exercise.id)).where(Exercise.owner_id == user_id, PRACTICE)
        )
        or 0
    )


def _check_practice_quota(user: User, session: Session | None = None) -> None:
    quota = int(current_app.config["GRADER_PRACTICE_QUOTA"])
    if (count := practice_count(user.id, session)) >= quota:
        days = current_app.config["GRADER_PRACTICE_ABANDONED_DAYS"]
        raise Conflict(
            f"you have {count} practice exercises stored; one account may keep at most "
            f"{quota}: nothing was made. Practise on those you have; one never answered is "
            f"deleted {days:g} days after it was made, which makes room."
        )


def practice_try(user: User) -> None:
    """Before the work of a new practice exercise (generated, typed, a slot's variant, a game's
    tree): every request's try counts against the account's `GRADER_PRACTICE_LIMIT`
    (RateLimited past it; the operator's own commands are not limited), and the account must
    have room under `GRADER_PRACTICE_QUOTA` (Conflict; checked again under the write lock by
    `practice_room`)."""
    limit = str(current_app.config["GRADER_PRACTICE_LIMIT"])
    key = f"account:{user.id}"
    if has_request_context() and (wait := retry_after(limit, "practice", key, hit=True)):
        raise RateLimited(
            f"too many new practice exercises from this account: at most {limit}; nothing was "
            f"made, try again in {wait} s",
            wait,
        )
    _check_practice_quota(user)


def practice_room(session: Session, user: User) -> None:
    """The quota again, under the write lock the new exercise is stored under (two requests at
    once each saw room before)."""
    _check_practice_quota(user, session)


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise Invalid(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")


def _conventions(raw: dict[str, Any] | None) -> Conventions:
    """The conventions asked for; what the API's schema cannot say of them (leaf bounds with
    L > U) is a 422, as every rule across fields the schema does not state."""
    try:
        return Conventions.from_dict(raw or {})
    except ValueError as exc:
        raise Unprocessable(f"conventions: {exc}") from exc


def _generated(
    params: dict[str, Any] | None,
    seed: str,
    kind: str,
    conventions: Conventions,
    *,
    shared: bool = False,
    account: int | None = None,
) -> tuple[Tree, dict[str, Any]]:
    """The tree for `seed`; the generator checks its constraints under the exercise's own
    kind and conventions, whatever the stored parameters say. `shared`: a large constrained
    generation takes a costly-work permit (practice requests; a slot's variants are the staff's
    parameters, checked by the preview), counted against `account`'s costly-work limit."""
    if params is not None and not isinstance(params, dict):
        raise Invalid("params must be an object")
    params = {**(params or {}), "kind": kind, "conventions": conventions.to_dict()}
    try:
        p = GeneratorParams.from_dict(params)
        heavy = shared and costly.generation_is_costly(
            p.branching[1],
            p.depth,
            bool(
                p.min_cutoffs
                or p.min_deep_cutoffs
                or p.discriminating
                or p.leaves_evaluated is not None
                or p.min_star1_cutoffs
                or p.misconception_errors
                or p.max_cutoffs is not None
                or p.pruned_nodes is not None
                or p.answers is not None
                or p.never_key
            ),
        )
        with costly.permit("generating a tree", heavy, account):
            deadline = generator_deadline(1 if shared else SLOT_BUDGET_FACTOR)
            return generate(p, seed, deadline), p.to_dict()
    except ValueError as exc:
        raise Unprocessable(f"params: {exc}") from exc


def typed_tree(
    *,
    tree: Any = None,
    leaves: str | None = None,
    branching: int | None = None,
    depth: int | None = None,
    players: Any = None,
) -> Tree:
    """A tree someone typed: a nested list, or leaf values with branching and depth."""
    try:
        if leaves is not None:
            if branching is None or depth is None:
                raise Invalid("typed leaves need branching and depth")
            tree = parse_leaves(leaves, branching=branching, depth=depth)
        built = Tree.from_nested(tree, players=players)
    except ValueError as exc:
        raise Unprocessable(f"tree: {exc}") from exc
    nodes = list(built.walk())
    if len(nodes) > MAX_NODES or sum(node.is_leaf for _, node in nodes) > MAX_LEAVES:
        raise Unprocessable(f"tree: at most {MAX_LEAVES} leaves and {MAX_NODES} nodes")
    if max(path_depth(path) for path, _ in nodes) > MAX_DEPTH:
        raise Unprocessable(f"tree: at most {MAX_DEPTH} levels below the root")
    return built


def _store(session: Session, tree: Tree, **fields: Any) -> Exercise:
    # Stored as the search sees it (plain numbers and lists): horizon and terminal nodes as leaves.
    tree = tree.cut(Conventions.from_dict(fields.get("conventions")).depth)
    data = tree.to_dict()
    exercise = Exercise(
        tree=data["tree"],
        players=list(data["players"]),
        **costly.grading_facts(fields["kind"], tree),
        **fields,
    )
    session.add(exercise)
    return exercise


def create_practice(
    user: User,
    kind: str,
    *,
    params: dict[str, Any] | None = None,
    conventions: dict[str, Any] | None = None,
    tree: Any = None,
    leaves: str | None = None,
    branching: int | None = None,
    depth: int | None = None,
    players: Any = None,
) -> Exercise:
    """A practice exercise: generated from `params` (a fresh seed) or typed (`tree`/`leaves`)."""
    _check_kind(kind)
    conv = _conventions(conventions)
    practice_try(user)
    if tree is not None or leaves is not None:
        if params:
            raise Invalid("give either params (to generate) or a tree (typed), not both")
        built = typed_tree(
            tree=tree, leaves=leaves, branching=branching, depth=depth, players=players
        )
        try:
            built = built.cut(conv.depth)  # evaluations at the depth limit, terminal nodes
            KINDS[kind].check_tree(built)
        except ValueError as exc:
            raise Unprocessable(f"tree: {exc}") from exc
        _refuse_open_graded_tree(user, built)
        fields: dict[str, Any] = {"seed": None, "generator_version": None, "params": None}
    else:
        seed = secrets.token_hex(8)
        built, params = _generated(params, seed, kind, conv, shared=True, account=user.id)
        fields = {"seed": seed, "generator_version": str(GENERATOR_VERSION), "params": params}
    with writing() as session:
        practice_room(session, user)
        return _store(
            session, built, owner_id=user.id, kind=kind, conventions=conv.to_dict(), **fields
        )


def _refuse_open_graded_tree(user: User, tree: Tree) -> None:
    """Keys stay earned: a typed practice tree may not be one of the caller's graded variants
    (the same shape, up to the order of children, and the same leaves up to a map that keeps the
    key: `Tree.canonical(values="order")`) whose key is not yet theirs to see."""
    form = tree.canonical(values="order")
    graded = db.session.scalars(
        sa.select(Exercise)
        .options(sa.orm.joinedload(Exercise.slot).joinedload(Slot.assignment))
        .where(Exercise.owner_id == user.id, Exercise.slot_id.is_not(None), Exercise.variant == 0)
    )
    for exercise in graded:
        if tree_of(exercise).canonical(values="order") == form and not solution_visible(exercise):
            slot = exercise.slot
            assert slot is not None  # the query keeps graded variants, which have a slot
            name = slot.name
            raise Forbidden(
                f'this tree is your graded exercise "{name}" in "{slot.assignment.title}" '
                "(the same tree, up to the order of children and of its numbers): practice would "
                "give its key away. "
                "Practise on another tree, or on this one once its solution is yours to see."
            )


def _variant(session: Session, slot: Slot, user: User, variant: int) -> Exercise:
    if slot.tree is not None:  # a fixed (textbook) exercise: the same tree for everyone
        return _store(
            session,
            Tree.from_dict(slot.tree),
            owner_id=user.id,
            slot_id=slot.id,
            variant=variant,
            kind=slot.kind,
            seed=None,
            generator_version=None,
            params=None,
            conventions=slot.conventions,
        )
    seed = variant_seed(slot.assignment_id, slot.index, user.id, variant)
    built, params = _generated(
        slot.params, seed, slot.kind, Conventions.from_dict(slot.conventions)
    )
    return _store(
        session,
        built,
        owner_id=user.id,
        slot_id=slot.id,
        variant=variant,
        kind=slot.kind,
        seed=seed,
        generator_version=str(GENERATOR_VERSION),
        params=params,
        conventions=slot.conventions,
    )


def _find_variant(slot_id: int, user_id: int, variant: int) -> Exercise | None:
    """Read through the request's session, which is also the one `writing()` yields."""
    return db.session.scalar(
        sa.select(Exercise).where(
            Exercise.slot_id == slot_id, Exercise.owner_id == user_id, Exercise.variant == variant
        )
    )


def _exercise_slot(user: User, assignment_id: int, slot_index: int) -> Slot:
    """A slot that holds an exercise; an engine slot has none (its work is an uploaded engine)."""
    slot = get_slot(user, assignment_id, slot_index)
    if not slot.slot_kind.has_exercise:
        raise Conflict(
            "this slot grades an uploaded checkers engine and has no exercise: "
            "upload the engine with POST /api/engines"
        )
    return slot


def slot_exercise(user: User, assignment_id: int, slot_index: int) -> Exercise:
    """The user's graded variant (number 0) of a slot, made on first visit."""
    slot = _exercise_slot(user, assignment_id, slot_index)
    exercise = _find_variant(slot.id, user.id, 0)
    if exercise is not None:
        return exercise
    with writing() as session:
        # Checked again under the write lock: two tabs may open the slot at once.
        return _find_variant(slot.id, user.id, 0) or _variant(session, slot, user, 0)


def graded_variant(session: Session, slot: Slot, user: User) -> Exercise:
    """``user``'s graded variant of ``slot``, made if absent, in the caller's transaction (the
    exam sheets print it, so a sheet's key is the stored key)."""
    return _find_variant(slot.id, user.id, 0) or _variant(session, slot, user, 0)


def variant_tree(slot: Slot, seed: str) -> tuple[Tree, dict[str, Any] | None]:
    """The tree a variant of ``slot`` with ``seed`` has, as stored (cut at the depth limit),
    and the generator's parameters (None for a fixed tree): an anonymous exam sheet's tree."""
    conventions = Conventions.from_dict(slot.conventions)
    if slot.tree is not None:
        return Tree.from_dict(slot.tree).cut(conventions.depth), None
    built, params = _generated(slot.params, seed, slot.kind, conventions)
    return built.cut(conventions.depth), params


def store_graded_variant(
    session: Session,
    slot: Slot,
    user: User,
    tree: Tree,
    *,
    seed: str | None,
    params: dict[str, Any] | None,
) -> Exercise:
    """``tree`` stored as ``user``'s graded variant of ``slot`` (an anonymous exam sheet tied to
    its student); Conflict when the student has one already."""
    if _find_variant(slot.id, user.id, 0) is not None:
        raise Conflict(
            f'{user.email} already has a graded exercise for "{slot.title or slot.kind}": '
            "this sheet's tree cannot become theirs"
        )
    return _store(
        session,
        tree,
        owner_id=user.id,
        slot_id=slot.id,
        variant=0,
        kind=slot.kind,
        seed=seed,
        generator_version=str(GENERATOR_VERSION) if seed is not None else None,
        params=params,
        conventions=slot.conventions,
    )


def new_variant(user: User, assignment_id: int, slot_index: int) -> Exercise:
    """A further practice variant of a slot, where the slot allows practice."""
    slot = _exercise_slot(user, assignment_id, slot_index)
    if not slot.practice_allowed:
        raise Forbidden("this exercise has no practice variants")
    practice_try(user)
    with writing() as session:
        practice_room(session, user)
        last = session.scalar(
            sa.select(sa.func.max(Exercise.variant)).where(
                Exercise.slot_id == slot.id, Exercise.owner_id == user.id
            )
        )
        return _variant(session, slot, user, (last or 0) + 1)


def another_like(user: User, exercise_id: int) -> Exercise:
    """One click for a new tree: a generated practice exercise again with its own settings and a
    new seed, or a slot's next practice variant (where the slot allows practice)."""
    exercise = get_exercise(user, exercise_id)
    if exercise.owner_id != user.id:
        raise Forbidden("only the student this exercise was made for can ask for another")
    if exercise.slot is not None:
        return new_variant(user, exercise.slot.assignment_id, exercise.slot.index)
    if exercise.params is None:
        raise Invalid("this tree was typed, not generated: make another on the Practice page")
    return create_practice(
        user, exercise.kind, params=exercise.params, conventions=exercise.conventions
    )


# One query, built once: the exercise with its slot, assignment and course (limits, due dates,
# replay rules and the course's state need them), whether its owner is still a member of the
# slot's course, and whether an extension applies to them on the slot.
_EXERCISE_AND_MEMBERSHIP = (
    sa.select(
        Exercise,
        sa.exists().where(
            Membership.user_id == Exercise.owner_id,
            Membership.course_id == Assignment.course_id,
            Assignment.id == Slot.assignment_id,
            Slot.id == Exercise.slot_id,
        ),
        deadlines.any_extension(Exercise.owner_id, Exercise.slot_id),
    )
    .where(Exercise.id == sa.bindparam("exercise_id"))
    .options(
        sa.orm.joinedload(Exercise.slot).joinedload(Slot.assignment).joinedload(Assignment.course)
    )
)


def get_exercise(user: User, exercise_id: int) -> Exercise:
    """An exercise its owner (while a member of its course) or its course's staff may see;
    NotFound for anyone else."""
    return _visible_exercise(user, exercise_id)[0]


def exercise_and_terms(user: User, exercise_id: int) -> tuple[Exercise, deadlines.Deadline | None]:
    """`get_exercise` and its owner's terms on its slot (None without a slot), whose extensions
    are read only where the exercise's own query found one that applies."""
    exercise, extended = _visible_exercise(user, exercise_id)
    slot = exercise.slot
    if slot is None:
        return exercise, None
    return exercise, deadlines.deadline_for(exercise.owner_id, slot, extended=extended)


def _visible_exercise(user: User, exercise_id: int) -> tuple[Exercise, bool]:
    found = db.session.execute(_EXERCISE_AND_MEMBERSHIP, {"exercise_id": exercise_id}).first()
    if found is None:
        raise NotFound("no such exercise")
    exercise, member, extended = found
    if exercise.owner_id == user.id and (exercise.slot_id is None or member):
        return exercise, extended  # practice, or a variant of a course the owner is a member of
    teaches = exercise.slot_id is not None and db.session.scalar(
        sa.select(Slot.id)
        .join(Assignment)
        .where(Slot.id == exercise.slot_id, Assignment.course_id.in_(taught_course_ids(user)))
    )
    if not teaches:
        raise NotFound("no such exercise")
    return exercise, extended


class TreeCache:
    """The parsed trees of the exercises used lately, in this process: a student's tree is
    parsed once, not at every attempt, and the same `Tree` object keeps the kinds' cached
    analyses one hash away. An entry serves only while the exercise's stored tree and players
    equal those it was parsed from, so an edited exercise is never graded against its old tree.
    Bounded: at most `size` trees and `max_nodes` nodes in all, the least recently used going
    first."""

    def __init__(self, size: int, max_nodes: int) -> None:
        self.size, self.max_nodes = size, max_nodes
        self._entries: OrderedDict[int, tuple[list[Any], list[Any], Tree]] = OrderedDict()
        self._nodes = 0
        self._lock = threading.Lock()  # threaded servers share it

    def tree(self, exercise: Exercise) -> Tree:
        if exercise.id is None:  # not stored yet: nothing to key it by
            return Tree.from_dict({"tree": exercise.tree, "players": exercise.players})
        with self._lock:
            entry = self._entries.get(exercise.id)
            if entry is not None and entry[0] == exercise.tree and entry[1] == exercise.players:
                self._entries.move_to_end(exercise.id)
                return entry[2]
        tree = Tree.from_dict({"tree": exercise.tree, "players": exercise.players})
        # Copies: the entry is checked against what the database holds, not a caller's lists.
        entry = (copy.deepcopy(exercise.tree), copy.deepcopy(exercise.players), tree)
        with self._lock:
            old = self._entries.pop(exercise.id, None)
            if old is not None:
                self._nodes -= old[2].node_count()
            self._entries[exercise.id] = entry
            self._nodes += tree.node_count()
            while len(self._entries) > self.size or self._nodes > self.max_nodes:
                self._nodes -= self._entries.popitem(last=False)[1][2].node_count()
        return tree

    def __len__(self) -> int:
        return len(self._entries)


# As many trees as the kinds keep analyses of (`kinds._analysis`); the nodes of 100 of the
# largest typed trees (`MAX_NODES`), far more than of 512 generated ones.
TREES = TreeCache(512, 100 * MAX_NODES)


def tree_of(exercise: Exercise) -> Tree:
    """The exercise's tree, parsed (or from this process's `TREES`, when it still matches);
    Conflict when the stored tree breaks a bound the reader holds trees to now (a tree stored
    before the bound on exact values' digits was declared)."""
    try:
        return TREES.tree(exercise)
    except TreeFormatError as exc:
        raise Conflict(
            f"this exercise's tree cannot be used: {exc}. Make another exercise."
        ) from None


def rebuild(exercise: Exercise) -> Tree:
    """The tree regenerated from the stored seed and parameters (typed trees: as stored)."""
    if exercise.seed is None:
        return tree_of(exercise)
    if exercise.generator_version != str(GENERATOR_VERSION):
        raise Invalid(
            f"made by generator {exercise.generator_version}, this is {GENERATOR_VERSION}"
        )
    return generate(GeneratorParams.from_dict(exercise.params or {}), exercise.seed)


# Built once (every graded attempt counts): the index on (exercise_id, user_id) answers it.
_ATTEMPT_STATS = sa.select(sa.func.count(Attempt.id), sa.func.max(Attempt.score)).where(
    Attempt.exercise_id == sa.bindparam("exercise_id"), Attempt.user_id == sa.bindparam("user_id")
)


def attempt_stats(
    exercise: Exercise, session: Session | sa.Connection | None = None
) -> tuple[int, float | None]:
    """How many attempts its owner made on the exercise, and their best score (`session` may
    be a connection: a Core query, no autoflush)."""
    used, best = (
        (session or db.session)
        .execute(_ATTEMPT_STATS, {"exercise_id": exercise.id, "user_id": exercise.owner_id})
        .one()
    )
    return used, best


def attempts_allowed(exercise: Exercise) -> int | None:
    """None for unlimited: practice exercises and practice variants are not limited."""
    if exercise.is_practice or exercise.slot is None:
        return None
    return deadlines.attempts_for(exercise.owner_id, exercise.slot)


def solution_visible(
    exercise: Exercise,
    stats: tuple[int, float | None] | None = None,
    terms: deadlines.Deadline | None = None,
    *,
    cache: dict[Any, Any] | None = None,
) -> bool:
    """Whether the key and the replay may be shown: never before an attempt is stored.

    Practice: after any attempt. An assignment's graded variant: where the slot allows the
    replay, once the student scored full marks, used every attempt, or the due date passed.
    `stats` is `attempt_stats(exercise)` when the caller has it; `cache`, the held-score
    gate's (`release.held_work`).
    """
    used, best = stats if stats is not None else attempt_stats(exercise)
    if not used:
        return False
    slot = exercise.slot
    if slot is None:
        return True
    owner = exercise.owner_id
    if not exercise.is_practice and release.held_work(
        owner, release.Standing(owner, slot.assignment), cache=cache
    ):
        return False  # keys are held from their owner with the scores
    if not slot.replay_allowed:
        return False
    if exercise.is_practice or (best or 0) >= 1:
        return True
    terms = terms or deadlines.deadline_for(exercise.owner_id, slot)
    allowed = terms.attempts_allowed
    # Once the owner's own attempts are no longer taken (their late policy and slip days).
    return (allowed is not None and used >= allowed) or deadlines.closed(
        exercise.owner_id, slot, utcnow(), terms
    ) is not None


def solution_rule(exercise: Exercise) -> str:
    """When the key and the replay are shown, in words (the rule of solution_visible)."""
    slot = exercise.slot
    if slot is None or exercise.is_practice:
        return (
            "after your first answer"
            if slot is None or slot.replay_allowed
            else "never for this exercise (its instructor turned them off)"
        )
    if not slot.replay_allowed:
        return "never for this exercise (its instructor turned them off)"
    ways = ["after full marks"]
    terms = deadlines.deadline_for(exercise.owner_id, slot)
    if terms.attempts_allowed is not None:
        allowed = terms.attempts_allowed
        ways.append(f"after your last attempt ({allowed} of {allowed})")
    closes = deadlines.closes_for(exercise.owner_id, slot, terms)
    if closes is not None:
        zone = slot.assignment.course.timezone
        ways.append(f"after {zones.words(closes, zone)}, when attempts close")
    return ", ".join(ways[:-1]) + (" or " if len(ways) > 1 else "") + ways[-1]


def to_api(exercise: Exercise) -> dict[str, Any]:
    """What the page and the API show of an exercise: everything but the solution."""
    tree = tree_of(exercise)
    slot = exercise.slot
    terms = deadlines.deadline_for(exercise.owner_id, slot) if slot else None
    zone = slot.assignment.course.timezone if slot else "UTC"
    stats = attempt_stats(exercise)
    return {
        "id": exercise.id,
        "kind": exercise.kind,
        "prompt": KINDS[exercise.kind].prompt,
        "tree": exercise.tree,
        "players": exercise.players,
        "labels": tree.labels(),
        "conventions": exercise.conventions,
        "conventions_text": KINDS[exercise.kind].conventions_words(
            Conventions.from_dict(exercise.conventions), tree
        ),
        "seed": exercise.seed,
        "generator_version": exercise.generator_version,
        "practice": exercise.is_practice,
        "assignment_id": slot.assignment_id if slot else None,
        "slot_index": slot.index if slot else None,
        "variant": exercise.variant,
        "attempts_allowed": None
        if exercise.is_practice or terms is None
        else terms.attempts_allowed,
        "attempts_used": stats[0],
        "practice_allowed": bool(slot and slot.practice_allowed),
        "replay_allowed": True if slot is None else slot.replay_allowed,
        "due_at": zones.iso(terms.due_at, zone) if terms else None,
        "due_words": zones.words(terms.due_at, zone) if terms else "",
        "timezone": zone,
        "extended": bool(terms and terms.moved),
        "solution_available": solution_visible(exercise, stats, terms),
        "solution_when": solution_rule(exercise),
        "late_cost": _late_cost(exercise, terms),
    }


def _late_cost(exercise: Exercise, terms: deadlines.Deadline | None) -> dict[str, Any] | None:
    """What an answer sent now costs the owner, when it would be late (`deadlines.cost_now`)."""
    if exercise.slot is None or exercise.is_practice or terms is None:
        return None
    cost = deadlines.cost_now(exercise.owner_id, exercise.slot, utcnow(), terms)
    return cost.to_api() if cost is not None else None


@dataclass(frozen=True)
class SlotPlace:
    """Where a slot's exercise stands in its assignment: the page's title and its way on."""

    assignment_id: int
    assignment_title: str
    title: str  # as the assignment's page names the slot
    number: int  # from 1
    count: int
    next_index: int | None  # the slot after it (an exercise or an engine), if any
    next_title: str | None


def slot_place(exercise: Exercise) -> SlotPlace | None:
    """The exercise's slot in its assignment; None for a practice exercise of one's own."""
    slot = exercise.slot
    if slot is None:
        return None
    slots = slot.assignment.slots
    following = next((s for s in slots if s.index > slot.index), None)
    return SlotPlace(
        assignment_id=slot.assignment_id,
        assignment_title=slot.assignment.title,
        title=slot.title or slot.kind,
        number=slot.index + 1,
        count=len(slots),
        next_index=following.index if following else None,
        next_title=(following.title or following.kind) if following else None,
    )
