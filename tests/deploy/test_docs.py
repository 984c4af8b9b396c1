"""The documentation site builds with `mkdocs build --strict` (make test runs this), so a broken
link, a missing anchor, a page left out of the nav or a snippet whose file is gone fails here."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def build(root: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )


def test_the_site_builds_strict_with_every_page_and_the_api(tmp_path) -> None:
    done = build(CHECKOUT, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    for page in ("students", "instructors", "lti", "deployment", "api", "checkers", "testing"):
        assert (tmp_path / "site" / page / "index.html").exists(), page
    # Every path of the app's own document is on the API page (rendered, not typed there).
    spec = json.loads((tmp_path / "site" / "openapi.json").read_text())
    text = re.sub(r"<[^>]+>", "", (tmp_path / "site" / "api" / "index.html").read_text())
    assert len(spec["paths"]) > 20
    assert [path for path in spec["paths"] if path not in text] == []
    architecture = (tmp_path / "site" / "architecture" / "index.html").read_text()
    assert "Shared words" in architecture  # ARCHITECTURE.md itself, included


def test_a_broken_link_fails_the_build(tmp_path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(CHECKOUT / "docs", copy / "docs", ignore=shutil.ignore_patterns("openapi.json"))
    for name in ("mkdocs.yml", "ARCHITECTURE.md"):
        shutil.copy(CHECKOUT / name, copy / name)
    page = copy / "docs" / "students.md"
    page.write_text(page.read_text() + "\nSee [the gone page](no-such-page.md).\n")
    done = build(copy, tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-page.md" in done.stdout + done.stderr
