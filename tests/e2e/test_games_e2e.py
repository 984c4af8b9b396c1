"""A tree from a game in a real headless Chromium: made from the practice page, the board of a
node shown on hover and on keyboard focus, hoverable itself and dismissed by Escape; the
screenshot for the docs."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.e2e_support import LEARNER, open_page, sign_in, tree_drawn

pytestmark = pytest.mark.e2e


def test_a_connect_four_tree_shows_each_nodes_board(browser, live_server, screenshots) -> None:
    with open_page(browser, live_server.url, height=1000) as page:
        sign_in(page, LEARNER)
        page.get_by_role("link", name="Practice", exact=True).click()
        page.get_by_role("link", name="a tree from a game").click()
        page.get_by_label("Game").select_option("connect-4")
        page.get_by_label("Exercise").select_option("values")
        page.get_by_label("Start position", exact=False).fill("4453")
        page.get_by_label("Depth in plies").fill("2")
        page.get_by_label("Branching cap", exact=False).fill("3")
        page.get_by_role("button", name="Make the exercise").click()
        page.wait_for_url("**/exercises/*")
        tree_drawn(page)
        expect(page.locator('[data-role="game-note"]')).to_contain_text("connect-4")
        tip = page.locator('[data-role="game-board"]')
        expect(tip).to_be_hidden()
        node = page.locator('[data-role="tree"] .node[data-path="1.2"]')
        node.hover()
        expect(tip).to_be_visible()
        # 4453 (X 4, O 4, X 5, O 3), then X in column 2, then O in column 3 (on top of O's)
        expect(tip).to_contain_text("after O in column 3")
        # The board's last two rows, at the end of the tip (its rows are lines of text).
        expect(tip).to_have_text(re.compile(r"\n\.\.OO\.\.\.\n\.XOXX\.\.\n*$"), use_inner_text=True)
        page.screenshot(path=str(screenshots / "game-tree.png"), full_page=True)
        # The board can be hovered (WCAG 1.4.13): the pointer moves onto it and it stays.
        box = tip.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=4)
        expect(tip).to_be_visible()
        page.mouse.move(0, 0)
        expect(tip).to_be_hidden()
        first = page.locator('[data-role="tree"] .node[data-path="0"]')
        first.focus()
        expect(tip).to_contain_text("after X in column 1")
        # Escape dismisses it, on hover or on focus, and focus stays on the node.
        page.keyboard.press("Escape")
        expect(tip).to_be_hidden()
        expect(first).to_be_focused()
        node.hover()
        expect(tip).to_be_visible()
        page.keyboard.press("Escape")
        expect(tip).to_be_hidden()
