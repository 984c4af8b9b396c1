"""A paper sheet's code: how it is made, printed and read back (typed or scanned)."""

from __future__ import annotations

import secrets

from grader.services import NotFound

# Sheet codes: 10 symbols of 30 (no 0/O, 1/I/L or U to misread): 30**10, about 6e14 codes.
CODE_SYMBOLS = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 10


def new_code() -> str:
    return "".join(secrets.choice(CODE_SYMBOLS) for _ in range(CODE_LENGTH))


def shown_code(code: str) -> str:
    """A code as printed and typed: two groups of five (``7KQ2M-X9HTA``)."""
    return f"{code[:5]}-{code[5:]}"


def read_code(text: str) -> str:
    """A code as typed or scanned (any case, dashes and spaces): its stored form; NotFound for
    what no sheet could have."""
    code = "".join(text.split()).replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_SYMBOLS for c in code):
        raise NotFound(f"no exam sheet has the code {text.strip()[:40]!r}")
    return code
