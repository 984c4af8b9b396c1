"""Use cases: each owns its transaction, calls the cores and returns plain data or models.

Views call one service function and map these errors to responses.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A use case refused; the message is for the person who asked."""


class Invalid(ServiceError, ValueError):
    """The input cannot be used (an ungradable answer, a bad tree, an unknown preset).
    `field`: the one input it is about, by the service's own name for it (a page shows the
    message beside that field); None when it is about the input as a whole."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Unprocessable(Invalid):
    """Well formed, but what it asks cannot be done with what is stored or what can be made (422):
    an answer that does not fit its exercise's kind or tree (`kind`: the exercise's kind), a
    tree too large, parameters no tree meets. No schema can say these; the request's schema
    says everything else, and a request that breaks it is a 400."""

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind


class NotFound(ServiceError, LookupError):
    """Absent, or not visible to this user: the two are deliberately indistinguishable."""


class Forbidden(ServiceError):
    """Visible but not allowed to this user (an instructor answering a student's exercise)."""


class Conflict(ServiceError):
    """Not possible in the current state (no attempts left, already a member)."""


class Busy(ServiceError):
    """Every slot for costly work is taken (see `costly`): retry in a moment (503)."""


class RateLimited(ServiceError):
    """Too many requests of a kind too fast; `retry_after` seconds until the next one is taken
    (429 with Retry-After)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def plural(count: int, word: str, words: str | None = None) -> str:
    """A count with its noun, the one way pages and messages say one: "1 row", "2 rows",
    "1 TA", "3 TAs" (`words`: the plural where adding "s" is wrong: "1 entry", "2 entries")."""
    return f"{count} {word if count == 1 else (words or word + 's')}"
