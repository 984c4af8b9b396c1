"""`grader tree calibrate`: for every shipped preset and kind, over 100 generated trees a slot, the
key earns 1, every single slip at least 0.8, and plain minimax and every misconception variant at
most 0.5 on average (the goal the scoring formulas in grader/gametree/kinds.py are held to)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from grader import data
from grader.cli import main
from grader.gametree import KINDS, GeneratorParams
from grader.gametree.calibrate import Row, calibrate

PRESETS = sorted(p.stem for p in data.presets_dir().glob("*.toml"))


def run(*args: str):
    return CliRunner().invoke(main, ["tree", *args])


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_and_kind_meets_the_calibration_goal(preset):
    result = run("calibrate", "--preset", preset, "--seeds", "100", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["seeds"] == 100
    graded = [slot for slot in data["slots"] if slot["kind"] != "best-order"]
    assert graded
    for slot in graded:
        answers = {row["answer"]: row for row in slot["rows"]}
        assert answers["key"]["mean"] == 1.0
        assert answers["slip"]["worst"] >= 0.8, slot
        variants = [row for name, row in answers.items() if name not in ("key", "slip")]
        assert variants, slot  # plain minimax or a misconception is always measured
        for row in variants:
            assert row["mean"] <= 0.5, (preset, slot["title"], row)
        if slot["kind"] != "minimax":
            assert "no-pruning" in answers  # plain minimax


def test_the_old_presets_would_fail_the_goal():
    # Two-level trees with one cutoff: plain minimax differs from the key in a single place.
    old = GeneratorParams.from_dict(
        {"kind": "values", "depth": 2, "branching": 3, "values": "0..20", "min_cutoffs": 1}
    )
    rows = {r.answer: r for r in calibrate(old, 100)}
    assert not rows["no-pruning"].passes()
    assert rows["slip"].passes() and rows["key"].passes()


def test_a_row_passes_by_its_own_rule():
    assert Row("key", 1.0, 1.0, 5).passes() and not Row("key", 0.99, 0.8, 5).passes()
    assert Row("slip", 0.9, 0.8, 5).passes() and not Row("slip", 0.9, 0.5, 5).passes()
    assert Row("no-pruning", 0.5, 0.0, 5).passes() and not Row("no-pruning", 0.51, 0.0, 5).passes()


def test_calibrate_text_and_errors(tmp_path):
    result = run("calibrate", "--preset", "intro", "--seeds", "5")
    assert result.exit_code == 0, result.output
    assert "Mark the pruned nodes (prune)" in result.output and "no-pruning" in result.output
    assert run("calibrate", "--preset", "nope").exit_code != 0
    own = tmp_path / "mine.toml"
    own.write_text('title = "Mine"\n[[slots]]\nkind = "leaf-order"\nparams = { depth = 2 }\n')
    mine = run("calibrate", "--preset", str(own), "--seeds", "20")
    assert mine.exit_code == 0 and "FAILS THE GOAL" in mine.output  # depth 2: told apart poorly
    assert set(KINDS) >= {"prune", "values", "bounds", "leaf-order", "minimax"}
