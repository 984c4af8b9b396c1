"""A course's time zone (services/courses/zones.py): dates typed in it, shown in it, and the days
its clocks change."""

from __future__ import annotations

import datetime as dt

import pytest

from grader.services import Invalid
from grader.services.courses import zones


@pytest.mark.parametrize(
    ("zone", "day", "utc"),
    [
        # 23:59 on the day a clock changes is 23:59 local, on the new offset.
        ("America/New_York", "2026-03-08", dt.datetime(2026, 3, 9, 3, 59)),  # EDT, -4
        ("America/New_York", "2026-11-01", dt.datetime(2026, 11, 2, 4, 59)),  # EST, -5
        ("Europe/Berlin", "2026-03-29", dt.datetime(2026, 3, 29, 21, 59)),  # CEST, +2
        ("Europe/Berlin", "2026-10-25", dt.datetime(2026, 10, 25, 22, 59)),  # CET, +1
    ],
)
def test_2359_on_a_change_day_is_2359_local(zone, day, utc):
    stored = zones.parse(f"{day} 23:59", zone)
    assert stored == utc
    assert zones.local(stored, zone).strftime("%Y-%m-%d %H:%M") == f"{day} 23:59"


@pytest.mark.parametrize(
    ("zone", "typed", "words"),
    [
        ("America/New_York", "2026-03-08 02:30", "does not exist in America/New_York"),
        ("Europe/Berlin", "2026-03-29 02:30", "does not exist in Europe/Berlin"),
        ("America/New_York", "2026-11-01 01:30", "happens twice in America/New_York"),
        ("Europe/Berlin", "2026-10-25 02:30", "happens twice in Europe/Berlin"),
    ],
)
def test_a_skipped_or_repeated_time_is_refused_saying_which(zone, typed, words):
    with pytest.raises(Invalid, match=words):
        zones.parse(typed, zone)


def test_a_repeated_time_with_its_offset_is_taken():
    with pytest.raises(Invalid) as refused:
        zones.parse("2026-11-01 01:30", "America/New_York")
    assert "2026-11-01 01:30-04:00 (the first)" in str(refused.value)
    assert "2026-11-01 01:30-05:00 (the second)" in str(refused.value)
    first = zones.parse("2026-11-01 01:30-04:00", "America/New_York")
    second = zones.parse("2026-11-01 01:30-05:00", "America/New_York")
    assert second - first == dt.timedelta(hours=1)


def test_an_offset_wins_over_the_zone_and_a_bare_date_may_end_its_day():
    assert zones.parse("2026-12-04 23:59Z", "America/New_York") == dt.datetime(2026, 12, 4, 23, 59)
    assert zones.parse("2026-12-04", "America/New_York", end_of_day=True) == dt.datetime(
        2026, 12, 5, 4, 59
    )


@pytest.mark.parametrize(
    "name", ["", "EST5EDT/../../etc", "../../etc/passwd", "Mars/Olympus", "x" * 80]
)
def test_only_iana_names_are_zones(name):
    with pytest.raises(Invalid, match="not an IANA time zone"):
        zones.zone(name)


def test_words_and_iso_say_the_same_instant():
    stored = dt.datetime(2026, 12, 5, 4, 59)
    assert zones.iso(stored, "America/New_York") == "2026-12-04T23:59:00-05:00"
    assert zones.words(stored, "America/New_York") == "Fri 4 Dec 2026, 23:59 EST (America/New_York)"
    assert zones.words(stored, "Europe/Berlin") == "Sat 5 Dec 2026, 05:59 CET (Europe/Berlin)"
    assert zones.words(stored, "UTC") == "Sat 5 Dec 2026, 04:59 UTC"  # named once
    now = stored - dt.timedelta(hours=3, minutes=10)
    assert zones.relative(stored, now) == "in 3 hours"
    assert zones.relative(now, stored) == "3 hours ago"
    assert zones.relative(stored, stored) == "now"
