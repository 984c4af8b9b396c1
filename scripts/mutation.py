"""`make mutation`: mutmut over the pure cores (grader/gametree, grader/checkers), file by file,
printing the share of mutants killed in each file.

Every run starts from a fresh copy (``mutants/`` removed), so no verdict of an earlier run is
reused, and the gametree tests clear the grading caches before each test
(tests/gametree/conftest.py), so a result cached by the unmutated run mutmut forks from is never
served to a mutant. mutmut runs only the tests that cover each mutated function.

    python scripts/mutation.py                       # every core file
    python scripts/mutation.py grader/gametree/solver.py --max-children 1
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

CORES = ("grader/gametree", "grader/checkers")
# mutmut's exit codes (mutmut.stats.status_by_exit_code): killed, or stopped by its time limit.
KILLED = {1, 3, 24, -24, 36, 152, 255}
SKIPPED = {34, None}


def core_files() -> list[Path]:
    return [p for core in CORES for p in sorted(Path(core).glob("*.py")) if p.name != "__init__.py"]


def score(path: Path) -> tuple[int, int, list[str]]:
    """(killed, counted, surviving mutant names) from mutmut's record of ``path``."""
    meta = Path("mutants") / f"{path}.meta"
    if not meta.exists():
        return 0, 0, []
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    counted = {k: c for k, c in codes.items() if c not in SKIPPED}
    killed = sum(1 for c in counted.values() if c in KILLED)
    return killed, len(counted), sorted(k for k, c in counted.items() if c not in KILLED)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="core files (default: all of them)")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="reuse mutants/ from an earlier run")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    args = parser.parse_args(argv)
    files = args.files or core_files()
    if not args.keep:
        shutil.rmtree("mutants", ignore_errors=True)
    mutmut = Path(sys.executable).with_name("mutmut")
    rows = []
    for path in files:
        module = ".".join(path.with_suffix("").parts)
        subprocess.run(
            [str(mutmut), "run", "--max-children", str(args.max_children), f"{module}.*"],
            check=False,
            stdout=subprocess.DEVNULL,
        )
        killed, counted, survivors = score(path)
        rows.append((path, killed, counted, survivors))
        share = f"{100 * killed / counted:5.1f}%" if counted else "    -"
        print(f"{path}: {share} of {counted} mutants killed", flush=True)
        if args.survivors:
            for name in survivors:
                print(f"    survived: {name}")
    killed = sum(r[1] for r in rows)
    counted = sum(r[2] for r in rows)
    if counted:
        print(f"all: {100 * killed / counted:.1f}% of {counted} mutants killed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
