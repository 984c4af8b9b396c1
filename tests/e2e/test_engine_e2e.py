"""An engine upload in a real headless Chromium against a real gunicorn and a real worker:
upload the correct sample engine through the page, watch the progress reach done, open a game
in the replay viewer and step through it."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.app_support import enrol
from tests.e2e.e2e_support import PASSWORD, STUDENT, open_page, server_env, sign_in
from tests.e2e.test_keyboard_only import _sign_in, _tab_to
from tests.live_server import seeding, serve

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("test_engine_e2e")]

TESTS = Path(__file__).resolve().parents[1]
CORRECT = TESTS / "harness" / "engines" / "correct.py"
SMALL = TESTS / "jobs" / "data" / "small.json"
BIN = Path(sys.executable).parent


@dataclass
class EngineServer:
    url: str
    assignment_id: int
    slot_index: int


def _seed(template: Path, env: dict[str, str]) -> tuple[int, int]:
    from grader.services import accounts
    from grader.services.courses import courses
    from grader.services.engines import submissions

    with seeding(template, env):
        accounts.create_user("teacher@example.com", PASSWORD, "instructor")
        accounts.create_user(STUDENT, PASSWORD)
        course = courses.create_course("Engines 101", "teacher@example.com")
        enrol(course.id, STUDENT)
        assignment = courses.create_assignment(course.id, "standard", title="Checkers")
        slot = submissions.add_engine_slot(assignment.id, suite="quick")
        found = assignment.id, slot.index
    return found


@pytest.fixture(scope="module")
def engine_server(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path
) -> Iterator[EngineServer]:
    folder = tmp_path_factory.mktemp("engine-e2e")
    env = server_env(
        folder,
        GRADER_ENGINE_SUITE=str(SMALL),  # a timing test and two games, in seconds
        GRADER_SWEEP_SECONDS="1",
    )
    assignment_id, index = _seed(migrated_template, env)
    with serve(folder, env, worker=True) as url:
        yield EngineServer(url, assignment_id, index)


@pytest.fixture
def student_page(browser: Any, engine_server: EngineServer) -> Iterator[Any]:
    with open_page(browser, engine_server.url, height=1000) as tab:
        yield sign_in(tab)


def _pieces(page: Any) -> dict[str, str]:
    return page.eval_on_selector_all(
        '[data-role="board"] circle.piece',
        "nodes => Object.fromEntries(nodes.map(n => [n.dataset.square, n.dataset.piece]))",
    )


def test_upload_watch_progress_and_replay_a_game(student_page, engine_server, screenshots):
    page = student_page
    page.get_by_role("link", name="Checkers engine").first.click()
    page.wait_for_url(f"**/slots/{engine_server.slot_index}/engine")
    page.get_by_label("Engine file").set_input_files(str(CORRECT))
    page.get_by_role("button", name="Upload").click()
    page.wait_for_url("**/engines/*")

    # Watch it: queued or running (the page shows it before it is done), then done.
    status = page.locator('[data-role="status"]')
    expect(status).to_have_text(re.compile(r"^(queued|running)$"))
    expect(status).to_have_text("done", timeout=90_000)
    results = page.locator('[data-role="results"]')
    expect(results).to_be_visible()
    expect(page.locator('[data-role="score"]')).to_contain_text("Score: 10 / 10")
    expect(page.locator('[data-role="failed"]')).to_have_text("Nothing: every graded test passed.")
    expect(page.locator('[data-role="passed"] summary')).to_have_text(
        ["Move generation 2/2 passed", "Search 2/2 passed", "Timing 1/1 passed", "Games 2/2 passed"]
    )
    expect(page.locator('[data-role="chart"] svg rect.mine:not(.legend)')).to_have_count(
        2
    )  # depths 3 and 4
    page.screenshot(path=str(screenshots / "engine-results.png"), full_page=True)

    # Open the first game and step through it.
    page.locator('[data-role="games"] button[data-game="0"]').click()
    viewer = page.locator('[data-role="viewer"]')
    expect(viewer).to_be_visible()
    expect(page.locator('[data-role="ply"]')).to_contain_text("0 / ")
    start = _pieces(page)
    assert len(start) == 24
    page.get_by_role("button", name="Forward one move").click()
    expect(page.locator('[data-role="ply"]')).to_contain_text("1 / ")
    after = _pieces(page)
    assert after != start and len(after) == 24  # a piece moved
    moved_from = set(start) - set(after)
    moved_to = set(after) - set(start)
    assert len(moved_from) == 1 and len(moved_to) == 1
    expect(page.locator('[data-role="moves"] button.current')).to_have_text(re.compile(r"^1\. "))
    page.get_by_role("button", name="Forward one move").click()
    expect(page.locator('[data-role="ply"]')).to_contain_text("2 / ")
    page.get_by_role("button", name="Back one move").click()
    page.get_by_role("button", name="Back one move").click()
    expect(page.locator('[data-role="ply"]')).to_contain_text("0 / ")
    assert _pieces(page) == start
    page.get_by_role("button", name="Last position").click()
    ply = page.locator('[data-role="ply"]')
    expect(ply).to_have_text(re.compile(r"^(\d+) / \1$"))  # at the last position
    total = int(ply.inner_text().split(" / ")[1])
    assert total > 3
    expect(page.locator('[data-role="download-pdn"]')).to_have_attribute(
        "href", re.compile(r"/0\.pdn$")
    )
    page.screenshot(path=str(screenshots / "engine-replay.png"), full_page=True)
    page.locator('[data-role="board"]').screenshot(path=str(screenshots / "engine-board.png"))


def test_identical_failures_are_grouped_and_no_elo_without_a_game(student_page, engine_server):
    """An engine that cannot even be imported: one group for its verdict, in it one row for the
    first test's traceback and one for the six tests that failed the same way; nothing passed,
    and no "Elo < 0" for games never played."""
    page = student_page
    page.get_by_role("link", name="Checkers engine").first.click()
    page.wait_for_url(f"**/slots/{engine_server.slot_index}/engine")
    page.get_by_label("Engine file").set_input_files(
        str(TESTS / "harness" / "engines" / "crash_at_import.py")
    )
    page.get_by_role("button", name="Upload").click()
    page.wait_for_url("**/engines/*")
    expect(page.locator('[data-role="results"]')).to_be_visible(timeout=90_000)
    failed = page.locator('[data-role="failed-group"]')
    expect(failed).to_have_count(1)
    expect(failed).to_have_attribute("data-verdict", "RE")
    expect(failed.locator("h4")).to_have_text("7 tests: RE (runtime error)")
    expect(failed.locator("tbody tr")).to_have_count(2)
    expect(failed.locator("tbody tr").first).to_contain_text(
        "the engine failed while being imported"
    )
    group = failed.locator('td[data-role="group"]')
    expect(group).to_contain_text("6 tests failed the same way")
    expect(group.locator("li")).to_have_count(6)
    expect(page.locator('[data-role="passed"]')).to_have_text("No test passed.")
    expect(page.locator('[data-role="elo"]')).to_have_text("")
    expect(page.locator('[data-role="summary"]')).not_to_contain_text("Elo")


def test_chart_scale_legend_board_numbers_and_move_list(student_page, engine_server):
    """The timing chart has a y scale and its legend clears the tallest bar; square numbers are
    12 px; the move list keeps the current move in view. (Reuses the correct engine graded
    above, or uploads it.)"""
    page = student_page
    page.goto(f"/assignments/{engine_server.assignment_id}/slots/{engine_server.slot_index}/engine")
    expect(page.get_by_role("link", name="The starter engine (engine.py)")).to_be_visible()
    graded = page.locator('[data-role="submissions"] tr:has-text("10 / 10") a')
    if not graded.count():
        page.get_by_label("Engine file").set_input_files(str(CORRECT))
        page.get_by_role("button", name="Upload").click()
    else:
        graded.first.click()
    page.wait_for_url("**/engines/*")
    expect(page.locator('[data-role="status"]')).to_have_text("done", timeout=90_000)
    # A submission graded before the page opened says "done" in the page's own HTML, before its
    # script has shown the results (hidden until then, and a hidden chart has no boxes).
    expect(page.locator('[data-role="results"]')).to_be_visible()
    chart = page.locator('[data-role="chart"] svg')
    expect(chart.locator("text.y-tick")).to_have_count(5)
    legend_bottom = page.evaluate("""() => Math.max(...[...document.querySelectorAll(
        '[data-role="chart"] rect.legend')].map(r => r.getBBox().y + r.getBBox().height))""")
    tallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll(
        '[data-role="chart"] rect:not(.legend)')].map(r => r.getBBox().y))""")
    assert legend_bottom < tallest
    page.locator('[data-role="games"] button[data-game="0"]').click()
    expect(page.locator('[data-role="board"] text.number').first).to_be_attached()
    size = page.evaluate("""() => parseFloat(getComputedStyle(
        document.querySelector('[data-role="board"] text.number')).fontSize)""")
    assert size >= 12
    page.get_by_role("button", name="Last position").click()
    current = page.locator('[data-role="moves"] button.current')
    expect(current).to_be_visible()
    box = page.locator('[data-role="moves"]').bounding_box()
    mine = current.bounding_box()
    assert box["y"] <= mine["y"] and mine["y"] + mine["height"] <= box["y"] + box["height"] + 1


def test_keyboard_only_engine_upload(browser, engine_server) -> None:
    """The upload with the keyboard alone (tests/e2e/test_keyboard_only.py's Tab and Enter): the
    file chosen from the file input's own chooser (opened by Space), sent, its results read, full
    marks."""
    with open_page(browser, engine_server.url, height=1000) as page:
        _sign_in(page, STUDENT)
        _tab_to(page, page.get_by_role("link", name="Checkers engine").first)
        page.keyboard.press("Enter")
        page.wait_for_url(f"**/slots/{engine_server.slot_index}/engine")
        # Waited for before the Tabs: the browser intercepts file choosers only once told to,
        # which Playwright does without waiting for an answer, so a press just after could
        # open an unseen chooser.
        with page.expect_file_chooser() as chooser:
            _tab_to(page, page.get_by_label("Engine file"))
            page.keyboard.press("Space")
        chooser.value.set_files(str(CORRECT))
        _tab_to(page, page.get_by_role("button", name="Upload"))
        page.keyboard.press("Enter")
        page.wait_for_url("**/engines/*")
        expect(page.locator('[data-role="status"]')).to_have_text("done", timeout=90_000)
        expect(page.locator('[data-role="score"]')).to_contain_text("Score: 10 / 10")
