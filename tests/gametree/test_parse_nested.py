"""A nested list typed as text: read, or refused with where and what in words."""

from __future__ import annotations

import pytest

from grader.gametree import TreeFormatError, parse_nested


def test_reads_a_nested_list() -> None:
    assert parse_nested("[[3, 12, 8],\n [2, 4, 6]]") == [[3, 12, 8], [2, 4, 6]]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[3, 12, 8], [2, 4 6]]", "a comma is missing at character 20"),
        ("[[3, 12, 8], [2, 4, 6]", "1 “[” never closed; the first unclosed one is at character 1"),
        ("[[3, 12], 4]]", "a “]” closes nothing at character 13"),
        ("[[3, x], [1]]", "“x” is not a number at character 6"),
        ("[[3,,1]]", "a number or a list is missing at character 5"),
        ("[[1, 2],\n [3 4]]", "a comma is missing at line 2, column 5"),
        ("   ", "the nested list is empty"),
        ("5", "the tree must be a list"),
        ("[[1, 2]] x", "something follows the end of the list at character 10"),
        ("[" * 70 + "1" + "]" * 70, "the list is nested more than 64 levels deep at character 65"),
    ],
)
def test_a_mistake_is_told_in_words(text: str, words: str) -> None:
    with pytest.raises(TreeFormatError) as caught:
        parse_nested(text)
    assert words in str(caught.value)
    assert "Expecting" not in str(caught.value)  # never the JSON parser's own message
