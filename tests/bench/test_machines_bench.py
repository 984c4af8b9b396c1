"""bench/machines and `bench.deadline --machines`: each worker on a machine of its own (network,
mount and UTS namespaces), reaching PostgreSQL and Redis and nothing else, and every namespace
gone after a run, after Ctrl-C and after SIGTERM. Root, `ip` and the servers `make
test-backends` installs; skipped, saying which is missing, elsewhere."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import machines
from tests.bench.bench_support import ROOT, run_bench

MISSING = machines.unavailable()
pytestmark = [
    pytest.mark.backends,
    pytest.mark.skipif(MISSING is not None, reason=f"machines cannot be made here: {MISSING}"),
]


def namespaces() -> set[str]:
    return {line.split()[0] for line in machines.ip("netns", "list").stdout.splitlines()}


def host_link(network: machines.Network) -> bool:
    return machines.ip("link", "show", network.host_end, check=False).returncode == 0


@pytest.fixture
def root() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="test-machines-", dir="/var/tmp"))
    folder.chmod(0o711)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_each_machine_reaches_postgresql_redis_and_its_folder_and_nothing_else(root):
    with machines.Network(root, 2) as network, machines.canary() as port:
        made = set(network.made)
        assert made <= namespaces()
        secret = network.host_folder / "secret_key"
        secret.write_text("the host's")
        for n in (1, 2):
            (network.folder(n) / "machine.txt").write_text(str(n))
        reached = network.check(port, secret)
    assert set(reached) == {1, 2}
    for found in reached.values():
        # the host's three addresses with a port open on each, PostgreSQL as the host reaches
        # it, the other machine's address and folder, the host's file: none reached
        assert len(found) == 10
        assert {what for what, ok in found.items() if ok} == machines.REACHABLE, found
    assert not made & namespaces()  # deleted on leaving
    assert not host_link(network)  # at once, not when the kernel finishes the namespace


def test_a_second_network_is_made_the_moment_the_first_is_closed(root):
    """`--machines 1,2` makes one network after the other in one process, with the same names."""
    for count in (1, 2):
        with machines.Network(root / f"run-{count}", count) as network:
            assert host_link(network) and network.made[0] in namespaces()
        assert not host_link(network)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_namespaces_are_deleted_on_ctrl_c_and_sigterm(root, sig):
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from bench.machines import Network\n"
        f"with Network(Path({str(root)!r}), 1) as n:\n"
        "    print(' '.join(n.made), flush=True)\n"
        "    time.sleep(600)\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as process:
        try:
            assert process.stdout is not None
            made = set(process.stdout.readline().split())
            assert len(made) == 2 and made <= namespaces()  # the server's and the machine's
            process.send_signal(sig)
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert not made & namespaces()


@pytest.mark.slow
def test_the_deadline_runs_on_one_and_two_machines_quick():
    out = run_bench("deadline", "--quick", "--machines", "1,2", timeout=900)
    assert "each reaches PostgreSQL, Redis and its own folder, and nothing else" in out
    rows = {line.split("|")[1].strip(): line.split("|") for line in out.splitlines()[-2:]}
    assert set(rows) == {"1 x 2", "2 x 2"}, out
    for cells in rows.values():
        assert cells[6].strip() == "0", out  # no upload failed
