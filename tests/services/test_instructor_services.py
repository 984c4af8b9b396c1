"""The dashboard's services: rosters and join codes, the editor and its preview, lateness from
server time, the gradebook under each policy, item statistics, misconceptions, regrades."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree import Tree
from grader.models import Attempt, AuditEntry, Exercise, Membership, utcnow
from grader.services import Conflict, Forbidden, Invalid, NotFound, accounts
from grader.services.courses import audit_log, courses, invites, lateness, roster
from grader.services.teaching import editor, gradebook, regrade, scores, stats
from tests.app_support import attempt_count
from tests.e2e.kinds_support import answer_cases
from tests.instructor_support import (
    ALICE,
    BOB,
    OUTSIDER,
    TA,
    TEACHER,
    TEXTBOOK,
    answer,
    make_room,
    textbook_key,
    user,
)

# -- pure parts -------------------------------------------------------------------------------


def test_lateness_counts_days_started_and_floors_at_zero():
    due = dt.datetime(2026, 11, 1, 12, 0)
    assert lateness.days_late(due, due) == 0
    assert lateness.days_late(due + dt.timedelta(minutes=1), due) == 1
    assert lateness.days_late(due + dt.timedelta(days=1), due) == 1
    assert lateness.days_late(due + dt.timedelta(days=1, seconds=1), due) == 2
    assert lateness.penalty(2, 15) == pytest.approx(0.30)
    assert lateness.penalty(9, 15) == 1.0  # floor: never more than the whole score
    assert lateness.penalty(3, None) == 0.0
    assert lateness.closes_at(due, None) == due
    assert lateness.closes_at(due, 0) is None
    # 25%/day: the 4th day started takes it all, so attempts are taken for 3 days after the due.
    assert lateness.closes_at(due, 25) == due + dt.timedelta(days=3)


def test_point_biserial_matches_the_formula_and_handles_degenerate_cases():
    totals = [1.0, 2.0, 3.0, 4.0]
    perfect = [False, False, True, True]
    # M1 = 3.5, M0 = 1.5, s = sqrt(1.25), p = q = 0.5
    expected = (3.5 - 1.5) / 1.25**0.5 * 0.5
    assert stats.point_biserial(perfect, totals) == pytest.approx(expected)
    assert stats.point_biserial([True], [1.0]) is None  # n < 2
    assert stats.point_biserial([True, True], [1.0, 2.0]) is None  # p = 1
    assert stats.point_biserial([True, False], [2.0, 2.0]) is None  # s = 0


def test_histogram_bins_and_policy_score():
    assert stats.histogram([0.0, 0.05, 0.5, 0.99, 1.0, 1.0]) == [
        2,
        0,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        1,
        2,
    ]
    made = [
        scores.GradedAttempt(i, 1, 1, 1, s, p, 0, utcnow(), None)
        for i, (s, p) in enumerate([(0.5, 0.0), (1.0, 0.5), (0.75, 0.0)])
    ]
    assert scores.policy_score(made, "best") == 0.75  # 1.0 late by half is 0.5
    assert scores.policy_score(made, "last") == 0.75
    assert scores.policy_score(made[:2], "last") == 0.5
    assert scores.policy_score([], "best") is None


# -- rosters and join codes ---------------------------------------------------------------------


def test_create_course_needs_an_instructor_account(app, room):
    with app.app_context():
        made = courses.create_course("Second course", by=user(TEACHER))
        assert roster.roster(user(TEACHER), made.id)[1][0].role == "instructor"
        with pytest.raises(Forbidden):
            courses.create_course("Mine", by=user(ALICE))


def test_join_code_regenerate_and_expire(app, room):
    with app.app_context():
        teacher = user(TEACHER)
        new = roster.regenerate_join_code(teacher, room.course_id)
        assert new != room.join_code
        with pytest.raises(NotFound):
            accounts.course_by_join_code(room.join_code)
        assert accounts.course_by_join_code(new).id == room.course_id
        roster.expire_join_code(teacher, room.course_id)
        with pytest.raises(Conflict, match="expired"):
            accounts.signup("late@example.com", "long enough pw", new)
        roster.expire_join_code(teacher, room.course_id, utcnow() + dt.timedelta(days=2))
        accounts.signup("late@example.com", "long enough pw", new)
        assert accounts.authenticate("late@example.com", "long enough pw") is not None


def test_csv_import_creates_claimable_accounts_and_reports_bad_rows(app, room):
    text = (
        'email,name\nada@example.edu,Ada Lovelace\n"grace@example.edu","Hopper, Grace"\n'
        f"not-an-email,Nobody\n{ALICE},Alice\n"
    )
    with app.app_context():
        result = roster.import_students(user(TEACHER), room.course_id, text)
        assert (result.invited, result.unchanged) == (2, 1)
        assert len(result.errors) == 1 and "line 4" in result.errors[0]
        # Invited until they accept: the name waits with the invite, the membership's then.
        assert (
            next(
                m.name
                for m in roster.roster(user(TEACHER), room.course_id)[1]
                if m.email == "grace@example.edu"
            )
            == "Hopper, Grace"
        )
        # Signing up with the join code does not claim it (tests/security: only the invite).
        accounts.signup("ada@example.edu", "a good password", room.join_code)
        assert accounts.authenticate("ada@example.edu", "a good password") is None
        assert result.invites == 2  # one link for each new account
        # Rows without a header: email[,name].
        again = roster.import_students(user(TEACHER), room.course_id, "linus@example.edu\n")
        assert again.invited == 1


def test_removing_a_student_keeps_their_attempts(app, room):
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    with app.app_context():
        roster.remove_member(user(TEACHER), room.course_id, room.ids[ALICE])
        assert attempt_count() == 1
        book = gradebook.build(room.course_id)
        assert ALICE not in [r.email for r in book.rows]
        roster.add_member(user(TEACHER), room.course_id, ALICE)
        invites.accept_as(user(ALICE), room.course_id)  # she is back once she accepts
        book = gradebook.build(room.course_id)
        assert next(r for r in book.rows if r.email == ALICE).total == 1.0


def test_roles_and_who_may_change_them(app, room):
    with app.app_context():
        # A staff role waits for the account to accept its invite (tests/security).
        assert roster.set_role(user(TEACHER), room.course_id, room.ids[BOB], "ta") == "invited"
        assert (
            db.session.scalar(sa.select(Membership.role).where(Membership.user_id == room.ids[BOB]))
            == "student"
        )
        with pytest.raises(Conflict):
            roster.set_role(user(TEACHER), room.course_id, room.ids[TEACHER], "ta")
        with pytest.raises(Forbidden):
            roster.set_role(user(TA), room.course_id, room.ids[ALICE], "ta")
        with pytest.raises(Forbidden):
            roster.remove_member(user(TA), room.course_id, room.ids[ALICE])
        with pytest.raises(Forbidden):
            roster.roster(user(ALICE), room.course_id)
        with pytest.raises(NotFound):
            roster.roster(user(OUTSIDER), room.course_id)


# -- the editor ---------------------------------------------------------------------------------


def test_textbook_builder_sources_agree(app):
    leaves = editor.build_tree("leaves", leaves="3,12,8,2,4,6,14,5,2", branching=3, depth=2)
    nested = editor.build_tree("nested", nested=TEXTBOOK)
    drawn = editor.build_tree("draw", nested=TEXTBOOK)
    cs188 = editor.build_tree("cs188", cs188=editor.export_cs188(tree=nested))
    assert leaves == nested == drawn == cs188
    with pytest.raises(Invalid):
        editor.build_tree("leaves", leaves="1,2,3", branching=2, depth=2)
    with pytest.raises(Invalid, match="CS188"):
        editor.build_tree("cs188", cs188="nonsense")


def test_fixed_slot_gives_everyone_the_textbook_tree(app, room):
    from grader.services.trees import exercises

    with app.app_context():
        trees = [
            exercises.slot_exercise(user(who), room.assignment_id, 0).tree for who in (ALICE, BOB)
        ]
        assert trees == [TEXTBOOK, TEXTBOOK]
        text, name = editor.slot_tree_cs188(user(TA), room.assignment_id, 0)
        assert Tree.from_cs188(text) == Tree.from_nested(TEXTBOOK) and name.endswith(".test")


def test_preview_reports_which_misconceptions_the_parameters_tell_apart(app, room):
    with app.app_context():
        shallow = editor.preview(
            user(TA),
            room.course_id,
            editor.SlotInput(kind="prune", conventions={}, params={"depth": 3, "min_cutoffs": 1}),
            samples=12,
        )
        deep = editor.preview(
            user(TA),
            room.course_id,
            editor.SlotInput(
                kind="prune", conventions={}, params={"depth": 4, "min_deep_cutoffs": 1}
            ),
            samples=12,
        )
    by_code = {s.code: s for s in shallow.separations}
    # Depth 3 has no deep cutoffs: the shallow-cutoffs bug never changes an answer.
    assert by_code["shallow-cutoffs"].told_apart == 0
    assert "depth 4" in by_code["shallow-cutoffs"].hint
    assert {s.code: s for s in deep.separations}["shallow-cutoffs"].told_apart > 0
    assert shallow.samples == 12 and shallow.key["pruned"] is not None
    assert shallow.search["trace"]


def test_preview_shows_what_the_key_a_slip_and_each_misconception_score(app, room):
    with app.app_context():
        weak = editor.preview(
            user(TA),
            room.course_id,
            editor.SlotInput(
                kind="values", conventions={}, params={"depth": 2, "branching": 3, "min_cutoffs": 1}
            ),
            samples=4,
        )
        strong = editor.preview(
            user(TA),
            room.course_id,
            editor.SlotInput(
                kind="values",
                conventions={},
                params={
                    "depth": 4,
                    "min_cutoffs": 3,
                    "min_deep_cutoffs": 1,
                    "discriminating": True,
                },
            ),
            samples=4,
        )
    weak_rows = {row.answer: row for row in weak.calibration}
    assert weak_rows["key"].mean == 1.0 and weak_rows["slip"].worst >= 0.8
    assert not weak_rows["no-pruning"].passes()  # two levels, one cutoff: minimax passes
    assert all(row.passes() for row in strong.calibration)
    assert weak.to_dict()["calibration"][0]["answer"] == "key"


def test_preview_refuses_impossible_parameters_and_students(app, room):
    with app.app_context():
        with pytest.raises(Invalid):
            editor.preview(
                user(TEACHER),
                room.course_id,
                editor.SlotInput(kind="prune", conventions={}, params={"depth": 9}),
            )
        with pytest.raises(Forbidden):
            editor.preview(
                user(ALICE),
                room.course_id,
                editor.SlotInput(kind="prune", conventions={}, params={}),
            )


def test_release_date_hides_an_assignment_from_students_only(app, room):
    with app.app_context():
        later = editor.create_assignment(
            user(TEACHER),
            room.course_id,
            editor.AssignmentInput("Next week", release_at=utcnow() + dt.timedelta(days=7)),
        )
        assert later.id not in [a.id for a in courses.assignments_for(user(ALICE))]
        assert later.id in [a.id for a in courses.assignments_for(user(TA))]
        with pytest.raises(NotFound):
            courses.get_assignment(user(ALICE), later.id)


def test_slot_kind_cannot_change_once_started(app, room):
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    with app.app_context(), pytest.raises(Conflict):
        editor.update_slot(
            user(TEACHER),
            room.assignment_id,
            0,
            editor.SlotInput(kind="values", conventions={}, tree=Tree.from_nested(TEXTBOOK)),
        )


def test_delete_slot_renumbers_and_only_instructors_delete(app, room):
    with app.app_context():
        with pytest.raises(Forbidden):
            editor.delete_slot(user(TA), room.assignment_id, 0)
        editor.delete_slot(user(TEACHER), room.assignment_id, 0)
        from grader.models import Assignment

        slots = db.session.get(Assignment, room.assignment_id).slots
        assert [(s.index, s.title) for s in slots] == [(0, "Values")]


# -- lateness and the gradebook ---------------------------------------------------------------


def test_late_penalty_is_computed_from_server_time(app, factory):
    due = utcnow() - dt.timedelta(days=1, hours=6)  # 1¼ days ago: the second day has started
    room = make_room(app, factory, due_at=due, late=20)
    attempt = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    assert attempt.days_late == 2 and attempt.penalty == pytest.approx(0.40)
    with app.app_context():
        book = gradebook.build(room.course_id)
    alice = next(r for r in book.rows if r.email == ALICE)
    assert alice.scores[room.assignment_id] == pytest.approx(0.60)
    assert alice.late_days[room.assignment_id] == 2


def test_no_late_attempt_without_a_late_policy(app, factory):
    room = make_room(app, factory, due_at=utcnow() - dt.timedelta(hours=1))
    with pytest.raises(Conflict, match="due date"):
        answer(app, ALICE, room.assignment_id, 0, textbook_key())


def test_gradebook_applies_best_and_last_policies(app, factory):
    room = make_room(app, factory, policy="last")
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, BOB, room.assignment_id, 0, {"pruned": [], "value": 3})
    with app.app_context():
        book = gradebook.build(room.course_id)
        rows = {r.email: r for r in book.rows}
        last = rows[ALICE].scores[room.assignment_id]
        assert last < 1.0 and rows[BOB].scores[room.assignment_id] == last
        editor.update_assignment(
            user(TEACHER),
            room.assignment_id,
            editor.AssignmentInput("Homework 1", score_policy="best"),
        )
        rows = {r.email: r for r in gradebook.build(room.course_id).rows}
        assert rows[ALICE].scores[room.assignment_id] == 1.0
        assert rows[ALICE].total == 1.0


def test_gradebook_csv_and_json(app, room):
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    with app.app_context():
        text, name = gradebook.gradebook_csv(user(TA), room.course_id)
        book = gradebook.build(room.course_id).to_dict()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert name.endswith(".csv")
    # One column per item, as LMS gradebook imports expect, then the total.
    first, second = "Homework 1: 1. Textbook tree (/1)", "Homework 1: 2. Values (/1)"
    assert list(rows[0]) == ["email", "name", first, second, "total (/2)"]
    assert {r["email"]: (r[first], r[second]) for r in rows} == {ALICE: ("1.00", ""), BOB: ("", "")}
    assert book["students"][0]["assignments"][str(room.assignment_id)] == 1.0
    assert book["max_total"] == 2


def test_csv_neutralizes_spreadsheet_formulas(app, room):
    with app.app_context():
        roster.add_member(user(TEACHER), room.course_id, "eve@example.com", name="=HYPERLINK(1)")
        (link,) = [i for i in invites.pending_links(room.course_id) if i.email == "eve@example.com"]
        invites.accept(link.token, None, "eve's own passphrase")  # a member once she claims it
        text, _ = gradebook.gradebook_csv(user(TEACHER), room.course_id)
    assert "'=HYPERLINK(1)" in text


def test_drill_down_shows_answers_keys_and_search(app, room):
    answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    with app.app_context():
        _, student, assignments = gradebook.student_attempts(
            user(TA), room.course_id, room.ids[ALICE]
        )
        assert student.email == ALICE
        view = assignments[0][1][0]
        assert [a.counted for a in view.attempts] == [False, True]
        assert view.solution["key"] == textbook_key() and view.solution["search"]["trace"]
        with pytest.raises(NotFound):
            gradebook.student_attempts(user(TEACHER), room.course_id, room.ids[OUTSIDER])


def test_drill_down_draws_a_best_order_answer_as_its_grade_says(app, room):
    # A best-order key is one of the best orderings: the answer differs where its grade blames
    # it (nowhere for another best ordering), in words with the leaf counts; another kind's
    # answer is compared node by node on the page (no graded differences).
    cases = [case for case in answer_cases() if case.kind == "best-order"]
    with app.app_context():
        for case in cases:
            editor.add_slot(
                user(TEACHER),
                room.assignment_id,
                editor.SlotInput(kind=case.kind, conventions={}, tree=case.tree, title=case.title),
            )
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    for index, case in enumerate(cases, start=2):
        stored = answer(app, ALICE, room.assignment_id, index, case.answer)
        assert (stored.score == 1.0) is (not case.wrong_at)
    with app.app_context():
        _, _, assignments = gradebook.student_attempts(user(TA), room.course_id, room.ids[ALICE])
    views = assignments[0][1]
    assert views[0].differences is None and views[1].differences is None  # prune; no attempt
    for case, view in zip(cases, views[2:], strict=True):
        assert view.shown is not None and view.shown.answer == case.answer
        assert view.differences == {"differ": sorted(case.wrong_at), "legend": case.legend}


def test_drill_down_best_order_legend_for_stored_answers_it_cannot_blame(app, room):
    # Stored before today's checks: a worse ordering with no first_wrong, an unreadable order.
    wrong, _, _ = (case for case in answer_cases() if case.kind == "best-order")
    with app.app_context():
        editor.add_slot(
            user(TEACHER),
            room.assignment_id,
            editor.SlotInput(kind=wrong.kind, conventions={}, tree=wrong.tree, title=wrong.title),
        )
    stored = answer(app, ALICE, room.assignment_id, 2, wrong.answer)
    assert wrong.legend is not None
    counts = wrong.legend.partition(" The grade blames")[0]  # its leaf counts, unchanged
    unblamed = f"{counts} The grade blames no single node."
    for first_wrong, order, legend in (
        (None, wrong.answer["order"], unblamed),
        ({"path": "9.9", "message": "?"}, wrong.answer["order"], unblamed),
        (None, {"": [0, 0, 0]}, "The answer's ordering cannot be searched on this tree."),
    ):
        with app.app_context():
            db.session.execute(
                sa.update(Attempt)
                .where(Attempt.id == stored.id)
                .values(first_wrong=first_wrong, answer={"order": order})
            )
            db.session.commit()
            _, _, assignments = gradebook.student_attempts(
                user(TA), room.course_id, room.ids[ALICE]
            )
        found = assignments[0][1][2].differences
        assert found == {"differ": [], "legend": legend}


# -- statistics and misconceptions ------------------------------------------------------------


def test_slot_statistics(app, room):
    answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, ALICE, room.assignment_id, 0, textbook_key())
    answer(app, BOB, room.assignment_id, 0, {"pruned": [], "value": 3})
    with app.app_context():
        _, found = stats.statistics(user(TA), room.course_id)
    first = found[0][1][0]
    assert first.students == 2 and first.attempts == 3
    assert first.share_perfect == 0.5
    assert first.mean_first_score < first.mean_score < 1.0
    # Alice is perfect and has the higher total: r = 1 with two students.
    assert first.discrimination == pytest.approx(1.0)
    assert sum(first.histogram) == 2 and first.histogram[-1] == 1
    assert found[0][1][1].discrimination is None  # nobody answered the second slot


def test_misconceptions_per_slot_assignment_and_week(app, room):
    # Nothing pruned on the textbook tree is both no-pruning's answer and wrong-order's (searched
    # right to left, nothing is cut): the attempt names both and counts once, under the first.
    ambiguous = answer(app, ALICE, room.assignment_id, 0, {"pruned": [], "value": 3})
    assert ambiguous.diagnosis == "no-pruning"
    assert ambiguous.diagnosis_text.startswith("Your answer matches no-pruning or wrong-order")
    answer(app, BOB, room.assignment_id, 0, {"pruned": [], "value": 3})
    answer(app, BOB, room.assignment_id, 0, {"pruned": ["2.2"], "value": 3})
    answer(app, BOB, room.assignment_id, 0, textbook_key())
    with app.app_context():
        _, assignments, found = stats.misconceptions(user(TA), room.course_id)
        slot_id = assignments[0].slots[0].id
    assert found.wrong == 3
    assert found.total["no-pruning"] == 2 and found.total[stats.UNMATCHED] == 1
    assert found.total["wrong-order"] == 0 and sum(found.total.values()) == found.wrong
    assert found.by_slot[slot_id]["no-pruning"] == 2
    assert found.by_assignment[room.assignment_id]["no-pruning"] == 2
    assert sum(sum(c.values()) for c in found.by_week.values()) == 3
    assert stats.week_of(dt.datetime(2026, 11, 22)) == "2026-W47"


# -- regrades -----------------------------------------------------------------------------------


def _scores(app) -> dict[int, float]:
    with app.app_context():
        return dict(db.session.execute(sa.select(Attempt.id, Attempt.score)).all())


def test_regrade_after_new_conventions_never_lowers_a_score(app, room):
    # A tree with a tie: under ties=prune E's second leaf is pruned, under ties=explore it is not.
    tied = [[3, 5], [3, 9]]
    with app.app_context():
        editor.update_slot(
            user(TEACHER),
            room.assignment_id,
            0,
            editor.SlotInput(
                kind="prune", conventions={"ties": "prune"}, tree=Tree.from_nested(tied)
            ),
        )
    from grader.gametree import KINDS, Conventions

    key_prune = KINDS["prune"].key(Tree.from_nested(tied), Conventions.from_dict({}))
    key_explore = KINDS["prune"].key(
        Tree.from_nested(tied), Conventions.from_dict({"ties": "explore"})
    )
    assert key_prune != key_explore
    right = answer(app, ALICE, room.assignment_id, 0, key_prune)  # right now, wrong after
    wrong = answer(app, BOB, room.assignment_id, 0, key_explore)  # wrong now, right after
    before = _scores(app)
    assert before[right.id] == 1.0 and before[wrong.id] < 1.0
    with app.app_context():
        saved = editor.update_slot(
            user(TEACHER),
            room.assignment_id,
            0,
            editor.SlotInput(
                kind="prune", conventions={"ties": "explore"}, tree=Tree.from_nested(tied)
            ),
        )
        assert saved.regraded == 1
        log = db.session.scalar(sa.select(AuditEntry))
        assert (
            log.actor_id == room.ids[TEACHER] and log.changes["conventions"][1]["ties"] == "explore"
        )
        assert (log.attempts_total, log.attempts_changed, log.allow_lower) == (2, 1, False)
        assert {d["attempt_id"]: d["kept"] for d in log.details} == {
            right.id: True,
            wrong.id: False,
        }
        exercise = db.session.scalar(sa.select(Exercise).where(Exercise.owner_id == room.ids[BOB]))
        assert exercise.conventions["ties"] == "explore"
    after = _scores(app)
    assert all(after[k] >= before[k] for k in before)  # no score lower
    assert after[wrong.id] == 1.0 and after[right.id] == 1.0


def test_regrade_may_lower_scores_when_asked(app, room):
    tied = [[3, 5], [3, 9]]
    with app.app_context():
        editor.update_slot(
            user(TEACHER),
            room.assignment_id,
            0,
            editor.SlotInput(kind="prune", conventions={}, tree=Tree.from_nested(tied)),
        )
    from grader.gametree import KINDS, Conventions

    right = answer(
        app, ALICE, room.assignment_id, 0, KINDS["prune"].key(Tree.from_nested(tied), Conventions())
    )
    with app.app_context():
        editor.update_slot(
            user(TEACHER),
            room.assignment_id,
            0,
            editor.SlotInput(
                kind="prune", conventions={"ties": "explore"}, tree=Tree.from_nested(tied)
            ),
            allow_lower=True,
        )
    assert _scores(app)[right.id] < 1.0


def test_a_new_due_date_recomputes_lateness_without_lowering(app, factory):
    room = make_room(app, factory, due_at=utcnow() - dt.timedelta(hours=30), late=10)
    late = answer(app, ALICE, room.assignment_id, 0, textbook_key())
    assert late.penalty == pytest.approx(0.2)
    with app.app_context():
        teacher = user(TEACHER)
        # Moving the due date later forgives the lateness: the regrade raises the score.
        changed = editor.update_assignment(
            teacher,
            room.assignment_id,
            editor.AssignmentInput(
                "Homework 1", due_at=utcnow() + dt.timedelta(days=1), late_percent_per_day=10
            ),
        )
        assert changed == 1
        assert db.session.get(Attempt, late.id).penalty == 0
        # Moving it back would lower it: by default the score is kept.
        editor.update_assignment(
            teacher,
            room.assignment_id,
            editor.AssignmentInput(
                "Homework 1", due_at=utcnow() - dt.timedelta(days=3), late_percent_per_day=10
            ),
        )
        assert db.session.get(Attempt, late.id).penalty == 0
        entries = audit_log.entries(user(TA), room.course_id)
        assert len(entries) == 2 and entries[0].details[0]["kept"] is True
        # An explicit regrade that allows lower scores applies the 3 days' penalty.
        regrade.regrade_slot(teacher, room.assignment_id, 0, allow_lower=True)
        assert db.session.get(Attempt, late.id).penalty == pytest.approx(0.3)
        with pytest.raises(Forbidden):
            regrade.regrade_slot(user(TA), room.assignment_id, 0)


def test_a_new_slot_tree_gives_its_exercises_their_new_costliness_facts(app, room):
    from grader.services.trees import exercises

    bigger = [[1, 2, 3], [4, [5, 6]], [7]]
    with app.app_context():
        made = exercises.slot_exercise(user(ALICE), room.assignment_id, 0)
        assert made.node_count == Tree.from_nested(TEXTBOOK).node_count()
        editor.update_slot(
            user(TEACHER),
            room.assignment_id,
            0,
            editor.SlotInput(kind="prune", conventions={}, tree=Tree.from_nested(bigger)),
        )
        db.session.expire_all()
        exercise = db.session.get(Exercise, made.id)
        assert exercise is not None and exercise.tree == bigger
        assert exercise.node_count == Tree.from_nested(bigger).node_count() == 12


def test_a_chance_misconception_gets_its_column_once_an_attempt_shows_it():
    when = dt.datetime(2026, 11, 22)
    plain = stats.count_misconceptions([(1, 1, "no-pruning", when)])
    assert not any(code.startswith(("chance-", "star1-")) for code in plain.codes)
    found = stats.count_misconceptions(
        [(1, 2, "chance-as-min", when), (1, 2, None, when), (1, 1, "no-pruning", when)]
    )
    assert found.codes[-2:] == ["chance-as-min", stats.UNMATCHED]
    assert "star1-windows" not in found.codes and found.total["chance-as-min"] == 1
    assert found.codes[: len(plain.codes) - 1] == plain.codes[:-1]  # the MAX/MIN ones first
