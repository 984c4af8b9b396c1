"""Nobody locks a student out of their calendar feed (issue 49, finding 6: 60 requests with a
wrong secret for account 3, from two addresses, then the owner got 429 with Retry-After
3599). Only reads with the right secret count against the account's feed; wrong secrets count
against the address they come from."""

from __future__ import annotations

import datetime as dt

from grader.services.courses import calendar
from tests.instructor_support import ALICE, make_room, user


def test_wrong_secrets_from_many_addresses_do_not_lock_the_owner_out(app, client, factory):
    room = make_room(app, factory, due_at=dt.datetime(2026, 12, 5, 4, 59))
    app.config["GRADER_CALENDAR_LIMIT"] = "3 per hour"
    app.config["GRADER_LOGIN_LIMIT_ADDRESS"] = "4 per 15 minutes"
    with app.app_context():
        token = calendar.feed_token(user(ALICE))
    alice = room.ids[ALICE]
    feed = f"/calendar/{alice}/{token}.ics"

    def get(path: str, address: str) -> int:
        return client.get(path, environ_base={"REMOTE_ADDR": address}).status_code

    guesses = [
        get(f"/calendar/{alice}/{n:032x}.ics", address)
        for address in ("203.0.113.7", "198.51.100.9")
        for n in range(4)
    ]
    assert guesses == [404] * 8
    # Each guessing address is spent; the owner, elsewhere, reads the feed.
    assert get(f"/calendar/{alice}/{5:032x}.ics", "203.0.113.7") == 429
    assert get(feed, "192.0.2.1") == 200
    # The account's own limit counts the right reads.
    assert [get(feed, "192.0.2.1") for _ in range(3)] == [200, 200, 429]
