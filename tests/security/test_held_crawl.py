"""Issue 49: a crawler that proves a held score stays held on every path. Signed in as a student
whose scores are held (`held_support`), it fetches every same-origin link reachable from the
dashboard (each page's `<a href>`, every address a page or a response names), every GET of the
OpenAPI document with the student's own ids in its path, and every download (each file of a ZIP,
the calendar feed, results files, PDFs read by pdftotext), and looks in each for the held
figures. There is no list of pages to keep: a new page linked from anywhere is crawled.

Before the release it finds none; after, it finds every one; and a reader that skips the gate
(planted here) makes it fail."""

from __future__ import annotations

import html
import importlib
import io
import itertools
import json
import re
import subprocess
import tempfile
import zipfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
import sqlalchemy as sa

from grader.extensions import db
from grader.models import Attempt, Exercise, Submission, TermRegrade
from tests.app_support import bearer
from tests.instructor_support import ALICE
from tests.security.held_support import Held, found, held_course, release

ORIGIN = "http://localhost"
MAX_FETCHES = 600  # a bound on the crawl: a page that makes pages could not run away
_HREF = re.compile(r"""\s(?:href|src)\s*=\s*["']([^"']+)["']""")
_NAMED = re.compile(r"""\s(?:value|data-[\w-]+)\s*=\s*["'](/[^"'\s]*)["']""")  # an address
_ADDRESS = re.compile(r"""https?://localhost/[^\s"'<>]*""")
SKIP = ("/logout", "/static/")  # signing out ends the crawl's session; assets hold no data


@dataclass
class Crawl:
    pages: int = 0
    api_calls: int = 0
    files: int = 0
    leaks: dict[str, list[str]] = field(default_factory=dict)  # address: figures found
    seen: set[str] = field(default_factory=set)
    kinds: dict[str, int] = field(default_factory=dict)  # responses by media type

    @property
    def figures(self) -> set[str]:
        return {name for names in self.leaks.values() for name in names}

    def words(self) -> str:
        return (
            f"{self.pages} pages, {self.api_calls} API calls, {self.files} files, "
            f"{len(self.figures)} held figures found in {len(self.leaks)} places; "
            + ", ".join(f"{n} {kind}" for kind, n in sorted(self.kinds.items()))
        )


def _pdf_text(data: bytes) -> str:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "file.pdf"
        source.write_bytes(data)
        done = subprocess.run(
            ["pdftotext", str(source), "-"], capture_output=True, text=True, check=False
        )
        return done.stdout


def _texts(address: str, data: bytes, mimetype: str) -> list[tuple[str, str]]:
    """Each readable part of a response: itself, or each file of a ZIP, or a PDF's text."""
    if mimetype == "application/zip" or data[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return [
                (f"{address}!{name}", text)
                for name in archive.namelist()
                for _, text in _texts(name, archive.read(name), "")
            ]
    if mimetype == "application/pdf" or data[:5] == b"%PDF-":
        return [(address, _pdf_text(data))]
    return [(address, html.unescape(data.decode("utf-8", "replace")))]


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def _json_links(text: str) -> list[str]:
    """The addresses a JSON response names (its `urls`, an upload's files ...)."""
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return [s for s in _strings(value) if s.startswith("/") and " " not in s]


def _links(base: str, text: str) -> list[str]:
    """Every same-origin address a page or a response names."""
    out = []
    for raw in [
        *_HREF.findall(text),
        *_NAMED.findall(text),
        *_ADDRESS.findall(text),
        *_json_links(text),
    ]:
        url = urljoin(ORIGIN + base, html.unescape(raw))
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc == "localhost":
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            if path.startswith("/") and not path.startswith(SKIP):
                out.append(path)
    return out


def _look(crawl: Crawl, held: Held, address: str, response: Any) -> str:
    crawl.kinds[response.mimetype] = crawl.kinds.get(response.mimetype, 0) + 1
    text = ""
    for where, part in _texts(address, response.data, response.mimetype):
        crawl.files += where != address
        if hits := found(held, part):
            crawl.leaks[where] = hits
        text += part
    response.close()
    if response.mimetype in ("application/pdf", "text/calendar", "text/csv", "application/zip"):
        crawl.files += 1
    return text


def _own_ids(app: Any, held: Held) -> dict[str, list[int]]:
    """The student's own ids for each path parameter of the API."""
    with app.app_context():
        alice = db.session.scalar(sa.text("select id from user where email = :e"), {"e": ALICE})
        attempts = list(db.session.scalars(sa.select(Attempt.id).where(Attempt.user_id == alice)))
        exercises = list(
            db.session.scalars(sa.select(Exercise.id).where(Exercise.owner_id == alice))
        )
        uploads = list(
            db.session.scalars(sa.select(Submission.id).where(Submission.owner_id == alice))
        )
        regrades = list(
            db.session.scalars(
                sa.select(TermRegrade.id).where(TermRegrade.course_id == held.room.course_id)
            )
        )
    return {
        "assignment_id": [held.room.assignment_id],
        "course_id": [held.room.course_id],
        "index": [0, 1, 2],
        "attempt_id": attempts,
        "exercise_id": exercises,
        "submission_id": uploads,
        "number": [0, 1],
        "regrade_id": regrades or [1],  # staff's only: asked anyway, the student is refused
    }


def crawl(app: Any, client: Any, held: Held, token: str) -> Crawl:
    done = Crawl()
    # The browser session: every page reachable from the dashboard, and what they link to.
    queue: deque[str] = deque(["/"])
    while queue and len(done.seen) < MAX_FETCHES:
        address = queue.popleft()
        if address in done.seen:
            continue
        done.seen.add(address)
        response = client.get(address)
        if response.status_code in (301, 302, 303, 307, 308):
            queue.extend(_links(address, f' href="{response.headers["Location"]}"'))
            continue
        done.pages += response.mimetype == "text/html"
        done.api_calls += address.startswith("/api/")
        text = _look(done, held, address, response)
        queue.extend(a for a in _links(address, text) if a not in done.seen)
    assert len(done.seen) < MAX_FETCHES, sorted(done.seen)
    # The token: every GET of the OpenAPI document, with the student's own ids.
    ids = _own_ids(app, held)
    document = client.get("/api/openapi.json", headers=bearer(token)).get_json()
    for path, operations in document["paths"].items():
        if "get" not in operations:
            continue
        names = re.findall(r"{(\w+)}", path)
        queries = [p["name"] for p in operations["get"].get("parameters", []) if p["in"] == "query"]
        choices = [ids[name] for name in names]
        for values in itertools.product(*choices):
            address = path
            for name, value in zip(names, values, strict=True):
                address = address.replace(f"{{{name}}}", str(value))
            asked = [address]
            for name in queries:  # each filter alone, with each of the student's own ids
                asked += [f"{address}?{name}={value}" for value in ids.get(name, [])]
            for one in asked:
                response = client.get(one, headers=bearer(token))
                done.api_calls += 1
                _look(done, held, f"token {one}", response)
    return done


def _report(label: str, result: Crawl) -> None:
    print(f"\ncrawl {label}: {result.words()}")
    for where, names in sorted(result.leaks.items()):
        print(f"  {where}: {', '.join(names)}")


@pytest.fixture
def held(app: Any, factory: Any) -> Held:
    return held_course(app, factory)


def test_no_held_figure_anywhere_until_release_then_every_one(app, client, auth, factory, held):
    token = factory.token(ALICE)
    auth.login(ALICE)
    before = crawl(app, client, held, token)
    _report("while held", before)
    assert before.pages > 10 and before.api_calls > 20 and before.files >= 3
    # The downloads were among them: the export, the calendar feed, the upload's results.
    assert {"application/zip", "text/calendar", "application/json"} <= set(before.kinds)
    assert before.leaks == {}
    release(app, held)
    after = crawl(app, client, held, token)
    _report("after release", after)
    assert after.figures == set(held.figures)


def _skip_gate(monkeypatch: Any, module: Any) -> None:
    """The reader in `module` no longer asks the gate: everything shows, as before issue 49."""
    from grader.services.courses import release as gate

    monkeypatch.setattr(
        module,
        "release",
        SimpleNamespace(
            **{name: getattr(gate, name) for name in dir(gate) if not name.startswith("_")}
            | {"held_work": lambda *args, **kw: None}
        ),
    )


@pytest.mark.parametrize(
    "reader",
    [
        "grader.services.data.export",
        "grader.services.trees.attempts",
        "grader.services.trees.practice",
        "grader.services.teaching.scores",
        "grader.services.engines.results",
        "grader.services.engines.submissions",
    ],
)
def test_a_reader_that_skips_the_gate_is_caught(
    app, client, auth, factory, held, monkeypatch, reader
):
    _skip_gate(monkeypatch, importlib.import_module(reader))
    token = factory.token(ALICE)
    auth.login(ALICE)
    planted = crawl(app, client, held, token)
    _report(f"with {reader} skipping the gate", planted)
    assert planted.leaks
