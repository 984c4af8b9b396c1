"""How an answer writes a number: the one grammar every entry point reads. The API's validators,
paper entry, ``grader tree grade`` and the exercise kinds call ``read_number``; the OpenAPI
document states ``NUMBER_TEXT``; the page's script mirrors it in JavaScript. Both are tested
against one table of cases, ``tests/data/answer_numbers.json``.

A number in an answer is a JSON number (an int, or a float that is not NaN; never true or false)
or text. Text is, with spaces, tabs and no-break spaces around it ignored (at most 20 on each side
and around a fraction's ``/``):

- an optional sign: ``+``, ``-`` or the minus sign ``−`` (U+2212, as the page prints negative
  values), written against what follows (``- 5`` is refused);
- then one of:

  - a whole number, ``5``: 1 to 30 digits;
  - a decimal, ``4.67`` or ``.5``: at most 30 digits before the point, 1 to 30 after it;
  - a fraction, ``14/3`` or ``14 / 3`` (spaces around the ``/``): 1 to 30 digits on each side,
    the denominator not 0;
  - infinity: ``∞``, ``inf`` or ``infinity`` in any case (``−∞``, ``+∞``, ``-inf``).

Digits are ASCII 0-9, and leading zeros are digits like any other (``007`` is 7, ``14/03`` is
14/3). ``-0`` is 0. Nothing else is a number: no exponent (``1e3``), no ``nan``, no thousands
separator, no empty text, no sign alone.

What is read: a whole number, or a fraction that is whole (``6/2``), as an ``int`` (exactly,
whatever its digits); a decimal as a ``float`` (``4.0`` as the int 4); any other fraction as a
``Fraction``; infinity as ``math.inf`` or ``-math.inf``. A JSON number is read as it is.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

_SPACE = "[ \t\u00a0\u202f]{0,20}"
_DIGITS = "[0-9]{1,30}"

#: The grammar of a number written as text, as one regular expression that Python and
#: ECMAScript (JSON Schema's ``pattern``) read alike: groups 1 sign, 2 whole, 3-4 a decimal's
#: two sides, 5-6 a fraction's numerator and denominator (never all zeros), 7 infinity.
#: (Python's ``re`` reads ``\d`` and ``\s`` as Unicode classes: the classes here are explicit.)
NUMBER_TEXT = (
    f"^{_SPACE}([+\\-\u2212]?)(?:"
    f"({_DIGITS})"
    f"|([0-9]{{0,30}})\\.({_DIGITS})"
    f"|({_DIGITS}){_SPACE}/{_SPACE}(?!0+(?![0-9]))({_DIGITS})"
    "|(\u221e|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)"
    f"){_SPACE}$(?!\n)"  # "(?!\n)": Python's "$" would also match before a final line break
)
_NUMBER_TEXT = re.compile(NUMBER_TEXT)

#: What a number may be, in the words of every refusal.
NUMBER_WORDS = "a number, a fraction such as 14/3 (or inf, -inf)"


class NumberError(ValueError):
    """A value that is not a number as an answer writes one; its words say what a number may
    be: "must be a number, a fraction such as 14/3 (or inf, -inf), got 'abc'"."""

    def __init__(self, value: object) -> None:
        super().__init__(f"must be {NUMBER_WORDS}, got {str(value)[:40]!r}")
        self.value = value


def read_number(x: object) -> int | float | Fraction:
    """``x`` (a JSON value, or a Fraction the grader made) as a number; NumberError for
    anything the grammar (this module's docstring) does not accept."""
    if isinstance(x, bool):
        raise NumberError(x)
    if isinstance(x, int | Fraction):
        return x
    if isinstance(x, float):
        if math.isnan(x):
            raise NumberError(x)
        return x
    if not isinstance(x, str):
        raise NumberError(x)
    match = _NUMBER_TEXT.match(x)
    if match is None:
        raise NumberError(x)
    sign, whole, units, decimals, numerator, denominator, infinity = match.groups()
    negative = sign in ("-", "\u2212")
    if infinity is not None:
        return -math.inf if negative else math.inf
    if whole is not None:
        return -int(whole) if negative else int(whole)
    if decimals is not None:
        number = float(f"{'-' if negative else ''}{units or '0'}.{decimals}")
        return int(number) if number.is_integer() else number
    value = Fraction(int(numerator), int(denominator))
    value = -value if negative else value
    return int(value) if value.denominator == 1 else value


__all__ = ["NUMBER_TEXT", "NUMBER_WORDS", "NumberError", "read_number"]
