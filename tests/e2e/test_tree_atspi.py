"""The exercise tree as a Linux screen reader meets it: Chromium as a desktop browser on an X
display, its platform accessibility tree read over AT-SPI (the bus Orca reads), not the DevTools
protocol's view of Blink's tree (test_tree_aria.py) and not a snapshot computed from the markup.

For each kind of the registry and a chance tree, every node is a "tree item" nested in its
parent's, depth first, with the level, place and set size AT-SPI reports (`aria-level`,
`aria-posinset`, `aria-setsize` as the platform carries them) and, above the leaves, an expanded
state. The desktop (Xvfb, a D-Bus session, the AT-SPI bus) is this test's own, started here and
stopped after; `make test` installs its Debian packages (scripts/system-deps.sh).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.gametree import Tree
from tests.e2e.ax_support import AX_CHANCE, AX_TREES, expected_items
from tests.e2e.e2e_support import CHROMIUM_ARGS, open_page, signed_in, tree_drawn

pytestmark = pytest.mark.e2e

DESKTOP_CHROMIUM = "/usr/bin/chromium"  # the desktop browser: the headless shell has no AT-SPI
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, with python3-pyatspi
BUS_LAUNCHER = "/usr/libexec/at-spi-bus-launcher"
READER = Path(__file__).with_name("atspi_reader.py")


def _missing() -> list[str]:
    needed = [DESKTOP_CHROMIUM, SYSTEM_PYTHON, BUS_LAUNCHER]
    missing = [p for p in needed if not Path(p).exists()]
    missing += [p for p in ("Xvfb", "dbus-daemon") if shutil.which(p) is None]
    if Path(SYSTEM_PYTHON).exists():
        probe = subprocess.run([SYSTEM_PYTHON, "-c", "import pyatspi"], capture_output=True)
        if probe.returncode != 0:
            missing.append("python3-pyatspi")
    return missing


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """An X display, a D-Bus session and the AT-SPI bus on it: the environment a screen reader
    and the browser share. Fails, never skips: `make test` installs every piece."""
    missing = _missing()
    if missing:
        pytest.fail(f"missing {', '.join(missing)} (scripts/system-deps.sh installs them)")
    folder = tmp_path_factory.mktemp("desktop")
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as displayfd:
        display = displayfd.readline().strip()
    procs = [xvfb]
    try:
        bus = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        procs.append(bus)
        assert bus.stdout is not None
        address = bus.stdout.readline().strip()
        env = {
            **os.environ,
            "DISPLAY": f":{display}",
            "DBUS_SESSION_BUS_ADDRESS": address,
            "XDG_RUNTIME_DIR": str(folder),
            "ACCESSIBILITY_ENABLED": "1",
            "NO_AT_BRIDGE": "0",
        }
        launcher = subprocess.Popen(
            [BUS_LAUNCHER, "--launch-immediately"], env=env, stderr=subprocess.DEVNULL
        )
        procs.append(launcher)
        yield env
    finally:
        for proc in reversed(procs):
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


@pytest.fixture(scope="module")
def desktop_browser(driver: Any, desktop: dict[str, str]) -> Iterator[Any]:
    chromium = driver.chromium.launch(
        executable_path=DESKTOP_CHROMIUM,
        headless=False,
        args=[*CHROMIUM_ARGS, "--force-renderer-accessibility"],
        env=desktop,
    )
    yield chromium
    chromium.close()


def _read(desktop: dict[str, str], items: int) -> dict[str, Any]:
    done = subprocess.run(
        [SYSTEM_PYTHON, str(READER), "Game tree of exercise", str(items)],
        env=desktop,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    read: dict[str, Any] = json.loads(done.stdout)
    return read


@pytest.mark.parametrize("name", [*AX_TREES, "chance"])
def test_every_kind_s_tree_reaches_a_screen_reader_nested(
    desktop_browser, desktop, live_server, student_cookies, name
) -> None:
    tree = AX_CHANCE if name == "chance" else Tree.from_nested(AX_TREES[name])
    want = expected_items(tree)
    with open_page(desktop_browser, live_server.url) as page:
        signed_in(page, student_cookies)
        page.goto(f"/exercises/{live_server.practice[f'ax-{name}']}")
        tree_drawn(page)
        read = _read(desktop, len(want))
    assert read["trees"] == 1, read
    got = [
        (
            item["name"].split(",")[0],
            "treeitem" if item["role"] == "tree item" else item["role"],
            item["level"],
            item["expanded"] if item["expandable"] else None,
            item["parent"],
            item["position"],
            item["set_size"],
        )
        for item in read["items"]
    ]
    assert got == want
