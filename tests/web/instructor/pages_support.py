"""A dashboard form posted with the CSRF token of the page it is on."""

from __future__ import annotations

from tests.app_support import csrf_from


def post_form(client, url, page, data, **kw):
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **data}, **kw)
