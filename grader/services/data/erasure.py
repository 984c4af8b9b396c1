"""Erasing an account (GDPR article 17), by an administrator or the server's operator, and a
person's request for it.

What goes: the name, the e-mail address, the password, every session and API token, invites,
LTI identities, roster entries (memberships), pending LMS scores, erasure requests, and the
engine uploads with their bytes and results. The account's attempts at tree exercises are
kept without a person (`GRADER_ERASURE_ATTEMPTS=anonymize`: the course's item statistics
stay right) or deleted with its exercises (`delete`). The `user` row itself stays, emptied
(`User.erased_at`), as the owner of those anonymous rows: no address, no password, no course.
Integrity results naming the account are cut from the stored checks; what names the person
elsewhere (their extensions and groups, the audit log, printed archives, every other text) is
cut or rewritten by `traces`. One `AccountErasure` row records who erased which account id and
when, and nothing of the erased data.
"""

# Whole: an erasure, the accounts it may touch and its re-application after a restore are one
# rule, which must not drift apart.

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import Session

from grader.extensions import db
from grader.models import (
    DELETE,
    ENGINES_CHECK,
    AccountErasure,
    ApiToken,
    Assignment,
    Attempt,
    Course,
    ErasureRequest,
    ExamSheet,
    Exercise,
    IntegrityCheck,
    Invite,
    LtiPassback,
    LtiUser,
    Membership,
    PasswordReset,
    ProblemReport,
    RecoveryCode,
    ScoreNote,
    Slot,
    SlotVisit,
    Submission,
    User,
    utcnow,
)
from grader.services import Conflict, Forbidden, Invalid, NotFound, mail
from grader.services.courses import zones
from grader.services.data import ledger, retention, traces
from grader.services.engines import blobs
from grader.services.transactions import rows_changed, writing


def erased_address(account_id: int) -> str:
    """What an erased account keeps in its e-mail column: unique, and no address anyone can
    sign up or log in with (it has no @)."""
    return f"erased-account-{account_id}"


def attempts_mode() -> str:
    """What erasure does to attempts here: "anonymize" or "delete" (GRADER_ERASURE_ATTEMPTS)."""
    return str(current_app.config["GRADER_ERASURE_ATTEMPTS"])


def attempts_words(mode: str | None = None) -> str:
    """What erasure does to attempts, in words, for the page and the command."""
    if (mode or attempts_mode()) == DELETE:
        return "its attempts and exercises are deleted (the course's item statistics lose them)"
    return (
        "its attempts are kept without a name or an account anyone can use, so the course's "
        "item statistics stay right; no gradebook, roster or LMS shows or receives them"
    )


def _admin(actor: User | None) -> None:
    if actor is not None and not actor.is_admin:
        raise Forbidden("only an administrator of this service erases an account")


def account(actor: User | None, account_id: int) -> User:
    """A live account, for an administrator (or the CLI: None)."""
    _admin(actor)
    found = db.session.get(User, account_id)
    if found is None:
        raise NotFound(f"no account has the id {account_id}")
    if found.erased_at is not None:
        raise Conflict(
            f"account {account_id} was erased on {zones.words(found.erased_at, zones.server_zone())}"
        )
    return found


@dataclass(frozen=True)
class Erased:
    account_id: int
    attempts: str  # the mode: anonymize or delete
    attempts_kept: int
    attempts_deleted: int
    uploads_deleted: int
    bytes_deleted: int  # distinct stored uploads no one else had

    def words(self) -> str:
        def many(count: int, what: str) -> str:
            return f"{count} {what}{'' if count == 1 else 's'}"

        kept = (
            f"{many(self.attempts_kept, 'attempt')} kept without a name"
            if self.attempts != DELETE
            else f"{many(self.attempts_deleted, 'attempt')} deleted"
        )
        return (
            f"account {self.account_id} erased: {kept}, "
            f"{many(self.uploads_deleted, 'engine upload')} deleted"
        )


def _cut_integrity(session: Session, account_id: int, submissions: set[int]) -> None:
    """Stored integrity results no longer name the account: its answers flags (as the one who
    answered or as the one whose tree fit) and the similarity pairs of its uploads. The answers
    checks read are those of the assignments the account had work in or of its courses (such
    a check compares one course's students); the engine checks, only when it had uploads
    (a later offering's check may compare them as earlier work)."""
    slots = sa.union(
        sa.select(Exercise.slot_id).where(Exercise.owner_id == account_id),
        sa.select(Submission.slot_id).where(Submission.owner_id == account_id),
    ).subquery()
    assignments = sa.select(Assignment.id).where(
        sa.or_(
            Assignment.id.in_(sa.select(Slot.assignment_id).where(Slot.id.in_(sa.select(slots)))),
            Assignment.course_id.in_(
                sa.select(Membership.course_id).where(Membership.user_id == account_id)
            ),
        )
    )
    for check in session.scalars(
        sa.select(IntegrityCheck).where(
            IntegrityCheck.result.is_not(None),
            sa.or_(
                IntegrityCheck.assignment_id.in_(assignments),
                sa.and_(IntegrityCheck.kind == ENGINES_CHECK, sa.literal(bool(submissions))),
            ),
        )
    ):
        result: dict[str, Any] = dict(check.result or {})
        changed = False
        if "flags" in result:
            flags = [f for f in result["flags"] if account_id not in (f["copier"], f["source"])]
            changed |= len(flags) != len(result["flags"])
            result["flags"] = flags
        if "pairs" in result:
            pairs = [p for p in result["pairs"] if not {p["a"], p["b"]} & submissions]
            changed |= len(pairs) != len(result["pairs"])
            result["pairs"] = pairs
        if "skipped" in result and isinstance(result["skipped"], list):
            skipped = [
                s
                for s in result["skipped"]
                if not (isinstance(s, dict) and s.get("submission") in submissions)
            ]
            changed |= len(skipped) != len(result["skipped"])
            result["skipped"] = skipped
        if changed:
            check.result = result


def erase(
    actor: User | None,
    account_id: int,
    confirm_email: str | None = None,
    *,
    again: ledger.Entry | None = None,
) -> Erased:
    """Erases an account (see the module's docstring): an administrator's (`actor`) or the
    server operator's (None); `confirm_email`, when given, must be the account's address (the
    page's confirmation). Refused, changing nothing: an unknown id, an account erased already,
    one's own account, anyone but an administrator, a confirmation that does not match. The
    erasure is added to the ledger (`ledger`) before it is committed; `again`, an entry of the
    ledger a restore re-applies, keeps its time and adds nothing."""
    mode = attempts_mode()
    with writing() as session:
        target = account(actor, account_id)
        if confirm_email is not None and confirm_email.strip().lower() != target.email:
            raise Invalid("the e-mail address typed is not the account's: nothing was erased")
        if actor is not None and actor.id == target.id:
            raise Conflict(
                "you cannot erase your own account here: another administrator, or the "
                "server's `grader user erase`, can"
            )
        uploads = dict(
            session.execute(
                sa.select(Submission.id, Submission.sha256).where(Submission.owner_id == account_id)
            ).all()
        )
        stored = dict(
            session.execute(
                sa.select(Submission.sha256, Submission.stored_path).where(
                    Submission.owner_id == account_id
                )
            ).all()
        )
        _cut_integrity(session, account_id, set(uploads))
        named = traces.needles(session, target)
        archives = traces.cut(session, account_id, target.email, named)
        rows_changed(session, sa.delete(Submission).where(Submission.owner_id == account_id))
        bytes_deleted = blobs.forget(session, stored)
        blobs.forget(session, dict.fromkeys(archives, ""))
        attempts = (
            session.scalar(
                sa.select(sa.func.count(Attempt.id)).where(Attempt.user_id == account_id)
            )
            or 0
        )
        deleted = 0
        if mode == DELETE:
            deleted = rows_changed(session, sa.delete(Attempt).where(Attempt.user_id == account_id))
            rows_changed(session, sa.delete(Exercise).where(Exercise.owner_id == account_id))
            rows_changed(session, sa.delete(ExamSheet).where(ExamSheet.user_id == account_id))
        for model in (
            Membership,
            Invite,
            ApiToken,
            LtiUser,
            LtiPassback,
            ErasureRequest,
            PasswordReset,
            RecoveryCode,
            ProblemReport,
            ScoreNote,
            SlotVisit,
        ):
            rows_changed(session, sa.delete(model).where(model.user_id == account_id))
        rows_changed(  # the answers stay with the reports they answer, no longer signed
            session,
            sa.update(ProblemReport)
            .where(ProblemReport.answered_by_id == account_id)
            .values(answered_by_id=None),
        )
        target.email = erased_address(account_id)
        target.name = None
        target.password_hash = None
        target.session_version += 1  # every session and remember cookie stops working
        target.is_admin = False
        target.totp_secret = None
        target.calendar_nonce = None
        target.totp_last_step = None
        target.erased_at = again.erased_at if again is not None else utcnow()
        if again is None:
            ledger.append(ledger.Entry(account_id, target.created_at, target.erased_at))
        session.add(
            AccountErasure(
                account_id=account_id,
                erased_by_id=actor.id if actor is not None else None,
                erased_at=target.erased_at,
                attempts=mode,
            )
        )
    return Erased(
        account_id,
        mode,
        attempts - deleted,
        deleted,
        len(uploads),
        bytes_deleted,
    )


def recorded() -> list[ledger.Entry]:
    """The erasures this database records (its `account_erasure` rows), as ledger entries; none
    when it has no such table yet."""
    if not sa.inspect(db.engine).has_table(AccountErasure.__tablename__):
        return []
    rows = db.session.execute(
        sa.select(AccountErasure.account_id, User.created_at, AccountErasure.erased_at).join(
            User, User.id == AccountErasure.account_id
        )
    ).all()
    db.session.rollback()
    return [ledger.Entry(*row) for row in rows]


@dataclass(frozen=True)
class Reapplied:
    """What a restore did with the ledger: the accounts erased again, and those left alone
    because the restored database made another account under their number."""

    erased: list[tuple[ledger.Entry, Erased]]
    other_account: list[ledger.Entry]


def reapply(entries: list[ledger.Entry]) -> Reapplied:
    """Every erasure of ``entries`` whose account this database holds live (a restored backup
    older than the erasure), made again; an account absent from it was made after the backup,
    and one made at another time is another person's."""
    erased, other = [], []
    for entry in entries:
        found = db.session.get(User, entry.account_id)
        if found is None or found.erased_at is not None:
            continue
        if found.created_at != entry.created_at:
            other.append(entry)
            continue
        erased.append((entry, erase(None, entry.account_id, again=entry)))
    return Reapplied(erased, other)


def audit(actor: User | None, limit: int = 100) -> list[AccountErasure]:
    """The latest erasures, newest first."""
    _admin(actor)
    return list(
        db.session.scalars(
            sa.select(AccountErasure).order_by(AccountErasure.id.desc()).limit(limit)
        )
    )


# -- a person's request ------------------------------------------------------------------------


def request_erasure(user: User) -> tuple[ErasureRequest, int]:
    """The person asks the administrators to erase their account: a request they see on their
    page (one per account; asking again keeps the first), e-mailed to them when the service
    sends mail. Returns the request and how many administrators were e-mailed."""
    with writing() as session:
        found = session.scalar(sa.select(ErasureRequest).where(ErasureRequest.user_id == user.id))
        if found is not None:
            raise Conflict(
                f"you asked for erasure on {zones.words(found.created_at, zones.server_zone())} already; "
                "an administrator will act on it"
            )
        found = ErasureRequest(user_id=user.id)
        session.add(found)
    admins = list(
        db.session.scalars(
            sa.select(User.email).where(User.is_admin.is_(True), User.erased_at.is_(None))
        )
    )
    sent = 0
    if admins and mail.configured():
        body = (
            f"Account {user.id} asked for its erasure on {zones.words(found.created_at, zones.server_zone())}.\n"
            "Erase it, or answer the person, from the administrators' accounts page "
            "(/admin/accounts)."
        )
        sent = mail.send_many([(to, "An erasure request", body) for to in admins])
    return found, sent


def my_request(user: User) -> ErasureRequest | None:
    return db.session.scalar(sa.select(ErasureRequest).where(ErasureRequest.user_id == user.id))


def requests(actor: User | None) -> list[ErasureRequest]:
    """Every pending request, oldest first."""
    _admin(actor)
    return list(db.session.scalars(sa.select(ErasureRequest).order_by(ErasureRequest.id)))


def find_accounts(actor: User | None, text: str, limit: int = 50) -> list[User]:
    """Live accounts whose e-mail address or name holds `text` (at most `limit`)."""
    _admin(actor)
    text = (text or "").strip()[:254]
    if not text:
        return []
    pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    return list(
        db.session.scalars(
            sa.select(User)
            .where(
                User.erased_at.is_(None),
                sa.or_(
                    User.email.ilike(pattern, escape="\\"), User.name.ilike(pattern, escape="\\")
                ),
            )
            .order_by(User.email)
            .limit(limit)
        )
    )


@dataclass(frozen=True)
class Summary:
    """What an erasure would touch, for the confirmation page."""

    user: User
    courses: list[str]
    attempts: int
    uploads: int
    lti_identities: int
    requested: ErasureRequest | None


def summary(actor: User | None, account_id: int) -> Summary:
    target = account(actor, account_id)

    def count(model: Any, column: Any) -> int:
        return (
            db.session.scalar(
                sa.select(sa.func.count()).select_from(model).where(column == account_id)
            )
            or 0
        )

    return Summary(
        target,
        list(
            db.session.scalars(
                sa.select(Course.name)
                .join(Membership, Membership.course_id == Course.id)
                .where(Membership.user_id == account_id)
                .order_by(Course.name)
            )
        ),
        count(Attempt, Attempt.user_id),
        count(Submission, Submission.owner_id),
        count(LtiUser, LtiUser.user_id),
        my_request(target),
    )


def overview(actor: User | None, query: str = "") -> dict[str, Any]:
    """The administrators' accounts page: requests, the accounts matching `query`, the latest
    erasures, what erasure does to attempts here, and the archived courses' purges."""
    _admin(actor)
    return {
        "query": query,
        "found": find_accounts(actor, query) if query.strip() else [],
        "requests": requests(actor),
        "erasures": audit(actor),
        "mode": attempts_mode(),
        "words": attempts_words(),
        "purges": retention.schedule(actor),
        "retention_days": retention.retention_days(),
    }
