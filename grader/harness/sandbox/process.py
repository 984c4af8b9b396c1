"""Running an untrusted engine: bubblewrap, resource limits, a user per slot, a watchdog.

One `EngineProcess` is one sandboxed Python running harness/adapter.py on one submission.
The sandbox (``bwrap``, Debian's `bubblewrap`), as `bwrap_command` builds it:

- ``--unshare-all``: new user, pid, network (loopback only), ipc, uts and cgroup namespaces;
  ``--die-with-parent``, ``--new-session`` (no terminal injection), ``--cap-drop ALL``,
  ``--as-pid-1`` (the engine is pid 1 of its namespace: when it dies every process it started
  dies with it, and the harness reads its CPU time from /proc);
- ``--clearenv`` then only PATH, LANG, PYTHONDONTWRITEBYTECODE, PYTHONHASHSEED and HOME;
- the file system is ``/usr`` read-only (with the /bin, /lib, /lib64 links of a merged-/usr
  Debian), the submission read-only at /submission, the adapter alone read-only at /adapter,
  a private ``/tmp`` and ``/dev/shm`` of ``tmp_size`` bytes each, a fresh /proc and a minimal
  /dev. Nothing of /etc is bound (Python starts without it), nor the harness, the tests, the
  repository, the virtualenv or /root; the interpreter is the system's /usr/bin/python3.
- Outside the sandbox, when the harness is root, bwrap itself runs as the slot's own
  unprivileged user (``uid_base + slot``): RLIMIT_NPROC counts per real user and never binds
  root, and two slots must not share a process budget. Inside, the engine is uid 65534.

The adapter sets the resource limits (`Limits`) before it imports the engine: CPU time
(a backstop; each call's own limit is the watchdog's), address space, processes, file size,
open files and core dumps (0). The watchdog thread of each call kills the whole sandbox
(the process group of bwrap, and the engine by its pid) when the call passes its CPU or
wall-clock limit; a reader thread caps the engine's log (stdout and stderr, both on one pipe)
and kills it past the cap.

Without bubblewrap the harness refuses to run unless the caller asks for ``sandbox=False``
(``--no-sandbox``), which runs the adapter with the limits, as the slot's user when the harness
is root (so RLIMIT_NPROC binds and root's files stay closed), but without namespaces; the
results record it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from grader.harness import strict_json
from grader.harness.submission import SubmissionError, extract_zip
from grader.harness.verdicts import Verdict, worst

ADAPTER = Path(__file__).parents[1] / "adapter.py"
SANDBOX_UID = 65534  # the engine's uid inside the sandbox (nobody)
POLL = 0.02  # seconds between two looks of the watchdog
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
MEMORY_WORDS = ("MemoryError", "Cannot allocate memory", "out of memory", "bad_alloc")
MAX_SUBMISSION_BYTES = 8 << 20
MAX_SUBMISSION_FILES = 256


class SandboxError(RuntimeError):
    """The sandbox could not be set up or started: the harness's fault (IE), never the engine's."""


class SandboxUnavailable(SandboxError):
    """bubblewrap is missing or does not work here, and no one said --no-sandbox."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one engine process (the adapter applies them before the import)."""

    memory: int = 1 << 30  # RLIMIT_AS, bytes: the process's address space
    processes: int = 48  # RLIMIT_NPROC beyond the sandbox's own, for search_parallel's workers
    file_size: int = 16 << 20  # RLIMIT_FSIZE, bytes: one file in the private /tmp
    open_files: int = 128  # RLIMIT_NOFILE
    cpu_total: int = 900  # RLIMIT_CPU hard, seconds: a backstop for the process's whole life
    tmp_size: int = 16 << 20  # the private /tmp and /dev/shm, bytes each
    log_cap: int = 1 << 20  # the engine's output (stdout + stderr), bytes, before OLE
    log_keep: int = 16 << 10  # how much of the log's head is kept for the student
    line_cap: int = 4 << 20  # one protocol line (an answer), bytes, before PROTOCOL

    def rlimits(self, extra_processes: int = 0) -> dict[str, list[int]]:
        return {
            "RLIMIT_CORE": [0, 0],
            "RLIMIT_CPU": [self.cpu_total, self.cpu_total + 1],
            "RLIMIT_AS": [self.memory, self.memory],
            "RLIMIT_NPROC": [self.processes + extra_processes] * 2,
            "RLIMIT_FSIZE": [self.file_size, self.file_size],
            "RLIMIT_NOFILE": [self.open_files, self.open_files],
        }


def default_bwrap() -> str:
    return os.environ.get("GRADER_BWRAP") or shutil.which("bwrap") or "/usr/bin/bwrap"


@dataclass(frozen=True)
class SandboxConfig:
    """Where bwrap and the sandbox's Python are, which users the slots run as, the limits."""

    sandbox: bool = True
    bwrap: str = field(default_factory=default_bwrap)
    interpreter: str = field(
        default_factory=lambda: os.environ.get("GRADER_SANDBOX_PYTHON", "/usr/bin/python3"))
    uid_base: int = field(
        default_factory=lambda: int(os.environ.get("GRADER_SANDBOX_UID_BASE", "61000")))
    limits: Limits = field(default_factory=Limits)

    def check(self) -> None:
        """Raise SandboxUnavailable unless the sandbox can run (or is switched off)."""
        if not self.sandbox:
            return
        if not (os.path.isfile(self.bwrap) and os.access(self.bwrap, os.X_OK)):
            raise SandboxUnavailable(
                f"bubblewrap not found at {self.bwrap}: install it (Debian: apt-get install "
                "bubblewrap) or run with --no-sandbox on your own machine")
        if not os.path.isfile(self.interpreter):
            raise SandboxUnavailable(f"the sandbox's Python {self.interpreter} does not exist")

    def uid(self, slot: int) -> int | None:
        """The real user a slot's engine runs as (with or without the sandbox); None when the
        harness is not root and so cannot switch."""
        if os.geteuid() != 0:
            return None
        return self.uid_base + slot


# -- submissions ---------------------------------------------------------------------------

def prepare_submission(source: Path, dest: Path) -> Path:
    """Copy a submission (engine file, zip with engine.py at its top, or folder) into `dest`,
    readable by the sandbox's user; returns `dest`. Raises SubmissionError."""
    source = Path(source)
    dest.mkdir(mode=0o755, parents=True, exist_ok=True)
    if source.is_dir():
        files = [p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        _check_size(sum(p.stat().st_size for p in files), len(files))
        for path in files:
            target = dest / path.relative_to(source)
            target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    elif zipfile.is_zipfile(source):
        extract_zip(source, dest)  # the upload's own policy, checked again
    elif source.is_file():
        _check_size(source.stat().st_size, 1)
        shutil.copyfile(source, dest / "engine.py")
    else:
        raise SubmissionError(f"no such file: {source}")
    if not (dest / "engine.py").is_file():
        raise SubmissionError("the zip has no engine.py at its top")
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest


def _check_size(total: int, count: int) -> None:
    if total > MAX_SUBMISSION_BYTES or count > MAX_SUBMISSION_FILES:
        raise SubmissionError(f"the submission is too large ({count} files, {total} bytes; "
                              f"at most {MAX_SUBMISSION_FILES} files, {MAX_SUBMISSION_BYTES})")


# -- slots ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Slot:
    """One grading slot: its number, its own user and its own temporary folder."""

    number: int
    uid: int | None
    workdir: Path


def _lock_dir() -> Path:
    path = Path(tempfile.gettempdir()) / f"grader-harness-slots-{os.geteuid()}"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


@contextlib.contextmanager
def claim_slot(config: SandboxConfig, slots: int | None = None,
               wait: float = 3600.0) -> Iterator[Slot]:
    """Hold a free slot (a file lock, so separate processes share the slots) and its folder."""
    count = slots or os.cpu_count() or 1
    deadline = time.monotonic() + wait
    while True:
        for number in range(count):
            handle = open(_lock_dir() / f"slot-{number}.lock", "w")  # noqa: SIM115
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            workdir = Path(tempfile.mkdtemp(prefix=f"grader-slot{number}-"))  # 0700
            uid = config.uid(number)
            if uid is not None:  # the slot's user (bwrap) must reach what it binds; nobody else
                os.chown(workdir, -1, uid)
                workdir.chmod(0o750)
            try:
                yield Slot(number, uid, workdir)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
                handle.close()
            return
        if time.monotonic() > deadline:
            raise SandboxError(f"no free grading slot among {count} after {wait:.0f} s")
        time.sleep(0.2)


# -- the process ---------------------------------------------------------------------------

def bwrap_command(config: SandboxConfig, submission: Path, adapter_dir: Path,
                  info_fd: int) -> list[str]:
    """The bwrap arguments, up to (not including) the command run inside."""
    size = str(config.limits.tmp_size)
    command = [
        config.bwrap,
        "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        "--as-pid-1", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
        "--clearenv",
        "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "HOME", "/tmp",
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--setenv", "PYTHONHASHSEED", "0",
        "--ro-bind", "/usr", "/usr",
    ]
    for link in ("bin", "lib", "lib64", "sbin"):
        target = os.readlink(f"/{link}") if os.path.islink(f"/{link}") else None
        if target:
            command += ["--symlink", target, f"/{link}"]
        elif os.path.isdir(f"/{link}"):
            command += ["--ro-bind", f"/{link}", f"/{link}"]
    command += [
        "--proc", "/proc", "--dev", "/dev",
        "--size", size, "--tmpfs", "/tmp",
        "--size", size, "--tmpfs", "/dev/shm",
        "--ro-bind", str(submission), "/submission",
        "--ro-bind", str(adapter_dir), "/adapter",
        "--chdir", "/tmp",
        "--info-fd", str(info_fd),
    ]
    return command


@dataclass
class CallOutcome:
    """What one call to the engine gave: an answer (verdict None) or a verdict and why."""

    verdict: Verdict | None
    result: Any = None
    cpu: float = 0.0
    wall: float = 0.0
    detail: str = ""
    traceback: str = ""

    @property
    def answered(self) -> bool:
        return self.verdict is None


@dataclass
class _Evidence:
    """What the watchdog and the readers saw; turned into one verdict by PRIORITY."""

    cpu_exceeded: bool = False
    wall_exceeded: bool = False
    log_exceeded: bool = False
    protocol: str = ""


class EngineProcess:
    """One sandboxed adapter process on one submission: start it, call it, close it.

    Every call has a CPU and a wall-clock limit; a call that ends in a resource or protocol
    verdict kills the process (``alive`` turns false) and later calls need a new process.
    """

    def __init__(self, config: SandboxConfig, slot: Slot, submission: Path) -> None:
        self.config = config
        self.slot = slot
        self.submission = submission
        self.functions: tuple[str, ...] = ()
        self.python = ""
        self.arity: dict[str, int] = {}  # the most positional arguments each function takes
        self.log = bytearray()
        self.log_bytes = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._child_pid: int | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._evidence = _Evidence()
        self._next_id = 1
        self._threads: list[threading.Thread] = []

    # - life -
    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self, cpu_limit: float, wall_limit: float) -> CallOutcome:
        """Start the sandbox and wait for the adapter's hello (the engine's import): an outcome
        with verdict None on success. Raises SandboxError when the sandbox cannot start."""
        self.config.check()
        adapter_dir = self.slot.workdir / "adapter"
        adapter_dir.mkdir(mode=0o755, exist_ok=True)
        shutil.copyfile(ADAPTER, adapter_dir / "adapter.py")
        (adapter_dir / "adapter.py").chmod(0o644)
        limits = self.config.limits
        uid = self.slot.uid
        if self.config.sandbox:
            read_info, write_info = os.pipe()
            command = bwrap_command(self.config, self.submission, adapter_dir, write_info)
            command += [self.config.interpreter, "-I", "-S", "-B", "/adapter/adapter.py",
                        "/submission"]
            pass_fds: tuple[int, ...] = (write_info,)
            extra = 3 if uid is not None else _processes_of(os.geteuid()) + 3
        else:
            read_info = write_info = -1
            # A switched user cannot run a Python that lives under /root: the system's then.
            python = self.config.interpreter if uid is not None and \
                os.path.isfile(self.config.interpreter) else sys.executable
            command = [python, "-I", "-S", "-B", str(adapter_dir / "adapter.py"),
                       str(self.submission)]
            pass_fds = ()
            extra = 0 if uid is not None else _processes_of(os.geteuid())
        command.append(json.dumps(limits.rlimits(extra), separators=(",", ":")))
        user_args: dict[str, Any] = {}
        if uid is not None:
            user_args = {"user": uid, "group": uid, "extra_groups": []}
        try:
            self._proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=pass_fds, start_new_session=True, cwd=self.slot.workdir,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, **user_args)
        except OSError as exc:
            raise SandboxError(f"cannot start the sandbox: {exc}") from exc
        finally:
            if write_info >= 0:
                os.close(write_info)
        if self.config.sandbox:
            info = _read_all(read_info)
            try:
                self._child_pid = int(json.loads(info)["child-pid"])
            except (ValueError, KeyError, TypeError) as exc:
                self._proc.wait()
                assert self._proc.stderr is not None
                message = self._proc.stderr.read(4000).decode(errors="replace").strip()
                raise SandboxError(f"bubblewrap failed: {message or 'no child started'}"
                                   ) from exc
        else:
            self._child_pid = self._proc.pid
        self._threads = [
            threading.Thread(target=self._read_protocol, daemon=True),
            threading.Thread(target=self._read_log, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        hello = self._wait(0, cpu_limit, wall_limit, time.monotonic(), self._cpu())
        if hello.verdict is None:
            message = hello.result
            if not isinstance(message, dict) or message.get("hello") != "engine":
                # Only the engine, which shares the adapter's process, can write anything else.
                return self._fail(Verdict.PROTOCOL, "the engine wrote on the protocol channel "
                                                    "before the adapter's hello")
            self.functions = tuple(f for f in message.get("functions", ()) if isinstance(f, str))
            self.python = str(message.get("python", ""))
            arity = message.get("arity", {})
            self.arity = {name: n for name, n in arity.items() if isinstance(n, int)} \
                if isinstance(arity, dict) else {}
        return hello

    def close(self) -> None:
        """End the process (politely: closing stdin ends the adapter), then for sure."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                assert proc.stdin is not None
                proc.stdin.close()
            try:
                proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                self.kill()
        self.kill()
        for thread in self._threads:
            thread.join(timeout=2)
        for stream in (proc.stdout, proc.stderr, proc.stdin):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()

    def kill(self) -> None:
        """Kill the sandbox: the engine (pid 1 of its namespace, so all it started goes with
        it) and bwrap's process group; wait until the engine is gone."""
        proc = self._proc
        if proc is None:
            return
        child = self._child_pid if self._child_pid and self._child_pid != proc.pid else None
        if child and proc.poll() is None:  # while bwrap lives, the pid is surely the engine's
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(child, signal.SIGKILL)
            # bwrap reaps the engine and exits; killed first, it would leave a zombie behind
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=2)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        if child:
            deadline = time.monotonic() + 5
            while _running(child) and time.monotonic() < deadline:
                time.sleep(0.01)

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # - calls -
    def call(self, function: str, args: list[Any], cpu_limit: float,
             wall_limit: float) -> CallOutcome:
        """Call `function(*args)` in the engine under the limits; see CallOutcome."""
        if not self.alive:  # the harness starts a process per test: the engine ended it
            return CallOutcome(Verdict.RE, detail="the engine's process ended between calls")
        if function not in self.functions:
            return CallOutcome(Verdict.PROTOCOL,
                               detail=f"your engine does not define {function}()")
        ident = self._next_id
        self._next_id += 1
        request = json.dumps({"id": ident, "call": function, "args": args}) + "\n"
        cpu0, start = self._cpu(), time.monotonic()
        try:
            assert self._proc is not None and self._proc.stdin is not None
            self._proc.stdin.write(request.encode())
            self._proc.stdin.flush()
        except OSError:
            pass  # the process died: _wait sees it and says why
        return self._wait(ident, cpu_limit, wall_limit, start, cpu0)

    def _wait(self, ident: int, cpu_limit: float, wall_limit: float, start: float,
              cpu0: float | None) -> CallOutcome:
        """The watchdog: wait for answer `ident`, killing the sandbox past a limit."""
        while True:
            try:
                line = self._lines.get(timeout=POLL)
            except queue.Empty:
                line = b""
            if line:
                return self._answer(ident, line, cpu_limit, start, cpu0)
            if line is None or self._evidence.log_exceeded or not self.alive:
                return self._dead(cpu_limit, start, cpu0)
            cpu = self._used(cpu0)
            if cpu is not None and cpu > cpu_limit:
                self._evidence.cpu_exceeded = True
                self.kill()
                return self._dead(cpu_limit, start, cpu0)
            if time.monotonic() - start > wall_limit:
                self._evidence.wall_exceeded = True
                self.kill()
                return self._dead(cpu_limit, start, cpu0)

    def _answer(self, ident: int, line: bytes, cpu_limit: float, start: float,
                cpu0: float | None) -> CallOutcome:
        wall = time.monotonic() - start
        try:  # whatever is on the channel may be the engine's: malformed, nested, not UTF-8
            message = strict_json.loads(line)
            if not isinstance(message, dict) or message.get("id") != ident:
                raise ValueError(f"an answer to request {ident} expected")
        except ValueError as exc:
            self._evidence.protocol = "the engine wrote something that is not the adapter's " \
                                      f"answer on the protocol channel ({str(exc)[:200]})"
            self.kill()
            return self._dead(cpu_limit, start, cpu0)
        measured = self._used(cpu0)
        reported = message.get("cpu")
        reported = float(reported) if isinstance(reported, int | float) else None
        # /proc counts in clock ticks; the adapter's own figure is finer. It is believed only
        # where /proc, which the engine cannot touch, agrees with it to a couple of ticks.
        if measured is None:
            cpu = reported or 0.0
        elif reported is not None and abs(reported - measured) <= 2.5 / CLOCK_TICKS:
            cpu = reported
        else:
            cpu = measured
        if cpu > cpu_limit:
            return CallOutcome(Verdict.TLE, cpu=cpu, wall=wall,
                               detail=f"used {cpu:.2f} s of CPU; the limit is {cpu_limit:.2f} s")
        if message.get("ok") is True:
            return CallOutcome(None, message if ident == 0 else message.get("result"), cpu, wall)
        return self._engine_error(message, cpu, wall)

    def _engine_error(self, message: dict, cpu: float, wall: float) -> CallOutcome:
        kind, kind_of = message.get("error"), str(message.get("type", ""))
        text = str(message.get("message", ""))
        trace = str(message.get("traceback", ""))
        if kind == "request":  # the harness's requests are JSON: the engine read or wrote stdin
            return CallOutcome(Verdict.PROTOCOL, cpu=cpu, wall=wall,
                               detail=f"the adapter could not read the request: {text}")
        if kind in ("missing", "unserialisable"):
            detail = text if kind == "missing" else \
                f"the result cannot be sent as JSON ({kind_of}: {text})"
            return CallOutcome(Verdict.PROTOCOL, cpu=cpu, wall=wall, detail=detail)
        verdict = Verdict.RE
        if kind_of == "MemoryError" or message.get("errno") == 12:
            verdict = Verdict.MLE
        elif message.get("errno") == 27:  # EFBIG: a file past RLIMIT_FSIZE
            verdict = Verdict.OLE
        detail = f"{kind_of}: {text}" if text else kind_of
        return CallOutcome(verdict, cpu=cpu, wall=wall, detail=detail, traceback=trace)

    def _dead(self, cpu_limit: float, start: float, cpu0: float | None) -> CallOutcome:
        """The process died or was killed: the verdict from what was seen, by PRIORITY."""
        cpu = self._used(cpu0) or 0.0
        self.kill()
        wall = time.monotonic() - start
        for thread in self._threads:
            thread.join(timeout=2)
        evidence, verdicts = self._evidence, []
        reasons: dict[Verdict, str] = {}
        code = self._proc.returncode if self._proc else None
        # bwrap exits 128 + N when the engine dies of signal N; without bwrap Popen says -N.
        sig = -code if code is not None and code < 0 else \
            code - 128 if self.config.sandbox and code is not None and code > 128 else None
        log_text = self.log_text()
        if evidence.log_exceeded:
            reasons[Verdict.OLE] = f"printed more than {self.config.limits.log_cap} bytes"
        if sig == signal.SIGXFSZ:
            reasons[Verdict.OLE] = "wrote a file larger than the file size limit"
        if any(word in log_text for word in MEMORY_WORDS) and sig is not None:
            reasons[Verdict.MLE] = "ran out of memory"
        if evidence.cpu_exceeded or sig == signal.SIGXCPU or \
                (sig == signal.SIGKILL and not evidence.wall_exceeded and cpu >= cpu_limit):
            reasons[Verdict.TLE] = f"used more than {cpu_limit:.2f} s of CPU"
        if evidence.wall_exceeded:
            reasons[Verdict.TLE_WALL] = "took longer than the wall-clock limit"
        if evidence.protocol:
            reasons[Verdict.PROTOCOL] = evidence.protocol
        if not reasons:
            if sig is not None:
                name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ \
                    else str(sig)
                reasons[Verdict.RE] = f"the engine was killed by signal {name}"
            else:
                reasons[Verdict.RE] = f"the engine exited (status {code}) before answering"
        verdicts = list(reasons)
        verdict = worst(verdicts)
        return CallOutcome(verdict, cpu=cpu, wall=wall, detail=reasons[verdict])

    def _fail(self, verdict: Verdict, detail: str) -> CallOutcome:
        self.kill()
        return CallOutcome(verdict, detail=detail)

    # - measurements and readers -
    def _cpu(self) -> float | None:
        """The engine's CPU seconds so far (its threads and waited-for children), from /proc."""
        if self._child_pid is None:
            return None
        try:
            with open(f"/proc/{self._child_pid}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return sum(int(x) for x in fields[11:15]) / CLOCK_TICKS  # utime stime cutime cstime

    def _used(self, cpu0: float | None) -> float | None:
        now = self._cpu()
        return None if now is None or cpu0 is None else now - cpu0

    def _read_protocol(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stream, cap = self._proc.stdout, self.config.limits.line_cap
        while True:
            line = stream.readline(cap + 1)
            if not line:
                break
            if len(line) > cap or not line.endswith(b"\n"):
                self._evidence.protocol = f"an answer longer than {cap} bytes"
                self.kill()
                break
            self._lines.put(line)
        self._lines.put(None)

    def _read_log(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        stream, limits = self._proc.stderr, self.config.limits
        while True:
            chunk = stream.read1(1 << 16)
            if not chunk:
                break
            self.log_bytes += len(chunk)
            room = limits.log_keep - len(self.log)
            if room > 0:
                self.log += chunk[:room]
            if self.log_bytes > limits.log_cap:
                self._evidence.log_exceeded = True
                self.kill()
                break

    def log_text(self) -> str:
        return bytes(self.log).decode("utf-8", errors="replace")

    def reset_evidence(self) -> None:
        self._evidence = _Evidence()


def _read_all(fd: int) -> bytes:
    chunks = []
    with os.fdopen(fd, "rb") as handle:
        while chunk := handle.read(4096):
            chunks.append(chunk)
    return b"".join(chunks)


def _running(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _processes_of(uid: int) -> int:
    """How many processes `uid` has now (RLIMIT_NPROC counts them all), 0 without /proc."""
    count = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if entry.stat().st_uid == uid:
                        count += 1
    return count


def with_limits(config: SandboxConfig, **changes: Any) -> SandboxConfig:
    """The config with some limits changed (tests use small ones)."""
    return replace(config, limits=replace(config.limits, **changes))


def probe(config: SandboxConfig | None = None, timeout: float = 20.0) -> str | None:
    """Why a sandbox cannot be made here (bubblewrap's own words), or None when it can: the
    sandbox of `bwrap_command`, as the first slot's user, running the sandbox's Python on
    nothing. A worker runs it before it takes jobs (a container without the options bubblewrap
    needs would otherwise fail every engine as an internal error)."""
    config = config or SandboxConfig()
    if not config.sandbox:
        return None
    try:
        config.check()
    except SandboxUnavailable as exc:
        return str(exc)
    uid = config.uid(0)
    with tempfile.TemporaryDirectory(prefix="grader-probe-") as folder:
        os.chmod(folder, 0o755)  # the slot's user binds it
        read_info, write_info = os.pipe()
        command = bwrap_command(config, Path(folder), Path(folder), write_info)
        command += [config.interpreter, "-I", "-S", "-c", "pass"]
        user_args: dict[str, Any] = {"user": uid, "group": uid, "extra_groups": []} \
            if uid is not None else {}
        try:
            done = subprocess.run(command, pass_fds=(write_info,), capture_output=True,
                                  timeout=timeout, cwd=folder,
                                  env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, **user_args)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bubblewrap could not run: {exc}"
        finally:
            os.close(write_info)
            os.close(read_info)
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()[:2000]
        return f"bubblewrap failed ({done.returncode}): {message or 'no message'}"
    return None
