"""`grader engine check PATH`: grade a checkers engine in the sandbox, with live progress and a
final table; results.json (Gradescope) and a richer JSON on request. The table and the summary
go to stdout (so `> file` keeps them); progress and warnings to stderr.

Without bubblewrap (a student's laptop) the engine runs without the sandbox and the command
says so; `--sandbox` refuses instead, `--no-sandbox` never uses it.

Exit status: 0 when the run completed, whatever the score; 2 for a usage error or a refused
run (--sandbox where the sandbox cannot run); 3 when internal errors of the grader persisted.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from grader import config as settings
from grader.harness.results import NO_SANDBOX_WARNING, summary, write
from grader.harness.runner import Report, grade_engine, grade_engines
from grader.harness.sandbox import SandboxConfig, SandboxUnavailable
from grader.harness.suite import SUITES, load_suite
from grader.harness.verdicts import Verdict

STYLE = {Verdict.PASSED: "green", Verdict.WA: "yellow", Verdict.IE: "magenta"}


@click.group()
def engine() -> None:
    """Checkers engines: grade one in the sandbox as the course does."""


@engine.command("check")
@click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=True, path_type=Path)
)
@click.option(
    "--suite",
    "suite_name",
    default="quick",
    show_default=True,
    help=f"{' or '.join(SUITES)}, or a suite JSON file.",
)
@click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write Gradescope's results.json here (one engine).",
)
@click.option(
    "--rich-json",
    "rich_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the detailed JSON (timings, every game's PDN) here (one engine).",
)
@click.option(
    "--sandbox/--no-sandbox",
    default=None,
    help="Run in bubblewrap (refuse where it cannot run) / without it (your own machine only; "
    "recorded in the results). Default: bubblewrap where it is installed, else without.",
)
@click.option(
    "--bwrap",
    "bwrap_path",
    default=None,
    help="bubblewrap's path (default: $GRADER_BWRAP or bwrap on PATH).",
)
@click.option(
    "--slots",
    type=click.IntRange(min=1),
    default=None,
    help="Engines graded at once (default: one per core).",
)
def check(
    paths: tuple[Path, ...],
    suite_name: str,
    json_out: Path | None,
    rich_out: Path | None,
    sandbox: bool | None,
    bwrap_path: str | None,
    slots: int | None,
) -> None:
    """Grade the engine(s) at PATHS: an engine.py, a zip with engine.py at its top, or a folder."""
    console = Console(stderr=True)  # progress and warnings
    out = Console()  # the results
    config = SandboxConfig()
    if bwrap_path:
        config = dataclasses.replace(config, bwrap=bwrap_path)
    config = student_sandbox(config, sandbox, lambda line: console.print(line, markup=False))
    try:
        config.check()
        suite = load_suite(suite_name)
    except SandboxUnavailable as exc:
        console.print(f"[bold red]refusing to run:[/] {exc}")
        sys.exit(2)
    except (OSError, ValueError, KeyError) as exc:
        raise click.BadParameter(
            f"cannot load suite {suite_name!r}: {exc}", param_hint="--suite"
        ) from exc
    if not config.sandbox:
        console.print(f"[bold red on yellow] {NO_SANDBOX_WARNING} [/]")
    if len(paths) > 1:
        if json_out or rich_out:
            raise click.UsageError("--json and --rich-json take one engine at a time")
        console.print(f"grading {len(paths)} engines, {slots or 'one per core'} at once...")
        reports = grade_engines(list(paths), suite, config, slots, settings.cache_dir())
        for path, report in zip(paths, reports, strict=True):
            _table(out, report, str(path))
        sys.exit(0 if all(r.complete for r in reports) else 3)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[label]}"),
        console=console,
        transient=True,
    ) as bar:
        tests = bar.add_task("test", total=len(suite.tests), label="")
        games = bar.add_task("game", total=max(suite.game_count, 1), label="")

        def progress(kind: str, done: int, total: int, label: str) -> None:
            bar.update(tests if kind == "test" else games, completed=done, label=label[:50])

        report = grade_engine(
            paths[0],
            suite,
            config,
            progress,
            slots,
            cache=settings.cache_dir(),
        )
    _table(out, report, str(paths[0]))
    write(report, json_out, rich_out)
    sys.exit(0 if report.complete else 3)


def student_sandbox(
    config: SandboxConfig, choice: bool | None, say: Callable[[str], None]
) -> SandboxConfig:
    """The sandbox of a command a student runs (`engine check`, `checkers play`): --sandbox
    (True) keeps it, so that config.check() refuses where it cannot run; --no-sandbox (False)
    drops it; neither (None) keeps it where bubblewrap is installed and drops it, saying so,
    where it is not: a student's machine (macOS, Windows, a Linux without it) runs any Python
    3.11+ and may have no bubblewrap."""
    if choice is None and not (os.path.isfile(config.bwrap) and os.access(config.bwrap, os.X_OK)):
        say(
            f"bubblewrap is not installed here (no {config.bwrap}), so the engine runs WITHOUT "
            "the sandbox, as with --no-sandbox: no isolation from your files, results not "
            "official. Install bubblewrap (Debian, Ubuntu: apt install bubblewrap) to check "
            "as the course grades; --sandbox refuses to run without it."
        )
        choice = False
    return dataclasses.replace(config, sandbox=choice is not False)


def shown(line: str, width: int = 90) -> str:
    """A test's first line as the table's detail column shows it, each run of spaces one:
    whole, or cut at a word's end with " …", never inside a word (a ratio "none from 30" must
    not read "none from 3"), unless its first word alone is too long."""
    text = " ".join(line.split())
    if len(text) <= width:
        return text
    cut = textwrap.shorten(text, width, placeholder=" …")
    return cut if cut != "…" else text[: width - 2] + " …"


def _table(console: Console, report: Report, title: str) -> None:
    table = Table(title=f"{title}: suite {report.suite}", show_lines=False)
    for column in ("test", "verdict", "score", "CPU s", "wall s", "detail"):
        table.add_column(
            column,
            justify="right" if column in ("score", "CPU s", "wall s") else "left",
            overflow="fold",
        )
    for t in report.tests:
        style = STYLE.get(t.verdict, "red")
        first = t.output.splitlines()[0] if t.output else ""
        if t.extra.get("diagnosis"):
            others = [c for c in t.extra.get("candidates", []) if c != t.extra["diagnosis"]]
            also = f", or {' or '.join(others)} here" if others else ""
            first = f"looks like {t.extra['diagnosis']}{also} (see the output)"
        table.add_row(
            t.name,
            f"[{style}]{t.verdict.value}[/]",
            f"{t.score:g}/{t.max_score:g}",
            f"{t.cpu:.2f}",
            f"{t.wall:.2f}",
            shown(first),
        )
    console.print(table)
    console.print(summary(report))
    console.print(f"{report.elapsed:.1f} s wall clock")
