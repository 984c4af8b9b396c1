"""Exam sheets' HTML rendered to PDF, in processes of their own (`python -m
grader.services.paper.exam_pdf FOLDER INDEX COUNT`): WeasyPrint paints one page at a time on one
core, so services/paper/printing.py writes a print run's sheets (and its key's chunks) as HTML
files into FOLDER and starts one such process a core; process INDEX of COUNT renders every COUNT-th file,
writing NAME.pdf. Standard library, WeasyPrint and `grader.data` only: it needs neither the app
nor the database.

The renderer reads nothing but the sheet and what the sheet carries inline (`data:` URLs: the
trees' SVG, the QR codes) or the package's own static files: every other URL (the network, any
other file, a stylesheet, an image, a font, an attachment) is refused before anything is opened
(`StaticOnly`), whatever HTML reaches it.
"""

from __future__ import annotations

import mimetypes
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from grader import data

if TYPE_CHECKING:  # WeasyPrint is loaded where sheets are rendered, not on import
    from weasyprint.urls import URLFetcher, URLFetcherResponse


class FetchRefused(ValueError):
    """A URL the sheets' renderer does not fetch (WeasyPrint logs it and leaves it out)."""


def static_file(url: str) -> Path | None:
    """The package's static file a ``file:`` URL names, or None for any other URL (another
    file, a symbolic link leading out, a host, a query)."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost") or parts.query:
        return None
    root = data.static_dir().resolve()
    path = Path(unquote(parts.path)).resolve()
    return path if path.is_relative_to(root) and path.is_file() else None


def fetcher() -> URLFetcher:
    """WeasyPrint's URL fetcher for the sheets: `data:` URLs and the package's static files."""
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class StaticOnly(URLFetcher):
        def __init__(self) -> None:
            super().__init__(allowed_protocols=("data",), allow_redirects=False)

        def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
            if url[:5].lower() == "data:":
                return super().fetch(url, headers)  # inline: nothing is opened
            path = static_file(url)
            if path is None:
                raise FetchRefused(
                    f"exam sheets fetch nothing but the package's static files: {url[:80]!r}"
                )
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            return URLFetcherResponse(path.as_uri(), path.read_bytes(), {"Content-Type": kind})

    return StaticOnly()


def render(source: Path) -> None:
    from weasyprint import HTML

    pdf = source.with_suffix(".pdf")
    partial = pdf.with_suffix(".part")
    # Tagged (PDF/UA-1): a screen reader reads the headings, the questions and each image's
    # words in order.
    HTML(filename=str(source), url_fetcher=fetcher()).write_pdf(partial, pdf_variant="pdf/ua-1")
    partial.rename(pdf)  # last: a .pdf present is a file done


def main(argv: list[str]) -> None:
    folder, index, count = Path(argv[0]), int(argv[1]), int(argv[2])
    for source in sorted(folder.glob("*.html"))[index::count]:
        render(source)


if __name__ == "__main__":
    main(sys.argv[1:])
