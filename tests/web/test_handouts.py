"""The engine slot's handouts are pages of the site: rendered Markdown with a title and the
language, links between them that work, code blocks as code; the raw files still download."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from grader import data


@pytest.fixture
def slot_url(app, factory, auth) -> str:
    from grader.services.engines import submissions

    room = factory.classroom()
    with app.app_context():
        index = submissions.add_engine_slot(room["assignment_id"], suite="quick").index
    auth.login("student@example.com")
    return f"/assignments/{room['assignment_id']}/slots/{index}/engine"


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.lang = self.title = ""
        self.links: list[str] = []
        self.code_blocks = 0
        self._in_title = False
        self._text: list[str] = []
        self._article = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attrs = dict(attrs)
        if tag == "html":
            self.lang = attrs.get("lang", "")
        self._in_title = tag == "title"
        if tag == "a" and self._article:
            self.links.append(attrs.get("href", ""))
        if tag == "article":
            self._article += 1
        if tag == "code" and self.get_starttag_text() and self._last == "pre":
            self.code_blocks += 1
        self._last = tag

    _last = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._article -= 1
        self._in_title = False

    def handle_data(self, text: str) -> None:
        if self._in_title:
            self.title += text
        if self._article:
            self._text.append(text)

    @property
    def text(self) -> str:
        return "".join(self._text)


def read(client, url: str) -> Page:
    response = client.get(url)
    assert response.status_code == 200 and response.mimetype == "text/html"
    page = Page()
    page.feed(response.get_data(as_text=True))
    return page


@pytest.mark.parametrize("name, file", [("assignment", "ASSIGNMENT.md"), ("rules", "RULES.md")])
def test_a_handout_is_a_page_of_the_site(client, slot_url, name, file) -> None:
    source = data.checkers(file).read_text(encoding="utf-8")
    page = read(client, f"{slot_url}/{name}")
    heading = re.search(r"^# (.+)$", source, re.M).group(1)
    assert page.lang == "en"
    assert page.title.startswith(re.sub(r"[`*]", "", heading))
    # Markdown's marks are rendered, not shown: no heading hashes, no bold stars in the text.
    assert not re.search(r"^#{1,6} ", page.text, re.M)
    assert "**" not in page.text
    assert page.code_blocks == source.count("\n```") // 2 > 0 or "```" not in source


def test_the_handouts_link_to_each_other_as_pages(client, slot_url) -> None:
    assignment = read(client, f"{slot_url}/assignment")
    assert "RULES.md" not in assignment.links and f"{slot_url}/rules" in assignment.links
    assert f"{slot_url}/starter" in assignment.links  # template/engine.py: the starter
    # the starter is a file: its link says so, so a browser (or a crawler) downloads it
    html = client.get(f"{slot_url}/assignment").get_data(as_text=True)
    assert f'href="{slot_url}/starter" download=""' in html
    assert f'href="{slot_url}/rules" download' not in html
    for link in {link for link in assignment.links if link.startswith("/")}:
        with client.get(link) as response:
            assert response.status_code == 200, link


@pytest.mark.parametrize("name, file", [("assignment", "ASSIGNMENT.md"), ("rules", "RULES.md")])
def test_the_markdown_still_downloads_as_written(client, slot_url, name, file) -> None:
    with client.get(f"{slot_url}/{name}/download") as response:
        assert response.status_code == 200 and response.mimetype == "text/markdown"
        assert f"filename={file}" in response.headers["Content-Disposition"]
        assert response.get_data() == data.checkers(file).read_bytes()


def test_the_handouts_are_for_the_course_only(client, app, factory, auth, slot_url) -> None:
    factory.user("outsider@example.com")
    auth.logout()
    auth.login("outsider@example.com")
    for name in ("assignment", "rules", "assignment/download", "starter"):
        assert client.get(f"{slot_url}/{name}").status_code == 404, name
    auth.logout()
    auth.login()
    assert client.get(f"{slot_url}/no-such-handout").status_code == 404
