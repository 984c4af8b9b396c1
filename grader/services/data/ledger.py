"""The ledger of erasures: one JSON line per erased account, outside the database, so that a
restored backup cannot bring an erased person back (`backup.restore` re-applies it through
`erasure.reapply`).

It lives in the instance folder (`erasures.jsonl`, beside `secret_key`) and every backup carries
a copy. A line holds the account number, when the account was made (a restore re-applies an
erasure only to the account made then, never to another that got the number) and when it was
erased: no address, no name, nothing else of the person.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from flask import current_app

FILE = "erasures.jsonl"


@dataclass(frozen=True)
class Entry:
    account_id: int
    created_at: dt.datetime  # the account's, UTC (naive, as stored)
    erased_at: dt.datetime

    def line(self) -> str:
        return json.dumps(
            {
                "account": self.account_id,
                "created_at": _text(self.created_at),
                "erased_at": _text(self.erased_at),
            }
        )


def _text(moment: dt.datetime) -> str:
    return moment.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _moment(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.removesuffix("Z")).replace(tzinfo=None)


def path() -> Path:
    """The instance's ledger."""
    return Path(current_app.instance_path) / FILE


def append(entry: Entry) -> None:
    """One erasure added to the instance's ledger, on disk before this returns (erasure calls it
    inside its transaction: an erasure the ledger could not take is not made)."""
    fd = os.open(path(), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, (entry.line() + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def parse(text: str) -> list[Entry]:
    """A ledger's entries; a line that is not one (a torn last write) is skipped."""
    found = []
    for line in text.splitlines():
        try:
            data = json.loads(line)
            found.append(
                Entry(int(data["account"]), _moment(data["created_at"]), _moment(data["erased_at"]))
            )
        except (ValueError, KeyError, TypeError):
            continue
    return found


def read(source: Path | None = None) -> list[Entry]:
    """The entries of a ledger file (the instance's by default); none when it does not exist."""
    source = source or path()
    try:
        return parse(source.read_text())
    except FileNotFoundError:
        return []


def merged(*sources: Iterable[Entry]) -> list[Entry]:
    """One entry per account (its first erasure), in the order of erasure."""
    first: dict[int, Entry] = {}
    for source in sources:
        for entry in source:
            if entry.account_id not in first or entry.erased_at < first[entry.account_id].erased_at:
                first[entry.account_id] = entry
    return sorted(first.values(), key=lambda e: (e.erased_at, e.account_id))


def write(entries: Iterable[Entry]) -> None:
    """The instance's ledger replaced by ``entries``, atomically."""
    target = path()
    partial = target.with_name(f".{FILE}.writing")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.writelines(entry.line() + "\n" for entry in entries)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, target)
