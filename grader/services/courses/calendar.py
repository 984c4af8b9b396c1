"""A student's deadlines as an iCalendar feed (RFC 5545), behind a secret URL of their own.

The URL carries an HMAC, under the server's secret key, of the account's `calendar_nonce`: the
database alone holds no URL, and a reset (a new nonce) makes the old one worthless. The feed
holds the student's own due dates (their extensions counted) of the released assignments of
their courses: one event an assignment, and one for each slot whose due date differs.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets

from flask import current_app

from grader.extensions import db
from grader.models import User, utcnow
from grader.services import NotFound
from grader.services.courses import courses, deadlines, zones
from grader.services.transactions import writing

MAX_EVENTS = 2000  # bounded work: a feed never lists more than this


def _token(user: User) -> str:
    key = current_app.config["SECRET_KEY"].encode()
    message = f"calendar:{user.id}:{user.calendar_nonce}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def feed_token(user: User) -> str:
    """The secret of the account's feed URL, made on first use."""
    if user.calendar_nonce is None:
        return reset(user)
    return _token(user)


def reset(user: User) -> str:
    """A new secret: the old URL stops working at once. The new token."""
    with writing() as session:
        stored = session.get_one(User, user.id)
        stored.calendar_nonce = secrets.token_hex(16)
    user.calendar_nonce = stored.calendar_nonce
    return _token(stored)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def _fold(line: str) -> list[str]:
    """RFC 5545 3.1: lines of at most 75 octets, continued with a leading space."""
    out: list[str] = []
    data = line.encode()
    while len(data) > 75:
        cut = 75 if not out else 74
        while cut > 0 and (data[cut] & 0xC0) == 0x80:  # never inside a UTF-8 character
            cut -= 1
        out.append(data[:cut].decode())
        data = data[cut:]
    out.append(data.decode())
    return [out[0], *(" " + rest for rest in out[1:])]


def _stamp(moment: dt.datetime) -> str:
    return moment.strftime("%Y%m%dT%H%M%SZ")


def feed(user_id: int, token: str) -> str:
    """The feed's text, CRLF lines; NotFound for an unknown account or a wrong token (the same
    answer, so the URL reveals nothing)."""
    user = db.session.get(User, user_id)
    if (
        user is None
        or user.calendar_nonce is None
        or user.erased_at is not None
        or not hmac.compare_digest(_token(user), token or "")
    ):
        raise NotFound("no such calendar")
    host = current_app.config.get("SERVER_NAME") or "alpha-beta-grader"
    now = _stamp(utcnow())
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Alpha-Beta Grader//deadlines//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        "X-WR-CALNAME:" + _escape(f"Deadlines of {user.email}"),
    ]
    assignments = courses.assignments_for(user)
    dues = deadlines.dues(user.id, assignments)
    events = 0
    for assignment in assignments:
        zone = assignment.course.timezone
        terms = dues.assignments[assignment.id]
        items = []
        if terms.due_at is not None:
            items.append((f"assignment-{assignment.id}", assignment.title, terms))
        for slot in assignment.slots:
            mine = dues.slots[slot.id]
            if mine.due_at is not None and mine.due_at != terms.due_at:
                items.append((f"slot-{slot.id}", f"{assignment.title}: {slot.name}", mine))
        for uid, title, item in items:
            if events >= MAX_EVENTS:
                break
            events += 1
            assert item.due_at is not None
            words = f"Due {zones.words(item.due_at, zone)}"
            if item.moved:
                words += " (your extension)"
            lines += [
                "BEGIN:VEVENT",
                f"UID:{uid}-user-{user.id}@{host}",
                f"DTSTAMP:{now}",
                f"DTSTART:{_stamp(item.due_at)}",
                f"DTEND:{_stamp(item.due_at)}",
                "SUMMARY:" + _escape(f"Due: {title} ({assignment.course.name})"),
                "DESCRIPTION:" + _escape(words),
                "TRANSP:TRANSPARENT",
                "END:VEVENT",
            ]
    lines.append("END:VCALENDAR")
    return "".join(part + "\r\n" for line in lines for part in _fold(line))
