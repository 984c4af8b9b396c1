"""Smoke run of bench/integrity (figures only printed, never asserted: the machine is shared)."""

import ast
from pathlib import Path

from bench import integrity
from bench.integrity import _LINE, _segment
from tests.bench.bench_support import run_bench


def test_a_segment_is_asts_own():
    """The class's functions are cut from their files as `ast.get_source_segment` cuts them:
    every statement of a file of this repository, and of a source with each line ending and
    characters str.splitlines would split at (a form feed, U+2028) inside strings."""
    odd = 'def f():\r\n    return "a\x0cb"\rdef g():\n    return "c\u2028d"; x = "\u00e9"\n\n'
    for text in (odd, Path(integrity.__file__).read_text()):
        lines = _LINE.findall(text)
        statements = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.stmt)]
        assert len(statements) > 3
        for node in statements:
            assert _segment(lines, node) == ast.get_source_segment(text, node)


def test_the_integrity_benchmark_runs_quick():
    out = run_bench("integrity", "--quick", timeout=600)
    # 30 students, one of whom hands in another's engine renamed: exactly that pair above 90%.
    assert "pairs above 90%: 1 (the 1 planted copies)" in out
    assert "435 pairs read back" in out and "ratio: ours / copydetect" in out
