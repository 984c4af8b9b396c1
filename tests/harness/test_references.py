"""The reference's work once per suite (grader/harness/references.py): read back from the
cache folder, computed again when the suite, a position or the grader's version changes; its
timings never kept but measured beside the engine's runs, which the results say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.harness import references
from grader.harness.contention import Share
from grader.harness.references import References
from grader.harness.results import gradescope, rich, summary
from grader.harness.runner import grade_engine
from grader.harness.sandbox import SandboxConfig
from grader.harness.suite import load_suite
from tests.harness._helpers import needs_bwrap

SUITE = {
    "name": "cached",
    "positions": "positions.json",
    "groups": [
        {
            "kind": "search",
            "points": 1,
            "cpu": 2,
            "wall": 5,
            "depths": [2],
            "null_windows": [0],
            "positions": ["middle"],
        },
        {
            "kind": "search",
            "points": 1,
            "cpu": 2,
            "wall": 5,
            "depths": [3],
            "positions": ["middle"],
        },
        {
            "kind": "timing",
            "points": 1,
            "cpu": 2,
            "wall": 5,
            "depths": [3],
            "runs": 1,
            "full_ratio": 100,
            "zero_ratio": 1000,
            "positions": ["middle"],
        },
    ],
}
MIDDLE = "B:W18,K19,20,21,23,25,26,27,29:B1,4,5,9,K31"
OTHER = "W:W5,18,21,24,26,29,30,31,32:B1,3,4,8,9,11"


def _suite_files(folder: Path, fen: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "positions.json").write_text(json.dumps({"middle": {"fen": fen}}))
    path = folder / "cached.json"
    path.write_text(json.dumps(SUITE))
    return path


def _new_process() -> None:
    """As a new process finds things: nothing in memory, only the files."""
    references._MEMORY.clear()
    references._IN_FILE.clear()


@pytest.fixture(autouse=True)
def _no_memory(monkeypatch):
    """Each test starts with nothing computed in this process (the file alone carries)."""
    monkeypatch.setattr(references, "_MEMORY", {})
    monkeypatch.setattr(references, "_IN_FILE", {})


@needs_bwrap
def test_answers_are_read_back_and_a_changed_position_is_computed_again(submission, tmp_path):
    engine, cache = submission("correct"), tmp_path / "cache"
    path = _suite_files(tmp_path / "suite", MIDDLE)
    first = grade_engine(engine, load_suite(path), SandboxConfig(), cache=cache)
    assert first.score == first.max_score and first.references_computed > 0
    files = list(cache.glob("references-*.json"))
    assert len(files) == 1

    _new_process()  # a new process: only the file is left
    again = grade_engine(engine, load_suite(path), SandboxConfig(), cache=cache)
    assert again.references_computed == 0 and again.score == first.score
    # The reference's timing is never read back: timed again, beside this run's engine.
    assert again.reference_timed_at is not None and first.reference_timed_at is not None
    assert again.reference_timed_at > first.reference_timed_at

    # One position changed (a new folder: suite.positions keeps a file it read in memory).
    path = _suite_files(tmp_path / "changed", OTHER)
    changed = grade_engine(engine, load_suite(path), SandboxConfig(), cache=cache)
    assert changed.references_computed == first.references_computed
    assert changed.score == changed.max_score
    assert len(list(cache.glob("references-*.json"))) == 2  # its own file; the old one unread
    answer = [t for t in changed.tests if t.kind == "search"][-1]
    assert answer.output != [t for t in first.tests if t.kind == "search"][-1].output


def test_the_digest_names_the_suite_its_positions_and_the_grader_version(tmp_path, monkeypatch):
    suite = load_suite(_suite_files(tmp_path / "a", MIDDLE))
    moved = load_suite(_suite_files(tmp_path / "b", OTHER))
    digest = references.suite_digest(suite.name, suite.tests)
    assert digest == references.suite_digest(
        suite.name, load_suite(tmp_path / "a" / "cached.json").tests
    )
    assert digest != references.suite_digest(moved.name, moved.tests)
    assert digest != references.suite_digest("other", suite.tests)
    monkeypatch.setattr(references, "grader_version", lambda: "0.2.0+another")
    assert digest != references.suite_digest(suite.name, suite.tests)


def test_the_reference_is_timed_beside_the_engine_and_never_kept(tmp_path):
    book = References("d" * 32, tmp_path)
    share = Share()
    cpu = book.beside(MIDDLE, 3, share)
    assert cpu > 0 and share.cpu >= cpu and share.wall > 0 and book.timed_at is not None
    book.save()
    assert not list(tmp_path.glob("references-*.json"))  # nothing computed to keep


def test_an_unreadable_cache_file_is_computed_again(tmp_path):
    book = References("e" * 32, tmp_path)
    expected = book.search(MIDDLE, 2)
    book.save()
    next(tmp_path.glob("references-*.json")).write_text("{not json")
    _new_process()
    again = References("e" * 32, tmp_path)
    assert again.search(MIDDLE, 2) == expected and again.computed == 1


@needs_bwrap
def test_the_results_say_when_the_reference_was_timed(submission, tmp_path):
    path = _suite_files(tmp_path / "suite", MIDDLE)
    report = grade_engine(submission("correct"), load_suite(path), SandboxConfig())
    said = summary(report)
    assert "timed beside each of your runs in the same grading slot (from " in said
    assert said in gradescope(report)["output"]
    assert rich(report)["reference"]["timed_at"].endswith("UTC")
    assert rich(report)["reference"]["beside"] is True


def test_a_positional_opponent_plays_the_same_moves_remembered(tmp_path):
    """The ladder's fixed-depth opponents are asked each position once; remembered, the game
    is move for move the one played without memory. A player with state (random) is always
    asked, never remembered."""
    from grader.checkers import play_game, player_from_name
    from grader.harness.testkinds.play import RememberedPlayer

    def game(black, white) -> list[str]:
        return [m.pdn() for m in play_game(black, white, opening=("9-13",), max_plies=30).moves]

    plain = game(player_from_name("ref:3"), player_from_name("random", seed=5))
    book = References("f" * 32, tmp_path)
    first = game(
        RememberedPlayer(player_from_name("ref:3"), book),
        RememberedPlayer(player_from_name("random", seed=5), book),
    )
    assert first == plain and book.computed > 0
    assert not [k for k in book.entries if k.startswith("move|random|")]
    book.save()
    _new_process()
    again = References("f" * 32, tmp_path)
    remembered = RememberedPlayer(player_from_name("ref:3"), again)
    remembered.player = None  # type: ignore[assignment]  # asking the engine would fail
    assert game(remembered, player_from_name("random", seed=5)) == plain
    assert again.computed == 0 and again.read == len(plain[2::2])  # its moves after the opening


def test_an_entry_of_another_shape_is_computed_again_and_a_folder_that_cannot_be_written_is_no_fault(
    tmp_path,
):
    book = References("a" * 32, tmp_path)
    expected = book.search(MIDDLE, 2)
    book.save()
    path = next(tmp_path.glob("references-*.json"))
    content = json.loads(path.read_text())
    content["entries"] = {k: {"value": "x"} for k in content["entries"]}
    path.write_text(json.dumps(content))
    _new_process()
    again = References("a" * 32, tmp_path)
    assert again.search(MIDDLE, 2) == expected
    assert again.computed == 1
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    _new_process()
    nowhere = References("b" * 32, blocked / "cache")
    nowhere.search(MIDDLE, 2)
    nowhere.save()  # the answers stay in memory; grading goes on
    assert nowhere.search(MIDDLE, 2) == expected


def test_a_new_cache_folder_gets_what_this_process_already_knows(tmp_path):
    """A worker whose memory already holds a suite's answers still fills an empty folder."""
    first = References("c" * 32, tmp_path / "one")
    first.search(MIDDLE, 2)
    first.save()
    second = References("c" * 32, tmp_path / "two")  # the same process, another folder
    assert second.search(MIDDLE, 2) and second.computed == 0
    second.save()
    assert list((tmp_path / "two").glob("references-*.json"))
