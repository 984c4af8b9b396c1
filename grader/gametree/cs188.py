"""UC Berkeley CS188's multiagent autograder semantics for ``GraphGameTreeTest`` files: the
action its MinimaxAgent (q2), AlphaBetaAgent (q3, strict ties: prune only when a value is
strictly outside the window) or ExpectimaxAgent (q4: every ghost a chance node choosing uniformly
at random, nothing pruned) returns, and the states it generates (every state entered)."""

from __future__ import annotations

from dataclasses import dataclass

from grader.gametree.solver import (
    Conventions,
    Order,
    SearchResult,
    Ties,
    ValuesRule,
    minimax,
    solve,
)
from grader.gametree.tree import EXPECTIMAX_ALGORITHMS, CS188Problem, TreeFormatError, read_cs188

ALGORITHMS = ("MinimaxAgent", "AlphaBetaAgent", *EXPECTIMAX_ALGORITHMS)


@dataclass(frozen=True)
class CS188Answer:
    action: str | None
    expanded: tuple[str, ...]  # sorted, as CS188's solution files list them
    result: SearchResult


def conventions_for(problem: CS188Problem) -> Conventions:
    """CS188's rules: left to right, strict ties, best value so far, the file's depth."""
    return Conventions(
        ties=Ties.EXPLORE, values=ValuesRule.SOFT, order=Order.LTR, depth=problem.plies
    )


def answer(problem: CS188Problem) -> CS188Answer:
    if problem.alg not in ALGORITHMS:
        raise TreeFormatError(
            f"CS188 algorithm {problem.alg!r} is not a game-tree search this grader runs "
            f"({', '.join(ALGORITHMS)})"
        )
    conventions = conventions_for(problem)
    # Expectimax expands every state (its ghosts are read as uniform chance nodes): no pruning.
    search = solve if problem.alg == "AlphaBetaAgent" else minimax
    result = search(problem.tree, conventions)
    action = None if result.best_move is None else problem.actions[str(result.best_move)]
    return CS188Answer(action, tuple(sorted(problem.state_names(result.visited))), result)


def read_solution(text: str) -> tuple[str, tuple[str, ...]]:
    """CS188's ``.solution`` file: ``action`` and ``expanded`` (space-separated states)."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip().strip('"')
    if "action" not in fields or "expanded" not in fields:
        raise TreeFormatError("a CS188 solution file needs 'action' and 'expanded'")
    return fields["action"], tuple(sorted(fields["expanded"].split()))


__all__ = ["CS188Answer", "answer", "conventions_for", "read_cs188", "read_solution"]
