"""The engine results page of issue 24 §2, on the tie-rule engine graded in the sandbox on the
quick suite (tests/e2e/site_support.py): it leads with what to fix, the failed tests grouped
under the mistake that explains them, each with its position, what came back and what was
expected; the passed tests fold into one line per test kind, opened on demand. The student's
page and the instructor's view of the same submission read alike.

Which tests fail, and with what leaf counts, is computed here from the checkers library: the
tie-strict variant's search against the contract's, test by test of the suite."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from grader import data
from grader.checkers import Board
from grader.checkers.engine import CONTRACT, INFINITY, search
from grader.checkers.variants import VARIANTS
from grader.harness.suite import load_suite
from grader.harness.testkinds.search import root_window
from tests.e2e.e2e_support import open_page, sign_in
from tests.e2e.site_support import INSTRUCTOR, STUDENT

# make test's workers (--dist loadgroup): one of them runs these, seeding the site once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("site")]


def _known_failures() -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """Per graded test kind, how many tests the tie-rule engine passes; per failed search and
    timing test, (its leaf count, the contract's) where the two searches differ."""
    suite = load_suite(data.suite_dir() / "quick.json")
    tie = VARIANTS["tie-strict"]
    passed: dict[str, int] = {}
    failed: dict[str, tuple[int, int]] = {}
    for case in suite.tests:
        if not case.points or case.kind == "play":
            continue  # optional tests are not graded; games depend on the opponents' play
        fen = case.params.get("fen")
        if case.kind == "search":
            alpha, beta = root_window(case)
            depth = case.params["depth"]
        elif case.kind == "timing":  # its first depth decides: a wrong answer gets no credit
            alpha, beta, depth = -INFINITY, INFINITY, case.params["depths"][0]
        else:
            passed[case.kind] = passed.get(case.kind, 0) + 1  # moves: the tie rule is not there
            continue
        mine = tie.run(fen, depth, alpha, beta)
        contract = search(Board(fen), depth, CONTRACT, alpha, beta)
        if (mine.value, mine.leaves) != (contract.value, contract.leaves):
            failed[case.name] = (mine.leaves, contract.leaves)
        else:
            passed[case.kind] = passed.get(case.kind, 0) + 1
    return passed, failed


@pytest.fixture(scope="module")
def known() -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    return _known_failures()


@pytest.mark.parametrize("who", [STUDENT, INSTRUCTOR])
def test_failed_tests_grouped_passed_ones_folded(browser, site, known, who, screenshots) -> None:
    passed, failed = known
    assert len(failed) == 15  # issue 24: "11 tests ... (tie-strict)" and "4 tests ..." of them
    with open_page(browser, site.url) as page:
        sign_in(page, who)
        page.goto(f"/engines/{site.tie_strict}")
        expect(page.locator('[data-role="results"]')).to_be_visible(timeout=20_000)

        # What to fix comes first: one group, named by the one mistake, every failure in it.
        groups = page.locator('[data-role="failed-group"]')
        expect(groups).to_have_count(1)
        group = groups.first
        expect(group).to_have_attribute("data-code", "tie-strict")
        expect(group.locator("h4")).to_have_text(
            "15 tests failed the way a known mistake does (tie-strict)"
        )
        expect(group).to_contain_text(VARIANTS["tie-strict"].sentence)
        rows = group.locator("tbody tr")
        expect(rows).to_have_count(15)
        shown = _rows(rows)
        assert {f"{test}: {position}" for test, position, _, _ in shown} == set(failed)
        for test, position, got, expected in shown:
            mine, theirs = failed[f"{test}: {position}"]
            depth = " at depth 5" if test.startswith("Timing") else ""
            assert got == f"leaves{depth}: {mine}"
            assert expected.startswith(f"leaves{depth}: {theirs} (alpha-beta in canonical order")
        results = page.locator('[data-role="results"]')
        order = results.locator("h3").all_inner_texts()
        assert order.index("What to fix") < order.index("What passed") < order.index("Games")

        # What passed: one line per kind, its tests behind it.
        def line(kind: str) -> Any:
            return page.locator(f'[data-role="passed"] > li[data-kind="{kind}"]')

        expect(line("movegen")).to_contain_text(
            f"Move generation {passed['movegen']}/{passed['movegen']} passed"
        )
        expect(line("perft")).to_contain_text(f"Perft {passed['perft']}/{passed['perft']} passed")
        search_total = passed["search"] + sum(n.startswith("Search") for n in failed)
        expect(line("search")).to_contain_text(f"Search {passed['search']}/{search_total} passed")
        expect(line("parallel")).to_contain_text("3 optional (worth 0 points), not graded")
        moves = line("movegen")
        expect(moves.locator("li")).to_have_count(passed["movegen"])
        expect(moves.locator("li").first).to_be_hidden()  # folded
        moves.locator("summary").click()
        expect(moves.locator("li").first).to_be_visible()
        expect(moves.locator("li").first).to_have_text("Move generation: start")
        if who == STUDENT:
            moves.locator("summary").click()
            for width in (1280, 390):
                page.set_viewport_size({"width": width, "height": 900})
                page.screenshot(
                    path=str(screenshots / f"engine-results-{width}.png"), full_page=True
                )


def _rows(rows: Any) -> list[tuple[str, str, str, str]]:
    return rows.evaluate_all(
        """rows => rows.map(r => [r.cells[0].innerText.trim(), r.cells[1].innerText.trim(),
            r.cells[2].querySelector('div').innerText.trim(),
            r.cells[3].querySelector('div').innerText.trim()])"""
    )
