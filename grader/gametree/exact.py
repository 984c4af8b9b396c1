"""Exact values: probabilities read as rationals, chance values kept as fractions, and the one way
a value is shown (``fmt``, ``exact_text``) and an answer matched (``matches``).

A chance node's value is a weighted average, so 14/3 must stay 14/3: a value here is an ``int``,
a ``float`` (a leaf or an evaluation as typed) or a ``fractions.Fraction`` (only ever made by a
chance node). Floats enter exact arithmetic through their shortest decimal text (0.1 is 1/10, not
the binary fraction nearest it), and a fraction that is whole is returned as an ``int``, so
MAX/MIN trees never see a Fraction at all.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

Number = int | float | Fraction

# "1/3", "0.25", "1", ".5": a probability as people write it (no sign, no exponent, bounded size)
_RATIONAL = re.compile(r"^\s*(?:(\d{1,18})\s*/\s*(\d{1,18})|(\d{0,18}(?:\.\d{1,18})?))\s*$")


def parse_probability(raw: object) -> Fraction:
    """``"1/3"``, ``0.25`` (read from its decimal text: exactly 1/4), ``1`` to a Fraction;
    ValueError for anything else (a bool, NaN, a sign, an exponent, a huge text).
    Whether it is > 0 and the probabilities of a node sum to 1 is checked by the tree."""
    if isinstance(raw, bool):
        raise ValueError(f"a probability is a number or a fraction, got {raw!r}")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise ValueError(f"a probability must be finite, got {raw!r}")
        return Fraction(repr(raw))
    if isinstance(raw, Fraction):
        return raw
    if isinstance(raw, str):
        match = _RATIONAL.match(raw)
        if match and (match.group(1) or match.group(3).strip(".")):
            numerator, denominator, decimal = match.groups()
            if decimal is not None:
                return Fraction(decimal)
            if int(denominator) == 0:
                raise ValueError(f"a probability cannot divide by 0: {raw!r}")
            return Fraction(int(numerator), int(denominator))
    raise ValueError(f"a probability is written 1/3, 0.25 or 1, got {str(raw)[:40]!r}")


def exact(x: Number) -> Number:
    """``x`` for exact arithmetic: a finite float through its decimal text (0.1 -> 1/10); ints,
    fractions and infinities as they are."""
    if isinstance(x, float) and math.isfinite(x):
        return whole(Fraction(repr(x)))
    return x


def whole(x: Number) -> Number:
    """A Fraction that is a whole number as an ``int`` (so 6/2 is shown and stored as 3)."""
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x


def weighted(p: Fraction, v: Number) -> Number:
    """``p * v`` exactly (0 when ``p`` is 0, even for an infinite ``v``)."""
    if not p:
        return 0
    return whole(p * exact(v))


def rounded(x: Number, places: int = 2) -> Fraction:
    """``x`` rounded to ``places`` decimals, halves away from zero (as people round: 0.125 ->
    0.13), exactly."""
    value = Fraction(exact(x))
    scale = 10**places
    magnitude = math.floor(abs(value) * scale + Fraction(1, 2))
    return Fraction(magnitude if value >= 0 else -magnitude, scale)


def fmt(x: Number | None) -> str:
    """How a value is shown, everywhere: whole numbers and floats as typed, infinities as ±∞,
    and a fraction as its decimal rounded to 2 places (14/3 -> ``4.67``); ``exact_text`` gives
    the exact form for a hover title."""
    if x is None:
        return "?"
    if x == math.inf:
        return "+∞"
    if x == -math.inf:
        return "-∞"
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return str(int(x))
        return _decimal(rounded(x))
    return str(x)


def _decimal(x: Fraction) -> str:
    """A Fraction with at most 2 decimals as text, trailing zeros dropped (5/2 -> 2.5)."""
    hundredths = int(x * 100)
    sign = "-" if hundredths < 0 else ""
    units, cents = divmod(abs(hundredths), 100)
    return f"{sign}{units}" + (f".{cents:02d}".rstrip("0") if cents else "")


def exact_text(x: Number | None) -> str:
    """The exact form of a value (``14/3``), for a hover title beside ``fmt``'s ``4.67``; the
    same as ``fmt`` where that is exact."""
    if isinstance(x, Fraction) and x.denominator != 1:
        return f"{x.numerator}/{x.denominator}"
    return fmt(x)


def is_shown_exactly(x: Number) -> bool:
    """Whether ``fmt(x)`` is the value itself (no rounding hidden): a fraction in lowest terms
    is a whole number of hundredths, which ``rounded`` keeps as it is, exactly when its
    denominator divides 100."""
    return not isinstance(x, Fraction) or 100 % x.denominator == 0


def matches(answer: Number | None, value: Number) -> bool:
    """The answer-matching rule: an answer is right when it equals the exact value, or, where
    ``fmt`` shows the value rounded (a chance node's fraction), the decimal shown (14/3: 14/3
    or 4.67; not 4.7, not 4.666). A value shown as it is (a whole number, a float as typed,
    every value of a MAX/MIN tree) is matched by itself alone; no answer (None) never is."""
    if answer is None or isinstance(answer, bool):
        return False
    if answer == value:
        return True
    if is_shown_exactly(value) or not isinstance(answer, float | int | Fraction):
        return False
    if isinstance(answer, float) and not math.isfinite(answer):
        return False
    return Fraction(exact(answer)) == rounded(value)


__all__ = [
    "Number",
    "exact",
    "exact_text",
    "fmt",
    "is_shown_exactly",
    "matches",
    "parse_probability",
    "rounded",
    "weighted",
    "whole",
]
