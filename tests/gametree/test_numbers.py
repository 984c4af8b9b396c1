"""The answer grammar (``gametree.numbers``) against its table of cases, the one the page's
``answer-numbers.js`` is tested against too (``tests/js/answer-numbers.test.mjs``)."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

from grader.gametree.numbers import NUMBER_TEXT, NUMBER_WORDS, NumberError, read_number

TABLE = json.loads((Path(__file__).parents[1] / "data" / "answer_numbers.json").read_text())


def canonical(value: int | float | Fraction) -> str:
    """A number read, written as the table writes it (and answer-numbers.test.mjs does)."""
    if value == math.inf:
        return "inf"
    if value == -math.inf:
        return "-inf"
    if isinstance(value, Fraction):
        assert value.denominator != 1, "a whole fraction is read as an int"
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@pytest.mark.parametrize("case", TABLE["reads"], ids=lambda case: repr(case["input"]))
def test_each_number_the_table_reads_is_read_as_it_says(case: dict) -> None:
    assert canonical(read_number(case["input"])) == case["reads"]


@pytest.mark.parametrize("case", TABLE["refused"], ids=lambda case: repr(case["input"]))
def test_each_text_the_table_refuses_is_a_number_error_saying_what_a_number_may_be(
    case: dict,
) -> None:
    with pytest.raises(NumberError) as refused:
        read_number(case["input"])
    assert isinstance(refused.value, ValueError)
    assert str(refused.value) == f"must be {NUMBER_WORDS}, got {str(case['input'])[:40]!r}"


def test_a_whole_number_stays_exact_and_an_int() -> None:
    read = read_number("9007199254740993")
    assert read == 9007199254740993 and type(read) is int
    assert type(read_number("6/2")) is int and type(read_number("4.0")) is int
    assert type(read_number("4.5")) is float and type(read_number("14/3")) is Fraction


def test_a_nan_float_and_a_very_long_text_are_refused() -> None:
    with pytest.raises(NumberError):
        read_number(math.nan)
    with pytest.raises(NumberError):
        read_number(" " * 1000 + "5")
    assert read_number(math.inf) == math.inf and read_number(Fraction(1, 3)) == Fraction(1, 3)


def test_the_text_pattern_is_the_grammar_itself() -> None:
    # The OpenAPI document states NUMBER_TEXT: every text the table reads matches it (searched,
    # as a JSON Schema validator does), and every text it refuses does not (the document says
    # no more and no less than the grader).
    for case in TABLE["reads"]:
        if isinstance(case["input"], str):
            assert re.search(NUMBER_TEXT, case["input"]), case
    for case in TABLE["refused"]:
        if isinstance(case["input"], str):
            assert not re.search(NUMBER_TEXT, case["input"]), case
