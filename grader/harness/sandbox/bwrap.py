"""The bubblewrap command line, and the probe that says whether it can run here.

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
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from grader.harness.sandbox.config import SandboxConfig, SandboxUnavailable

SANDBOX_UID = 65534  # the engine's uid inside the sandbox (nobody)


def bwrap_command(
    config: SandboxConfig, submission: Path, adapter_dir: Path, info_fd: int
) -> list[str]:
    """The bwrap arguments, up to (not including) the command run inside."""
    size = str(config.limits.tmp_size)
    command = [
        config.bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--as-pid-1",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "PYTHONDONTWRITEBYTECODE",
        "1",
        "--setenv",
        "PYTHONHASHSEED",
        "0",
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for link in ("bin", "lib", "lib64", "sbin"):
        target = os.readlink(f"/{link}") if os.path.islink(f"/{link}") else None
        if target:
            command += ["--symlink", target, f"/{link}"]
        elif os.path.isdir(f"/{link}"):
            command += ["--ro-bind", f"/{link}", f"/{link}"]
    command += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        size,
        "--tmpfs",
        "/tmp",
        "--size",
        size,
        "--tmpfs",
        "/dev/shm",
        "--ro-bind",
        str(submission),
        "/submission",
        "--ro-bind",
        str(adapter_dir),
        "/adapter",
        "--chdir",
        "/tmp",
        "--info-fd",
        str(info_fd),
    ]
    return command


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
        user_args: dict[str, Any] = (
            {"user": uid, "group": uid, "extra_groups": []} if uid is not None else {}
        )
        try:
            done = subprocess.run(
                command,
                pass_fds=(write_info,),
                capture_output=True,
                timeout=timeout,
                cwd=folder,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                **user_args,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bubblewrap could not run: {exc}"
        finally:
            os.close(write_info)
            os.close(read_info)
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()[:2000]
        return f"bubblewrap failed ({done.returncode}): {message or 'no message'}"
    return None
