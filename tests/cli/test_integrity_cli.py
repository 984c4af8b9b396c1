"""`grader integrity engines|answers`: the checks run in the command's own process, printed as
the pages list them (JSON as documented)."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.instructor_support import ALICE, BOB, TEACHER, add_slot, make_room, user
from tests.services.integrity_support import (
    DISGUISES,
    ORIGINAL,
    independent_engines,
    upload,
)

CAROL = "carol@example.com"
# The text form tells times as the page does: in the course's zone, named (never ISO's Z).
CHICAGO = re.compile(r"\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d C[SD]T \(America/Chicago\)")


def _in_chicago(app: Any, course_id: int) -> None:
    from grader.extensions import db
    from grader.models import Course

    with app.app_context():
        db.session.get(Course, course_id).timezone = "America/Chicago"
        db.session.commit()


def _engines_room(app: Any, factory: Any) -> tuple[Any, int]:
    from grader.services.engines import submissions

    room = make_room(app, factory)
    factory.user(CAROL)
    factory.member(room.course_id, CAROL)
    with app.app_context():
        index = submissions.add_engine_slot(room.assignment_id, suite="quick").index
    original = ORIGINAL.read_text()
    upload(app, ALICE, room.assignment_id, index, original)
    upload(app, BOB, room.assignment_id, index, DISGUISES["reordered"](original))
    upload(app, CAROL, room.assignment_id, index, independent_engines()["mailbox"])
    return room, index


def test_engines_prints_the_pairs_as_json_highest_first(app, factory, runner):
    room, index = _engines_room(app, factory)
    args = ["integrity", "engines", "--assignment", str(room.assignment_id)]
    done = runner.invoke(args=[*args, "--slot-index", str(index), "--json"])
    assert done.exit_code == 0, done.output
    pairs = json.loads(done.output)
    assert all(set(p) == {"a", "b", "similarity", "a_share", "b_share"} for p in pairs)
    assert [p["similarity"] for p in pairs] == sorted(
        (p["similarity"] for p in pairs), reverse=True
    )
    assert {pairs[0]["a"], pairs[0]["b"]} == {ALICE, BOB} and pairs[0]["similarity"] > 0.9
    # --min keeps the pairs at or above it: only the copy.
    done = runner.invoke(args=[*args, "--slot-index", str(index), "--json", "--min", "0.5"])
    assert [{p["a"], p["b"]} for p in json.loads(done.output)] == [{ALICE, BOB}]
    # The second run reads every pair back from the cache; the text form names both students.
    done = runner.invoke(args=[*args, "--slot-index", str(index), "--min", "0.5"])
    assert done.exit_code == 0, done.output
    assert "3 submissions, 0 pairs compared, 3 read back" in done.output
    assert ALICE in done.output and BOB in done.output and CAROL not in done.output
    _in_chicago(app, room.course_id)
    done = runner.invoke(args=[*args, "--slot-index", str(index), "--min", "0.5"])
    pair = done.output.splitlines()[1]
    assert len(CHICAGO.findall(pair)) == 2 and "Z)" not in pair, pair


def test_engines_refuses_what_is_not_an_engine_slot(app, factory, runner):
    room, _ = _engines_room(app, factory)
    args = ["integrity", "engines", "--assignment", str(room.assignment_id)]
    done = runner.invoke(args=[*args, "--slot-index", "0"])  # the textbook exercise
    assert done.exit_code != 0 and "no engine slot there" in done.output
    done = runner.invoke(
        args=["integrity", "engines", "--assignment", "999999", "--slot-index", "0"]
    )
    assert done.exit_code != 0 and "no engine slot there" in done.output
    assert runner.invoke(args=[*args, "--slot", "0"]).exit_code != 0  # numbered from 1
    assert runner.invoke(args=[*args, "--slot-index", "-1"]).exit_code != 0


def test_engines_reads_the_slot_counted_from_1_as_the_index_one_less_and_says_so(
    app, factory, runner
):
    """Slots are counted from 0 everywhere (the API's slot_index, the pages' addresses,
    --slot-index); --slot, counted from 1, is still read, with a note on stderr."""
    room, index = _engines_room(app, factory)
    args = ["integrity", "engines", "--assignment", str(room.assignment_id), "--json"]
    by_index = runner.invoke(args=[*args, "--slot-index", str(index)])
    by_number = runner.invoke(args=[*args, "--slot", str(index + 1)])
    assert by_index.exit_code == 0 and by_number.exit_code == 0, by_number.output
    assert json.loads(by_number.stdout) == json.loads(by_index.stdout) != []
    assert by_index.stderr == ""
    assert by_number.stderr == (
        f"--slot {index + 1} counts from 1: read as --slot-index {index} (slots are counted "
        "from 0, as the API and the pages' addresses count them)\n"
    )
    neither = runner.invoke(args=args)
    assert neither.exit_code != 0 and "--slot-index N, counted from 0" in neither.output
    both = runner.invoke(args=[*args, "--slot-index", "0", "--slot", "1"])
    assert both.exit_code != 0 and "--slot-index N, counted from 0" in both.output


def test_answers_prints_who_answered_what_fits_whose_tree(app, factory, runner):
    from grader.gametree import KINDS, Conventions, Tree
    from grader.services.trees import attempts, exercises

    room = make_room(app, factory)
    with app.app_context():
        params = {"depth": 3, "branching": [2, 2]}
        index = add_slot(user(TEACHER), room.assignment_id, "values", params=params).index
        mine = {
            e: exercises.slot_exercise(user(e), room.assignment_id, index) for e in (ALICE, BOB)
        }
        alice = mine[ALICE]
        tree = Tree.from_dict({"tree": alice.tree, "players": alice.players})
        key = KINDS["values"].key(tree, Conventions.from_dict(alice.conventions))
        attempts.submit(user(ALICE), alice.id, key)
        attempts.submit(user(BOB), mine[BOB].id, key)
    done = runner.invoke(
        args=["integrity", "answers", "--assignment", str(room.assignment_id), "--json"]
    )
    assert done.exit_code == 0, done.output
    flags = json.loads(done.output)
    assert [(f["student"], f["matches_tree_of"], f["exercise"]) for f in flags] == [
        (BOB, ALICE, index + 1)
    ]
    assert flags[0]["errors_on_their_tree"] == 0 and flags[0]["errors_on_own_tree"] >= 3
    _in_chicago(app, room.course_id)
    done = runner.invoke(args=["integrity", "answers", "--assignment", str(room.assignment_id)])
    assert f"{BOB} answered what fits {ALICE}'s tree" in done.output
    assert len(CHICAGO.findall(done.output)) == 2 and "Z," not in done.output, done.output
    done = runner.invoke(args=["integrity", "answers", "--assignment", "999999"])
    assert done.exit_code != 0 and "no assignment 999999" in done.output
