"""The administrators' backups page in a real Chromium, at 1280 and 390 px: a failed backup is
an alert in red that passes axe (its text at 4.5:1 contrast or more, axe's color-contrast rule),
and the page does not scroll sideways on a phone; the nav's Backups link leads there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.accessibility import axe_violations, sideways
from tests.e2e.e2e_support import PASSWORD, open_page, server_env, sign_in
from tests.live_server import seeding, serve

# make test's workers (--dist loadgroup): one of them runs the module, its fixture made once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("test_backups_page_e2e")]

ADMIN = "backups-admin@example.com"
ERROR = "OSError: [Errno 28] No space left on device: '/var/backups/grader'"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, migrated_template: Path) -> Iterator[str]:
    from grader.services import accounts
    from grader.services.data import backup

    folder = tmp_path_factory.mktemp("backups-page")
    env = server_env(folder)
    with seeding(migrated_template, env):
        admin = accounts.create_user(ADMIN, PASSWORD, "instructor")
        accounts.set_admin(admin.id, True)
        backup.record(None, backup.take(folder / "good.tar"), None)
        backup.record(None, None, ERROR)
    with serve(folder, env) as url:
        yield url


@pytest.mark.parametrize("width", [1280, 390])
def test_a_failed_backup_is_a_red_alert_that_passes_axe(browser, site, width) -> None:
    with open_page(browser, site, width=width, bypass_csp=True) as page:
        sign_in(page, ADMIN)
        page.goto("/admin/lti")
        page.get_by_role("link", name="Backups").click()
        page.wait_for_url("**/admin/backups")
        alert = page.get_by_role("alert")
        expect(alert).to_contain_text("The last backup failed")
        expect(alert).to_contain_text("No space left on device")
        expect(alert).to_contain_text("The last good backup was taken")
        assert axe_violations(page) == []
        assert sideways(page) <= 0
