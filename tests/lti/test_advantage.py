"""LTI Advantage end to end against the platform: deep linking places an exercise, a graded
attempt's credited score (late penalty applied) arrives at its line item, a regrade sends it
again, and NRPS adds the roster."""

from __future__ import annotations

import datetime as dt

import jwt
import pytest
import requests
import sqlalchemy as sa

from grader import jobs
from grader.extensions import db
from grader.gametree import KINDS, Conventions, Tree
from grader.models import LtiContext, LtiPassback, Membership, User
from grader.services.transactions import writing
from tests.app_support import csrf_from, upload_row
from tests.instructor_support import add_textbook_slot
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, TA, form_fields, new_key, public_jwk
from tests.lti.lti_support import LAUNCH_URL

AIMA = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"


def course_of_context(app) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(LtiContext.course_id))


def make_assignment(
    app, course_id: int, *, late_percent: float | None = None, due_at: dt.datetime | None = None
) -> int:
    from grader.services.teaching import editor

    with app.app_context():
        teacher = db.session.scalar(
            sa.select(User)
            .join(Membership)
            .where(Membership.course_id == course_id, Membership.role == "instructor")
        )
        assignment = editor.create_assignment(
            teacher,
            course_id,
            editor.AssignmentInput(
                title="Homework 1", due_at=due_at, late_percent_per_day=late_percent
            ),
        )
        for title in ("AIMA's tree", "AIMA's tree again"):
            add_textbook_slot(teacher, assignment.id, title)
        return assignment.id


def deep_link(env, teacher_client, teacher, choice_for) -> dict:
    """The instructor's deep-linking launch, the pick, and the reply posted to the platform."""
    response = env.launch(teacher_client, teacher, message_type="LtiDeepLinkingRequest")
    assert response.status_code == 302 and "/lti/deep-link/" in response.headers["Location"]
    page = teacher_client.get(response.headers["Location"])
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    choice = choice_for(html)
    reply = teacher_client.post(
        response.headers["Location"], data={"csrf_token": csrf_from(html), "choice": choice}
    )
    assert reply.status_code == 200
    fields = form_fields(reply.get_data(as_text=True))
    return {"reply": reply, "jwt": fields["JWT"]}


@pytest.fixture
def placed(lti_env, app):
    """A teacher placed exercise 2 of an assignment (due yesterday, 10 % a day late) in the
    LMS, and Alice launched it."""
    env = lti_env
    teacher = env.member("teacher", [INSTRUCTOR])
    teacher_client = app.test_client()
    env.launch(teacher_client, teacher)  # the first launch opens the course
    course_id = course_of_context(app)
    yesterday = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(hours=2)
    assignment_id = make_assignment(app, course_id, late_percent=10.0, due_at=yesterday)
    with app.app_context():
        from grader.models import Assignment

        slot = db.session.get(Assignment, assignment_id).slots[1]
        slot_id = slot.id
    linked = deep_link(env, teacher_client, teacher, lambda html: f"s:{assignment_id}:1")
    page = requests.post(
        env.platform.base + "/deep_link_return", data={"JWT": linked["jwt"]}, timeout=10
    )
    assert page.status_code == 200
    item = env.platform.deep_link_replies[-1][CONTENT_ITEMS][0]
    alice = env.member("alice", [LEARNER])
    alice_client = app.test_client()
    launched = env.launch(
        alice_client, alice, resource_link=item["_resource_link_id"], custom=item["custom"]
    )
    return {
        "env": env,
        "alice": alice,
        "client": alice_client,
        "launched": launched,
        "assignment_id": assignment_id,
        "slot_id": slot_id,
        "item": item,
        "course_id": course_id,
    }


def test_deep_linking_returns_a_signed_content_item(lti_env, app):
    env = lti_env
    teacher = env.member("teacher", [INSTRUCTOR])
    client = app.test_client()
    env.launch(client, teacher)
    assignment_id = make_assignment(app, course_of_context(app))
    linked = deep_link(env, client, teacher, lambda html: f"a:{assignment_id}")
    # The page posts the reply to the platform's return URL only (the CSP allows that origin).
    assert env.platform.base + "/deep_link_return" in linked["reply"].get_data(as_text=True)
    assert env.platform.base in linked["reply"].headers["Content-Security-Policy"]
    tool_keys = client.get("/lti/jwks").get_json()["keys"]
    header = jwt.get_unverified_header(linked["jwt"])
    key = next(k for k in tool_keys if k["kid"] == header["kid"])
    claims = jwt.decode(
        linked["jwt"],
        jwt.algorithms.RSAAlgorithm.from_jwk(key),
        algorithms=["RS256"],
        audience=env.platform.issuer,
    )
    assert claims["iss"] == env.platform.client_id
    assert (
        claims["https://purl.imsglobal.org/spec/lti/claim/message_type"] == "LtiDeepLinkingResponse"
    )
    assert (
        claims["https://purl.imsglobal.org/spec/lti/claim/deployment_id"]
        == env.platform.deployment_id
    )
    assert claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "platform-opaque-data"
    [item] = claims[CONTENT_ITEMS]
    assert item["type"] == "ltiResourceLink" and item["url"] == LAUNCH_URL
    assert item["custom"] == {"assignment_id": str(assignment_id), "slot": ""}
    assert item["lineItem"]["scoreMaximum"] == 2.0 and item["title"] == "Homework 1"
    # A key other than the tool's does not verify it.
    with pytest.raises(jwt.InvalidSignatureError):
        other = jwt.algorithms.RSAAlgorithm.from_jwk(public_jwk(new_key(), "x"))
        jwt.decode(linked["jwt"], other, algorithms=["RS256"], audience=env.platform.issuer)


def test_students_cannot_deep_link(lti_env, app):
    env = lti_env
    env.launch(app.test_client(), env.member("teacher", [INSTRUCTOR]))
    make_assignment(app, course_of_context(app))
    student_client = app.test_client()
    response = env.launch(
        student_client, env.member("eve", [LEARNER]), message_type="LtiDeepLinkingRequest"
    )
    assert student_client.get(response.headers["Location"]).status_code == 403


def test_a_graded_attempt_score_arrives_at_the_line_item(placed, app):
    from grader.services.trees import attempts, exercises

    env = placed["env"]
    assert placed["launched"].status_code == 302
    assert (
        placed["launched"]
        .headers["Location"]
        .endswith(f"/assignments/{placed['assignment_id']}/slots/1")
    )
    [lineitem] = [
        i
        for i in env.platform.lineitems.values()
        if i["resourceLinkId"] == placed["item"]["_resource_link_id"]
    ]
    assert lineitem["scoreMaximum"] == 1.0
    with app.app_context():  # the LMS's column is due when the slot is
        from grader.models import Assignment

        due = db.session.get(Assignment, placed["assignment_id"]).due_at
    assert lineitem["endDateTime"] == due.isoformat(timespec="seconds") + "Z"
    key = KINDS["prune"].key(Tree.from_nested(AIMA), Conventions.from_dict({}))
    with app.app_context():
        alice = env.user("alice")
        exercise = exercises.slot_exercise(alice, placed["assignment_id"], 1)
        attempt = attempts.submit(alice, exercise.id, key).attempt
    assert attempt.score == 1.0 and attempt.days_late == 1
    [score] = env.platform.scores[lineitem["id"]]
    assert score["userId"] == "alice"
    assert score["scoreGiven"] == pytest.approx(0.9)  # the credited score: 10 % late penalty
    assert score["scoreMaximum"] == 1.0
    assert score["activityProgress"] == "Completed"
    assert score["gradingProgress"] == "FullyGraded"
    assert score["comment"].startswith("0.9 of 1 points on ")  # the score in words
    # An exercise that is not placed in the LMS sends nothing.
    with app.app_context():
        other = exercises.slot_exercise(env.user("alice"), placed["assignment_id"], 0)
        attempts.submit(env.user("alice"), other.id, key)
    assert sum(len(v) for v in env.platform.scores.values()) == 1


def test_a_regrade_sends_the_new_score(placed, app):
    from grader.services.teaching import editor
    from grader.services.trees import attempts, exercises

    env = placed["env"]
    key = KINDS["prune"].key(Tree.from_nested(AIMA), Conventions.from_dict({}))
    with app.app_context():
        alice = env.user("alice")
        exercise = exercises.slot_exercise(alice, placed["assignment_id"], 1)
        attempts.submit(alice, exercise.id, key)
    [url] = env.platform.scores
    assert env.platform.scores[url][-1]["scoreGiven"] == pytest.approx(0.9)
    with app.app_context():  # the instructor lifts the late penalty: lateness is recomputed
        teacher = env.user("teacher")
        editor.update_assignment(
            teacher,
            placed["assignment_id"],
            editor.AssignmentInput(title="Homework 1", due_at=None, late_percent_per_day=None),
        )
    assert env.platform.scores[url][-1]["scoreGiven"] == pytest.approx(1.0)


def test_a_platform_that_is_down_does_not_fail_the_attempt(placed, app):
    from grader.models import Attempt
    from grader.services.trees import attempts, exercises

    env = placed["env"]
    env.platform.score_status = 503
    key = KINDS["prune"].key(Tree.from_nested(AIMA), Conventions.from_dict({}))
    with app.app_context():
        alice = env.user("alice")
        exercise = exercises.slot_exercise(alice, placed["assignment_id"], 1)
        submitted = attempts.submit(alice, exercise.id, key)
        assert db.session.get(Attempt, submitted.attempt.id) is not None
    # The platform refused the score, and the attempt is stored all the same.
    assert env.platform.refused == 1 and not env.platform.scores
    with app.app_context():  # the score stays marked, with the refusal, for the sweep
        waiting = db.session.scalar(sa.select(LtiPassback))
        assert waiting.failures == 1 and "503" in waiting.error
    teacher = app.test_client()
    env.launch(teacher, env.member("teacher", [INSTRUCTOR]))
    page = teacher.get(f"/lti/courses/{placed['course_id']}").get_data(as_text=True)
    assert "1 score(s) not delivered" in page and "503" in page
    # The LMS is back; a while later the worker's sweep sends it, and the mark is gone.
    env.platform.score_status = 200
    with app.app_context():
        db.session.execute(
            sa.update(LtiPassback).values(
                enqueued_at=LtiPassback.enqueued_at - dt.timedelta(minutes=5)
            )
        )
        db.session.commit()
    assert jobs.sweep_once(app) == 1
    [scores] = env.platform.scores.values()
    assert scores[-1]["scoreGiven"] == pytest.approx(0.9)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(LtiPassback)) == 0


def test_a_crash_after_the_commit_loses_no_score(placed, app):
    """The mark is written with the attempt; if the process dies before it queues the job,
    the worker's sweep finds the mark and sends the score."""
    from grader.services import outbox
    from grader.services.trees import attempts, exercises

    env = placed["env"]
    alice_id = env.user("alice").id
    key = KINDS["prune"].key(Tree.from_nested(AIMA), Conventions.from_dict({}))
    with app.app_context():
        alice = env.user("alice")
        attempts.submit(alice, exercises.slot_exercise(alice, placed["assignment_id"], 1).id, key)
    [url] = env.platform.scores
    assert len(env.platform.scores.pop(url)) == 1  # sent at once; now a later change:
    with app.app_context():
        with writing() as session:
            outbox.passback_after_commit(session, [(alice_id, placed["slot_id"])])
            session.info.pop("lti_passback")  # what a crash right after the commit loses
        assert jobs.sweep_once(app) == 0  # not yet due: its message may still be on its way
        db.session.execute(
            sa.update(LtiPassback).values(
                enqueued_at=LtiPassback.enqueued_at - dt.timedelta(minutes=5)
            )
        )
        db.session.commit()
    assert not env.platform.scores
    assert jobs.sweep_once(app) == 1
    assert [s["userId"] for s in next(iter(env.platform.scores.values()))] == ["alice"]
    assert jobs.sweep_once(app) == 0  # delivered: nothing left to send


def test_nrps_sync_adds_the_roster(lti_env, app):
    from grader.services import lti

    env = lti_env
    teacher = env.member("teacher", [INSTRUCTOR])
    env.launch(app.test_client(), teacher)
    for sub in ("bob", "carol", "dave"):
        env.member(sub, [LEARNER])
    env.member("tina", [TA])
    env.member("gone", [LEARNER]).status = "Inactive"
    course_id = course_of_context(app)
    with app.app_context():
        synced = lti.sync_roster(env.user("teacher"), course_id)
        roles = dict(
            db.session.execute(
                sa.select(User.name, Membership.role)
                .join(Membership)
                .where(Membership.course_id == course_id)
            ).all()
        )
    assert synced.added == 4 and synced.members == 5  # five active members, over three pages
    assert roles == {
        "Teacher": "instructor",
        "Bob": "student",
        "Carol": "student",
        "Dave": "student",
        "Tina": "ta",
    }
    assert env.user("gone") is None
    # An LMS that does not answer is a message, not an error page.
    teacher_client = app.test_client()
    env.launch(teacher_client, teacher)
    page = teacher_client.get(f"/lti/courses/{course_id}").get_data(as_text=True)
    env.platform.members_status = 503
    answer = teacher_client.post(
        f"/lti/courses/{course_id}/sync",
        follow_redirects=True,
        data={"csrf_token": csrf_from(page)},
    )
    assert answer.status_code == 200
    assert "the LMS refused the roster request" in answer.get_data(as_text=True)
    env.platform.members_status = 200
    # The page's button does the same, for the course's instructors only.
    client = app.test_client()
    env.launch(client, env.member("bob2", [LEARNER]))
    assert client.post(f"/lti/courses/{course_id}/sync").status_code in (400, 403)


def test_an_engine_result_sends_the_assignment_score(lti_env, app):
    """A whole assignment placed in the LMS: its line item gets the sum of the slots,
    engine slot included, when a worker writes an engine's result."""
    from grader.models import QUEUED, RUNNING, Submission
    from grader.services.engines import leases, submissions

    env = lti_env
    teacher = env.member("teacher", [INSTRUCTOR])
    teacher_client = app.test_client()
    env.launch(teacher_client, teacher)
    assignment_id = make_assignment(app, course_of_context(app))
    with app.app_context():
        engine_slot = submissions.add_engine_slot(assignment_id)
    linked = deep_link(env, teacher_client, teacher, lambda html: f"a:{assignment_id}")
    requests.post(env.platform.base + "/deep_link_return", data={"JWT": linked["jwt"]}, timeout=10)
    item = env.platform.deep_link_replies[-1][CONTENT_ITEMS][0]
    assert item["lineItem"]["scoreMaximum"] == 3.0
    bob = env.member("bob", [LEARNER])
    env.launch(
        app.test_client(), bob, resource_link=item["_resource_link_id"], custom=item["custom"]
    )
    with app.app_context():
        submission = upload_row(env.user("bob").id, engine_slot.id, stored_path="x", status=QUEUED)
        db.session.commit()
        db.session.execute(
            sa.update(Submission)
            .where(Submission.id == submission.id)
            .values(status=RUNNING, lease_owner="worker-1")
        )
        db.session.commit()
        assert leases.write_result(
            submission.id, "worker-1", score=3.0, max_score=4.0, gradescope={}, rich={}
        )
    [scores] = env.platform.scores.values()
    assert scores[-1]["userId"] == "bob"
    assert scores[-1]["scoreGiven"] == pytest.approx(0.75)  # 3 of 4 points of one slot of 3
    assert scores[-1]["scoreMaximum"] == 3.0


def test_resend_queues_every_placed_score_again(placed, app):
    from grader.services import lti
    from grader.services.trees import attempts, exercises

    env = placed["env"]
    key = KINDS["prune"].key(Tree.from_nested(AIMA), Conventions.from_dict({}))
    env.platform.score_status = 503
    with app.app_context():
        alice = env.user("alice")
        attempts.submit(alice, exercises.slot_exercise(alice, placed["assignment_id"], 1).id, key)
    assert not env.platform.scores
    env.platform.score_status = 200  # the LMS is back
    client = app.test_client()
    env.launch(client, env.member("teacher", [INSTRUCTOR]))
    page = client.get(f"/lti/courses/{placed['course_id']}")
    assert page.status_code == 200 and "Sync the roster" in page.get_data(as_text=True)
    response = client.post(
        f"/lti/courses/{placed['course_id']}/resend",
        data={"csrf_token": csrf_from(page.get_data(as_text=True))},
    )
    assert response.status_code == 302
    [scores] = env.platform.scores.values()
    assert [s["scoreGiven"] for s in scores] == [pytest.approx(0.9)]
    with app.app_context():  # the CLI's way, with nobody's permission to check
        assert lti.resend(None, placed["course_id"]) == 1  # one student, one placed slot


def test_an_lms_course_can_open_a_course_built_before(lti_env, app):
    """The instructor prepared a course here; the LMS course's first launch made a new one;
    on the deep-linking page they make the LMS course open theirs instead."""
    from grader.models import Course
    from grader.services import accounts
    from grader.services.courses import courses

    env = lti_env
    with app.app_context():  # the instructor's own account here, and the course they built
        prof = accounts.create_user("prof@uni.example", "correct horse battery", "instructor")
        built = courses.create_course("Search 101 (prepared)", "prof@uni.example").id
    assignment_id = make_assignment(app, built)
    teacher = env.member("teacher", [INSTRUCTOR])
    client = app.test_client()
    env.launch(client, teacher)  # the first launch makes an account and a course
    made = course_of_context(app)
    made_account = env.user("teacher").id
    # They link the launch-made account to theirs, proving it with its password.
    page = client.get("/lti/account").get_data(as_text=True)
    linked = client.post(
        "/lti/account",
        data={
            "csrf_token": csrf_from(page),
            "email": "prof@uni.example",
            "password": "correct horse battery",
        },
    )
    assert linked.status_code == 302
    assert env.user("teacher").id == prof.id  # the LMS now opens the instructor's account
    with app.app_context():
        assert db.session.get(User, made_account) is None
        assert (
            db.session.scalar(
                sa.select(Membership.role).where(
                    Membership.user_id == prof.id, Membership.course_id == made
                )
            )
            == "instructor"
        )
    response = env.launch(client, teacher, message_type="LtiDeepLinkingRequest")
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Search 101 (prepared)" in page and f"a:{assignment_id}" not in page
    moved = client.post(
        response.headers["Location"] + "/course",
        data={"csrf_token": csrf_from(page), "course_id": str(built)},
    )
    assert moved.status_code == 302 and f"/lti/deep-link/{built}/" in moved.headers["Location"]
    page = client.get(moved.headers["Location"]).get_data(as_text=True)
    assert f"a:{assignment_id}" in page
    with app.app_context():
        assert course_of_context(app) == built
        assert db.session.get(Course, made) is None  # the empty course it made is gone
    # A student's launch now joins the prepared course.
    env.launch(app.test_client(), env.member("alice", [LEARNER]))
    with app.app_context():
        assert (
            db.session.scalar(
                sa.select(Membership.course_id).where(Membership.user_id == env.user("alice").id)
            )
            == built
        )


def test_only_the_instructor_of_both_courses_may_relink(lti_env, app):
    from grader.services.courses import courses

    env = lti_env
    teacher = env.member("teacher", [INSTRUCTOR])
    client = app.test_client()
    env.launch(client, teacher)
    with app.app_context():
        foreign = courses.create_course("Someone else's").id
    response = env.launch(client, teacher, message_type="LtiDeepLinkingRequest")
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Someone else" not in page
    refused = client.post(
        response.headers["Location"] + "/course",
        data={"csrf_token": csrf_from(page), "course_id": str(foreign)},
    )
    assert refused.status_code == 404  # a course you are not in does not exist


def test_held_scores_reach_the_lms_at_their_release_and_not_before(placed, app):
    from grader.models import Assignment
    from grader.services import lti
    from grader.services.teaching import editor
    from grader.services.trees import attempts, exercises

    env = placed["env"]
    key = KINDS["prune"].key(Tree.from_nested(AIMA), Conventions.from_dict({}))
    with app.app_context():
        stored = db.session.get_one(Assignment, placed["assignment_id"])
        editor.update_assignment(
            env.user("teacher"),
            placed["assignment_id"],
            editor.AssignmentInput(
                title="Homework 1",
                due_at=stored.due_at,
                late_percent_per_day=10.0,
                hold_scores=True,
                scores_release_at=dt.datetime.now(dt.UTC).replace(tzinfo=None)
                + dt.timedelta(hours=1),
            ),
        )
        alice = env.user("alice")
        exercise = exercises.slot_exercise(alice, placed["assignment_id"], 1)
        made = attempts.submit(alice, exercise.id, key)
        assert made.attempt.score == 1.0  # graded on arrival
        assert made.solution is None  # the key is held with the score
        shown = attempts.to_api(made.attempt, made.solution, viewer_id=alice.id)
        assert shown["score"] is None and shown["held_words"].startswith(
            "Submitted; your score is released on "
        )
        assert attempts.to_api(made.attempt, viewer_id=env.user("teacher").id)["score"] == 1.0
        assert lti.due_releases() == 0  # its release has not come
    assert sum(len(v) for v in env.platform.scores.values()) == 0
    with app.app_context():  # the release comes
        db.session.execute(
            sa.update(Assignment).values(
                scores_release_at=dt.datetime.now(dt.UTC).replace(tzinfo=None)
                - dt.timedelta(seconds=1)
            )
        )
        db.session.commit()
        assert lti.due_releases() >= 1
        assert lti.due_releases() == 0  # once per release
    [url] = env.platform.scores
    assert env.platform.scores[url][-1]["scoreGiven"] == pytest.approx(0.9)


def test_a_score_held_until_the_students_own_due_date_reaches_the_lms_then(placed, app):
    """Held until each student's own due date: Alice's extension holds hers past the class's
    release sweep; the LMS gets nothing of it until her own due date passes, then gets it."""
    from grader.models import Assignment, Extension
    from grader.services import lti
    from grader.services.courses import extensions
    from grader.services.teaching import editor
    from grader.services.trees import attempts, exercises

    env = placed["env"]
    key = KINDS["prune"].key(Tree.from_nested(AIMA), Conventions.from_dict({}))
    with app.app_context():
        stored = db.session.get_one(Assignment, placed["assignment_id"])
        teacher = env.user("teacher")
        editor.update_assignment(
            teacher,
            placed["assignment_id"],
            editor.AssignmentInput(
                title="Homework 1",
                due_at=stored.due_at,  # two hours ago
                late_percent_per_day=10.0,
                hold_scores=True,
            ),
        )
        alice = env.user("alice")
        extensions.grant(
            teacher,
            placed["course_id"],
            extensions.ExtensionInput(
                assignment_id=placed["assignment_id"], email=alice.email, days=1
            ),
        )
        exercise = exercises.slot_exercise(alice, placed["assignment_id"], 1)
        assert attempts.submit(alice, exercise.id, key).attempt.score == 1.0  # not late: hers
        assert lti.due_releases() >= 1  # the class's due date passed: everyone is marked
    assert sum(len(v) for v in env.platform.scores.values()) == 0  # hers is still held
    with app.app_context():  # her own due date passes
        db.session.execute(
            sa.update(Extension).values(
                due_at=dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=1)
            )
        )
        db.session.commit()
        assert lti.due_releases() >= 1
        assert lti.due_releases() == 0  # once per release
    [url] = env.platform.scores
    assert env.platform.scores[url][-1]["scoreGiven"] == pytest.approx(1.0)
