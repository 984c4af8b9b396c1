"""Sentences a student understands, about one step of a search."""

from __future__ import annotations

import math

from grader.gametree.solver import Cutoff, SearchResult, Step
from grader.gametree.tree import Path, Value

_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]


def fmt(x: Value | None) -> str:
    if x is None:
        return "?"
    if x == math.inf:
        return "+∞"
    if x == -math.inf:
        return "-∞"
    return str(x)


def ordinal(n: int) -> str:
    """0 -> first, 1 -> second, ..."""
    if n < len(_ORDINALS):
        return _ORDINALS[n]
    count = n + 1
    teens = count % 100 in (11, 12, 13)  # 11th, 12th, 13th, 111th: never -st, -nd, -rd
    suffix = "th" if teens else {1: "st", 2: "nd", 3: "rd"}.get(count % 10, "th")
    return f"{count}{suffix}"


class Explainer:
    """Explains the steps of one search result with the tree's labels."""

    def __init__(self, result: SearchResult) -> None:
        self.result = result
        self.labels = result.tree.labels()
        self.explore = result.conventions.ties == "explore"

    def label(self, path: Path) -> str:
        return self.labels[path]

    def _skipped(self, cutoff: Cutoff) -> str:
        names = [self.label(p) for p in cutoff.pruned]
        node = self.label(cutoff.path)
        if len(names) == 1:
            index = int(cutoff.pruned[0].rpartition(".")[2])
            return f"{node}'s {ordinal(index)} child, {names[0]}, is never evaluated"
        return f"{node}'s remaining children {', '.join(names[:-1])} and {names[-1]} are never evaluated"

    def cutoff(self, cutoff: Cutoff) -> str:
        node = self.label(cutoff.path)
        if self.explore:
            if cutoff.kind == "beta":
                why = f"its value {fmt(cutoff.value)} > beta = {fmt(cutoff.beta)}"
            else:
                why = f"its value {fmt(cutoff.value)} < alpha = {fmt(cutoff.alpha)}"
        else:
            why = f"alpha = {fmt(cutoff.alpha)} >= beta = {fmt(cutoff.beta)}"
        sentence = f"At {node}, {why}, so {self._skipped(cutoff)}"
        if cutoff.deep and cutoff.source is not None:
            bound = "beta" if cutoff.kind == "beta" else "alpha"
            sentence += (
                f" (a deep cutoff: {bound} = {fmt(cutoff.beta if bound == 'beta' else cutoff.alpha)}"
                f" was set at {self.label(cutoff.source)}, above {node}'s parent)"
            )
        return sentence + "."

    def cutoff_of(self, path: Path) -> Cutoff | None:
        """The cutoff that pruned ``path`` or the subtree it lies in."""
        for cutoff in self.result.cutoffs:
            if any(path == p or path.startswith(p + ".") for p in cutoff.pruned):
                return cutoff
        return None

    def visited_not_pruned(self, step: Step) -> str:
        """``step`` is the ``enter`` step of a node the answer marked as pruned."""
        node = self.label(step.path)
        parent = step.path.rpartition(".")[0]
        return (
            f"{node} is searched, not pruned: when {self.label(parent)} reaches it, "
            f"alpha = {fmt(step.alpha)} and beta = {fmt(step.beta)}, so no cutoff has happened yet."
        )

    def node_value(self, path: Path) -> str:
        """Why the node at ``path`` returns the value it does."""
        result = self.result
        node = self.label(path)
        value = result.nodes[path].value
        player = result.player(path).upper()
        children = [
            (p, result.nodes[p].value)
            for p in result.visited
            if p.rpartition(".")[0] == path and p != path and p in result.nodes
        ]
        shown = ", ".join(f"{self.label(p)} = {fmt(v)}" for p, v in children)
        word = "largest" if player == "MAX" else "smallest"
        cutoff = next((c for c in result.cutoffs if c.path == path), None)
        if cutoff is None:
            text = f"{node} is {player}: it takes the {word} value its children returned ({shown})"
        else:
            text = (
                f"{node} is {player} and stops after {shown} because of a cutoff, "
                f"so it returns the {word} value seen so far"
            )
        if result.conventions.values == "hard" and children:
            text += f", clamped to its window, which gives {fmt(value)}"
        else:
            text += f": {fmt(value)}"
        return text + "."

    def bounds(self, path: Path) -> str:
        node = self.label(path)
        result = self.result
        entered = next(s for s in result.trace if s.kind == "enter" and s.path == path)
        changes = [s for s in result.trace if s.kind == "bound" and s.path == path]
        now = result.nodes[path]
        text = f"{node} is entered with alpha = {fmt(entered.alpha)}, beta = {fmt(entered.beta)}"
        if changes:
            text += "; then " + ", ".join(
                f"{s.bound} = {fmt(s.value)} (step {s.index})" for s in changes
            )
        return text + f"; so when it returns alpha = {fmt(now.alpha)} and beta = {fmt(now.beta)}."

    def pruned_leaf(self, path: Path) -> str:
        cutoff = self.cutoff_of(path)
        if cutoff is None:
            return f"{self.label(path)} is never evaluated."
        return f"{self.label(path)} is never evaluated: " + self.cutoff(cutoff)
