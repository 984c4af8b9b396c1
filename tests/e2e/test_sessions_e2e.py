"""A session that ends while an answer is typed loses nothing: Submit says, in words, that the
person is signed out and the answer is kept in this browser, offers "Sign in again" in place (the
focus on it) and the header stops offering to log out; after signing in the page comes back with
the typed answer in its boxes, and Submit sends it. Once graded, the browser forgets it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from grader.gametree import KINDS, Conventions, Tree
from tests.e2e.e2e_support import PASSWORD, STUDENT, open_page, sign_in, tree_drawn

pytestmark = pytest.mark.e2e


def test_an_expired_session_keeps_the_answer_and_offers_sign_in(browser, live_server) -> None:
    # The refused POST is the point of the test: the browser's report of its 401 is expected.
    with open_page(browser, live_server.url, refused=("/attempts",)) as page:
        _expired_then_back(sign_in(page), live_server)


def _expired_then_back(page: Any, live_server: Any) -> None:
    path = f"/exercises/{live_server.practice['session']}"
    page.goto(path)
    tree_drawn(page)
    exercise = page.evaluate("JSON.parse(document.getElementById('exercise-data').textContent)")
    tree = Tree.from_nested(exercise["tree"], exercise["players"])
    key = KINDS["values"].key(tree, Conventions.from_dict(exercise["conventions"]))["values"]
    labels = tree.labels()
    boxes = {p: page.get_by_label(f"Value of {labels[p]}", exact=True) for p in key}
    for p, value in key.items():
        boxes[p].fill(str(value))

    # The session ends (its cookies are gone, as when it expires), then Submit.
    page.context.clear_cookies()
    page.get_by_role("button", name="Submit").click()
    status = page.locator('[data-role="status"]')
    expect(status).to_contain_text("you are signed out")
    expect(status).to_contain_text("Your answer is kept in this browser")
    again = page.get_by_role("link", name="Sign in again")
    expect(again).to_be_focused()
    header = page.locator("header")
    expect(header.get_by_role("button", name="Log out")).to_have_count(0)
    expect(header.get_by_role("link", name="Log in")).to_be_visible()
    expect(page.locator('[data-role="result"]')).to_be_hidden()

    # Signing in from there leads back to the exercise with the typed answer in its boxes.
    page.keyboard.press("Enter")
    page.wait_for_url("**/login?next=*")
    page.get_by_label("E-mail").fill(STUDENT)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"**{path}")
    tree_drawn(page)
    for p, value in key.items():
        expect(boxes[p]).to_have_value(str(value))
    expect(status).to_contain_text("back in the boxes")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")

    # Sent and graded: nothing is kept any more; a reload shows the graded attempt.
    assert (
        page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('grader:unsent:'))") == []
    )
    page.reload()
    tree_drawn(page)
    expect(page.locator('[data-role="score"]')).to_contain_text("Score: 1.00")
    expect(status).not_to_contain_text("back in the boxes")
