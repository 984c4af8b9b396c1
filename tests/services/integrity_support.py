"""Helpers of the integrity tests: disguised copies of a real engine (made from its source by
the standard library's tokenizer and parser, so each disguise is exactly the one named), the
independently written engines of the repository, uploads through the real intake, and a
check run in this process by the worker's job body."""

from __future__ import annotations

import ast
import io
import keyword
import tokenize
from pathlib import Path
from typing import Any

from tests.harness._helpers import ENGINES

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL = ENGINES / "correct.py"
# What the grader calls: a copy that still works keeps these names.
PROTOCOL = {"legal_moves", "search", "search_parallel", "choose_move"}


def _defined_names(source: str) -> set[str]:
    """Every name the module itself defines: functions, classes, arguments, assigned names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
    return found - PROTOCOL - set(keyword.kwlist)


def renamed(source: str) -> str:
    """Every identifier the module defines renamed (the protocol's four kept); the rest of the
    text, comments and layout included, as it was."""
    names = sorted(_defined_names(source))
    new = {name: f"{name[0]}x{i}_{len(name)}" for i, name in enumerate(names)}
    tokens = [
        t._replace(string=new.get(t.string, t.string)) if t.type == tokenize.NAME else t
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
    ]
    return tokenize.untokenize(tokens)


def reordered(source: str) -> str:
    """The module's functions and classes in the reverse order, after everything else (its
    docstring, imports and tables, kept in place); each definition's text unchanged."""
    lines = source.splitlines(keepends=True)
    head, defs = [], []
    for node in ast.parse(source).body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = "".join(lines[start - 1 : node.end_lineno])
        (defs if isinstance(node, ast.FunctionDef | ast.ClassDef) else head).append(text)
    return "\n".join(head) + "\n\n" + "\n\n\n".join(reversed(defs)) + "\n"


def recommented(source: str) -> str:
    """Its comments removed, other comments written, blank lines taken out and added."""
    kept = [
        t
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type != tokenize.COMMENT
    ]
    text = tokenize.untokenize(kept)
    out = []
    for number, line in enumerate(text.splitlines()):
        if not line.strip():
            continue  # every blank line goes
        out.append(line.rstrip())
        if line.rstrip().endswith(":"):
            indent = len(line) - len(line.lstrip()) + 4
            out.append(" " * indent + f"# step {number}: see my notes")
        elif number % 7 == 0:
            out.append("")  # and a few come back elsewhere
    return "\n".join(out) + "\n"


DISGUISES = {"renamed": renamed, "reordered": reordered, "recommented": recommented}


# The sample engines written each for its own fault, sharing nothing with each other beyond the
# protocol's names (the ones left out change one function of the correct engine or copy one,
# or are twins written from one pattern: the protocol_* engines).
SAMPLES = (
    "snoop",
    "network",
    "fork_bomb",
    "memory_hog",
    "infinite_loop",
    "crash_at_import",
    "illegal_mover",
    "flood",
    "sleeper",
    "closes_pipe",
)


def independent_engines() -> dict[str, str]:
    """Engines of the repository written independently of each other: the correct sample
    engine, the mailbox draughts written to check the checkers core from outside (it shares no
    code with it), the reference engine itself, and the fault samples above."""
    found = {"correct": ORIGINAL.read_text()}
    found["mailbox"] = (ROOT / "tests" / "checkers" / "_independent.py").read_text()
    found["reference"] = (ROOT / "grader" / "checkers" / "engine.py").read_text()
    for name in SAMPLES:
        found[name] = (ENGINES / f"{name}.py").read_text()
    return found


def upload(app: Any, email: str, assignment_id: int, index: int, text: str | bytes) -> int:
    """An upload through the real intake (the archive policy, the blob); its submission id."""
    from grader.services import accounts
    from grader.services.engines import submissions

    data = text.encode() if isinstance(text, str) else text
    name = "engine.zip" if data[:4] == b"PK\x03\x04" else "engine.py"
    with app.app_context():
        user = accounts.user_by_email(email)
        return submissions.upload(user, assignment_id, index, data, name).id


def run_check(app: Any, check_id: int) -> dict[str, Any]:
    """The check run here as a worker runs it; its result."""
    from grader.extensions import db
    from grader.jobs import run_integrity
    from grader.models import IntegrityCheck

    with app.app_context():
        assert run_integrity(check_id, "test-worker") == "done"
        return db.session.get_one(IntegrityCheck, check_id).result or {}
