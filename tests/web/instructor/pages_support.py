"""A dashboard form posted with the CSRF token of the page it is on, and what a refused form
says beside its field."""

from __future__ import annotations

from html import unescape
from html.parser import HTMLParser

from tests.app_support import csrf_from

VOID = {"input", "br", "img", "meta", "link", "hr", "col", "area", "base", "source", "wbr"}


def post_form(client, url, page, data, **kw):
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **data}, **kw)


class _Elements(HTMLParser):
    """Each element with an id: its tag, its attributes and the text inside it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, tuple[str, dict[str, str], list[str]]] = {}
        self._open: list[str | None] = []  # the id of each open element (None: none)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        named = dict((k, v or "") for k, v in attrs)
        element_id = named.get("id")
        if element_id is not None and element_id not in self.found:
            self.found[element_id] = (tag, named, [])
        if tag not in VOID:
            self._open.append(element_id)

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for element_id in self._open:
            if element_id is not None:
                self.found[element_id][2].append(data)


def elements(html: str) -> dict[str, tuple[str, dict[str, str], list[str]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.found


def field_error(html: str, field_id: str) -> str:
    """The accessible description of the form field `field_id`: the text of the elements its
    aria-describedby names. The field must be marked invalid, and its id be the page's only."""
    found = elements(html)
    assert html.count(f'id="{field_id}"') == 1, f"{field_id}: not one element with this id"
    _, attrs, _ = found[field_id]
    assert attrs.get("aria-invalid") == "true", f"{field_id} is not marked invalid"
    described = attrs.get("aria-describedby", "").split()
    assert described, f"no error tied to {field_id}"
    return unescape(" ".join("".join(found[i][2]).strip() for i in described))
