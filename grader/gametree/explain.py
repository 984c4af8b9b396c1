"""Sentences a student understands, about one step of a search."""

from __future__ import annotations

from fractions import Fraction

from grader.gametree.exact import exact, fmt, matches, whole
from grader.gametree.solver import Cutoff, SearchResult, Step, minimax
from grader.gametree.tree import Path, Value, probability_text

_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]


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
        if cutoff.chance:
            return self._chance_cutoff(cutoff)
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

    def _chance_cutoff(self, cutoff: Cutoff) -> str:
        """A cutoff at a chance node: Star1's interval past the window (or, under a variant that
        cuts chance nodes as if MIN, the least child value)."""
        node = self.label(cutoff.path)
        weigh = [s for s in self.result.trace if s.kind == "weigh" and s.path == cutoff.path]
        seen = [s for s in weigh if s.index < cutoff.step]
        last = seen[-1] if seen else None
        if last is None or not self.result.star1:
            why = (
                f"alpha = {fmt(cutoff.alpha)} >= beta = {fmt(cutoff.beta)}"
                if cutoff.kind == "alpha"
                else f"its value {fmt(cutoff.value)} >= beta = {fmt(cutoff.beta)}"
            )
            return f"At {node}, {why}, so {self._skipped(cutoff)}."
        children = " and ".join(self.label(s.child) for s in seen if s.child is not None)
        interval = f"[{fmt(cutoff.lower)}, {fmt(cutoff.upper)}]"
        mass = probability_text(last.mass) if last.mass is not None else "?"
        if cutoff.kind == "alpha":
            past = "<" if self.explore else "<="
            why = f"{fmt(cutoff.upper)} {past} alpha = {fmt(cutoff.alpha)}"
        else:
            past = ">" if self.explore else ">="
            why = f"{fmt(cutoff.lower)} {past} beta = {fmt(cutoff.beta)}"
        return (
            f"At {node}, a chance node, after {children} (probability {mass} seen, weighted sum "
            f"{fmt(last.total)}) its value lies in {interval}, and {why}, so {self._skipped(cutoff)}"
            " (Star1)."
        )

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
        if self.result.player(parent) == "chance":
            return f"{node} is searched, not pruned: " + self._chance_goes_on(parent, step)
        return (
            f"{node} is searched, not pruned: when {self.label(parent)} reaches it, "
            f"alpha = {fmt(step.alpha)} and beta = {fmt(step.beta)}, so no cutoff has happened yet."
        )

    def _chance_goes_on(self, parent: Path, step: Step) -> str:
        """Why the chance node ``parent`` goes on to the child entered at ``step``."""
        name = self.label(parent)
        if not self.result.star1:
            return (
                f"its parent {name} is a chance node, and this exercise states no finite bounds "
                f"on the leaf values, so nothing bounds {name}'s value before every child is "
                "seen: a chance node is cut only with both bounds (Star1)."
            )
        seen = [
            s
            for s in self.result.trace
            if s.kind == "weigh" and s.path == parent and s.index < step.index
        ]
        if not seen:
            return (
                f"it is the first child {name} searches, and a chance node is cut (Star1) only "
                "after a child is seen."
            )
        last = seen[-1]
        entered = next(s for s in self.result.trace if s.kind == "enter" and s.path == parent)
        children = " and ".join(self.label(s.child) for s in seen if s.child is not None)
        past = ("<", ">") if self.explore else ("<=", ">=")
        return (
            f"after {children}, the chance node {name}'s value lies in [{fmt(last.lower)}, "
            f"{fmt(last.upper)}], and neither {fmt(last.upper)} {past[0]} alpha = "
            f"{fmt(entered.alpha)} nor {fmt(last.lower)} {past[1]} beta = {fmt(entered.beta)}, "
            "so Star1 does not cut it."
        )

    def wrong_value(self, path: Path, got: Value | None, lead: str = "") -> str:
        """An answer's wrong value at ``path`` explained: at a chance node, first what the value
        given is when it is one of the usual mistakes there (the least or the greatest of the
        values its children returned, their plain average, the weighted sum of the children
        seen without the unseen ones, the value with every child searched; every one it is,
        when it is several); then why the node
        returns what it does (``lead`` before it when the answer's value is none of those)."""
        why = self.node_value(path)
        if got is None or self.result.player(path) != "chance":
            return lead + why
        did = self._chance_mistake(path, got)
        return f"You gave {self.label(path)} {fmt(got)}, {did}; {why}" if did else lead + why

    def _chance_mistake(self, path: Path, got: Value) -> str | None:
        result = self.result
        weigh = [s for s in result.trace if s.kind == "weigh" and s.path == path]
        seen = [
            (s.probability, result.nodes[s.child].value)
            for s in weigh
            if s.child is not None and s.probability is not None
        ]
        values = [v for _, v in seen]
        cutoff = next((c for c in result.cutoffs if c.path == path), None)
        unequal = len({p for p, _ in seen}) > 1
        mistakes: list[tuple[bool, Value, str]] = []
        if len(values) > 1:  # one child's value is its least, greatest and average alike
            average = whole(sum((Fraction(exact(v)) for v in values), Fraction(0)) / len(values))
            mistakes += [
                (
                    True,
                    min(values),
                    "the least value its children returned, as a MIN node takes it",
                ),
                (
                    True,
                    max(values),
                    "the greatest value its children returned, as a MAX node takes it",
                ),
                (
                    unequal,
                    average,
                    "the plain average of the values its children returned, as if they were "
                    "equally likely",
                ),
            ]
        if cutoff is not None and weigh and weigh[-1].total is not None:
            mass = weigh[-1].mass
            unseen = probability_text(1 - mass) if mass is not None else "?"
            mistakes.append(
                (
                    True,
                    weigh[-1].total,
                    "the weighted sum of the children seen so far, leaving out the children not "
                    f"seen (probability {unseen}), whose values lie anywhere in the bounds",
                )
            )
            mistakes.append(
                (
                    True,
                    self._full_value(path),
                    "its value with every child searched, but Star1 cuts it before its last "
                    "children",
                )
            )
        fits = [words for applies, value, words in mistakes if applies and matches(got, value)]
        if len(fits) > 1:  # the value is more than one of them: each is said, none chosen
            return "which fits more than one mistake: " + ", or ".join(fits)
        return fits[0] if fits else None

    def _full_value(self, path: Path) -> Value:
        """The node's expectiminimax value with every child searched."""
        return minimax(self.result.tree, self.result.conventions).nodes[path].value

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
        if player == "CHANCE":
            return self._chance_value(path, cutoff)
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

    def _chance_value(self, path: Path, cutoff: Cutoff | None) -> str:
        """Why a chance node returns its value: each child's weighted contribution, their sum."""
        node = self.label(path)
        value = self.result.nodes[path].value
        weigh = [s for s in self.result.trace if s.kind == "weigh" and s.path == path]
        terms = " + ".join(
            f"{probability_text(s.probability)} × {fmt(self.result.nodes[s.child].value)}"
            for s in weigh
            if s.probability is not None and s.child is not None
        )
        text = f"{node} is a chance node: the weighted average of its children, {terms}"
        if cutoff is not None:
            side = "at most" if cutoff.kind == "alpha" else "at least"
            text += (
                f" so far; it is cut there, and returns the bound its value is {side}"
                if cutoff.lower is not None and self.result.star1
                else " so far; it is cut there"
            )
        if self.result.conventions.values == "hard" and weigh:
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
