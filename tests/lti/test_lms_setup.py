"""A new LMS course set up from inside the LMS (issue 28, item 2): the deep-linking picker's
"a new assignment from a preset", made and placed in one submit, and the first launch of a link
that opens nothing yet; a student's graded attempt reaches the platform's line item."""

from __future__ import annotations

import datetime as dt
import tomllib

import pytest
import requests
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Assignment, LtiResourceLink
from grader.services.courses.courses import presets_dir
from tests.app_support import csrf_from
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, TA, form_fields
from tests.lti.test_advantage import CONTENT_ITEMS, course_of_context

NEXT_WEEK = (dt.datetime.now(dt.UTC) + dt.timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")


def preset_slots(app, name: str) -> list[dict]:
    """The preset's [[slots]] as its TOML file says (read here, not through the service)."""
    with app.app_context():
        return tomllib.loads((presets_dir() / f"{name}.toml").read_text())["slots"]


def picker(env, client, member):
    """A deep-linking launch: the picker's URL and page."""
    response = env.launch(client, member, message_type="LtiDeepLinkingRequest")
    assert response.status_code == 302 and "/lti/deep-link/" in response.headers["Location"]
    url = response.headers["Location"]
    return url, client.get(url)


def assignments(app) -> list[tuple[int, str, str | None, int]]:
    with app.app_context():
        return [
            (a.id, a.title, a.preset, len(a.slots))
            for a in db.session.scalars(sa.select(Assignment).order_by(Assignment.id))
        ]


def answer_first_slot(app, sub: str, assignment_id: int) -> float:
    """The student the LMS knows as `sub` answers the assignment's first exercise (prune)
    right: the reference solver's pruned nodes and root value."""
    from grader.gametree import Conventions, solve
    from grader.models import LtiUser, User
    from grader.services.trees import attempts, exercises

    with app.app_context():
        student = db.session.get_one(
            User, db.session.scalar(sa.select(LtiUser.user_id).where(LtiUser.sub == sub))
        )
        exercise = exercises.slot_exercise(student, assignment_id, 0)
        assert exercise.kind == "prune"
        result = solve(exercises.tree_of(exercise), Conventions.from_dict(exercise.conventions))
        answer = {"pruned": list(result.pruned), "value": result.value}
        return attempts.submit(student, exercise.id, answer).attempt.score


def test_a_blank_lms_course_to_a_placed_graded_assignment(lti_env, app):
    env = lti_env
    teacher = env.member("teacher", [INSTRUCTOR])
    client = app.test_client()
    url, page = picker(env, client, teacher)  # the LMS course's first launch: deep linking
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Set up this course from a preset" in html
    assert assignments(app) == []  # nothing made before the instructor submits
    for name in ("intro", "standard"):
        assert f'<option value="{name}">' in html
    reply = client.post(
        url + "/new",
        data={
            "csrf_token": csrf_from(html),
            "preset": "intro",
            "title": "Week 1: pruning",
            "due_at": NEXT_WEEK,
        },
    )
    # One submit: the page posting the signed reply back to the LMS comes at once.
    assert reply.status_code == 200
    assert env.platform.base + "/deep_link_return" in reply.get_data(as_text=True)
    [(assignment_id, title, preset, slots)] = assignments(app)
    assert (title, preset, slots) == ("Week 1: pruning", "intro", len(preset_slots(app, "intro")))
    with app.app_context():
        due = db.session.get(Assignment, assignment_id).due_at
    assert due.strftime("%Y-%m-%dT%H:%M") == NEXT_WEEK  # UTC, as typed
    placed = requests.post(
        env.platform.base + "/deep_link_return",
        data={"JWT": form_fields(reply.get_data(as_text=True))["JWT"]},
        timeout=10,
    )
    assert placed.status_code == 200
    [item] = env.platform.deep_link_replies[-1][CONTENT_ITEMS]
    assert item["custom"] == {"assignment_id": str(assignment_id), "slot": ""}
    assert item["title"] == "Week 1: pruning"
    [lineitem] = env.platform.lineitems.values()
    assert lineitem["scoreMaximum"] == float(len(preset_slots(app, "intro")))
    # A student's launch of the placed link opens the assignment; a right answer's score
    # reaches the line item through the platform's token endpoint.
    env.member("alice", [LEARNER])
    launched = env.launch(
        app.test_client(),
        env.platform.members[-1],
        resource_link=item["_resource_link_id"],
        custom=item["custom"],
    )
    assert launched.headers["Location"].endswith(f"/assignments/{assignment_id}")
    assert answer_first_slot(app, "alice", assignment_id) == 1.0
    [score] = env.platform.scores[lineitem["id"]]
    assert score["userId"] == "alice" and score["scoreGiven"] == 1.0
    assert score["scoreMaximum"] == float(len(preset_slots(app, "intro")))
    assert env.platform.tokens  # the score came with a token the platform issued


def test_the_picker_offers_a_preset_beside_existing_assignments(lti_env, app):
    env = lti_env
    teacher = env.member("teacher", [INSTRUCTOR])
    client = app.test_client()
    url, page = picker(env, client, teacher)
    client.post(
        url + "/new",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "preset": "intro",
            "title": "A",
        },
    )
    url, page = picker(env, client, teacher)
    html = page.get_data(as_text=True)
    [(first, *_)] = assignments(app)
    assert f'value="a:{first}"' in html and "Or a new assignment from a preset" in html
    reply = client.post(
        url + "/new",
        data={"csrf_token": csrf_from(html), "preset": "standard", "title": "B"},
    )
    assert reply.status_code == 200
    second = assignments(app)[-1]
    assert second[1:3] == ("B", "standard")
    claims = form_fields(reply.get_data(as_text=True))
    assert claims["JWT"]  # placed at once, no due date (optional)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"title": ""}, "This field is required."),
        ({"title": "x" * 201}, "Field cannot be longer than 200 characters."),
        ({"preset": "../../etc/passwd"}, "Not a valid choice."),
        ({"preset": ""}, "This field is required."),
        ({"due_at": "next friday"}, "Not a valid datetime value."),
        # Typed and told in the course's zone (the server's here), named.
        ({"due_at": "2001-01-01T00:00"}, "the due date is in the past (Mon 1 Jan 2001, 00:00 UTC)"),
    ],
)
def test_a_bad_form_is_an_error_that_loses_nothing(lti_env, app, fields, message):
    env = lti_env
    client = app.test_client()
    url, page = picker(env, client, env.member("teacher", [INSTRUCTOR]))
    data = {"preset": "intro", "title": "Week 1", "due_at": NEXT_WEEK, **fields}
    refused = client.post(
        url + "/new", data={"csrf_token": csrf_from(page.get_data(as_text=True)), **data}
    )
    html = refused.get_data(as_text=True)
    assert refused.status_code == 400 and message in html
    assert assignments(app) == []  # nothing made
    # What was typed is still there, to correct.
    for name, value in data.items():
        if name != "preset" and value and len(value) < 100:
            assert f'value="{value}"' in html, name
    assert "deep_link_return" not in html  # nothing sent to the LMS


def test_only_the_lms_courses_instructor_may_create_and_with_csrf(lti_env, app):
    env = lti_env
    teacher_client = app.test_client()
    url, _ = picker(env, teacher_client, env.member("teacher", [INSTRUCTOR]))
    data = {"preset": "intro", "title": "Week 1", "due_at": NEXT_WEEK}
    assert teacher_client.post(url + "/new", data=data).status_code == 400  # no CSRF token
    for sub, roles in (("eve", [LEARNER]), ("tim", [TA])):
        other = app.test_client()
        response = env.launch(other, env.member(sub, roles), message_type="LtiDeepLinkingRequest")
        own_url = response.headers["Location"]
        token = csrf_from(other.get("/lti/account").get_data(as_text=True))
        for target in (own_url, url):  # their own deep-linking launch, and the teacher's
            refused = other.post(target + "/new", data={**data, "csrf_token": token})
            assert refused.status_code == 403, (sub, target)
    assert assignments(app) == []


def test_the_first_launch_of_an_unplaced_link_sets_it_up(lti_env, app):
    """A plain launch (Moodle's external tool activity, no content selection) into a new LMS
    course: the instructor makes an assignment from a preset for this very link."""
    env = lti_env
    teacher = env.member("teacher", [INSTRUCTOR])
    client = app.test_client()
    response = env.launch(client, teacher, resource_link="moodle-activity-7")
    url = response.headers["Location"]
    assert f"/lti/setup/{course_of_context(app)}/" in url
    page = client.get(url).get_data(as_text=True)
    bad = client.post(url, data={"csrf_token": csrf_from(page), "preset": "nope", "title": "T"})
    assert bad.status_code == 400 and assignments(app) == []
    made = client.post(
        url, data={"csrf_token": csrf_from(page), "preset": "standard", "title": "Homework 1"}
    )
    assert made.status_code == 302
    [(assignment_id, title, preset, _)] = assignments(app)
    assert (title, preset) == ("Homework 1", "standard")
    assert made.headers["Location"].endswith(f"/assignments/{assignment_id}")
    with app.app_context():
        link = db.session.scalar(sa.select(LtiResourceLink))
        assert (link.resource_link_id, link.assignment_id) == ("moodle-activity-7", assignment_id)
    again = client.post(url, data={"csrf_token": csrf_from(page), "preset": "intro", "title": "x"})
    assert again.status_code == 400 and "already opens an assignment" in again.get_data(
        as_text=True
    )
    assert len(assignments(app)) == 1
    # The student's launch of the same link opens it; the score goes to a line item the tool
    # makes for the link (this launch named none).
    alice = env.member("alice", [LEARNER])
    launched = env.launch(app.test_client(), alice, resource_link="moodle-activity-7")
    assert launched.headers["Location"].endswith(f"/assignments/{assignment_id}")
    assert answer_first_slot(app, "alice", assignment_id) == 1.0
    [lineitem] = env.platform.lineitems.values()
    assert lineitem["resourceLinkId"] == "moodle-activity-7"
    [score] = env.platform.scores[lineitem["id"]]
    assert score["userId"] == "alice" and score["scoreGiven"] == 1.0


def test_a_placement_that_never_reached_the_lms_is_offered_again_marked(lti_env, app):
    """The reply page was closed before it posted to the LMS: the assignment it made stays,
    and the next picker offers it again as not opened from the LMS yet, until a launch through
    a placed link opens it."""
    env = lti_env
    teacher = env.member("teacher", [INSTRUCTOR])
    client = app.test_client()
    url, page = picker(env, client, teacher)
    reply = client.post(
        url + "/new",
        data={
            "csrf_token": csrf_from(page.get_data(as_text=True)),
            "preset": "intro",
            "title": "Week 1: pruning",
            "due_at": NEXT_WEEK,
        },
    )
    assert reply.status_code == 200  # ... and never posted to the LMS
    [(assignment_id, *_)] = assignments(app)
    _, again = picker(env, client, teacher)
    text = again.get_data(as_text=True)
    assert f'value="a:{assignment_id}"' in text
    assert "Week 1: pruning (whole assignment, " in text
    assert "not opened from the LMS yet" in text
    placed = requests.post(
        env.platform.base + "/deep_link_return",
        data={"JWT": form_fields(reply.get_data(as_text=True))["JWT"]},
        timeout=10,
    )
    assert placed.status_code == 200
    [item] = env.platform.deep_link_replies[-1][CONTENT_ITEMS]
    env.member("alice", [LEARNER])
    env.launch(
        app.test_client(),
        env.platform.members[-1],
        resource_link=item["_resource_link_id"],
        custom=item["custom"],
    )
    _, later = picker(env, client, teacher)
    assert "not opened from the LMS yet" not in later.get_data(as_text=True)
