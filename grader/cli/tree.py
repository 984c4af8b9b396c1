"""`grader tree ...`: generate, solve, grade and draw game trees (plain text, or JSON with --json)."""

# Whole: the `grader tree` group: its commands share the tree and convention options.

from __future__ import annotations

import functools
import inspect
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.text import Text
from rich.tree import Tree as RichTree

from grader import data
from grader.config import data_dir
from grader.gametree import (
    GENERATOR_VERSION,
    KINDS,
    Conventions,
    GenerationError,
    GeneratorParams,
    Order,
    SearchResult,
    Ties,
    Tree,
    TreeFormatError,
    UngradableAnswer,
    ValuesRule,
    best_order,
    generate,
    grade,
    parse_leaves,
    parse_range,
    solve,
)
from grader.gametree import cs188 as cs188_rules
from grader.gametree.calibrate import (
    MISCONCEPTION_CEILING,
    SLIP_FLOOR,
    SlotError,
    calibrate_tables,
)
from grader.gametree.cs188 import CS188Answer
from grader.gametree.exact import exact_text
from grader.gametree.explain import Explainer, fmt
from grader.gametree.generator import (
    CHANCE_GENERATOR_VERSION,
    DEFAULTS,
    ChanceParams,
    generate_chance,
    range_text,
)
from grader.gametree.kinds import ExerciseKind, default_kind
from grader.gametree.kinds.best_order import BestOrderKind
from grader.gametree.numbers import NumberError, read_number
from grader.gametree.solver import TIES
from grader.gametree.tree import EXPECTIMAX_ALGORITHMS, CS188Problem, probability_text, read_cs188


class KindChoice(click.Choice):
    """The registered exercise kinds (those ``offered`` keeps), read from the registry each time
    the choice is shown or checked, so a kind registered later is offered too."""

    def __init__(self, offered: Callable[[ExerciseKind], bool] = lambda kind: True) -> None:
        self.offered = offered
        super().__init__([])

    @property  # type: ignore[override]
    def choices(self) -> list[str]:
        return [name for name, kind in KINDS.items() if self.offered(kind)]

    @choices.setter
    def choices(self, value: object) -> None:
        """Click sets the choices it was built with (none): the registry's are read instead."""


def _fail(message: str) -> NoReturn:
    raise click.UsageError(message)


def read_tree(
    tree: str | None,
    leaves: str | None,
    branching: int | None,
    depth: int | None,
    cs188: Path | None,
    players: str | None,
) -> Tree:
    """The tree from whichever input was given: nested list or JSON object, leaves, or a .test file."""
    given = [x for x in (tree, leaves, cs188) if x is not None]
    if len(given) != 1:
        _fail("give exactly one of --tree, --leaves (with --branching and --depth) or --cs188")
    try:
        if cs188 is not None:
            result = Tree.from_cs188(cs188.read_text())
        elif leaves is not None:
            if branching is None or depth is None:
                _fail("--leaves needs --branching and --depth")
            result = Tree.from_nested(parse_leaves(leaves, branching, depth))
        else:
            assert tree is not None  # exactly one of the three was given
            text = Path(tree[1:]).read_text() if tree.startswith("@") else tree
            data = json.loads(text)
            result = Tree.from_dict(data) if isinstance(data, dict) else Tree.from_nested(data)
        if players is not None:
            result = Tree(result.root, players)
    except json.JSONDecodeError as error:
        _fail(f"--tree is not JSON: {error}")
    except (TreeFormatError, OSError) as error:
        _fail(str(error))
    return result


def tree_options(command: Callable | None = None, *, required: bool = True) -> Callable:
    """The options that say which tree a command works on; ``tree`` is None when not ``required``
    and none was given."""
    if command is None:
        return functools.partial(tree_options, required=required)
    options = [
        click.option("--tree", help="Nested list, JSON object {tree, players}, or @file."),
        click.option("--leaves", help="Comma-separated leaf values of a uniform tree."),
        click.option("--branching", type=int, help="With --leaves: children per node."),
        click.option("--depth", type=int, help="With --leaves: levels below the root."),
        click.option(
            "--cs188", type=click.Path(exists=True, path_type=Path), help="A CS188 .test file."
        ),
        click.option(
            "--players",
            help="Players per level from the root, e.g. max,min,min or max,chance,min,chance.",
        ),
    ]
    for option in reversed(options):
        command = option(command)

    wants_problem = "cs188_problem" in inspect.signature(command).parameters

    @functools.wraps(command)
    def wrapper(
        tree: str | None,
        leaves: str | None,
        branching: int | None,
        depth: int | None,
        cs188: Path | None,
        players: str | None,
        **kwargs: Any,
    ) -> Any:
        if wants_problem:
            kwargs["cs188_problem"] = None
            if cs188 is not None and tree is None and leaves is None:
                kwargs["cs188_problem"] = read_problem(cs188)
        if not required and tree is None and leaves is None and cs188 is None:
            return command(tree=None, **kwargs)
        return command(tree=read_tree(tree, leaves, branching, depth, cs188, players), **kwargs)

    return wrapper


def read_problem(path: Path) -> CS188Problem:
    try:
        return read_cs188(path.read_text())
    except (TreeFormatError, OSError) as error:
        _fail(str(error))
        raise  # unreachable: _fail raises


def parse_bounds(text: str) -> tuple[Any, Any]:
    """``"0..10"``, ``"-inf..10"``: the leaf bounds [L, U]."""
    low, sep, high = text.partition("..")
    if not sep:
        raise ValueError(f"bounds are written L..U, e.g. 0..10, got {text!r}")
    try:
        return (read_number(low), read_number(high))
    except NumberError as error:
        raise ValueError(f"each bound of L..U {error}") from None


def convention_options(command: Callable) -> Callable:
    command = click.option(
        "--bounds",
        help="Leaf values lie in L..U (e.g. 0..10): Star1 cuts at chance nodes with them.",
    )(command)
    command = click.option(
        "--depth-limit",
        type=click.IntRange(1, 64),
        help="Search this many plies; a node there is scored by its evaluation.",
    )(command)
    command = click.option("--order", type=click.Choice(["ltr", "rtl"]), default="ltr")(command)
    command = click.option(
        "--values", "values_", type=click.Choice(["soft", "hard"]), default="soft"
    )(command)
    command = click.option("--ties", type=click.Choice(TIES), default=TIES[0])(command)

    @functools.wraps(command)
    def wrapper(
        ties: str,
        values_: str,
        order: str,
        depth_limit: int | None,
        bounds: str | None,
        **kwargs: Any,
    ) -> Any:
        try:
            leaf_bounds = parse_bounds(bounds) if bounds is not None else None
            conventions = Conventions(
                Ties(ties), ValuesRule(values_), Order(order), depth_limit, leaf_bounds
            )
        except ValueError as error:
            _fail(str(error))
        return command(conventions=conventions, **kwargs)

    return wrapper


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def emit(data: Any) -> None:
    click.echo(json.dumps(data))


@click.group()
def tree() -> None:
    """Game trees: generate, solve, grade, best order, show."""


@tree.command("generate")
@click.option(
    "--seed", required=True, help="Any integer or text; the same seed gives the same tree."
)
@click.option("--depth", type=int, default=DEFAULTS["depth"], show_default=True)
@click.option("--branching", default=range_text(DEFAULTS["branching"]), show_default=True)
@click.option(
    "--values", "value_range", default=range_text(DEFAULTS["values"], ".."), show_default=True
)
@click.option("--distinct", is_flag=True, help="All leaf values different.")
@click.option("--players", default="max,min", show_default=True)
@click.option("--ties", type=click.Choice(TIES), default=TIES[0])
@click.option(
    "--returns", type=click.Choice(["soft", "hard"]), default="soft", help="values convention"
)
@click.option("--order", type=click.Choice(["ltr", "rtl"]), default="ltr")
@click.option(
    "--bounds",
    "leaf_bounds",
    help="The leaf bounds L..U the exercise states (chance trees: Star1 cuts with them).",
)
@click.option("--min-cutoffs", type=int, default=0)
@click.option("--min-deep-cutoffs", type=int, default=0)
@click.option("--min-star1-cutoffs", type=int, default=0, help="Chance trees: cutoffs at chance.")
@click.option(
    "--misconception-errors",
    type=int,
    default=0,
    help="Each misconception that changes the answer this many errors or more.",
)
@click.option("--leaves-evaluated", help="A range of leaves alpha-beta evaluates, e.g. 8-14.")
@click.option("--max-cutoffs", type=int, help="A band: at most this many cutoffs.")
@click.option("--pruned-nodes", help="A band: the nodes to mark pruned (topmost), e.g. 8-10.")
@click.option("--answers", help="A band: the answers a student gives (the key's size), e.g. 9-11.")
@click.option(
    "--never-key",
    help="A band: misconceptions that never give the key, e.g. no-pruning,leaves-only.",
)
@click.option(
    "--discriminating", is_flag=True, help="Every misconception gives a different answer."
)
@click.option("--kind", type=KindChoice(), default=default_kind(), show_default=True)
@click.option("--max-tries", type=int, default=DEFAULTS["max_tries"], show_default=True)
@json_option
def generate_command(
    seed: str,
    value_range: str,
    ties: str,
    returns: str,
    order: str,
    leaf_bounds: str | None,
    as_json: bool,
    **params: Any,
) -> None:
    """Generate a tree meeting the constraints, the same for the same seed everywhere: each
    parameter of a preset's slot is an option here, so a class's trees can be made from the
    command line exactly as the preset makes them."""
    conventions: dict[str, Any] = {"ties": ties, "values": returns, "order": order}
    try:
        if leaf_bounds is not None:
            conventions["bounds"] = list(parse_bounds(leaf_bounds))
        generator = GeneratorParams.from_dict(
            {
                **{k: v for k, v in params.items() if v is not None},
                "values": value_range,
                "conventions": conventions,
            }
        )
        result = generate(generator, _seed(seed))
    except (GenerationError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    _show_generated(
        result,
        generator.conventions,
        as_json,
        seed=seed,
        generator_version=GENERATOR_VERSION,
        params=generator.to_dict(),
    )


@tree.command("generate-chance")
@click.option(
    "--seed", required=True, help="Any integer or text; the same seed gives the same tree."
)
@click.option("--depth", type=int, default=3, show_default=True)
@click.option("--branching", default="2-3", show_default=True, help="Within 2..4.")
@click.option("--players", default="max,chance", show_default=True)
@click.option(
    "--bounds", "leaf_bounds", default="0..10", show_default=True, help="Leaf values L..U."
)
@click.option("--uniform", is_flag=True, help="Every chance node's children equally likely.")
@click.option("--ties", type=click.Choice(TIES), default=TIES[0])
@click.option(
    "--returns", type=click.Choice(["soft", "hard"]), default="soft", help="values convention"
)
@click.option("--order", type=click.Choice(["ltr", "rtl"]), default="ltr")
@click.option("--min-star1-cutoffs", type=int, default=0, help="Cutoffs at chance nodes.")
@click.option(
    "--discriminating", is_flag=True, help="Every misconception gives a different answer."
)
@click.option("--kind", type=KindChoice(lambda kind: kind.chance_trees))
@click.option("--max-tries", type=int, default=2000, show_default=True)
@json_option
def generate_chance_command(
    seed: str,
    depth: int,
    branching: str,
    players: str,
    leaf_bounds: str,
    uniform: bool,
    ties: str,
    returns: str,
    order: str,
    min_star1_cutoffs: int,
    discriminating: bool,
    kind: str | None,
    max_tries: int,
    as_json: bool,
) -> None:
    """Generate a chance tree (expectimax, expectiminimax) with leaves in the bounds and
    probabilities from 1/2, 1/3, 2/3, 1/4, 3/4, the same for the same seed everywhere."""
    try:
        low, high = parse_range(leaf_bounds.replace("..", ":"))
        params = ChanceParams(
            depth=depth,
            branching=parse_range(branching),
            players=tuple(players.split(",")),
            bounds=(low, high),
            uniform=uniform,
            conventions=Conventions(Ties(ties), ValuesRule(returns), Order(order)),
            min_star1_cutoffs=min_star1_cutoffs,
            discriminating=discriminating,
            kind=kind or default_kind(),
            max_tries=max_tries,
        )
        result = generate_chance(params, _seed(seed))
    except (GenerationError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    _show_generated(
        result,
        params.conventions,
        as_json,
        seed=seed,
        generator_version=CHANCE_GENERATOR_VERSION,
        conventions=params.conventions.to_dict(),
    )


def _seed(seed: str) -> int | str:
    """A seed as typed: a whole number is the number, anything else the text."""
    return int(seed) if seed.lstrip("-").isdigit() else seed


def _show_generated(tree_: Tree, conventions: Conventions, as_json: bool, /, **facts: Any) -> None:
    """A generated tree: with --json, its dict and `facts` (its seed and what made it); else its
    nested form and its drawing, solved."""
    if as_json:
        emit({**tree_.to_dict(), **facts})
        return
    click.echo(json.dumps(tree_.to_nested()))
    draw(tree_, solve(tree_, conventions))


def _solve_request(request: Any) -> dict:
    if not isinstance(request, dict) or "tree" not in request:
        raise ValueError('each line must be a JSON object with a "tree"')
    unknown = set(request) - {"tree", "players", "ties", "values", "order", "bounds"}
    if unknown:
        raise ValueError(f"unknown field {sorted(unknown)[0]!r}")
    tree_ = Tree.from_nested(request["tree"], request.get("players"))
    conventions = Conventions.from_dict(
        {k: request[k] for k in ("ties", "values", "order", "bounds") if k in request}
    )
    return solve(tree_, conventions).to_dict()


@tree.command("export")
@tree_options
@convention_options
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(["svg", "latex"]),
    required=True,
    help="A standalone SVG, or a LaTeX document (forest/TikZ: pdflatex compiles it).",
)
@click.option(
    "--key",
    "key_kind",
    type=KindChoice(),
    help="Write this kind's key on the tree (as the printed exams' key does).",
)
@click.option("--width-mm", type=click.FloatRange(60, 2000), default=180.0, show_default=True)
def export_command(
    tree: Tree, conventions: Conventions, fmt_: str, key_kind: str | None, width_mm: float
) -> None:
    """A tree, with or without its key, for documents of one's own (exams, slides)."""
    from grader.gametree.drawing import PaperBoxes, tree_latex, tree_svg

    shown = tree.cut(conventions.depth)
    paper = None
    if key_kind is not None:
        kind = KINDS[key_kind]
        try:
            kind.check_tree(shown)
            paper = kind.paper(shown, kind.key(shown, conventions))
        except ValueError as error:
            _fail(str(error))
    if fmt_ == "latex":
        click.echo(
            tree_latex(
                shown,
                marks=paper.marks if paper else None,
                lines=paper.lines if paper else (),
            ),
            nl=False,
        )
        return
    click.echo(
        tree_svg(
            shown,
            width_mm=width_mm,
            boxes=paper.boxes if paper else PaperBoxes(()),
            marks=paper.marks if paper else None,
            struck=paper.struck if paper else (),
            lines=paper.lines if paper else (),
        )
    )


@tree.command("solve")
@click.option(
    "--batch", is_flag=True, help="One JSON request a line on stdin, one result a line out."
)
@tree_options(required=False)
@convention_options
@json_option
def solve_command(
    batch: bool,
    tree: Tree | None,
    conventions: Conventions,
    as_json: bool,
    cs188_problem: CS188Problem | None = None,
) -> None:
    """Solve a tree with alpha-beta: value, best move, leaf order, pruned nodes, cutoffs. Chance
    nodes take the weighted average of their children (expectimax, expectiminimax); with --bounds
    Star1 cuts at them.

    With --cs188 the file's own rules apply: its algorithm (MinimaxAgent, AlphaBetaAgent or
    ExpectimaxAgent: every ghost a uniform chance node), its depth (one ply per agent) and CS188's
    strict tie rule; the output adds CS188's action and the states it expands."""
    if batch:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                emit(_solve_request(json.loads(line)))
            except (ValueError, TypeError) as error:  # JSONDecodeError and TreeFormatError too
                emit({"error": str(error)})
        return
    if tree is None:
        _fail("give a tree (--tree, --leaves or --cs188), or --batch")
    tree_ = tree
    cs188: tuple[CS188Problem, CS188Answer] | None = None
    if cs188_problem is not None:
        try:
            cs188 = cs188_problem, cs188_rules.answer(cs188_problem)
        except TreeFormatError as error:
            raise click.ClickException(str(error)) from None
        result = cs188[1].result
        tree_ = result.tree
    else:
        try:
            result = solve(tree_, conventions)
        except TreeFormatError as error:
            raise click.ClickException(str(error)) from None
    if as_json:
        data = result.to_dict()
        if cs188 is not None:
            problem, answer = cs188
            data = {
                **data,
                "cs188": {
                    "alg": problem.alg,
                    "action": answer.action,
                    "expanded": list(answer.expanded),
                },
            }
        emit(data)
        return
    if cs188 is not None:
        problem, answer = cs188
        rules = (
            "ghosts uniform chance nodes, nothing pruned"
            if problem.alg in EXPECTIMAX_ALGORITHMS
            else "strict ties"
        )
        click.echo(f"CS188 {problem.alg}, depth {problem.depth} ({problem.plies} plies), {rules}")
        click.echo(f"action: {answer.action}")
        click.echo("expanded: " + " ".join(answer.expanded))
    labels = tree_.labels()
    click.echo(f"value: {shown(result.value)}")
    if result.note:
        click.echo(f"note: {result.note}")
    if result.best_move is not None:
        click.echo(f"best move: {result.best_move} (to {labels[str(result.best_move)]})")
    click.echo("leaf order: " + " ".join(labels[p] for p in result.leaf_order))
    click.echo("pruned: " + (" ".join(labels[p] for p in result.pruned) or "nothing"))
    explainer = Explainer(result)
    for cutoff in result.cutoffs:
        click.echo("  " + explainer.cutoff(cutoff))
    draw(tree_, result)


@tree.command("grade")
@tree_options
@convention_options
@click.option("--kind", type=KindChoice(), required=True)
@click.option(
    "--answer", required=True, help='JSON, e.g. {"pruned": ["1.1"], "value": 3}, or @file.'
)
@json_option
def grade_command(
    tree: Tree, conventions: Conventions, kind: str, answer: str, as_json: bool
) -> None:
    """Grade an answer: score, how it came about, parts, feedback and the misconception."""
    try:
        data = json.loads(Path(answer[1:]).read_text() if answer.startswith("@") else answer)
        result = grade(kind, tree, conventions, data)
    except json.JSONDecodeError as error:
        raise click.UsageError(f"--answer is not JSON: {error}") from None
    except UngradableAnswer as error:
        raise click.ClickException(f"cannot grade this answer: {error}") from None
    if as_json:
        emit(result.to_dict())
        return
    click.echo(f"score: {result.score:.3f}")
    click.echo("how: " + KINDS[kind].scoring_words(result.scoring, tree.labels()))
    click.echo("parts: " + ", ".join(f"{k} {v:.3f}" for k, v in result.parts.items()))
    if result.diagnosis:
        alike = f" (the same answer as {' or '.join(result.candidates[1:])})"
        click.echo(f"diagnosis: {result.diagnosis}{alike if len(result.candidates) > 1 else ''}")
    for line in result.feedback:
        click.echo(f"- {line}")


@tree.command(BestOrderKind.name)
@tree_options
@convention_options
@json_option
def best_order_command(tree: Tree, conventions: Conventions, as_json: bool) -> None:
    """The least number of leaves alpha-beta can evaluate, and a reordered tree that reaches it."""
    try:
        ordering = best_order(tree, conventions)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    given = len(solve(tree, conventions).leaf_order)
    if as_json:
        emit(
            {
                "leaves": ordering.leaves,
                "given_leaves": given,
                "orders": ordering.orders,
                "tree": ordering.tree.to_nested(),
            }
        )
        return
    click.echo(f"least leaves evaluated: {ordering.leaves} (this order: {given})")
    click.echo(f"reordered tree: {json.dumps(ordering.tree.to_nested())}")


@tree.command("show")
@tree_options
@convention_options
@click.option(
    "--solve", "with_solution", is_flag=True, help="Mark visited and pruned nodes, with alpha/beta."
)
def show_command(tree: Tree, conventions: Conventions, with_solution: bool) -> None:
    """Draw the tree in the terminal: labels, values and MAX/MIN per level."""
    draw(tree, solve(tree, conventions) if with_solution else None)


def shown(value: Any) -> str:
    """A value as everywhere (``fmt``), with its exact fraction beside it where it is rounded."""
    text, exact = fmt(value), exact_text(value)
    return text if text == exact else f"{text} (= {exact})"


PLAYER_STYLES = {"MAX": "cyan", "MIN": "magenta", "CHANCE": "yellow"}


def draw(tree_: Tree, result: SearchResult | None = None) -> None:
    """The tree as an outline, each node with its label, player and value (a chance node's
    children with their probability)."""
    labels = tree_.labels()

    def text(path: str) -> Text:
        node = tree_.node(path)
        player = tree_.player(path).upper()
        line = Text()
        parent = path.rpartition(".")[0] if path else None
        chances = tree_.probabilities(parent) if parent is not None else None
        if chances is not None:
            line.append(f"p={probability_text(chances[int(path.rpartition('.')[2])])} ", "dim")
        line.append(f"{labels[path]} ")
        if node.is_leaf:
            line.append(fmt(node.value), style="bold")
        else:
            line.append(player, style=PLAYER_STYLES[player])
        if result is None:
            return line
        visited = result.nodes.get(path)
        if visited is None:
            line.stylize("dim strike")
            line.append("  pruned", style="dim")
            return line
        if not node.is_leaf:
            line.append(f" = {shown(visited.value)}", style="bold")
            line.append(f"  α={fmt(visited.alpha)} β={fmt(visited.beta)}", style="yellow")
            cut = next((c for c in result.cutoffs if c.path == path), None)
            if cut is not None:
                star1 = " (Star1)" if cut.chance else ""
                deep = " (deep)" if cut.deep else ""
                line.append(f"  {cut.kind} cutoff{star1}{deep}", style="red")
        else:
            line.append(f"  #{result.leaf_order.index(path) + 1}", style="green")
        return line

    def add(branch: RichTree, path: str) -> None:
        for i in range(len(tree_.node(path).children)):
            child = f"{path}.{i}" if path else str(i)
            add(branch.add(text(child)), child)

    root = RichTree(text(""), guide_style="dim")
    add(root, "")
    Console(highlight=False, soft_wrap=True).print(root)


@tree.command("calibrate")
@click.option(
    "--preset",
    required=True,
    help="A preset name (exercises/presets/NAME.toml) or the path of an instructor's own file.",
)
@click.option("--seeds", type=click.IntRange(1, 10_000), default=100, show_default=True)
@json_option
def calibrate_command(preset: str, seeds: int, as_json: bool) -> None:
    """Mean scores, over SEEDS generated trees per slot, of the key, a single slip, plain minimax
    and every misconception variant: the goal is at most 0.5 for a misconception and at least 0.8
    for a slip. Beside each mean, the spread across the trees: the standard deviation, the seed of
    the tree farthest from the goal and the share of trees on which an answer equals the key; and
    the spread of what a student must do (answers to give, cutoffs, nodes to mark pruned, leaves
    evaluated)."""
    from grader.services.courses.courses import Invalid, read_preset

    path = Path(preset)
    if not path.is_file():
        path = data_dir(data.presets_dir(), "GRADER_PRESETS_DIR") / f"{preset}.toml"
    if not path.is_file() or path.suffix != ".toml":
        _fail(f"no preset {preset!r} (a name in exercises/presets/ or a .toml file)")
    try:
        loaded = read_preset(path, path.stem)
    except Invalid as error:
        _fail(str(error))

    def failed(index: int, error: GenerationError) -> click.ClickException:
        slot = loaded.slots[index - 1]
        return click.ClickException(f"slot {index} ({slot.title or slot.kind}): {error}")

    # The slots calibrated together (calibrate_slots), up to the first whose parameters are
    # refused: a slot before it that cannot produce trees is the first failure.
    calibrated: list[tuple[int, GeneratorParams]] = []
    refused: tuple[int, GenerationError] | None = None
    for index, slot in enumerate(loaded.slots, 1):
        if KINDS[slot.kind].measured:
            try:
                calibrated.append((index, GeneratorParams.from_dict(slot.params)))
            except GenerationError as error:
                refused = (index, error)
                break
    try:
        tables = calibrate_tables([params for _, params in calibrated], seeds)
    except SlotError as error:
        raise failed(calibrated[error.slot][0], error) from None
    if refused is not None:
        raise failed(*refused)
    by_slot = dict(zip([index for index, _ in calibrated], tables, strict=True))
    table: list[dict[str, Any]] = [
        {
            "slot": index,
            "title": slot.title or slot.kind,
            "kind": slot.kind,
            "rows": [r.to_dict() for r in by_slot[index].rows()] if index in by_slot else [],
            "spread": [s.to_dict() for s in by_slot[index].spreads()] if index in by_slot else [],
        }
        for index, slot in enumerate(loaded.slots, 1)
    ]
    if as_json:
        emit({"preset": loaded.name, "seeds": seeds, "slots": table})
        return
    click.echo(
        f"{loaded.title}: mean score over {seeds} trees a slot (goal: key 1, a slip >= "
        f"{SLIP_FLOOR} on every tree, each misconception <= {MISCONCEPTION_CEILING} on average)"
    )
    for entry in table:
        click.echo(f"\n{entry['slot']}. {entry['title']} ({entry['kind']})")
        if not entry["rows"]:
            click.echo(f"   {entry['kind']}: no misconception variants to calibrate against")
        for row in entry["rows"]:
            mark = "ok" if row["passes"] else "FAILS THE GOAL"
            click.echo(
                f"   {row['answer']:<18} mean {row['mean']:.3f}  worst {row['worst']:.3f}  "
                f"trees {row['trees']:>4}  {mark}"
            )
            click.echo(
                f"   {'':<18} sd {row['sd']:.3f}  high {row['high']:.3f}  worst seed "
                f"{row['worst_seed']}  gives the key on {row['key_share']:.0%} of the trees"
            )
        if entry["spread"]:
            click.echo("   what a student must do, over the trees:")
        for measured in entry["spread"]:
            click.echo(
                f"   {measured['words']:<31} mean {measured['mean']:6.2f}  sd "
                f"{measured['sd']:5.2f}  min {measured['low']:>3} (seed {measured['low_seed']})  "
                f"max {measured['high']:>3} (seed {measured['high_seed']})"
            )
