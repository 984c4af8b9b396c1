"""scripts/mutation.py (`make mutation`): a mutmut run that fails says why instead of showing as a
score of 0 mutants."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "scripts/mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _project(root: Path, assertion: str) -> Path:
    """A one-file project for the real mutmut: ``pkg.mod.double(x)`` is ``2 * x`` (mutants
    ``2 / x`` and ``3 * x``) and its one test asserts ``assertion``. Returns the test's file."""
    (root / "pkg").mkdir()
    (root / "pkg/__init__.py").write_text("")
    (root / "pkg/mod.py").write_text("def double(x):\n    return 2 * x\n")
    (root / "tests").mkdir()
    test = root / "tests/test_mod.py"
    _write_test(test, assertion)
    (root / "pyproject.toml").write_text(
        '[tool.mutmut]\nsource_paths = ["pkg/"]\npytest_add_cli_args_test_selection = ["tests"]\n'
        'pytest_add_cli_args = ["-p", "no:randomly", "-p", "no:cacheprovider"]\n'
    )
    return test


def _write_test(test: Path, assertion: str) -> None:
    test.write_text(f"from pkg.mod import double\n\n\ndef test_double():\n    assert {assertion}\n")


def test_a_failed_stats_step_shows_mutmuts_output_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A one-file project whose only test fails: the real mutmut stops at its stats step.
    _project(tmp_path, "double(2) == 5")
    monkeypatch.chdir(tmp_path)
    assert Path(sys.executable).with_name("mutmut").is_file()

    assert _script().main(["pkg/mod.py", "--max-children", "1"]) == 1

    out, err = capsys.readouterr()
    assert "pkg.mod: mutmut run failed (exit 1)" in err
    assert "failed to collect stats" in err and "assert 4 == 5" in err
    assert "mutants killed" not in out  # no score of a run that did not happen


def test_a_kept_run_runs_only_the_mutants_not_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two mutants of `2 * x` (mutmut: `2 / x`, `3 * x`); a test at 0 kills only the first.
    test = _project(tmp_path, "double(0) == 0")
    monkeypatch.chdir(tmp_path)
    script = _script()
    assert script.main(["pkg/mod.py", "--max-children", "1"]) == 0
    meta = tmp_path / "mutants/pkg/mod.py.meta"
    record = json.loads(meta.read_text())
    codes = record["exit_code_by_key"]
    killed = [k for k, c in codes.items() if c in script.KILLED]
    assert len(codes) >= 2 and 0 < len(killed) < len(codes), codes
    # Mark the killed ones with another killed code: a run that ran them again would overwrite it.
    for name in killed:
        codes[name] = 3
    meta.write_text(json.dumps(record))
    _write_test(test, "double(2) == 4")
    capsys.readouterr()

    assert script.main(["pkg/mod.py", "--max-children", "1", "--keep"]) == 0

    after = json.loads(meta.read_text())["exit_code_by_key"]
    assert all(after[name] == 3 for name in killed)  # not run again
    assert all(c in script.KILLED for c in after.values()), after  # the others ran, and died
    assert "100.0% of" in capsys.readouterr().out
