"""A test-only exercise kind, registered as a plugin registers one: importing this module is the
whole registration. `tests/test_kind_plugins.py` loads it (in process, and as a pytest plugin,
`-p tests.plugin_kind`, before the app is imported) and shows that everything that offers kinds
offers it: the API's document and answers, the pages, the CLI.

The kind asks how many leaves alpha-beta evaluates: the answer is one whole number."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from grader.gametree import Conventions, Tree, solve
from grader.gametree.drawing import PaperBoxes
from grader.gametree.kinds import AnswerPart, ExerciseKind, Grade, Paper, UngradableAnswer, register
from grader.gametree.kinds.base import part
from grader.gametree.kinds.registry import KINDS

NAME = "leaf-count"


@register
class LeafCountKind(ExerciseKind):
    name = NAME
    title = "Leaves evaluated"
    prompt = "How many leaves does alpha-beta evaluate?"
    parts = ("leaf_count",)
    answer_shape: ClassVar[dict[str, AnswerPart]] = {
        "leaf_count": AnswerPart("count", "the number of leaves alpha-beta evaluates")
    }
    answer_doc = "how many leaves alpha-beta evaluates."
    in_game_practice = False
    holds_values = False

    def normalize(self, tree: Tree, answer: object) -> int:
        count = part(self, answer, "leaf_count")
        if type(count) is not int or count < 0:
            raise UngradableAnswer("'leaf_count' is a whole number of leaves")
        return count

    def key(self, tree: Tree, conventions: Conventions) -> dict[str, Any]:
        return {"leaf_count": len(self.search(tree, conventions).leaf_order)}

    def grade(self, tree: Tree, conventions: Conventions, answer: object) -> Grade:
        got = self.normalize(tree, answer)
        key = self.key(tree, conventions)
        right = got == key["leaf_count"]
        return Grade(
            float(right),
            {"leaf_count": float(right)},
            ["Correct." if right else f"Alpha-beta evaluates {key['leaf_count']} leaves."],
            key=key,
            search=solve(tree.cut(conventions.depth), conventions),
            scoring={"right": right},
        )

    def scoring_words(self, scoring: Mapping[str, Any], labels: Mapping[str, str] | None) -> str:
        return "Score 1 for the right count, else 0."

    def words(self, answer: dict[str, Any], label: Callable[[str], str]) -> str:
        return f"{answer.get('leaf_count')} leaves"

    def paper(self, tree: Tree, answer: dict[str, Any] | None = None) -> Paper:
        written = str(answer.get("leaf_count", "")) if answer else ""
        return Paper(self.prompt, PaperBoxes(()), {}, (("Leaves evaluated", written),))


KIND = KINDS[NAME]
