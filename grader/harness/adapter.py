"""The only code of the grader that runs inside the sandbox, beside the student's engine.

Standard library only; imports nothing of `grader` (it is copied into the sandbox alone).

    python3 -I -S adapter.py SUBMISSION_DIR LIMITS_JSON

It first sets the resource limits it is given (``{"RLIMIT_CPU": [soft, hard], ...}``: they bind
it and every process the engine starts, and nothing in the sandbox can raise them), then keeps private duplicates of stdin and stdout for the protocol, then points the student's
fd 0 at /dev/null and fds 1 and 2 at the log (the harness reads fd 2 through a capped pipe),
so nothing the engine prints can reach the protocol. It imports ``engine`` from SUBMISSION_DIR
and answers JSON lines, one request and one response a line:

    -> {"id": 0, "ok": true, "hello": "engine", "functions": [...], "python": "3.11.2",
        "arity": {"search": 4, ...}}
    <- {"id": 1, "call": "search", "args": ["B:W...:B...", 4]}
    -> {"id": 1, "ok": true, "result": {...}, "cpu": 0.41, "wall": 0.42}
    -> {"id": 1, "ok": false, "error": "exception", "type": "ValueError", "message": "...",
        "errno": null, "traceback": "...last lines...", "cpu": 0.0, "wall": 0.0}

``error`` is ``exception`` (the engine raised), ``unserialisable`` (the result is not JSON),
``missing`` (no such function) or ``request`` (a malformed request: the harness's fault).
The hello reports an import failure the same way, with ``"id": 0, "ok": false``.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from types import TracebackType

FUNCTIONS = ("legal_moves", "search", "choose_move", "search_parallel")
TRACEBACK_LINES = 12
MESSAGE_CHARS = 2000


def _cpu() -> float:
    """CPU seconds of this process and its waited-for children (search_parallel's workers)."""
    try:
        import resource
    except ImportError:  # not on POSIX: this process only
        return time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _student_frames(tb: TracebackType | None) -> list[traceback.FrameSummary]:
    """The traceback's frames less the adapter's and the import machinery's."""
    frames = traceback.extract_tb(tb)
    return [
        f
        for f in frames
        if f.filename != __file__
        and "importlib" not in f.filename
        and not f.filename.startswith("<frozen")
    ]


def _failure(exc: BaseException, kind: str = "exception") -> dict:
    text = [
        "Traceback (most recent call last):\n",
        *traceback.format_list(_student_frames(exc.__traceback__)),
        *traceback.format_exception_only(type(exc), exc),
    ]
    lines = "".join(text).splitlines()
    return {
        "ok": False,
        "error": kind,
        "type": type(exc).__name__,
        "message": str(exc)[:MESSAGE_CHARS],
        "errno": getattr(exc, "errno", None) if isinstance(exc, OSError) else None,
        "traceback": "\n".join(lines[-TRACEBACK_LINES:])[-MESSAGE_CHARS * 2 :],
    }


class Channel:
    """The protocol's private ends: JSON lines in, JSON lines out."""

    def __init__(self) -> None:
        self.fd_in = os.dup(0)  # non-inheritable: spawned workers do not get them
        self.fd_out = os.dup(1)
        self.reader = os.fdopen(self.fd_in, "rb", buffering=1 << 16)

    def send(self, message: dict) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        while data:
            written = os.write(self.fd_out, data)
            data = data[written:]

    def receive(self) -> dict | None:
        line = self.reader.readline()
        return json.loads(line) if line else None


def _redirect_student_io() -> None:
    """fd 0 <- /dev/null; fds 1 and 2 -> the log (fd 2 as the harness gave it)."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = open(  # noqa: SIM115
        1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False
    )
    sys.stderr = open(  # noqa: SIM115
        2, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False
    )


def _arity(function: object) -> int:
    """The most positional arguments `function` accepts (99 for *args; -1 if unknown)."""
    import inspect

    if not callable(function):
        return -1
    try:
        parameters = inspect.signature(function).parameters.values()
    except Exception:  # the engine's object: a signature that cannot be read is unknown
        return -1
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return 99
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


def _load(submission: str) -> object:
    sys.path.insert(0, submission)
    import importlib

    return importlib.import_module("engine")


def _limit(limits: dict[str, list[int]]) -> None:
    import resource

    for name, (soft, hard) in limits.items():
        resource.setrlimit(getattr(resource, name), (soft, hard))


def serve(submission: str, limits: dict[str, list[int]]) -> int:
    _limit(limits)
    channel = Channel()
    _redirect_student_io()
    try:
        engine = _load(submission)
    except BaseException as exc:  # the engine's import is the student's code: report anything
        channel.send({"id": 0, **_failure(exc)})
        return 0
    functions = [name for name in FUNCTIONS if callable(getattr(engine, name, None))]
    channel.send(
        {
            "id": 0,
            "ok": True,
            "hello": "engine",
            "functions": functions,
            "python": ".".join(map(str, sys.version_info[:3])),
            "arity": {name: _arity(getattr(engine, name)) for name in functions},
        }
    )
    while True:
        try:
            request = channel.receive()
        except ValueError as exc:
            channel.send({"id": None, **_failure(exc, "request")})
            continue
        if request is None:
            return 0
        ident = request.get("id")
        name, args = request.get("call"), request.get("args", [])
        function = getattr(engine, name, None) if name in FUNCTIONS else None
        if not callable(function):
            channel.send(
                {
                    "id": ident,
                    "ok": False,
                    "error": "missing",
                    "type": "",
                    "message": f"the engine has no function {name}()",
                    "errno": None,
                    "traceback": "",
                }
            )
            continue
        cpu0, wall0 = _cpu(), time.perf_counter()
        try:
            result = function(*args)
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: all the engine's
            response = {"id": ident, **_failure(exc)}
        else:
            response = {"id": ident, "ok": True, "result": result}
        response["cpu"] = _cpu() - cpu0
        response["wall"] = time.perf_counter() - wall0
        try:
            channel.send(response)
        except Exception as exc:  # not JSON: a set, an object, a cycle, too deep a nesting
            failure = _failure(exc, "unserialisable")
            failure["traceback"] = ""
            channel.send({"id": ident, **failure, "cpu": response["cpu"], "wall": response["wall"]})


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1], json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}))
