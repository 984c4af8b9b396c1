"""The README's and ARCHITECTURE's checkable claims, checked against the code: the exercise kinds
offered on chance trees, the figures (each the benchmarks page's latest table's), the `grader`
commands the README names, the rooms ARCHITECTURE names, and its glossary's rule for "replay"."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from grader.gametree import KINDS
from tests.kinds import built_in_kinds

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
ARCHITECTURE = (ROOT / "ARCHITECTURE.md").read_text()
BENCHMARKS = (ROOT / "docs" / "benchmarks.md").read_text()

# A performance figure as the pages write one: a duration, a ratio, a rate or a share.
FIGURE = re.compile(
    r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?"
    r"(?: ?(?:ms|s|x|M leaves/s|seconds|minutes)\b|%|x(?=\W))"
)


def latest_figures() -> str:
    """The benchmarks page's table of latest figures, the one place a figure lives."""
    start = BENCHMARKS.index("## Latest figures\n")
    return BENCHMARKS[start : BENCHMARKS.index("\n## ", start + 1)]


def test_the_benchmarks_page_says_how_to_run_every_benchmark() -> None:
    """The page is the guide: each benchmark that `make bench` runs has its command there, and
    the rounds live on the history page the guide points to."""
    guide = BENCHMARKS[BENCHMARKS.index("## How to run each benchmark") :]
    benchmarks = sorted(
        path.stem
        for path in (ROOT / "bench").glob("*.py")
        if not path.stem.startswith("_") and "\ndef main(" in path.read_text()
    )
    assert "gametree" in benchmarks
    assert [name for name in benchmarks if f"python -m bench.{name}" not in guide] == []
    assert "](benchmarks-history.md)" in BENCHMARKS
    assert (ROOT / "docs" / "benchmarks-history.md").exists()


def test_the_readme_leaves_the_kinds_on_chance_trees_to_the_game_trees_page() -> None:
    """A kind is listed in one place, its row in docs/game-trees.md: the README lists none."""
    said = re.search(r"Which\s+exercise kinds are offered on chance trees(.+?)\)\.", README, re.S)
    assert said, "the README no longer points at the kinds offered on chance trees"
    assert "](docs/game-trees.md#exercises-on-chance-trees)" in said.group(0)
    assert not any(f"`{name}`" in said.group(0) for name in KINDS)


def test_the_game_trees_page_offers_on_chance_trees_the_kinds_offered() -> None:
    page = (ROOT / "docs" / "game-trees.md").read_text()
    section = page[page.index("### Exercises on chance trees") :]
    table = section[: section.index("\n\n", section.index("| kind |"))]
    rows = dict(re.findall(r"^\| `([\w-]+)` \|.*\|(.*)\|$", table, re.M))
    assert set(rows) == set(built_in_kinds()), "the table has one row a kind of the package"
    for name, kind in built_in_kinds().items():
        refusal = rows[name].strip()
        if kind.chance_trees:
            assert refusal == "", name
        else:
            assert refusal == f'"{kind.no_chance_reason}"', name


@pytest.mark.parametrize(
    ("name", "text"), [("README.md", README), ("ARCHITECTURE.md", ARCHITECTURE)]
)
def test_every_figure_quoted_is_the_benchmarks_pages(name: str, text: str) -> None:
    table = latest_figures()
    quoted = FIGURE.findall(text)
    assert [figure for figure in quoted if figure not in table] == [], name
    # ARCHITECTURE.md is also a page of the site (docs/architecture.md), so it names the page.
    assert "](docs/benchmarks.md#latest-figures)" in text or (
        "`docs/benchmarks.md`'s table of latest figures" in " ".join(text.split())
    ), f"{name} does not point to the figures"


def test_the_figure_pattern_finds_what_pages_quote() -> None:
    found = FIGURE.findall("2.4 ms, 0.32x the no-op, 1,490x, 15.1 s, 98.2% and 1.74 M leaves/s")
    assert found == ["2.4 ms", "0.32x", "1,490x", "15.1 s", "98.2%", "1.74 M leaves/s"]
    assert FIGURE.findall("14/3 stays 14/3, shown as 4.67; 28 routes; 2-core") == []


def _commands(app) -> dict[str, click.Command]:
    from grader.cli import init_app, main

    init_app(app)
    return {**app.cli.commands, **main.commands}


def test_every_grader_command_the_readme_names_exists(app) -> None:
    commands = _commands(app)
    named = {words.strip() for words in re.findall(r"`grader ((?:[a-z][a-z-]* ?)+)", README)}
    assert {"worker", "db backup", "checkers play", "engine check"} <= named
    for words in sorted(named):
        group: dict[str, click.Command] = commands
        found = []
        for word in words.split():
            if word not in group:
                break  # what follows is an argument (DEST, SRC)
            found.append(word)
            command = group[word]
            group = command.commands if isinstance(command, click.Group) else {}
        assert found == words.split(), f"grader {words} is not a command"


def test_the_rooms_architecture_names_exist() -> None:
    """Every module path in backquotes (``grader/...``, ``services/...``, ``web/...``) is a file
    or folder of the package."""
    paths = set(re.findall(r"`((?:grader/|services/|web/|gametree/)[\w/.]*)`", ARCHITECTURE))
    assert "services/leases/runner.py" in paths
    missing = [
        path
        for path in sorted(paths)
        if not any((ROOT / prefix / path).exists() for prefix in ("", "grader", "grader/web"))
    ]
    assert missing == []


def test_the_print_job_runs_where_architecture_says() -> None:
    from grader.services.leases.runner import JobKind
    from grader.services.paper.printing import PRINT

    assert isinstance(PRINT, JobKind)
    assert "`paper.printing.PRINT`" in ARCHITECTURE
    assert "`services/leases/runner.py`" in ARCHITECTURE or "services/leases/runner.py" in (
        ARCHITECTURE
    )


REPLAY = re.compile(r"\b\w*[Rr]eplay\w*\b")


STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`')


def _code(path: Path) -> list[str]:
    """The file's lines as code: comment lines and string literals (words a person reads)
    left out."""
    marker = "#" if path.suffix == ".py" else "//"
    lines = path.read_text().splitlines()
    return [STRING.sub('""', line) for line in lines if not line.lstrip().startswith(marker)]


def test_a_bare_replay_in_code_is_always_the_search_replay() -> None:
    """ARCHITECTURE's glossary: ``replay`` alone in code is a search replay; a game's replay is
    ``GameReplay`` wherever a file names one, so no file mixes a game's with a bare one."""
    assert (
        "In code, `replay` alone (`replays`, `replay_allowed`, `answer_replays`) is always a "
        "search replay; a game's is always `GameReplay`." in " ".join(ARCHITECTURE.split())
    )
    files = [*ROOT.joinpath("grader").rglob("*.py"), *ROOT.joinpath("grader").rglob("*.js")]
    games = [path for path in files if any("GameReplay" in line for line in _code(path))]
    assert games, "no file names GameReplay"
    for path in games:
        names = {name for line in _code(path) for name in REPLAY.findall(line)}
        assert names <= {"GameReplay"}, f"{path.relative_to(ROOT)}: {sorted(names)}"
