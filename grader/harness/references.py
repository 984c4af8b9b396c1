"""The reference's work for a suite, done once per suite: every search's expected
value, best moves and leaf counts, the root-parallel split's values, and the moves of the ladder's opponents whose move is a function
of the position alone (a fixed-depth reference engine, greedy), kept in a file of the cache
folder.

The file is named by a digest of everything its answers depend on: the suite's name, every
test's parameters (the positions' FENs among them) and the grader's version (the package's
version and the text of the reference's code, grader.checkers). Change any of them and the
digest names another file, so an answer is never read for anything but what it was computed
for. The reference's timings are never kept: a timing test times the reference in its own slot,
beside each of the engine's runs (`References.beside`), so that both meet the same machine
(issue 51: a timing kept from a quiet hour against an engine timed in a busy one moved the
credit); a run says when they were measured.

Within one process the answers are also kept in memory (by the same digest), so a worker or a
test run that grades many engines reads the file once.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from functools import cache
from importlib import metadata
from importlib.resources import files
from pathlib import Path
from typing import Any

from grader.checkers import Board, alphabeta, minimax, root_parallel
from grader.checkers.engine import INFINITY, WIN
from grader.harness.cases import TestCase
from grader.harness.contention import Share

FORMAT = 1  # the file's layout; a new layout names new files
TIMING_RUNS = 3
MOVES_KEPT = 50_000  # the ladder's moves kept for one suite (about 4 MB of file)


@dataclass(frozen=True)
class Reference:
    """The reference's answers for one position, depth and root window."""

    value: int
    best_moves: tuple[str, ...]
    first_move: str | None
    leaves_alphabeta: int
    leaves_minimax: int
    cpu: float
    alpha: int = -INFINITY
    beta: int = INFINITY

    @property
    def windowed(self) -> bool:
        return (self.alpha, self.beta) != (-INFINITY, INFINITY)


@cache
def reference(
    fen: str, depth: int, alpha: int = -INFINITY, beta: int = INFINITY, count_minimax: bool = True
) -> Reference:
    """The reference's answers; without `count_minimax` (a deep parallel test) minimax's leaf
    count is not computed (0) and only the value and the best moves are meant to be used."""
    board = Board(fen)
    start = time.process_time()
    ab = alphabeta(board, depth, alpha=alpha, beta=beta)
    cpu = time.process_time() - start
    mm = minimax(board, depth) if count_minimax else None
    leaves_minimax = mm.leaves if mm else 0
    if (alpha, beta) != (-INFINITY, INFINITY):  # a bound: no best move to compare
        return Reference(ab.value, (), None, ab.leaves, leaves_minimax, cpu, alpha, beta)
    assert mm is None or ab.value == mm.value, (
        "alpha-beta and minimax disagree: a bug in grader.checkers"
    )
    best: list[str] = []
    if depth > 0:
        for move in board.generate_legal_moves():
            board.push(move)
            try:
                value = -_child_value(board, depth - 1)
            finally:
                board.pop()
            if value == ab.value:
                best.append(move.pdn())
    first = ab.best_move.pdn() if ab.best_move else None
    return Reference(
        ab.value, tuple(best) or ((first,) if first else ()), first, ab.leaves, leaves_minimax, cpu
    )


def _child_value(board: Board, depth: int) -> int:
    """A root move's value seen from the child, with win scores one ply further away."""
    value = alphabeta(board, depth).value
    if value > WIN - 1000:
        return value - 1
    if value < -(WIN - 1000):
        return value + 1
    return value


def reference_cpu(fen: str, depth: int, runs: int = TIMING_RUNS, at_least: float = 0.05) -> float:
    """The reference's CPU seconds for one fixed-depth search on this machine: the median of
    `runs` timings, each repeated until measurable."""
    return statistics.median(reference_run(fen, depth, at_least) for _ in range(runs))


def reference_run(fen: str, depth: int, at_least: float = 0.05) -> float:
    """The reference's CPU seconds for one fixed-depth search, timed once: the search repeated
    until `at_least` seconds (or 50 searches) make it measurable."""
    board = Board(fen)
    repeats, start = 0, time.process_time()
    while True:
        alphabeta(board, depth)
        repeats += 1
        spent = time.process_time() - start
        if spent >= at_least or repeats >= 50:
            return spent / repeats


@cache
def grader_version() -> str:
    """The package's version and a digest of the reference's code (grader.checkers)."""
    try:
        version = metadata.version("grader")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        version = "source"
    digest = hashlib.sha256()
    checkers = files("grader.checkers")
    for entry in sorted(checkers.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".py"):
            digest.update(entry.name.encode() + b"\0" + entry.read_bytes())
    return f"{version}+{digest.hexdigest()[:16]}"


def suite_digest(name: str, tests: tuple[TestCase, ...] | list[TestCase]) -> str:
    """What a suite's reference answers depend on, as one digest: its name, every test's
    kind and parameters (the FENs of its positions among them), the grader's version."""
    text = json.dumps(
        {
            "format": FORMAT,
            "suite": name,
            "version": grader_version(),
            "tests": [[t.kind, t.params] for t in tests],
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


_MEMORY: dict[str, dict[str, Any]] = {}  # digest -> entries, this process's copy
_IN_FILE: dict[Path, set[str]] = {}  # a cache file -> the keys it holds, as this process knows


class References:
    """The reference's answers for one suite: read from memory or the cache file, computed
    when missing, and written back by `save`. Without a folder they live in this process's
    memory only. Its timings are measured beside the engine's runs (`beside`), never kept."""

    def __init__(self, digest: str, folder: Path | None = None) -> None:
        self.digest = digest
        self.path = folder / f"references-{digest}.json" if folder else None
        self.entries = _MEMORY.setdefault(digest, {})
        self.computed = 0  # answers and timings this run computed (0: all read)
        self.read = 0
        self.timed_at: float | None = None  # when this run first timed the reference
        self._new: set[str] = set()  # what the file lacks
        self._moves: int | None = None  # the ladder's moves kept, counted when first needed
        if self.path is not None:
            if self.path not in _IN_FILE:  # read once per process
                found = _read(self.path)
                for key, value in found.items():
                    self.entries.setdefault(key, value)
                _IN_FILE[self.path] = set(found)
            self._new = set(self.entries) - _IN_FILE[self.path]

    @classmethod
    def for_suite(
        cls,
        name: str,
        tests: tuple[TestCase, ...] | list[TestCase],
        folder: Path | None = None,
    ) -> References:
        return cls(suite_digest(name, tests), folder)

    def search(
        self,
        fen: str,
        depth: int,
        alpha: int = -INFINITY,
        beta: int = INFINITY,
        count_minimax: bool = True,
    ) -> Reference:
        key = f"search|{fen}|{depth}|{alpha}|{beta}|{int(count_minimax)}"
        found = self.entries.get(key)
        if isinstance(found, dict):
            try:
                kept = Reference(**{**found, "best_moves": tuple(found["best_moves"])})
            except (TypeError, KeyError):  # not what this code writes: computed again
                pass
            else:
                self.read += 1
                return kept
        answer = reference(fen, depth, alpha, beta, count_minimax)
        self._put(key, asdict(answer))
        return answer

    def split(self, fen: str, depth: int, alpha: int, beta: int) -> int:
        """The value of grader.checkers' root-parallel split search with a root window."""
        key = f"split|{fen}|{depth}|{alpha}|{beta}"
        found = self.entries.get(key)
        if isinstance(found, int):
            self.read += 1
            return found
        value = root_parallel(Board(fen), depth, "split", alpha=alpha, beta=beta).value
        self._put(key, value)
        return value

    def beside(self, fen: str, depth: int, share: Share) -> float:
        """The reference's CPU seconds for this search, timed now, once, in this slot (beside
        the engine's run it is compared with); its CPU and wall seconds added to `share`."""
        cpu = share.time(lambda: reference_run(fen, depth))[0]
        self.timed_at = time.time() if self.timed_at is None else self.timed_at
        return cpu

    def opponent_move(self, player: str, fen: str) -> str | None:
        """The move a positional ladder player (its move a function of the position alone)
        made in this position, when it was asked before."""
        found = self.entries.get(f"move|{player}|{fen}")
        if isinstance(found, str):
            self.read += 1
            return found
        return None

    def remember_move(self, player: str, fen: str, move: str) -> None:
        """Keep a positional ladder player's move, up to MOVES_KEPT moves a suite."""
        if self._moves is None:
            self._moves = sum(k.startswith("move|") for k in self.entries)
        if self._moves < MOVES_KEPT:
            self._moves += 1
            self._put(f"move|{player}|{fen}", move)

    def _put(self, key: str, value: Any) -> None:
        self.entries[key] = value
        self._new.add(key)
        self.computed += 1

    def save(self) -> None:
        """Write what this run computed into the file, merged with what other processes wrote
        meanwhile (under a lock; the file is replaced whole, never seen half written)."""
        if self.path is None or not self._new:
            return
        try:
            self._write(self.path)
        except OSError:  # a folder that cannot be written: the answers stay in memory only
            return
        _IN_FILE.setdefault(self.path, set()).update(self._new)
        self._new.clear()

    def _write(self, path: Path) -> None:
        folder = path.parent
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "references.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            merged = {**_read(path), **{k: self.entries[k] for k in self._new}}
            handle, name = tempfile.mkstemp(dir=folder, prefix=".references-")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump({"digest": self.digest, "entries": merged}, out)
                os.replace(name, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(name)
                raise


def _read(path: Path) -> dict[str, Any]:
    """The entries of a cache file; none when it is missing or unreadable (they are computed
    again)."""
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    entries = content.get("entries") if isinstance(content, dict) else None
    return entries if isinstance(entries, dict) else {}
