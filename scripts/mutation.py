"""`make mutation`: mutmut over the pure cores (grader/gametree, grader/checkers), file by file,
printing the share of mutants killed in each file.

Every run starts from a fresh copy (``mutants/`` removed), so no verdict of an earlier run is
reused (save with ``--keep``, which runs again only the mutants the kept run did not kill or
did not reach: a stopped run goes on where it stopped), and the cores' tests clear every cache
of the cores before each test (tests/core_caches.py), so a result cached by the unmutated run
mutmut forks from is never served to a mutant. mutmut runs only the tests that cover each
mutated function.

    python scripts/mutation.py                       # every core file
    python scripts/mutation.py grader/gametree/solver.py --max-children 1
    python scripts/mutation.py grader/gametree/solver.py --keep  # go on with a stopped run
    python scripts/mutation.py --report --survivors  # the scores of the last run again
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CORES = ("grader/gametree", "grader/checkers")
# mutmut's exit codes (mutmut.stats.status_by_exit_code): killed, or stopped by its time limit.
# -9 is the hard CPU limit mutmut sets one second past the soft one (RLIMIT_CPU): a mutant whose
# tests never end (an endless walk) gets there when pytest outlives SIGXCPU, and mutmut files it
# under "segfault"; like -11 (a crash), the tests did not pass, so the mutant is caught.
KILLED = {1, 3, 24, -24, 36, 152, 255, -9, -11}
NO_TESTS = {5, 33}  # no test calls the function (e.g. one run only at import time): not killed
SKIPPED = {34, None}
OUTPUT_LINES = 60  # of mutmut's output, shown when it fails


def core_files() -> list[Path]:
    """Every module of the cores, their packages' modules too (gametree/kinds/)."""
    return [
        p for core in CORES for p in sorted(Path(core).rglob("*.py")) if p.name != "__init__.py"
    ]


def exit_codes(path: Path) -> dict[str, int | None] | None:
    """mutmut's record of ``path``'s mutants in mutants/: each one's exit code (None: no
    result yet); None when mutants/ has no record of ``path``."""
    meta = Path("mutants") / f"{path}.meta"
    if not meta.exists():
        return None
    codes: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
    return codes


def score(path: Path) -> tuple[int, int, int, list[str]]:
    """(killed, counted, of which no test ran, surviving mutant names) from mutmut's record of
    ``path``; a mutant no test ran counts as surviving."""
    codes = exit_codes(path)
    if codes is None:
        return 0, 0, 0, []
    counted = {k: c for k, c in codes.items() if c not in SKIPPED}
    killed = sum(1 for c in counted.values() if c in KILLED)
    untested = sum(1 for c in counted.values() if c in NO_TESTS)
    return killed, len(counted), untested, sorted(k for k, c in counted.items() if c not in KILLED)


def left_to_run(path: Path) -> list[str] | None:
    """The mutants of ``path`` that a kept run (``--keep``) runs again: those without a result
    and those not killed, by name; None when mutants/ has no record of ``path`` (all of them).
    Given the file's pattern, mutmut would run every mutant again, the killed ones too."""
    codes = exit_codes(path)
    if codes is None:
        return None
    return sorted(k for k, c in codes.items() if c not in KILLED)


def run_mutmut(
    mutmut: Path, module: str, max_children: int, names: list[str] | None = None
) -> bool:
    """``mutmut run`` on ``module``'s mutants (or those ``names``), its output kept in a file;
    if mutmut fails (its stats step or the clean test run failing, say), the end of that output
    goes to stderr and False is returned, so a failed run never shows as a score of 0 mutants."""
    if names == []:
        return True  # a kept run with every mutant killed: nothing to run
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        done = subprocess.run(
            [str(mutmut), "run", "--max-children", str(max_children), *(names or [f"{module}.*"])],
            check=False,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        if done.returncode == 0:
            return True
        log.seek(0)
        lines = log.read().replace("\r", "\n").splitlines()
    tail = "\n".join(line for line in lines[-OUTPUT_LINES:] if line.strip())
    print(
        f"{module}: mutmut run failed (exit {done.returncode}); the end of its output:\n{tail}",
        file=sys.stderr,
        flush=True,
    )
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="core files (default: all of them)")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument(
        "--keep",
        action="store_true",
        help="reuse mutants/ from an earlier run: only its mutants without a result or not "
        "killed run",
    )
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    parser.add_argument(
        "--report",
        action="store_true",
        help="only print the scores recorded in mutants/ by an earlier run",
    )
    args = parser.parse_args(argv)
    files = args.files or core_files()
    if not (args.keep or args.report):
        shutil.rmtree("mutants", ignore_errors=True)
    mutmut = Path(sys.executable).with_name("mutmut")
    rows = []
    failed: list[Path] = []
    for path in files:
        module = ".".join(path.with_suffix("").parts)
        names = left_to_run(path) if args.keep else None
        if not args.report and not run_mutmut(mutmut, module, args.max_children, names):
            failed.append(path)
            continue
        killed, counted, untested, survivors = score(path)
        rows.append((path, killed, counted))
        share = f"{100 * killed / counted:5.1f}%" if counted else "    -"
        print(
            f"{path}: {share} of {counted} mutants killed ({untested} reached by no test)",
            flush=True,
        )
        if args.survivors:
            for name in survivors:
                print(f"    survived: {name}")
    killed = sum(r[1] for r in rows)
    counted = sum(r[2] for r in rows)
    if counted:
        print(f"all: {100 * killed / counted:.1f}% of {counted} mutants killed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
