"""The authorization matrix, kept as a regression test of tests/security (it held when the
service was attacked from outside). Every dashboard route, found in the app's URL map (so a new route cannot be forgotten):
403 for a student of the course, 404 for someone outside it, 403 for a TA on every route that
changes something (grades, roster, assignments, join code), and the read routes open to TAs.
The academic-integrity routes are the instructors' alone, unless the course lets its TAs read
them (then the reading ones, never starting a check or the setting)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.app_support import csrf_from
from tests.instructor_support import ALICE, OUTSIDER, TA, TEACHER, answer, make_room

ENGINE = b"def legal_moves(fen):\n    return []\n"

# The instructor API routes registered on the API blueprint.
API_ENDPOINTS = {
    "api.api_gradebook",
    "api.api_gradebook_csv",
    "api.api_statistics",
    "api.api_misconceptions",
    "api.api_audit_log",
    "api.api_regrades",
    "api.api_preview",
}
# Routes a TA may use: reading, and the preview (which changes nothing).
TA_MAY = {
    "instructor.home",
    "instructor.course",
    "instructor.roster_page",
    "instructor.edit_assignment:GET",
    "instructor.new_slot:GET",
    "instructor.edit_slot:GET",
    "instructor.export_tree",
    "instructor.gradebook_page",
    "instructor.gradebook_download",
    "instructor.student",
    "instructor.statistics_page",
    "instructor.misconceptions_page",
    "instructor.difficulty_page",
    "instructor.audit",
    "instructor.regrades_page",
    "instructor.regrade_page",
    *API_ENDPOINTS,
}

# Form fields that satisfy every dashboard form, so a refusal is the role's, not the input's.
FORM = {
    "name": "A course",
    "email": "someone@example.com",
    "role": "student",
    "title": "T",
    "csv_text": "x@example.com",
    "kind": "prune",
    "source": "generate",
    "depth": "3",
    "branching": "2-3",
    "values": "-9..9",
    "min_cutoffs": "1",
    "min_deep_cutoffs": "0",
    "players": "max,min",
    "ties": "prune",
    "values_rule": "soft",
    "order": "ltr",
    "attempts_allowed": "3",
    "score_policy": "best",
    "action": "save",
    "preset": "",
    "timezone": "UTC",
    "slip_days": "0",
    "scope": "course",
    "reason": "a suite's test was fixed",
    "choice": "discard",
}

# The forms FORM's input cannot satisfy, shown again as typed (422): an extension and the
# accommodations list name FORM's address, no student of the course; the join code's expiry
# needs a date; an engine slot a suite.
KEPT_FORMS = {
    "instructor.import_accommodations",
    "instructor.grant_extension",
    "instructor.expire_join_code",
    "instructor.add_engine_slot",
}

# The integrity routes a TA reads when the course allows it.
TA_MAY_IF_ALLOWED = {
    "integrity.similarity",
    "integrity.similarity_status",
    "integrity.compare",
    "integrity.pair",
    "integrity.answers_page",
    "integrity.answers_status",
}
ENGINE_INDEX = 2  # the room's engine slot, after its two exercises


def _routes(app: Any) -> list[tuple[str, str, str]]:
    found = []
    for rule in app.url_map.iter_rules():
        endpoint = rule.endpoint
        if endpoint.startswith(("instructor.", "integrity.")) or endpoint in API_ENDPOINTS:
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                found.append((rule.endpoint, method, rule.rule))
    return found


def _url(rule: str, room: Any) -> str:
    index = ENGINE_INDEX if "/similarity" in rule else 0  # the similarity pages: engine slots
    return (
        rule.replace("<int:course_id>", str(room.course_id))
        .replace("<int:assignment_id>", str(room.assignment_id))
        .replace("<int:index>", str(index))
        .replace("<int:user_id>", str(room.ids[ALICE]))
        .replace("<int:submission_id>", str(room.ids["alice-engine"]))
        .replace("<int:other_id>", str(room.ids["bob-engine"]))
        .replace("<int:extension_id>", "1")
        .replace("<int:regrade_id>", str(room.ids["regrade"]))
    )


@pytest.fixture
def room(app, factory):
    from grader.services.engines import submissions
    from grader.services.teaching import term_regrade
    from tests.instructor_support import BOB, user

    made = make_room(app, factory)
    answer(app, ALICE, made.assignment_id, 0, {"pruned": [], "value": 3})
    with app.app_context():
        index = submissions.add_engine_slot(made.assignment_id, suite="quick").index
        assert index == ENGINE_INDEX
        for email, name in ((ALICE, "alice-engine"), (BOB, "bob-engine")):
            made.ids[name] = submissions.upload(
                user(email), made.assignment_id, index, ENGINE, "engine.py"
            ).id
        made.ids["regrade"] = term_regrade.start(user(TEACHER), made.course_id, reason="a fix").id
    return made


def _call(client: Any, auth: Any, method: str, url: str) -> Any:
    if method == "GET":
        return client.get(url)
    token = auth.csrf()
    if url.startswith("/api/"):
        return client.post(
            url, json={"kind": "prune", "params": {"depth": 3}}, headers={"X-CSRFToken": token}
        )
    return client.post(url, data={**FORM, "csrf_token": token})


def test_the_route_list_covers_the_dashboard(app):
    endpoints = {e for e, _, _ in _routes(app)}
    assert len(endpoints) >= 30
    assert endpoints >= API_ENDPOINTS


def test_every_dashboard_route_is_403_for_a_student(app, client, auth, room):
    auth.login(ALICE)
    for endpoint, method, rule in _routes(app):
        response = _call(client, auth, method, _url(rule, room))
        assert response.status_code == 403, (endpoint, method, response.status_code)


def test_every_course_route_is_404_outside_the_course(app, client, auth, room):
    auth.login(OUTSIDER)
    for endpoint, method, rule in _routes(app):
        if "<" not in rule:
            continue  # the home page and course creation have no course: 403 (tested above)
        response = _call(client, auth, method, _url(rule, room))
        assert response.status_code == 404, (endpoint, method, response.status_code)


def test_a_ta_reads_but_cannot_change(app, client, auth, room):
    auth.login(TA)
    for endpoint, method, rule in _routes(app):
        response = _call(client, auth, method, _url(rule, room))
        allowed = endpoint in TA_MAY or f"{endpoint}:{method}" in TA_MAY
        if allowed:
            assert response.status_code in (200, 302), (endpoint, method, response.status_code)
        else:
            assert response.status_code == 403, (endpoint, method, response.status_code)


def test_a_ta_reads_the_integrity_pages_only_where_the_course_allows_it(app, client, auth, room):
    from grader.services.integrity import checks
    from tests.instructor_support import user

    integrity = [r for r in _routes(app) if r[0].startswith("integrity.")]
    assert {e for e, _, _ in integrity} >= TA_MAY_IF_ALLOWED | {"integrity.access"}
    with app.app_context():
        checks.set_ta_access(user(TEACHER), room.course_id, True)
    auth.login(TA)
    for endpoint, method, rule in integrity:
        response = _call(client, auth, method, _url(rule, room))
        if method == "GET" and endpoint in TA_MAY_IF_ALLOWED:
            assert response.status_code in (200, 302), (endpoint, method, response.status_code)
        else:
            assert response.status_code == 403, (endpoint, method, response.status_code)


def test_the_instructor_may_use_every_route(app, client, auth, room):
    auth.login(TEACHER)
    # Destructive routes last, so they do not remove what the others need.
    order = sorted(
        _routes(app),
        key=lambda r: (
            r[0] == "instructor.delete_assignment",
            "delete" in r[0] or "remove" in r[0],
            r[2],
        ),
    )
    for endpoint, method, rule in order:
        response = _call(client, auth, method, _url(rule, room))
        # Never refused; a 201 is a sign-in link made, a 409 the slot editor declining a change
        # students' work forbids, a 422 a form whose input FORM cannot satisfy shown again as
        # typed with its error beside its field (its page, never the error page).
        allowed = (200, 201, 302, 409) + ((422,) if endpoint in KEPT_FORMS else ())
        assert response.status_code in allowed, (endpoint, method, response.status_code)


def test_bearer_tokens_follow_the_same_rules(app, client, factory, room):
    for email, status in ((ALICE, 403), (OUTSIDER, 404), (TA, 200)):
        token = factory.token(email)
        response = client.get(
            f"/api/courses/{room.course_id}/gradebook", headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == status, email
    assert client.get(f"/api/courses/{room.course_id}/gradebook").status_code == 401


def test_pages_need_a_login(client, room):
    response = client.get(f"/instructor/courses/{room.course_id}/gradebook")
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    assert csrf_from('<input name="csrf_token" value="x">') == "x"


def _admin_routes(app: Any, account_id: int) -> list[tuple[str, str, str]]:
    """Every administrators' route, an account's about `account_id` (the caller's own too),
    an LMS registration's and a registration URL's about ones made here."""
    from grader.services import lti
    from grader.services.lti import dynamic_registration

    with app.app_context():
        registration = lti.register(
            None,
            issuer="https://lms.example.org",
            client_id="matrix",
            auth_login_url="https://lms.example.org/auth",
            auth_token_url="https://lms.example.org/token",
            key_set_url="https://lms.example.org/jwks",
            deployment_ids=["1"],
        ).id
        dynamic_registration.make_url(None)
        url_id = dynamic_registration.pending_urls(None)[0].id
    ids = {"account_id": account_id, "registration_id": registration, "url_id": url_id}
    routes = []
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/admin/"):
            continue
        path = rule.rule
        for name, value in ids.items():
            path = path.replace(f"<int:{name}>", str(value))
        routes += [(rule.endpoint, m, path) for m in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return routes


def test_the_administrators_pages_refuse_every_other_account(app, client, auth, factory, room):
    # Registering an LMS points the service's workers at URLs: an instructor of a course, its
    # TA, a student, someone outside it are all refused; the administrator is not.
    routes = _admin_routes(app, room.ids[ALICE])
    assert {e for e, _, _ in routes} >= {"admin.lti_platforms", "admin.erase_account"}
    assert client.get("/admin/lti").status_code == 302  # a login first
    for email in (ALICE, OUTSIDER, TA, TEACHER):
        auth.login(email)
        for endpoint, method, rule in routes:
            response = _call(client, auth, method, rule)
            assert response.status_code == 403, (email, endpoint, method, response.status_code)
        auth.logout()
    factory.user("root@example.com", "student")
    with app.app_context():
        from grader.services import accounts

        accounts.set_admin(accounts.user_by_email("root@example.com").id, True)
    auth.login("root@example.com")
    for endpoint, method, rule in routes:
        response = _call(client, auth, method, rule)
        # The erasure's and the deletion's confirmations name another address or issuer than
        # the account's or the registration's: refused.
        confirmed = {("admin.erase_account", "POST"), ("admin.delete_registration", "POST")}
        allowed = (400,) if (endpoint, method) in confirmed else (200, 302)
        assert response.status_code in allowed, (endpoint, method, response.status_code)


def _placing_routes(app: Any) -> list[tuple[str, str, str]]:
    """The LTI routes that place things in an LMS course (a deep-linking or first launch)."""
    return [
        (rule.endpoint, method, rule.rule)
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/lti/") and "<launch_id>" in rule.rule
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"})
    ]


def test_only_the_instructor_may_place_in_an_lms(app, client, auth, room):
    # The role is checked before the launch is read: a student or TA is refused (403), someone
    # outside the course finds nothing (404); the instructor gets past it (400 here: this
    # made-up launch is not one the LMS started).
    routes = _placing_routes(app)
    assert {e for e, _, _ in routes} >= {
        "lti.deep_link",
        "lti.deep_link_new",
        "lti.link_course",
        "lti.setup",
    }
    for email, status in ((ALICE, 403), (TA, 403), (OUTSIDER, 404), (TEACHER, 400)):
        auth.login(email)
        for endpoint, method, rule in routes:
            url = _url(rule, room).replace("<launch_id>", "not-a-launch")
            response = _call(client, auth, method, url)
            assert response.status_code == status, (email, endpoint, method, response.status_code)
        auth.logout()


def _exam_routes(app: Any) -> list[tuple[str, str, str]]:
    return [
        (rule.endpoint, method, rule.rule)
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("exams.")
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"})
    ]


def test_paper_exams_print_for_instructors_and_open_sheets_for_staff(
    app, client, auth, room, tmp_path
):
    # Printing (and its files) is the instructors'; a sheet is opened and its answers entered
    # by the course's instructors and TAs. A student of the course is refused the printing
    # (403) and finds no sheet (404, as a code of another course); an outsider finds nothing.
    from grader.services.paper import printing

    with app.app_context():
        run, _ = printing.print_to_dir(room.assignment_id, tmp_path / "out")
        sheet = run.sheets[0]
        code, index = sheet.code, sheet.items[0].slot_index
    routes = _exam_routes(app)
    printing = {"exams.print_page", "exams.print_status", "exams.print_file"}
    sheets = {"exams.open_sheet", "exams.sheet", "exams.entry", "exams.save"}
    assert {e for e, _, _ in routes} == printing | sheets

    def url(rule: str) -> str:
        return (
            _url(rule, room)
            .replace("<int:print_id>", str(run.id))
            .replace("<name>", "key.pdf")
            .replace("<code>", code)
            .replace("<int:slot_index>", str(index))
        )

    expected = {
        ALICE: lambda e: 403 if e in printing else 404,
        OUTSIDER: lambda e: 404,
        TA: lambda e: 403 if e in printing else None,
        TEACHER: lambda e: None,
    }
    for email, status in expected.items():
        auth.login(email)
        for endpoint, method, rule in routes:
            target = url(rule) + ("?code=" + code if endpoint == "exams.open_sheet" else "")
            if method == "GET":
                response = client.get(target)
            elif endpoint == "exams.save":
                response = client.post(
                    target,
                    json={"answer": {"pruned": [], "value": 3}, "version": 0},
                    headers={"X-CSRFToken": auth.csrf()},
                )
            else:
                response = _call(client, auth, method, target)
            want = status(endpoint)
            if want is None:  # allowed: anything but a refusal
                assert response.status_code in (200, 302, 409), (email, endpoint, method)
            else:
                assert response.status_code == want, (email, endpoint, method, response.status_code)
        auth.logout()
