"""Launches from a real LTI 1.3 platform: accounts, course memberships and roles."""

from __future__ import annotations

import sqlalchemy as sa
from lti_platform import INSTRUCTOR, LEARNER, TA

from grader.extensions import db
from grader.models import Course, LtiContext, Membership


def membership_role(app, user_id: int) -> tuple[str, str]:
    with app.app_context():
        row = db.session.execute(sa.select(Membership.role, Course.name).join(Course).where(
            Membership.user_id == user_id)).one()
        return row.role, row.name


def test_a_launch_creates_the_student_and_the_course_membership(lti_env, app):
    alice = lti_env.member("alice-sub", [LEARNER], "Alice Liddell", "alice@uni.example")
    assert lti_env.user("alice-sub") is None
    response = lti_env.launch(lti_env.client, alice)
    assert response.status_code == 302
    user = lti_env.user("alice-sub")
    assert user is not None and user.email == "alice@uni.example" and user.name == "Alice Liddell"
    role, course = membership_role(app, user.id)
    assert role == "student" and course == lti_env.platform.context_title
    # The launch logged the student in: the dashboard shows the LMS's course.
    page = lti_env.client.get("/dashboard" if response.headers["Location"].endswith(
        "/dashboard") else response.headers["Location"])
    assert page.status_code == 200


def test_roles_map_to_memberships_and_a_second_launch_reuses_the_account(lti_env, app):
    teacher = lti_env.member("t-sub", [INSTRUCTOR])
    ta = lti_env.member("ta-sub", [TA, INSTRUCTOR.replace("Instructor", "Mentor")])
    client_t, client_ta = app.test_client(), app.test_client()
    assert lti_env.launch(client_t, teacher).status_code == 302
    assert lti_env.launch(client_ta, ta).status_code == 302
    assert membership_role(app, lti_env.user("t-sub").id)[0] == "instructor"
    assert membership_role(app, lti_env.user("ta-sub").id)[0] == "ta"
    first = lti_env.user("t-sub").id
    assert lti_env.launch(app.test_client(), teacher).status_code == 302
    assert lti_env.user("t-sub").id == first
    with app.app_context():  # one course for the one LMS context
        assert db.session.scalar(sa.select(sa.func.count()).select_from(LtiContext)) == 1


def test_a_platform_email_never_logs_into_an_existing_account(lti_env, app):
    from grader.services import accounts

    with app.app_context():
        admin = accounts.create_user("boss@uni.example", "correct horse battery", "instructor")
    mallory = lti_env.member("mallory", [INSTRUCTOR], "Mallory", "boss@uni.example")
    assert lti_env.launch(lti_env.client, mallory).status_code == 302
    user = lti_env.user("mallory")
    assert user.id != admin.id and user.email.endswith("@lti.invalid")
