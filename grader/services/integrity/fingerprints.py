"""MOSS-style fingerprints of engine uploads, by copydetect (PyPI `copydetect`).

copydetect tokenizes with Pygments and folds every name to one letter (variables V, functions
F, classes O) and every string to S, drops comments and whitespace, hashes each k-gram of what
is left (k = its noise threshold, 25 characters) and keeps them by winnowing (Schleimer, Wilkerson
and Aiken, SIGMOD 2003, the algorithm of MOSS). So renamed identifiers, reformatting, changed
comments and blank lines leave the fingerprints as they were, and functions moved around keep
theirs (a fingerprint is a set, not a sequence). The shared template is taken out first:
every k-gram of the starter engine and of the code in the handouts (`submissions.HANDOUTS`,
read through grader.data) is boilerplate, dropped from every upload's fingerprints, so a starter
handed in as it is matches nothing.

A pair's figures: each side's *share* is the part of its fingerprinted code (outside the
boilerplate) that the other also has; the pair's *similarity* is the mean of the two shares
(JPlag's average similarity), so a small file wholly inside a large one does not top the list
while both shares are shown.

copydetect hashes k-grams with Python's `hash()`, which differs from process to process, so
fingerprints are kept only in the process that made them; what outlives a process is a pair's
figures, stored by the two uploads' content hashes (`SimilarityPair`).
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import io
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

from markdown_it import MarkdownIt

from grader import data

NOISE = 25  # copydetect's default: a match shorter than this (filtered characters) is noise
WINDOW = 1  # its default window (guarantee threshold = noise): every k-gram is kept
SCHEME = "1"  # raised when what a pair's figures mean changes (the cache's basis)
LANGUAGE = "python"  # Pygments' lexer by name: finding it by file name scans every lexer
MAX_SAME_HASH = 4  # positions of one k-gram paired for the side-by-side view (repeated code)


class Unreadable(ValueError):
    """An upload that cannot be compared; the message says why (for the staff)."""


@dataclass(frozen=True)
class Document:
    """An upload's Python source as one text (a zip's files one after another, each under a
    comment naming it) and its fingerprint."""

    text: str
    fingerprint: Any  # copydetect.CodeFingerprint

    @property
    def empty(self) -> bool:
        """Nothing but boilerplate: it can match nothing."""
        return not self.fingerprint.hashes


@dataclass(frozen=True)
class Figures:
    similarity: float
    a_share: float
    b_share: float


@dataclass(frozen=True)
class Region:
    """A stretch of code both uploads hold: lines (1-based, inclusive) on each side and its
    length in filtered characters (how much it weighs)."""

    a_lines: tuple[int, int]
    b_lines: tuple[int, int]
    size: int


def handout_code() -> list[str]:
    """The boilerplate: the starter engine, and every code block and code span of the
    Markdown handouts (the assignment, the rules)."""
    from grader.services.engines.submissions import HANDOUTS

    found = []
    parser = MarkdownIt("commonmark")
    for relative, _ in HANDOUTS.values():
        text = data.checkers(relative).read_text(encoding="utf-8")
        if not relative.endswith(".md"):
            found.append(text)
            continue
        for token in parser.parse(text):
            if token.type in ("fence", "code_block"):
                found.append(token.content)
            for child in token.children or ():
                if child.type == "code_inline":
                    found.append(child.content)
    return found


@dataclass(frozen=True)
class Basis:
    """The boilerplate's fingerprints and what they and the settings hash to (`key`): a pair's
    cached figures serve only under the same key."""

    key: str
    boilerplate: Any  # numpy array of k-gram hashes


class MissingLibrary(RuntimeError):
    """copydetect is not installed here (the `integrity` extra)."""


@functools.lru_cache(maxsize=1)
def basis() -> Basis:
    try:
        import numpy as np
        from copydetect import CodeFingerprint
    except ImportError:
        raise MissingLibrary(
            "the similarity check needs copydetect on the workers: pip install 'grader[integrity]'"
        ) from None

    sources = handout_code()
    hashes: set[int] = set()
    for text in sources:
        hashes |= CodeFingerprint(
            "boilerplate.py", NOISE, 1, language=LANGUAGE, fp=io.StringIO(text)
        ).hashes
    digest = hashlib.sha256()
    for part in (SCHEME, version("copydetect"), str(NOISE), str(WINDOW), *sources):
        digest.update(part.encode())
        digest.update(b"\0")
    return Basis(digest.hexdigest(), np.array(sorted(hashes), dtype=np.int64))


def source_text(raw: bytes, kind: str) -> str:
    """An upload's Python files as one text; Unreadable (with the reason) for a broken archive,
    no Python file, bytes that are not UTF-8, or a binary file."""
    # The one archive policy; imported here: the web app is made without the harness.
    from grader.harness.submission import SubmissionError, python_sources

    try:
        files = python_sources(raw, kind)
    except SubmissionError as exc:
        raise Unreadable(f"the archive cannot be read: {exc}") from None
    if not files:
        raise Unreadable("the upload holds no Python file")
    parts = []
    for name, content in files.items():
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Unreadable(f"{name} is not UTF-8 text (byte {exc.start})") from None
        if "\x00" in text:
            raise Unreadable(f"{name} is binary (it holds a NUL byte)")
        parts.append(text if len(files) == 1 else f"# ---- {name} ----\n{text}")
    return "\n".join(parts)


def document(text: str) -> Document:
    """The text's fingerprint, the boilerplate taken out."""
    from copydetect import CodeFingerprint

    fingerprint = CodeFingerprint(
        "engine.py",
        NOISE,
        WINDOW,
        boilerplate=basis().boilerplate,
        language=LANGUAGE,
        fp=io.StringIO(text),
    )
    return Document(text, fingerprint)


def compare(a: Document, b: Document) -> Figures:
    """The two shares and their mean (0 when either side is only boilerplate)."""
    from copydetect import compare_files

    if a.empty or b.empty:
        return Figures(0.0, 0.0, 0.0)
    _, (a_share, b_share), _ = compare_files(a.fingerprint, b.fingerprint)
    a_share, b_share = float(a_share), float(b_share)
    return Figures(round((a_share + b_share) / 2, 6), round(a_share, 6), round(b_share, 6))


def _raw(document: Document) -> Callable[[int], int]:
    """A position in the filtered code -> the line of the text it is on (copydetect's own
    mapping of its slices: the characters filtered out before it are added back)."""
    offsets = document.fingerprint.offsets
    marks = [int(x) for x in offsets[:, 0]] if len(offsets) else []
    removed = [int(x) for x in offsets[:, 1]] if len(offsets) else []
    lines = [0] + [i + 1 for i, c in enumerate(document.text) if c == "\n"]

    def line(position: int) -> int:
        if marks:
            position += removed[min(bisect.bisect_left(marks, position), len(marks) - 1)]
        return bisect.bisect_right(lines, max(0, position))

    return line


def regions(a: Document, b: Document) -> list[Region]:
    """The stretches of code the two share, each paired with where it is in the other, largest
    first kept where they overlap, then in the order of `a`: for the side-by-side view."""
    if a.empty or b.empty:
        return []
    k = a.fingerprint.k
    shared = a.fingerprint.hashes & b.fingerprint.hashes
    diagonals: dict[int, list[int]] = defaultdict(list)
    for h in shared:
        for i in a.fingerprint.hash_idx[h][:MAX_SAME_HASH]:
            for j in b.fingerprint.hash_idx[h][:MAX_SAME_HASH]:
                diagonals[int(j) - int(i)].append(int(i))
    runs: list[tuple[int, int, int]] = []  # (size, start in a, shift to b), filtered code
    for shift, starts in diagonals.items():
        starts.sort()
        first = last = starts[0]
        for i in starts[1:]:
            if i > last + k:
                runs.append((last + k - first, first, shift))
                first = i
            last = i
        runs.append((last + k - first, first, shift))
    runs.sort(key=lambda r: (-r[0], r[1]))
    taken_a: list[tuple[int, int]] = []
    taken_b: list[tuple[int, int]] = []
    kept = []
    for size, start, shift in runs:
        span_a, span_b = (start, start + size), (start + shift, start + shift + size)
        if any(_overlap(span_a, t) * 2 > size for t in taken_a) or any(
            _overlap(span_b, t) * 2 > size for t in taken_b
        ):
            continue
        taken_a.append(span_a)
        taken_b.append(span_b)
        kept.append((span_a, span_b, size))
    line_a, line_b = _raw(a), _raw(b)
    found = [
        Region((line_a(a0), line_a(a1 - 1)), (line_b(b0), line_b(b1 - 1)), size)
        for (a0, a1), (b0, b1), size in kept
    ]
    return sorted(found, key=lambda r: (r.a_lines, r.b_lines))


def _overlap(x: tuple[int, int], y: tuple[int, int]) -> int:
    return max(0, min(x[1], y[1]) - max(x[0], y[0]))


__all__ = [
    "Basis",
    "Document",
    "Figures",
    "Region",
    "Unreadable",
    "basis",
    "compare",
    "document",
    "regions",
    "source_text",
]
