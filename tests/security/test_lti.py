"""LTI launches the tool must refuse: a bad signature, another audience, a replayed nonce,
an expired token, an unknown deployment or platform; and the CSRF exemption covers only the
two endpoints the platform's JWT authenticates."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.gametree.tree import Tree
from grader.models import Exercise, LtiUser, User
from grader.services import Conflict, costly, lti
from tests.lti.lti_platform import INSTRUCTOR, LEARNER, form_fields, new_key
from tests.lti.lti_support import bench


@pytest.fixture
def lti_env(app, client):
    yield from bench(app, client)


def forged(env, client, **overrides):
    """A launch whose id_token the test signs itself (with `overrides`), for a real login."""
    member = env.member("alice", [LEARNER])
    auth = env.login(client, member)
    claims = env.platform.pending.pop(auth["lti_message_hint"], None) or env.platform.launch_claims(
        member
    )
    nonce = overrides.pop("nonce", auth["nonce"])
    token = env.platform.id_token(claims, nonce, **overrides)
    return client.post("/lti/launch", data={"id_token": token, "state": auth["state"]})


def refused(response, word: str) -> None:
    assert response.status_code == 400
    assert word.lower() in response.get_data(as_text=True).lower()


def test_the_genuine_launch_is_accepted(lti_env):
    response = forged(lti_env, lti_env.client)
    assert response.status_code == 302 and lti_env.user("alice") is not None


def test_a_bad_signature_is_refused(lti_env):
    # Signed by another key under the platform's key id.
    refused(forged(lti_env, lti_env.client, key=new_key()), "signature")
    assert lti_env.user("alice") is None


def test_an_unknown_key_id_is_refused(lti_env):
    refused(forged(lti_env, lti_env.client, key=new_key(), kid="attacker"), "public key")


def test_another_audience_is_refused(lti_env):
    refused(
        forged(lti_env, lti_env.client, aud="some-other-tool", azp="some-other-tool"), "refused"
    )
    assert lti_env.user("alice") is None


def test_an_audience_list_needs_azp_for_this_tool(lti_env):
    platform = lti_env.platform
    refused(
        forged(lti_env, lti_env.client, aud=[platform.client_id, "other"], azp="other"),
        "not for this tool",
    )


def test_an_expired_token_is_refused(lti_env):
    past = int(time.time()) - 3600
    refused(forged(lti_env, lti_env.client, iat=past - 300, exp=past), "expired")
    assert lti_env.user("alice") is None


def test_an_unknown_nonce_is_refused(lti_env):
    refused(forged(lti_env, lti_env.client, nonce="never-issued"), "nonce")


def test_an_unknown_deployment_is_refused(lti_env):
    claims_key = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
    refused(forged(lti_env, lti_env.client, **{claims_key: "deployment-x"}), "deployment")


def test_an_unknown_platform_is_refused(lti_env):
    response = lti_env.client.post(
        "/lti/login",
        data={"iss": "https://evil.example", "login_hint": "x", "target_link_uri": "x"},
    )
    refused(response, "registration")


def test_a_replayed_launch_is_refused(lti_env, app):
    env = lti_env
    member = env.member("alice", [LEARNER])
    auth = env.login(env.client, member)
    import requests

    fields = form_fields(requests.get(auth["_url"], timeout=10).text)
    assert env.client.post("/lti/launch", data=fields).status_code == 302
    # The same id_token and state again, from the same browser or another one.
    refused(env.client.post("/lti/launch", data=fields), "already used")
    other = app.test_client()
    other.set_cookie(f"lti1p3-{fields['state']}", fields["state"])
    refused(other.post("/lti/launch", data=fields), "already used")


def test_a_missing_state_cookie_is_refused(lti_env, app):
    env = lti_env
    auth = env.login(env.client, env.member("alice", [LEARNER]))
    import requests

    fields = form_fields(requests.get(auth["_url"], timeout=10).text)
    refused(app.test_client().post("/lti/launch", data=fields), "state")


@pytest.mark.parametrize(
    "path",
    [
        "/lti/courses/1/sync",
        "/lti/courses/1/resend",
        "/lti/deep-link/1/x",
        "/lti/deep-link/1/x/new",
        "/lti/setup/1/x",
        "/admin/lti",
    ],
)
def test_csrf_still_guards_the_other_lti_forms(app, path):
    from grader.services import accounts

    with app.app_context():
        accounts.create_user("t@uni.example", "correct horse battery", "instructor")
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    import re

    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
    client.post(
        "/login",
        data={"email": "t@uni.example", "password": "correct horse battery", "csrf_token": token},
    )
    response = client.post(path, data={"issuer": "x"})
    assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True)


def _account_page(client):
    import re

    page = client.get("/lti/account").get_data(as_text=True)
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)


def test_linking_an_lms_account_needs_the_password_and_no_work(lti_env, app):
    from grader.services import accounts

    with app.app_context():
        accounts.create_user("owner@uni.example", "correct horse battery", "student")
    client = app.test_client()
    lti_env.launch(client, lti_env.member("alice", [LEARNER]))
    made = lti_env.user("alice").id
    wrong = client.post(
        "/lti/account",
        data={
            "csrf_token": _account_page(client),
            "email": "owner@uni.example",
            "password": "not the password",
        },
    )
    assert wrong.status_code == 200 and "wrong e-mail or password" in wrong.get_data(as_text=True)
    assert lti_env.user("alice").id == made
    # An account with a password of its own (not made by a launch) links nothing.
    with app.app_context():
        owner = accounts.user_by_email("owner@uni.example")
        assert not lti.is_lti_account(owner)
        with pytest.raises(Conflict, match="only an account made by an LMS launch"):
            lti.link_account(owner, "owner@uni.example", "correct horse battery")
        # Once the launch-made account has work, it cannot be merged away.
        facts = costly.grading_facts("prune", Tree.from_nested([[1, 2]], ["max"]))
        db.session.add(
            Exercise(
                owner_id=made, kind="prune", tree=[[1, 2]], players=["max"], conventions={}, **facts
            )
        )
        db.session.commit()
        with pytest.raises(Conflict, match="already has work"):
            lti.link_account(
                db.session.get(User, made), "owner@uni.example", "correct horse battery"
            )
        assert db.session.scalar(sa.select(LtiUser.user_id).where(LtiUser.sub == "alice")) == made


@pytest.mark.parametrize(
    "url",
    [
        "https://lms.example.edu *",
        "javascript:alert(1)",
        "https://lms.example.edu/return' 'unsafe-inline",
    ],
)
def test_an_odd_deep_linking_return_url_is_refused(lti_env, app, url):
    """It would become the form's action and widen the page's CSP form-action."""
    from grader.models import Assignment, LtiContext

    env = lti_env
    env.platform.return_url = url
    teacher = env.member("teacher", [INSTRUCTOR])
    client = app.test_client()
    response = env.launch(client, teacher, message_type="LtiDeepLinkingRequest")
    with app.app_context():
        course_id = db.session.scalar(sa.select(LtiContext.course_id))
        assignment = Assignment(course_id=course_id, title="Homework")
        db.session.add(assignment)
        db.session.commit()
        choice = f"a:{assignment.id}"
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    import re

    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
    reply = client.post(response.headers["Location"], data={"csrf_token": token, "choice": choice})
    assert reply.status_code == 400
    assert "no usable deep-linking return URL" in reply.get_data(as_text=True)


def test_a_flood_of_forged_key_ids_refetches_the_key_set_at_most_once(lti_env, monkeypatch):
    # A window longer than any stall of the machine: the gate is counted, not the clock.
    monkeypatch.setattr("grader.services.lti.adapters.JWKS_REFETCH_SECONDS", 3600)
    keys = [new_key() for _ in range(6)]
    assert forged(lti_env, lti_env.client).status_code == 302  # caches the key set
    assert lti_env.platform.jwks_fetches == 1
    for n, key in enumerate(keys):
        refused(forged(lti_env, lti_env.client, key=key, kid=f"forged-{n}"), "public key")
    # The first unknown kid fetched the set again; the next five were refused without one.
    assert lti_env.platform.jwks_fetches == 2
