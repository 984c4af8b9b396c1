"""The chance trees of the e2e tests, made through the services: two small expectimax trees whose
values and Star1 cutoff are worked by hand in tests/e2e/test_chance_e2e.py, a depth-4
expectiminimax tree (the docs' screenshots) and a depth-5 one (a phone must still read it)."""

from __future__ import annotations

from typing import Any

BOUNDS = {"bounds": [0, 10]}
# B = 1/3·4 + 2/3·5 = 14/3; C = 1/2·0 + 1/2·9 = 9/2 (Star1 cannot cut it: after F its value lies
# in [0, 5], above alpha = 14/3); A = max(14/3, 9/2) = 14/3.
AVERAGES = [
    {"chance": ["1/3", "2/3"], "children": [4, 5]},
    {"chance": ["1/2", "1/2"], "children": [0, 9]},
]
# B = 5; after F = 0, C's value lies in [0, 5], at or below alpha = 5: Star1 prunes G.
STAR1_CUT = [
    {"chance": ["1/2", "1/2"], "children": [6, 4]},
    {"chance": ["1/2", "1/2"], "children": [0, 9]},
]
EXPECTIMINIMAX = {
    "depth": 4,
    "branching": "2-3",
    "values": "0..10",
    "players": "max,chance,min,chance",
    "min_star1_cutoffs": 1,
    "conventions": BOUNDS,
}


def seed_chance(student: Any) -> dict[str, int]:
    """The chance practice exercises of ``student``, by name."""
    from grader.gametree import GeneratorParams, generate
    from grader.services.trees import exercises

    def typed(kind: str, tree: Any, players: str = "max,chance") -> int:
        made = exercises.create_practice(
            student, kind, tree=tree, players=players.split(","), conventions=BOUNDS
        )
        return made.id

    four = generate(GeneratorParams.from_dict(EXPECTIMINIMAX), "e2e-chance-4")
    five = generate(GeneratorParams.from_dict({**EXPECTIMINIMAX, "depth": 5}), "e2e-chance-5")
    return {
        "chance-values": typed("values", AVERAGES),
        "chance-prune": typed("prune", STAR1_CUT),
        "chance-4": typed("values", four.to_nested(), "max,chance,min,chance"),
        "chance-5": typed("prune", five.to_nested(), "max,chance,min,chance"),
    }
