"""Engine similarity (services/integrity/engines.py) on real uploads through the real intake:
a real engine and three disguised copies against the repository's independently written
engines, the starter handed in as it is, zips, unreadable uploads, the cache by content hash,
earlier offerings, and a pair side by side."""

from __future__ import annotations

import io
import itertools
import zipfile
from typing import Any

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Blob, IntegrityCheck, Slot, Submission
from tests.services.integrity_support import (
    DISGUISES,
    ORIGINAL,
    ROOT,
    independent_engines,
    run_check,
    upload,
)

TEACHER = "teacher@example.com"
STARTER = (ROOT / "exercises" / "checkers" / "template" / "engine.py").read_text()


def _room(app: Any, factory: Any, course: str = "Search 101") -> dict[str, Any]:
    from grader.services.engines import submissions

    if not _exists(app, TEACHER):
        factory.user(TEACHER, "instructor")
    course_id, _ = factory.course(course, TEACHER)
    assignment_id = factory.assignment(course_id, "intro")
    with app.app_context():
        index = submissions.add_engine_slot(assignment_id, suite="quick").index
    return {"course_id": course_id, "assignment_id": assignment_id, "index": index}


def _exists(app: Any, email: str) -> bool:
    from grader.services import accounts

    with app.app_context():
        return accounts.user_by_email(email) is not None


def _student(app: Any, factory: Any, room: dict[str, Any], email: str) -> str:
    if not _exists(app, email):
        factory.user(email)
    factory.member(room["course_id"], email)
    return email


def _hand_in(app: Any, factory: Any, room: dict[str, Any], works: dict[str, str | bytes]) -> None:
    for email, text in works.items():
        _student(app, factory, room, email)
        upload(app, email, room["assignment_id"], room["index"], text)


def _check(app: Any, room: dict[str, Any], *, earlier: bool = False) -> dict[str, Any]:
    from grader.services import accounts
    from grader.services.integrity import engines

    with app.app_context():
        check = engines.request_check(
            accounts.user_by_email(TEACHER),
            room["assignment_id"],
            room["index"],
            earlier=earlier,
            wake=False,
        )
    return run_check(app, check.id)


def _by_emails(app: Any, result: dict[str, Any]) -> dict[frozenset[str], float]:
    with app.app_context():
        owner = {
            s.id: s.owner.email
            for s in db.session.scalars(
                sa.select(Submission).options(sa.orm.joinedload(Submission.owner))
            )
        }
    return {frozenset((owner[p["a"]], owner[p["b"]])): p["similarity"] for p in result["pairs"]}


def test_each_disguised_copy_ranks_above_every_independent_pair_and_the_starter_matches_nothing(
    app, factory
):
    room = _room(app, factory)
    independent = {f"{name}@example.com": text for name, text in independent_engines().items()}
    original = ORIGINAL.read_text()
    copies = {f"copy-{name}@example.com": make(original) for name, make in DISGUISES.items()}
    for text in copies.values():  # each disguise changed the text
        assert text != original
    starters = {"starter-1@example.com": STARTER, "starter-2@example.com": STARTER}
    _hand_in(app, factory, room, {**independent, **copies, **starters})

    result = _check(app, room)
    figures = _by_emails(app, result)
    ranking = [frozenset(pair) for pair in figures]  # the result is highest first
    copy_pairs = [frozenset(("correct@example.com", email)) for email in copies]
    independent_pairs = [frozenset(p) for p in itertools.combinations(independent, 2)]
    assert len(independent_pairs) == 78  # 13 engines
    lowest_copy = min(figures[p] for p in copy_pairs)
    highest_independent = max(figures.get(p, 0.0) for p in independent_pairs)
    assert lowest_copy > highest_independent, (lowest_copy, highest_independent)
    last_copy = max(ranking.index(p) for p in copy_pairs)
    assert all(p not in figures or ranking.index(p) > last_copy for p in independent_pairs)
    # The starter handed in as it is: its code is all boilerplate, so it matches nothing,
    # not even the other student who handed in the very same file.
    assert not [pair for pair in figures if pair & set(starters)]
    assert result["submissions"] == len(independent) + len(copies) + len(starters)
    assert result["skipped"] == []


def test_a_zip_is_read_through_the_archive_policy_and_its_files_compared_together(app, factory):
    room = _room(app, factory)
    original = ORIGINAL.read_text()
    copy = DISGUISES["renamed"](original)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("engine.py", "from helpers import *  # noqa: F403\n")
        archive.writestr("helpers.py", copy)
        archive.writestr("NOTES.txt", "not Python: never compared")
    _hand_in(
        app,
        factory,
        room,
        {
            "alice@example.com": original,
            "bob@example.com": buffer.getvalue(),
            "carol@example.com": (ROOT / "tests" / "checkers" / "_independent.py").read_text(),
        },
    )
    figures = _by_emails(app, _check(app, room))
    zipped = figures[frozenset(("alice@example.com", "bob@example.com"))]
    assert zipped > 0.9
    assert figures.get(frozenset(("alice@example.com", "carol@example.com")), 0) < 0.2


def _stored(app: Any, room: dict[str, Any], email: str, data: bytes, suffix: str) -> int:
    """A submission row with bytes the intake would refuse today (an upload from before the
    checks, or bytes damaged in the store), written directly."""
    import hashlib

    from grader.services import accounts
    from grader.services.transactions import writing

    sha = hashlib.sha256(data).hexdigest()
    with app.app_context():
        user = accounts.user_by_email(email)
        slot_id = db.session.scalar(
            sa.select(Slot.id).where(
                Slot.assignment_id == room["assignment_id"], Slot.index == room["index"]
            )
        )
        with writing() as session:
            if data:
                session.add(Blob(sha256=sha, size=len(data), data=data))
            submission = Submission(
                owner_id=user.id,
                slot_id=slot_id,
                sha256=sha,
                stored_path=f"{sha[:2]}/{sha[2:]}.{suffix}",
                filename=f"engine.{suffix}",
                size=len(data),
                suite="quick",
            )
            session.add(submission)
        return submission.id


def test_binary_undecodable_and_lost_uploads_are_skipped_with_their_reason(app, factory):
    room = _room(app, factory)
    _hand_in(app, factory, room, {"alice@example.com": ORIGINAL.read_text()})
    for email in ("bin@example.com", "latin@example.com", "lost@example.com", "zip@example.com"):
        _student(app, factory, room, email)
    binary = _stored(app, room, "bin@example.com", b"\x7fELF\x02\x01\x00\x00" * 50, "py")
    latin = _stored(app, room, "latin@example.com", "x = 'café'\n".encode("latin-1"), "py")
    lost = _stored(app, room, "lost@example.com", b"", "py")  # no blob under its hash
    broken = _stored(app, room, "zip@example.com", b"PK\x03\x04 not really a zip", "zip")

    result = _check(app, room)
    reasons = {s["submission"]: s["reason"] for s in result["skipped"]}
    assert set(reasons) == {binary, latin, lost, broken}
    assert "not UTF-8" in reasons[latin] and "byte 8" in reasons[latin]  # x = 'caf: 8 bytes before
    assert "not UTF-8" in reasons[binary] or "binary" in reasons[binary]
    assert reasons[lost] == "its bytes are not stored"
    assert "archive cannot be read" in reasons[broken]
    assert result["pairs"] == []  # alice has no one readable to be compared with


def test_a_nul_byte_in_utf8_text_is_a_binary_file():
    from grader.services.integrity.fingerprints import Unreadable, source_text

    with pytest.raises(Unreadable, match="binary"):
        source_text(b"x = 1\n\x00\x01\x02", "py")


def test_pairs_are_cached_by_content_hash_so_a_new_upload_costs_only_its_own_pairs(app, factory):
    room = _room(app, factory)
    engines = independent_engines()
    works = {f"{name}@example.com": engines[name] for name in ("correct", "mailbox", "snoop")}
    works["copy@example.com"] = DISGUISES["reordered"](ORIGINAL.read_text())
    _hand_in(app, factory, room, works)
    first = _check(app, room)
    assert (first["compared"], first["cached"]) == (6, 0)
    again = _check(app, room)
    assert (again["compared"], again["cached"]) == (0, 6)
    assert again["pairs"] == first["pairs"]
    # A new upload of one student replaces their latest: only its 3 pairs are new.
    upload(app, "snoop@example.com", room["assignment_id"], room["index"], engines["network"])
    third = _check(app, room)
    assert (third["compared"], third["cached"]) == (3, 3)


def test_earlier_offerings_are_compared_only_when_asked_and_only_the_teachers_own(app, factory):
    earlier = _room(app, factory, "Search 101, last year")
    _hand_in(app, factory, earlier, {"old@example.com": ORIGINAL.read_text()})
    factory.user("other-teacher@example.com", "instructor")
    elsewhere_id, _ = factory.course("Someone else's course", "other-teacher@example.com")
    elsewhere_assignment = factory.assignment(elsewhere_id, "intro")
    with app.app_context():
        from grader.services.engines import submissions

        elsewhere = {
            "course_id": elsewhere_id,
            "assignment_id": elsewhere_assignment,
            "index": submissions.add_engine_slot(elsewhere_assignment, suite="quick").index,
        }
    _hand_in(app, factory, elsewhere, {"stranger@example.com": ORIGINAL.read_text()})
    room = _room(app, factory)
    copy = DISGUISES["recommented"](ORIGINAL.read_text())
    _hand_in(app, factory, room, {"new@example.com": copy, "honest@example.com": STARTER})

    assert _by_emails(app, _check(app, room)) == {}
    figures = _by_emails(app, _check(app, room, earlier=True))
    assert set(figures) == {frozenset(("new@example.com", "old@example.com"))}
    assert figures[frozenset(("new@example.com", "old@example.com"))] > 0.9


def test_a_pair_side_by_side_aligns_each_shared_region_with_its_place_in_the_other(app, factory):
    from grader.services import accounts
    from grader.services.integrity import engines

    room = _room(app, factory)
    original = ORIGINAL.read_text()
    moved = DISGUISES["reordered"](original)
    _hand_in(app, factory, room, {"alice@example.com": original, "bob@example.com": moved})
    with app.app_context():
        a, b = (
            db.session.scalar(
                sa.select(Submission.id).where(
                    Submission.owner_id == accounts.user_by_email(email).id
                )
            )
            for email in ("alice@example.com", "bob@example.com")
        )
        view = engines.pair_view(
            accounts.user_by_email(TEACHER), room["assignment_id"], room["index"], a, b
        )
    assert view.figures is not None and view.figures.similarity > 0.9
    assert len(view.regions) >= 3
    # Moved functions: the regions are found where they are in each file, not at the same line.
    assert any(r.a_lines != r.b_lines for r in view.regions)
    original_lines, moved_lines = original.splitlines(), moved.splitlines()
    for row in view.rows:
        for number, text in row.a:
            assert original_lines[number - 1] == text
        for number, text in row.b:
            assert moved_lines[number - 1] == text
    # The large regions (whole functions moved) hold the same code on both sides. Not line for
    # line: a region's first and last lines may be matched in part (a k-gram starts mid-line),
    # and where names are folded (what catches renames) code of the same shape matches too, such
    # as the head of the next function when it takes one argument in both.
    large = {n for n, r in enumerate(view.regions, 1) if r.size >= 100}
    for row in view.rows:
        if row.number in large:
            code = {t for _, t in row.b}
            inner = [t for _, t in row.a[1:-1] if t.strip() and not t.strip().startswith("#")]
            found = sum(t in code for t in inner)
            assert found >= 0.75 * len(inner), (row.number, inner)
    assert len(large) >= 8  # the original's functions, each found where the copy moved it
    matched = sum(len(row.a) for row in view.rows if row.number)
    assert matched > 0.7 * len(original_lines)
    # Every line of A shows once, in order; B's lines are in the regions or listed after.
    assert [n for row in view.rows for n, _ in row.a] == list(range(1, len(original_lines) + 1))
    shown_b = {n for row in view.rows for n, _ in row.b} | {
        n for run in view.b_rest for n, _ in run
    }
    assert shown_b == set(range(1, len(moved_lines) + 1))


def test_asking_again_while_a_check_is_pending_gives_that_check(app, factory):
    from grader.services import accounts
    from grader.services.integrity import engines

    room = _room(app, factory)
    with app.app_context():
        teacher = accounts.user_by_email(TEACHER)
        first = engines.request_check(teacher, room["assignment_id"], room["index"], wake=False)
        second = engines.request_check(teacher, room["assignment_id"], room["index"], wake=False)
        assert first.id == second.id
        assert db.session.scalar(sa.select(sa.func.count(IntegrityCheck.id))) == 1


def test_a_worker_without_copydetect_says_which_extra_it_needs(monkeypatch):
    import sys

    from grader.services.integrity import fingerprints

    fingerprints.basis.cache_clear()
    monkeypatch.setitem(sys.modules, "copydetect", None)  # as if not installed: import fails
    try:
        with pytest.raises(fingerprints.MissingLibrary, match=r"grader\[integrity\]"):
            fingerprints.basis()
    finally:
        fingerprints.basis.cache_clear()
