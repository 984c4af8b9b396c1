"""A course's time zone: the one way a date a person types is read, and a stored date shown.

Dates are stored naive in UTC. A date typed for a course (a form, the command line, a CSV) is
read as the course's wall-clock time (an IANA zone, `Course.timezone`) unless it carries its
own offset. On the day a clock changes, 23:59 is 23:59 local; a wall-clock time that does not
exist (skipped in spring) or exists twice (repeated in autumn) is refused with words that say
which, and how to write it unambiguously (with an offset).
"""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from flask import current_app

from grader.services import Invalid

UTC = dt.UTC
# What a person types: a date, a date and a time, and an optional offset (Z, +02:00, -0500).
_TYPED = re.compile(
    r"\s*(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?\s*"
    r"(Z|[+-]\d{2}:?\d{2})?\s*\Z"
)


def zone(name: str) -> ZoneInfo:
    """The IANA zone called `name`; Invalid for anything else (a path, an abbreviation)."""
    name = (name or "").strip()
    if not name or len(name) > 64 or name not in _zone_names():
        raise Invalid(
            f"{name[:64]!r} is not an IANA time zone (for example America/New_York, "
            "Europe/Berlin, UTC)"
        )
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise Invalid(f"{name!r} is not an IANA time zone") from error


_NAMES: set[str] = set()


def _zone_names() -> set[str]:
    if not _NAMES:
        _NAMES.update(available_timezones())
        _NAMES.add("UTC")
    return _NAMES


def server_zone() -> str:
    """The server's zone (GRADER_TIMEZONE): a time outside any course (an account's, an
    erasure's, a worker's) is told in it, and a course made without a zone is in it."""
    return current_app.config.get("GRADER_TIMEZONE") or "UTC"


def zone_names() -> list[str]:
    """Every IANA zone a course may be in, sorted: what the forms offer to pick from."""
    return sorted(_zone_names())


def to_utc(local: dt.datetime, zone_name: str) -> dt.datetime:
    """A wall-clock time in the zone (naive) as a stored time (naive UTC); an aware time keeps
    its own offset. Refuses a time the zone skips or repeats, saying which."""
    if local.tzinfo is not None:
        return local.astimezone(UTC).replace(tzinfo=None)
    tz = zone(zone_name)
    first = local.replace(tzinfo=tz, fold=0)
    second = local.replace(tzinfo=tz, fold=1)
    if first.utcoffset() != second.utcoffset():
        shown = local.strftime("%Y-%m-%d %H:%M")
        # fold=0 is the earlier reading: a larger offset before a fall-back, a smaller in spring.
        earlier, later = first.utcoffset(), second.utcoffset()
        assert earlier is not None and later is not None
        if earlier > later:
            raise Invalid(
                f"{shown} happens twice in {zone_name} (the clocks go back that night): "
                f"write it with its offset, {_with_offset(first)} (the first) or "
                f"{_with_offset(second)} (the second)"
            )
        raise Invalid(
            f"{shown} does not exist in {zone_name} (the clocks go forward that night, "
            f"skipping it): choose another time, for example "
            f"{_with_offset(first.astimezone(UTC).astimezone(tz))}"
        )
    return first.astimezone(UTC).replace(tzinfo=None)


def moved(moment: dt.datetime, zone_name: str, by: dt.timedelta) -> dt.datetime:
    """A stored time (naive UTC) moved by the calendar in the zone: its wall-clock time plus
    `by` (whole days keep the time of day: 23:59 stays 23:59 across a clock change), as a
    stored time. Where the moved wall-clock time does not exist (skipped in spring), it falls
    forward by the clocks' jump (02:30 becomes 03:30); where it happens twice (autumn), it is
    the first of the two."""
    tz = zone(zone_name)
    wall = moment.replace(tzinfo=UTC).astimezone(tz).replace(tzinfo=None) + by
    # fold=0 reads a skipped time with the offset before the jump, so through UTC it lands
    # the jump later; a repeated time, fold=0 is its first reading.
    return wall.replace(tzinfo=tz, fold=0).astimezone(UTC).replace(tzinfo=None)


def wall_offset(earlier: dt.datetime, later: dt.datetime, zone_name: str) -> dt.timedelta:
    """How far apart two stored times are on the zone's wall clocks (the days and the clock
    time between them, not the hours that elapsed)."""
    start, end = field_value(earlier, zone_name), field_value(later, zone_name)
    assert start is not None and end is not None
    return end - start


def _with_offset(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M%z")[:-2] + ":" + moment.strftime("%z")[-2:]


def parse(text: str, zone_name: str, *, end_of_day: bool = False) -> dt.datetime:
    """A date typed as `YYYY-MM-DD[ HH:MM][offset]`, read in the zone unless it has an offset;
    a bare date is its day's 23:59 when `end_of_day`, else 00:00. Naive UTC."""
    found = _TYPED.match(text or "")
    if found is None:
        raise Invalid(
            f"{(text or '')[:40]!r} is not a date: write YYYY-MM-DD HH:MM, optionally with an "
            "offset (2026-12-04 23:59 or 2026-12-04 23:59-05:00)"
        )
    year, month, day, hour, minute, second, offset = found.groups()
    if hour is None:
        hour, minute = ("23", "59") if end_of_day else ("00", "00")
    try:
        moment = dt.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0)
        )
    except ValueError as error:
        raise Invalid(f"{text.strip()[:40]!r} is not a date: {error}") from error
    if offset:
        if offset == "Z":
            tz = UTC
        else:
            sign = -1 if offset[0] == "-" else 1
            digits = offset[1:].replace(":", "")
            tz = dt.timezone(sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
        return to_utc(moment.replace(tzinfo=tz), zone_name)
    return to_utc(moment, zone_name)


def local(moment: dt.datetime | None, zone_name: str) -> dt.datetime | None:
    """A stored time (naive UTC) in the zone, aware."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC).astimezone(zone(zone_name))


def iso(moment: dt.datetime | None, zone_name: str) -> str | None:
    """ISO 8601 with the zone's offset at that instant: what the API writes."""
    shown = local(moment, zone_name)
    return shown.isoformat() if shown is not None else None


def words(moment: dt.datetime | None, zone_name: str) -> str:
    """A stored time as a person reads it in the zone: "Fri 4 Dec 2026, 23:59 EST
    (America/New_York)"; the zone's name once where its abbreviation is the name ("UTC")."""
    shown = local(moment, zone_name)
    if shown is None:
        return ""
    named = "" if shown.tzname() == zone_name else f" ({zone_name})"
    return f"{shown:%a} {shown.day} {shown:%b %Y, %H:%M} {shown.tzname()}{named}"


def stored(iso_text: str) -> dt.datetime:
    """An ISO 8601 time with its offset (as the API and stored histories write it, "...Z") as a
    stored time (naive UTC), to be told by `words`."""
    return dt.datetime.fromisoformat(iso_text).astimezone(UTC).replace(tzinfo=None)


def field_value(moment: dt.datetime | None, zone_name: str) -> dt.datetime | None:
    """A stored time as a form field shows it: the zone's wall-clock time, naive."""
    shown = local(moment, zone_name)
    return shown.replace(tzinfo=None) if shown is not None else None


def relative(moment: dt.datetime | None, now: dt.datetime) -> str:
    """How far a stored time is from `now` (both naive UTC), in words: "in 3 hours",
    "2 days ago"."""
    if moment is None:
        return ""
    seconds = (moment - now).total_seconds()
    span = abs(seconds)
    units = ((86400, "day"), (3600, "hour"), (60, "minute"))
    found = next(((size, unit) for size, unit in units if span >= size), None)
    if found is None:
        return "now"
    count, unit = int(span // found[0]), found[1]
    text = f"{count} {unit}{'' if count == 1 else 's'}"
    return f"in {text}" if seconds > 0 else f"{text} ago"
