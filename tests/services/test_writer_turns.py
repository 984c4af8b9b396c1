"""Writers of one SQLite file take turns (`grader.extensions.WriterTurns`): across processes, a
forked one included; a write inside a write keeps the turn; a turn never had in time lets the
writer go on to SQLite's own busy timeout; and the app takes one for every `writing()`."""

from __future__ import annotations

import multiprocessing
import os
import threading

import pytest

from grader.extensions import WRITER_TURNS, WriterTurns

FORK = multiprocessing.get_context("fork")


def _take_turn(turns: WriterTurns, took: multiprocessing.synchronize.Event) -> None:
    with turns.turn():
        took.set()


@pytest.fixture
def turns(tmp_path):
    return WriterTurns(str(tmp_path / "db.sqlite3"), timeout_ms=10_000)


def _child(turns: WriterTurns):
    took = FORK.Event()
    child = FORK.Process(target=_take_turn, args=(turns, took))
    child.start()
    return child, took


def test_another_process_waits_for_the_turn_and_takes_it_once_it_is_free(turns):
    with turns.turn():  # opened before the fork: the child must open its own, or it would share
        child, took = _child(turns)
        assert not took.wait(0.3)
    assert took.wait(10)
    child.join(10)
    assert child.exitcode == 0
    assert os.path.exists(turns.path)


def test_a_write_inside_a_write_keeps_the_turn_until_the_outer_one_ends(turns):
    with turns.turn():
        with turns.turn():
            pass
        child, took = _child(turns)  # the inner turn's end did not give it away
        assert not took.wait(0.3)
    assert took.wait(10)
    child.join(10)


def test_threads_of_one_process_take_turns(turns):
    inside, most = 0, 0
    lock = threading.Lock()

    def write() -> None:
        nonlocal inside, most
        for _ in range(200):
            with turns.turn():
                with lock:
                    inside += 1
                    most = max(most, inside)
                with lock:
                    inside -= 1

    threads = [threading.Thread(target=write) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == 1


def test_a_turn_not_had_in_time_goes_on_to_sqlites_busy_timeout(tmp_path):
    """A holder that never lets go (a stopped process) does not hold the others forever: past
    the busy timeout they go on, and SQLite's lock decides (the 503 of a locked database)."""
    holder = WriterTurns(str(tmp_path / "db.sqlite3"), timeout_ms=10_000)
    waiter = WriterTurns(str(tmp_path / "db.sqlite3"), timeout_ms=50)
    release, held = FORK.Event(), FORK.Event()

    def hold() -> None:
        with holder.turn():
            held.set()
            release.wait(30)

    child = FORK.Process(target=hold)
    child.start()
    try:
        assert held.wait(10)
        ran = False
        with waiter.turn():
            ran = True
        assert ran
    finally:
        release.set()
        child.join(10)


def test_the_app_takes_turns_on_an_sqlite_file_only(app, tmp_path):
    from grader import create_app

    assert isinstance(app.extensions[WRITER_TURNS], WriterTurns)
    assert app.extensions[WRITER_TURNS].path.endswith(".sqlite3-writers")
    memory = create_app(
        {
            "SECRET_KEY": "t",
            "SQLALCHEMY_DATABASE_URI": "sqlite://",
            "GRADER_INSTANCE_PATH": str(tmp_path),
        }
    )
    assert WRITER_TURNS not in memory.extensions


def test_writing_holds_the_turn_while_it_writes(app, factory):
    from grader.services import accounts
    from grader.services.transactions import writing

    turns = app.extensions[WRITER_TURNS]
    with app.app_context():
        with writing():
            child, took = _child(turns)
            assert not took.wait(0.3)
        assert took.wait(10)
        child.join(10)
        accounts.create_user("after@example.com", None)  # and writes go on as before
