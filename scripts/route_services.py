"""How many service functions each route's view calls: the aim is one use case a view.

    python scripts/route_services.py [--list]

Reads grader/web's modules (nothing is run). A route is a function under a blueprint's
``get``/``post``/``route`` (or ``put``, ``patch``, ``delete``) decorator; a service function is
a lower-case name called through a name imported from ``grader.services`` (a module, as in
``roster.add_member(...)``, or a function imported by name). Prints how many routes call at most
one, and with --list each route calling two or more, with what it calls.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

WEB = Path(__file__).resolve().parents[1] / "grader" / "web"
VERBS = {"get", "post", "route", "put", "patch", "delete"}


def _service_names(tree: ast.Module) -> set[str]:
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.startswith("grader.services")
        for alias in node.names
    }


def _is_route(function: ast.FunctionDef) -> bool:
    return any(
        isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in VERBS
        for d in function.decorator_list
    )


def _calls(function: ast.FunctionDef, names: set[str]) -> set[str]:
    found = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        called = node.func
        if (
            isinstance(called, ast.Attribute)
            and isinstance(called.value, ast.Name)
            and called.value.id in names
            and called.attr[:1].islower()
        ):
            found.add(f"{called.value.id}.{called.attr}")
        elif isinstance(called, ast.Name) and called.id in names and called.id[:1].islower():
            found.add(called.id)
    return found


def routes() -> list[tuple[str, set[str]]]:
    """Each route as `module:function` with the service functions it calls."""
    out = []
    for path in sorted(WEB.rglob("*.py")):
        tree = ast.parse(path.read_text())
        names = _service_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and _is_route(node):
                where = f"{path.relative_to(WEB.parent).with_suffix('')}:{node.name}"
                out.append((where, _calls(node, names)))
    return out


def main(argv: list[str]) -> None:
    found = routes()
    several = [(where, calls) for where, calls in found if len(calls) > 1]
    print(
        f"{len(found) - len(several)} of the {len(found)} routes call at most one service function"
    )
    if "--list" in argv:
        for where, calls in several:
            print(f"  {where}: {', '.join(sorted(calls))}")


if __name__ == "__main__":
    main(sys.argv[1:])
