"""The exam sheets' renderer fetches nothing but the package's static files (issue 36 §8).

Every field on a printed sheet is escaped, but the renderer itself used WeasyPrint's default URL
fetcher: given hand-written HTML it fetched from 127.0.0.1 and attached /etc/passwd to the PDF.
Here hostile HTML goes straight to the renderer (`exam_pdf.render`, what the print job runs):
remote URLs to a loopback server the test runs (which must hear nothing), `file:` URLs, a
relative URL beside the sheet, `<link>`, CSS `url()`, `@import` and `@font-face`, and
attachments; the PDF must hold no attachment and nothing of the files named."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pikepdf
import pytest

from grader import data
from grader.services.paper import exam_pdf
from tests.live_server import SHUTDOWN_POLL

SECRET = "top-secret-beside-the-sheet"
PASSWD = Path("/etc/passwd")


class _Recorder(BaseHTTPRequestHandler):
    seen: list[str]

    def do_GET(self):
        self.seen.append(self.path)
        body = b"body { color: red }" if self.path.endswith(".css") else b"attached"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def loopback():
    seen: list[str] = []
    server = HTTPServer(("127.0.0.1", 0), type("Handler", (_Recorder,), {"seen": seen}))
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", seen
    server.shutdown()
    server.server_close()


def hostile_html(remote: str, folder: Path) -> str:
    (folder / "secret.txt").write_text(SECRET)
    passwd = PASSWD.as_uri()
    return f"""<!doctype html>
<html><head>
<link rel="stylesheet" href="{remote}/style.css">
<link rel="attachment" href="{passwd}">
<link rel="attachment" href="secret.txt">
<link rel="attachment" href="{remote}/linked.txt">
<style>
  @import url("{remote}/imported.css");
  @font-face {{ font-family: Hostile; src: url("{remote}/font.woff"); }}
  body {{ background: url("{remote}/background.png"); font-family: Hostile; }}
  p {{ background-image: url("{passwd}"); }}
</style>
</head><body>
<p>Question 1</p>
<img src="{remote}/image.png" alt="">
<img src="{passwd}" alt="">
<img src="secret.txt" alt="">
<object data="{remote}/object.svg"></object>
<embed src="{remote}/embed.svg">
<a rel="attachment" href="{passwd}">passwd</a>
<a rel="attachment" href="{remote}/anchor.txt">remote</a>
<a rel="attachment" href="secret.txt">beside</a>
<a rel="attachment" href="file://localhost{PASSWD}">localhost</a>
</body></html>"""


def test_hostile_html_fetches_nothing_and_attaches_nothing(tmp_path: Path, loopback):
    remote, seen = loopback
    sheet = tmp_path / "sheet-00000.html"
    sheet.write_text(hostile_html(remote, tmp_path))
    exam_pdf.render(sheet)
    assert seen == []  # the loopback server heard nothing
    with pikepdf.open(tmp_path / "sheet-00000.pdf") as pdf:
        assert len(pdf.pages) == 1
        assert dict(pdf.attachments) == {}
        streams = b"".join(
            obj.read_bytes() for obj in pdf.objects if isinstance(obj, pikepdf.Stream)
        )
    assert SECRET.encode() not in streams
    assert b"root:" not in streams


def test_the_fetcher_serves_the_packages_static_files_and_data_urls_only(tmp_path: Path):
    fetcher = exam_pdf.fetcher()
    css = data.static_dir() / "css" / "tree.css"
    assert fetcher.fetch(css.as_uri()).read() == css.read_bytes()
    assert fetcher.fetch("data:text/plain;base64,aGk=").read() == b"hi"
    outside = tmp_path / "link.css"
    outside.symlink_to(PASSWD)
    for url in (
        PASSWD.as_uri(),
        (data.static_dir() / ".." / ".." / "config.py").as_uri(),  # a way out of the folder
        outside.as_uri(),
        "file://lms.example.test" + str(css),  # a file on another host
        "http://127.0.0.1:9/x.css",
        "ftp://127.0.0.1/x",
    ):
        with pytest.raises(ValueError, match="nothing but the package's static files"):
            fetcher.fetch(url)
