"""A refusal as a browser meets it through gunicorn: a 20 MB form body gets the error page in
words with its way back, not a reset connection or a bare 413."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.e2e_support import open_page, signed_in

pytestmark = pytest.mark.e2e

BIG_FORM = """(size) => {
  const form = document.createElement('form');
  form.method = 'post';
  form.enctype = 'multipart/form-data';
  form.action = '/login';
  const text = document.createElement('input');
  text.type = 'hidden';  // sent as a textarea would be, with no 20 MB of text to lay out
  text.name = 'email';
  text.value = '#'.repeat(size);
  form.append(text);
  document.body.append(form);
  form.submit();
}"""


def test_a_20_mb_body_gets_the_page_in_words(browser, live_server, student_cookies) -> None:
    with open_page(browser, live_server.url, refused=("/login",)) as page:
        signed_in(page, student_cookies)
        page.goto("/practice")
        page.evaluate(BIG_FORM, 20 << 20)
        expect(page.get_by_role("heading", level=1)).to_have_text(
            "Too large (error 413)", timeout=60_000
        )
        expect(page.locator('[data-role="error-message"]')).to_contain_text("Nothing was stored")
        back = page.get_by_role("link", name="Go back")
        expect(back).to_have_attribute("href", f"{live_server.url}/practice")
