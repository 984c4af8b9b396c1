"""The window of the graded search and the misconception variants: each is the same search
under other rules, it differs from the contract where the mistake shows, and it is named.

Surviving mutants judged equivalent (mutmut on variants.py):
- ``diagnose_search``: the default ``minimax_leaves`` 1 for 0: both far under
  ``DIAGNOSIS_LEAVES``, so the variants are tried either way.
"""

from __future__ import annotations

import pytest

from grader.checkers import Board, alphabeta, minimax
from grader.checkers.engine import INFINITY, CheckersSearchRules, search
from grader.checkers.variants import (
    DIAGNOSIS_LEAVES,
    VARIANTS,
    CapturesOptionalBoard,
    CrownedContinuesBoard,
    Variant,
    diagnose_moves,
    diagnose_search,
)
from grader.harness.suite import positions

MIDDLEGAME = positions()["kings-middlegame"]["fen"]  # value -50 at depth 4, 248 leaves
CROWN = positions()["crown-ends-jump"]["fen"]
FORCED = positions()["forced-capture"]["fen"]


def test_the_full_window_is_the_default() -> None:
    board = Board(MIDDLEGAME)
    full = alphabeta(board, 4)
    assert (full.value, full.leaves) == (-50, 248)
    explicit = alphabeta(board, 4, alpha=-INFINITY, beta=INFINITY)
    assert (explicit.value, explicit.best_move, explicit.leaves) == (
        full.value,
        full.best_move,
        full.leaves,
    )


@pytest.mark.parametrize("fen", [MIDDLEGAME, positions()["opening-1"]["fen"]])
@pytest.mark.parametrize("offset", [-101, -26, -1, 0, 74, 100])
def test_fail_soft_bounds_the_true_value_and_fail_hard_clamps(fen: str, offset: int) -> None:
    board = Board(fen)
    true = alphabeta(board, 4).value
    alpha, beta = true + offset, true + offset + 1
    soft = alphabeta(board, 4, alpha=alpha, beta=beta).value
    hard = search(board, 4, CheckersSearchRules(values="hard"), alpha, beta).value
    if soft <= alpha:
        assert true <= soft  # a fail-low answer is an upper bound
    elif soft >= beta:
        assert true >= soft  # a fail-high answer is a lower bound
    else:
        assert soft == true
    assert hard == min(max(soft, alpha), beta)


def test_an_empty_window_is_refused() -> None:
    with pytest.raises(ValueError, match="alpha < beta"):
        alphabeta(Board(MIDDLEGAME), 3, alpha=5, beta=5)


def test_minimax_is_the_no_pruning_variant() -> None:
    board = Board(MIDDLEGAME)
    assert VARIANTS["no-pruning"].run(MIDDLEGAME, 4).leaves == minimax(board, 4).leaves == 1100


@pytest.mark.parametrize(
    "code", [c for c in VARIANTS if c not in ("fail-hard", "crowned-continues")]
)
def test_each_search_variant_differs_on_the_middlegame(code: str) -> None:
    contract = alphabeta(Board(MIDDLEGAME), 4)
    result = VARIANTS[code].run(MIDDLEGAME, 4)
    assert (result.value, result.leaves) != (contract.value, contract.leaves)
    assert diagnose_search(MIDDLEGAME, 4, result.value, result.leaves) == (VARIANTS[code],)


def test_fail_hard_shows_only_with_a_window() -> None:
    assert diagnose_search(MIDDLEGAME, 4, -50, 248) == ()  # the contract's own answer
    hard = VARIANTS["fail-hard"].run(MIDDLEGAME, 4, 24, 25)
    assert hard.value == 24  # clamped to alpha; fail-soft says -50
    assert diagnose_search(MIDDLEGAME, 4, hard.value, hard.leaves, 24, 25) == (
        VARIANTS["fail-hard"],
    )


def test_an_unexplained_answer_is_not_named() -> None:
    assert diagnose_search(MIDDLEGAME, 4, -50, 247) == ()


def test_captures_optional_lists_steps_beside_captures() -> None:
    legal = Board(FORCED).generate_legal_moves()
    variant = CapturesOptionalBoard(FORCED).generate_legal_moves()
    assert legal and all(m.is_capture for m in legal)
    assert set(legal) < set(variant) and any(not m.is_capture for m in variant)
    assert len(CapturesOptionalBoard(FORCED).legal_moves) == len(variant)
    assert diagnose_moves(FORCED, [m.pdn() for m in variant]) == (VARIANTS["captures-optional"],)


def test_a_crowned_man_jumping_on_is_named() -> None:
    assert [m.pdn() for m in Board(CROWN).generate_legal_moves()] == ["14x21x30"]
    moves = [m.pdn() for m in CrownedContinuesBoard(CROWN).generate_legal_moves()]
    assert moves == ["14x21x30x23"]
    assert diagnose_moves(CROWN, moves) == (VARIANTS["crowned-continues"],)
    assert diagnose_moves(CROWN, ["14x21x30"]) == ()


def test_every_variant_has_a_sentence_and_a_distinct_rule() -> None:
    seen = set()
    for code, variant in VARIANTS.items():
        assert variant.code == code and variant.sentence.endswith((".", ")"))
        key = (variant.rules, variant.board)
        assert key not in seen
        seen.add(key)


def test_a_trailing_colon_is_read() -> None:
    assert Board("B:W17,25,26,28:B3,4,6,7,8,14,18,19:") == Board(CROWN)


@pytest.mark.parametrize("offset", [-26, -1, 0, 74])
def test_root_parallel_with_a_window_is_the_serial_value_unless_it_fails_high(offset: int) -> None:
    from grader.checkers.parallel import root_parallel

    board = Board(MIDDLEGAME)
    alpha, beta = -50 + offset, -50 + offset + 1
    serial = alphabeta(board, 4, alpha=alpha, beta=beta).value
    split = root_parallel(board, 4, "split", alpha=alpha, beta=beta)
    threads = root_parallel(board, 4, "threads", alpha=alpha, beta=beta)
    assert split.value == threads.value
    if serial >= beta:
        assert split.value >= serial  # every move is searched: the best fail-high value
    else:
        assert split.value == serial
    hard = root_parallel(
        board, 4, "split", alpha=alpha, beta=beta, rules=CheckersSearchRules(values="hard")
    )
    assert alpha <= hard.value <= beta


def test_the_codes_are_the_ones_the_assignment_lists_in_its_order() -> None:
    # exercises/checkers/ASSIGNMENT.md, `--variant`; of equal explanations the first in this
    # order is named, so order counts.
    assert list(VARIANTS) == [
        "no-pruning",
        "tie-strict",
        "fail-hard",
        "reversed-order",
        "text-order",
        "shallow-cutoffs",
        "wrong-side",
        "captures-optional",
        "crowned-continues",
    ]
    for code in ("captures-optional", "crowned-continues"):
        assert VARIANTS[code].kinds == {"search", "movegen"}
    assert VARIANTS["tie-strict"].kinds == {"search"}


def test_positions_too_big_are_not_diagnosed() -> None:
    result = VARIANTS["tie-strict"].run(MIDDLEGAME, 4)
    named = diagnose_search(
        MIDDLEGAME, 4, result.value, result.leaves, minimax_leaves=DIAGNOSIS_LEAVES
    )
    assert named == (VARIANTS["tie-strict"],)
    assert (
        diagnose_search(
            MIDDLEGAME, 4, result.value, result.leaves, minimax_leaves=DIAGNOSIS_LEAVES + 1
        )
        == ()
    )


def test_moves_are_compared_as_typed_around_spaces() -> None:
    variant = [f" {m.pdn()} " for m in CapturesOptionalBoard(FORCED).generate_legal_moves()]
    assert diagnose_moves(FORCED, variant) == (VARIANTS["captures-optional"],)
    legal = [f"{m.pdn()}  " for m in Board(FORCED).generate_legal_moves()]
    assert diagnose_moves(FORCED, list(reversed(legal))) == ()  # the contract's, in any order


@pytest.mark.parametrize("offset", [-26, -1, 0, 74])
def test_a_variant_is_run_and_named_under_the_window_given(offset: int) -> None:
    alpha, beta = -50 + offset, -50 + offset + 1
    for code in ("tie-strict", "reversed-order"):
        variant = VARIANTS[code]
        result = variant.run(MIDDLEGAME, 4, alpha, beta)
        expected = search(Board(MIDDLEGAME), 4, variant.rules, alpha, beta)
        assert (result.value, result.leaves) == (expected.value, expected.leaves)
    contract = alphabeta(Board(MIDDLEGAME), 4, alpha=alpha, beta=beta)
    assert diagnose_search(MIDDLEGAME, 4, contract.value, contract.leaves, alpha, beta) == ()
    giving: dict[tuple[int, int], list[Variant]] = {}  # each answer, the variants giving it
    for variant in VARIANTS.values():
        result = variant.run(MIDDLEGAME, 4, alpha, beta)
        giving.setdefault((result.value, result.leaves), []).append(variant)
    giving.pop((contract.value, contract.leaves), None)
    for answer, variants in giving.items():
        assert diagnose_search(MIDDLEGAME, 4, *answer, alpha, beta) == tuple(variants)
    assert len(giving) >= 3
