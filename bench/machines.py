"""Machines on one host, for `bench.deadline --machines N`: each `grader worker` as a separate
machine would run it, with nothing shared but PostgreSQL and Redis.

The network (Linux network namespaces, made with `ip netns`; root only):

- a *server* namespace runs PostgreSQL and Redis; the host (the bench, which uploads as the web
  does) reaches it over a veth pair (host ``10.O.0.1``, server ``10.O.0.2``);
- each machine ``n`` (1, 2, ...) is a namespace of its own, joined to the server namespace by a
  veth pair of its own (server ``10.O.n.1``, machine ``10.O.n.2``) and to nothing else: it has
  no default route, and the server namespace forwards nothing, so a machine reaches neither the
  host nor another machine, only the server's two ports.

Each machine's worker also runs in a mount and UTS namespace of its own (``unshare``): its own
hostname, its own ``/tmp`` (the grading slots' locks live there: two machines never share a
slot), and the host's folder (its instance folder, secret key, the PostgreSQL data) and every
other machine's folder covered by an empty tmpfs. What it still shares with the host is the
installed software (the checkout and its virtualenv, read as a machine image would be).

`Network.check` proves it from inside each machine before a run (`isolation_probe`). Every
namespace is deleted on exit, on Ctrl-C and on SIGTERM too; `python -m bench.machines --clean`
deletes any a killed run left.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

PREFIX = "gbench"
#: What `Network.check` should find a machine reaching; nothing else.
REACHABLE = frozenset({"postgresql", "redis", "its own folder"})
PG_PORT = 5432
REDIS_PORT = 6379


def unavailable() -> str | None:
    """Why machines cannot be made here (None: they can)."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for program in ("ip", "unshare", "runuser", "redis-server"):
        if shutil.which(program) is None:
            return f"{program} is not installed (make bench-machines installs it)"
    if pg_bin() is None:
        return "PostgreSQL is not installed (make bench-machines installs it)"
    return None


def pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: p.parts[-3])
    return found[-1].parent if found else None


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def wait_port(host: str, port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"nothing listens on {host}:{port} after {timeout:.0f} s"
                ) from None
            time.sleep(0.2)


class Network:
    """The server namespace (PostgreSQL, Redis) and `machines` machine namespaces, under `root`
    (a folder outside /tmp: each machine gets a /tmp of its own)."""

    def __init__(self, root: Path, machines: int) -> None:
        pid = os.getpid()
        self.root = root
        self.tag = f"{PREFIX}-{pid}"
        self.octet = 200 + pid % 50  # 10.O.x.y, distinct between runs on one host
        self.machines = machines
        self.server = f"{self.tag}-db"
        # The host's end of its link to the server; deleted by `close`, not left to the server
        # namespace's deletion, which the kernel finishes later: a second network made at once
        # in this process (`--machines 1,2`) would find the name still taken.
        self.host_end = f"gb{pid}h"
        self.made: list[str] = []
        self.processes: list[subprocess.Popen] = []
        self.host_folder = root / "host"
        self._old: dict[int, object] = {}

    # -- addresses --------------------------------------------------------------------------
    def address(self, link: int, end: int) -> str:
        return f"10.{self.octet}.{link}.{end}"

    def namespace(self, n: int) -> str:
        return f"{self.tag}-m{n}"

    def folder(self, n: int) -> Path:
        return self.root / f"machine-{n}"

    def urls(self, n: int | None) -> tuple[str, str]:
        """The database and queue URLs from the host (None) or from machine `n`."""
        server = self.address(0, 2) if n is None else self.address(n, 1)
        return (
            f"postgresql+psycopg://postgres@{server}:{PG_PORT}/grader",
            f"redis://{server}:{REDIS_PORT}/0",
        )

    # -- making and unmaking ----------------------------------------------------------------
    def __enter__(self) -> Network:
        # Ctrl-C and SIGTERM unwind through __exit__ (SIGTERM's default would skip it)
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, _interrupt)
        try:
            self._make()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _make(self) -> None:
        self.host_folder.mkdir(parents=True, exist_ok=True)
        for folder in (self.root, self.host_folder):  # PostgreSQL's user passes through
            folder.chmod(0o711)
        self._namespace(self.server)
        host_end = self.host_end
        ip("link", "add", host_end, "type", "veth", "peer", "name", "host0", "netns", self.server)
        ip("addr", "add", f"{self.address(0, 1)}/30", "dev", host_end)
        ip("link", "set", host_end, "up")
        ip("-n", self.server, "addr", "add", f"{self.address(0, 2)}/30", "dev", "host0")
        ip("-n", self.server, "link", "set", "host0", "up")
        subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                self.server,
                "sh",
                "-c",
                "echo 0 > /proc/sys/net/ipv4/ip_forward",
            ],
            check=True,
        )
        for n in range(1, self.machines + 1):
            ns = self.namespace(n)
            self._namespace(ns)
            ip("-n", self.server, "link", "add", f"m{n}", "type", "veth", "peer", "name", "eth0",
               "netns", ns)  # fmt: skip
            ip("-n", self.server, "addr", "add", f"{self.address(n, 1)}/30", "dev", f"m{n}")
            ip("-n", self.server, "link", "set", f"m{n}", "up")
            ip("-n", ns, "addr", "add", f"{self.address(n, 2)}/30", "dev", "eth0")
            ip("-n", ns, "link", "set", "eth0", "up")
            self.folder(n).mkdir(parents=True, exist_ok=True)
        self._start_servers()

    def _namespace(self, name: str) -> None:
        ip("netns", "add", name)
        self.made.append(name)
        ip("-n", name, "link", "set", "lo", "up")

    def _start_servers(self) -> None:
        pg = pg_bin()
        assert pg is not None
        data = self.host_folder / "postgres"
        data.mkdir()
        shutil.chown(data, "postgres", "postgres")
        subprocess.run(
            ["runuser", "-u", "postgres", "--", str(pg / "initdb"), "-D", str(data / "data"),
             "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
            check=True, capture_output=True,
        )  # fmt: skip
        with (data / "data" / "pg_hba.conf").open("a") as hba:  # trusted on the bench's links
            hba.write(f"host all all 10.{self.octet}.0.0/16 trust\n")
        in_server = ["ip", "netns", "exec", self.server]
        log = (self.host_folder / "servers.log").open("ab")
        self.processes.append(
            subprocess.Popen(
                [*in_server, "runuser", "-u", "postgres", "--", str(pg / "postgres"),
                 "-D", str(data / "data"), "-p", str(PG_PORT), "-c", "listen_addresses=*",
                 "-c", f"unix_socket_directories={data}", "-c", "fsync=off",
                 "-c", "synchronous_commit=off", "-c", "max_connections=200"],
                stdout=log, stderr=subprocess.STDOUT,
            )
        )  # fmt: skip
        self.processes.append(
            subprocess.Popen(
                [*in_server, "redis-server", "--port", str(REDIS_PORT), "--bind", "0.0.0.0",
                 "--protected-mode", "no", "--save", "", "--appendonly", "no"],
                stdout=log, stderr=subprocess.STDOUT,
            )
        )  # fmt: skip
        log.close()
        wait_port(self.address(0, 2), REDIS_PORT)
        wait_port(self.address(0, 2), PG_PORT)
        for _ in range(100):  # the port opens a moment before connections are taken
            made = subprocess.run(
                ["runuser", "-u", "postgres", "--", str(pg / "createdb"), "-h",
                 self.address(0, 2), "-p", str(PG_PORT), "-U", "postgres", "grader"],
                capture_output=True, check=False,
            )  # fmt: skip
            if made.returncode == 0:
                return
            time.sleep(0.2)
        raise RuntimeError(f"createdb failed: {made.stderr.decode()}")

    def close(self) -> None:
        """Every process in the namespaces stopped, the host's link deleted (both its ends at
        once), every namespace deleted (their veth pairs go with them), the signal handlers
        given back."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        ip("link", "del", self.host_end, check=False)  # absent if making it failed
        for name in reversed(self.made):
            delete_namespace(name)
        self.made.clear()
        for sig, old in self._old.items():
            signal.signal(sig, old)  # type: ignore[arg-type]
        self._old.clear()

    # -- running on a machine ---------------------------------------------------------------
    def command(self, n: int, argv: list[str]) -> list[str]:
        """`argv` run on machine `n`: in its network namespace, with its own hostname and /tmp,
        and the host's and the other machines' folders covered."""
        hidden = [self.host_folder] + [
            self.folder(m) for m in range(1, self.machines + 1) if m != n
        ]
        script = " && ".join(
            [f"hostname {shlex.quote(self.namespace(n))}", "mount -t tmpfs machine-tmp /tmp"]
            + [f"mount -t tmpfs -o size=1m hidden {shlex.quote(str(p))}" for p in hidden]
            + ['exec "$@"']
        )
        return ["ip", "netns", "exec", self.namespace(n), "unshare", "--mount", "--uts", "--",
                "sh", "-c", script, "machine", *argv]  # fmt: skip

    def check(self, canary_port: int, canary_file: Path) -> dict[int, dict[str, bool]]:
        """`isolation_probe` run on each machine: what it could reach (of PostgreSQL, Redis,
        the host's addresses with `canary_port` open on them, the other machines, the host's
        `canary_file`, its own folder and the others' folders). Only PostgreSQL, Redis and its
        own folder should be."""
        import json

        found = {}
        for n in range(1, self.machines + 1):
            targets = {
                "postgresql": (self.address(n, 1), PG_PORT),
                "redis": (self.address(n, 1), REDIS_PORT),
                "host's end of its link": (self.address(0, 1), canary_port),
                "host's loopback": ("127.0.0.1", canary_port),
                "host's own address": (host_address(), canary_port),
                "postgresql from the host's side": (self.address(0, 2), PG_PORT),
            }
            targets.update(
                {
                    f"machine {m}": (self.address(m, 2), canary_port)
                    for m in range(1, self.machines + 1)
                    if m != n
                }
            )
            files = {"the host's folder": str(canary_file), "its own folder": str(self.folder(n))}
            files.update(
                {
                    f"machine {m}'s folder": str(self.folder(m))
                    for m in range(1, self.machines + 1)
                    if m != n
                }
            )
            spec = json.dumps({"targets": targets, "files": files})
            probe = [sys.executable, "-m", "bench.machines", "--probe", spec]
            out = subprocess.run(
                self.command(n, probe), capture_output=True, text=True, check=True,
                cwd=Path(__file__).resolve().parents[1],
            )  # fmt: skip
            found[n] = json.loads(out.stdout)
        return found


def isolation_probe(spec: dict) -> dict[str, bool]:
    """What this process can reach: each target's TCP port (a connection within 2 s) and each
    file or folder (it exists and is not empty)."""
    reached = {}
    for name, (host, port) in spec["targets"].items():
        try:
            with socket.create_connection((host, port), timeout=2):
                reached[name] = True
        except OSError:
            reached[name] = False
    for name, path in spec["files"].items():
        p = Path(path)
        reached[name] = p.exists() and (p.is_file() or any(p.iterdir()))
    return reached


def host_address() -> str:
    """The host's own address on its default route (a UDP socket's choice; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.2"


@contextlib.contextmanager
def canary() -> Iterator[int]:
    """A port listening on every host address while the check runs."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("0.0.0.0", 0))
        s.listen(16)
        yield s.getsockname()[1]


def delete_namespace(name: str) -> None:
    """Its processes killed (each by its id), then the namespace deleted."""
    pids = ip("netns", "pids", name, check=False).stdout.split()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
    for _ in range(50):
        if ip("netns", "del", name, check=False).returncode == 0:
            return
        time.sleep(0.1)


def leftovers() -> list[str]:
    """Namespaces of bench runs whose process is gone."""
    names = [line.split()[0] for line in ip("netns", "list", check=False).stdout.splitlines()]
    out = []
    for name in names:
        parts = name.split("-")
        gone = len(parts) >= 3 and parts[1].isdigit() and not Path(f"/proc/{parts[1]}").exists()
        if parts[0] == PREFIX and gone:
            out.append(name)
    return out


def _interrupt(sig: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {sig}")


def main(argv: list[str] | None = None) -> None:
    import json

    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--probe"]:
        print(json.dumps(isolation_probe(json.loads(args[1]))))
    elif args[:1] == ["--clean"]:
        for name in leftovers():
            delete_namespace(name)
            print(f"deleted {name}")
    else:
        print("python -m bench.machines --clean: delete the namespaces a killed run left")


if __name__ == "__main__":
    main()
