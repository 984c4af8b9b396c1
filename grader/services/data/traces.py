"""What names an erased person outside the rows that are theirs: cut or rewritten by erasure
(services/data/erasure.py), inside its transaction.

- their accommodation: their own extensions, their places in named groups, and the audit rows
  that granted or removed an extension for them (a group's extension stays for the others);
- the course audit log's details: their changed scores are cut from every entry;
- the printed exam runs that hold their sheet: the run's archive (every sheet's PDF, their name
  and address on theirs) is deleted and the run marked failed, to be printed again;
- the LMS's launch data that carries their subject, address or name (a launch not yet
  finished);
- then every text column of every other table (strings, texts and JSON, read as text): their
  address and LMS subjects, and their name as a whole word, become `erased-account-N` (a paper
  answer's history names who typed it in, a staff member's words may name a student).
"""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from grader.models import (
    FAILED,
    AuditEntry,
    Base,
    ExamPrint,
    ExamSheet,
    Extension,
    GroupMember,
    LtiLaunchData,
    LtiUser,
    User,
)
from grader.services.transactions import rows_changed

SHORTEST_NAME = 4  # a name shorter than this is not searched for as a word (too many false hits)
# Tables whose text is never another person's words: the account row itself (emptied by
# erasure) and Alembic's own.
UNTOUCHED = {"user", "alembic_version"}
PRINT_ERASED = (
    "its archive held the sheet of an account since erased, and was deleted: print the "
    "assignment again"
)


def needles(session: Session, target: User) -> list[str]:
    """What names the person: their address, their LMS subjects, their name. Read before erasure
    empties the account."""
    found = [
        target.email,
        *session.scalars(sa.select(LtiUser.sub).where(LtiUser.user_id == target.id)),
    ]
    if target.name and len(target.name.strip()) >= SHORTEST_NAME:
        found.append(target.name.strip())
    return [n for n in found if n]


def _pattern(texts: list[str]) -> re.Pattern[str]:
    """The texts, case-insensitively; a name (no @) only as a whole word."""
    parts = [
        re.escape(t) if "@" in t else rf"(?<!\w){re.escape(t)}(?!\w)"
        for t in sorted(texts, key=len, reverse=True)
    ]
    return re.compile("|".join(parts), re.IGNORECASE)


def _rewrite(value: Any, pattern: re.Pattern[str], replacement: str) -> Any:
    if isinstance(value, str):
        return pattern.sub(replacement, value)
    if isinstance(value, list):
        return [_rewrite(v, pattern, replacement) for v in value]
    if isinstance(value, dict):
        return {
            _rewrite(k, pattern, replacement): _rewrite(v, pattern, replacement)
            for k, v in value.items()
        }
    return value


def cut(session: Session, account_id: int, email: str, texts: list[str]) -> list[str]:
    """Cuts the person's accommodation, audit details, printed archives and launch data, then
    rewrites every text naming them (see the module's docstring). The stored bytes of deleted
    archives, for `blobs.forget` once the uploads are gone too."""
    rows_changed(session, sa.delete(Extension).where(Extension.user_id == account_id))
    rows_changed(session, sa.delete(GroupMember).where(GroupMember.user_id == account_id))
    for entry in session.scalars(sa.select(AuditEntry)):
        described = (entry.changes or {}).get("extension")
        if isinstance(described, list) and any(
            isinstance(d, dict) and d.get("who") == email for d in described
        ):
            session.delete(entry)
            continue
        details = [d for d in entry.details or [] if d.get("user_id") != account_id]
        if len(details) != len(entry.details or []):
            entry.details = details
    archives = []
    for run in session.scalars(
        sa.select(ExamPrint).where(
            ExamPrint.result_sha256.is_not(None),
            ExamPrint.id.in_(sa.select(ExamSheet.print_id).where(ExamSheet.user_id == account_id)),
        )
    ):
        archives.append(run.result_sha256)
        run.result_sha256, run.status, run.error = None, FAILED, PRINT_ERASED
    pattern = _pattern(texts)
    for key, value in session.execute(sa.select(LtiLaunchData.key, LtiLaunchData.value)).all():
        if pattern.search(str(value)):
            rows_changed(session, sa.delete(LtiLaunchData).where(LtiLaunchData.key == key))
    _rewrite_everywhere(session, pattern, texts, f"erased-account-{account_id}")
    return [a for a in archives if a]


def _rewrite_everywhere(
    session: Session, pattern: re.Pattern[str], texts: list[str], replacement: str
) -> None:
    """Every text column of every table but UNTOUCHED: rows holding one of the texts (found by
    the database, case-insensitively) rewritten with the pattern."""
    session.flush()
    for table in Base.metadata.sorted_tables:
        if table.name in UNTOUCHED:
            continue
        keys = list(table.primary_key.columns)
        for column in table.columns:
            if column in keys or not isinstance(column.type, (sa.String, sa.JSON)):
                continue
            text = sa.func.lower(sa.cast(column, sa.Text))
            held = sa.or_(*(text.contains(t.lower(), autoescape=True) for t in texts))
            for row in session.execute(sa.select(*keys, column).where(held)).all():
                *key, value = row
                changed = _rewrite(value, pattern, replacement)
                if changed != value:
                    session.execute(
                        sa.update(table)
                        .where(*(k == v for k, v in zip(keys, key, strict=True)))
                        .values({column.name: changed})
                    )
