"""The one archive policy: what an engine upload may be, checked at upload (in memory, before
anything is stored) and again by the sandbox's extraction, with the same rules.

An upload is a UTF-8 Python file (``engine.py``) or a zip with ``engine.py`` at its top. A zip
is refused for: too many members, too large an inflated total (counted while inflating: the
header's sizes may lie), an absolute or ``..`` path, a backslash or NUL in a name, a link, an
encrypted member, a name given twice, a file where another member needs a folder
(``engine.py`` and ``engine.py/x.py``), a member that cannot be inflated, or Python files
inflating past ``MAX_PY_BYTES`` together. At upload every Python file must also compile
(``compile()`` only: nothing is imported or run outside the sandbox); the Python a check compiles
is at most ``MAX_PY_BYTES`` whether it comes as a file or a zip, so a check's CPU is bounded
(about 0.2 s at the cap) whatever the archive inflates to.
"""

from __future__ import annotations

import hashlib
import io
import re
import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_PY_BYTES = 256 << 10  # one .py upload, and a zip's Python files together
MAX_ZIP_BYTES = 1 << 20
MAX_UNCOMPRESSED_BYTES = 4 << 20
MAX_MEMBERS = 64
_DRIVE = re.compile(r"^[A-Za-z]:")
_READ_ERRORS = (
    zipfile.BadZipFile,
    OSError,
    EOFError,
    NotImplementedError,
    RuntimeError,
    ValueError,
)


class SubmissionError(ValueError):
    """The upload breaks the archive policy; the message is for the student."""


@dataclass(frozen=True)
class CheckedUpload:
    data: bytes
    file_type: str  # "py" or "zip", its stored name's suffix
    sha256: str
    filename: str

    @property
    def relative_path(self) -> str:
        return f"{self.sha256[:2]}/{self.sha256[2:]}.{self.file_type}"


def compiles(source: bytes, name: str) -> None:
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionError(
            f"{name} is not UTF-8 text (byte {exc.start}): upload a Python source file"
        ) from None
    try:
        compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise SubmissionError(f"{name} is not valid Python: line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise SubmissionError(f"{name} cannot be compiled: {type(exc).__name__}") from None


def _safe_name(name: str) -> str:
    """The member's path, or SubmissionError when it could leave the folder it goes into."""
    if "\\" in name or "\x00" in name:
        raise SubmissionError(f"the zip member {name!r} has a backslash or NUL in its name")
    if name.startswith("/") or _DRIVE.match(name):
        raise SubmissionError(f"the zip member {name!r} has an absolute path")
    if ".." in PurePosixPath(name).parts:
        raise SubmissionError(f"the zip member {name!r} has a '..' in its path")
    return name


def _members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The archive's members after the rules on names, kinds and count: its files."""
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise SubmissionError(f"the zip has {len(members)} members; at most {MAX_MEMBERS}")
    files: set[PurePosixPath] = set()
    folders: set[PurePosixPath] = set()
    for member in members:
        name = _safe_name(member.filename)
        if stat.S_ISLNK(member.external_attr >> 16):
            raise SubmissionError(f"the zip member {name!r} is a symbolic link")
        if member.flag_bits & 0x1:
            raise SubmissionError(
                f"the zip member {name!r} is encrypted; upload it without a password"
            )
        path = PurePosixPath(name)
        if member.is_dir():
            folders.add(path)
            continue
        if path in files:
            raise SubmissionError(f"the zip holds {name!r} twice")
        files.add(path)
        folders.update(path.parents)
    clash = sorted(str(p) for p in files & folders)
    if clash:
        raise SubmissionError(f"the zip holds {clash[0]!r} both as a file and as a folder")
    if PurePosixPath("engine.py") not in files:
        raise SubmissionError(
            "the zip has no engine.py at its top (zip the files, not their folder)"
        )
    return [m for m in members if not m.is_dir()]


def _inflate(
    archive: zipfile.ZipFile,
    members: list[zipfile.ZipInfo],
    sink: Callable[[zipfile.ZipInfo, bytes], None],
) -> None:
    """Inflates each member into ``sink(member, chunk)``, counting the real totals: of every
    member, and of the Python files."""
    total = python = 0
    for member in members:
        is_python = member.filename.endswith(".py")
        try:
            with archive.open(member) as stream:
                while chunk := stream.read(64 << 10):
                    total += len(chunk)
                    if total > MAX_UNCOMPRESSED_BYTES:
                        raise SubmissionError(
                            f"the zip inflates past {MAX_UNCOMPRESSED_BYTES >> 20} MiB "
                            "(a zip bomb?)"
                        )
                    python += len(chunk) if is_python else 0
                    if python > MAX_PY_BYTES:
                        raise SubmissionError(
                            f"the zip's Python files inflate past {MAX_PY_BYTES >> 10} KiB "
                            "together; at most that much Python in an upload"
                        )
                    sink(member, chunk)
        except SubmissionError:
            raise
        except _READ_ERRORS as exc:
            raise SubmissionError(
                f"the zip member {member.filename!r} cannot be read: {exc}"
            ) from None


def _open(data: bytes | Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data)
    except (zipfile.BadZipFile, OSError, ValueError):
        raise SubmissionError("the file is not a valid zip archive") from None


def python_sources(data: bytes, kind: str) -> dict[str, bytes]:
    """The Python files of a stored upload (`kind` "py" or "zip"), by name, under the same
    policy (SubmissionError otherwise): what the similarity check reads, never run."""
    if kind != "zip":
        return {"engine.py": data}
    with _open(data) as archive:
        members = _members(archive)
        sources: dict[str, list[bytes]] = {}

        def keep(member: zipfile.ZipInfo, chunk: bytes) -> None:
            if member.filename.endswith(".py"):
                sources.setdefault(member.filename, []).append(chunk)

        _inflate(archive, members, keep)  # every member: the inflated total is bounded
    return {
        m.filename: b"".join(sources.get(m.filename, []))
        for m in members
        if m.filename.endswith(".py")
    }


def check_zip(data: bytes) -> None:
    """The archive policy, and every Python member compiles."""
    for name, source in python_sources(data, "zip").items():
        compiles(source, name)


def check(data: bytes, filename: str) -> CheckedUpload:
    """The upload, checked; SubmissionError with a message for the student otherwise."""
    name = PurePosixPath((filename or "").replace("\\", "/")).name[:200]
    if not data:
        raise SubmissionError("the file is empty")
    suffix = PurePosixPath(name).suffix.lower()
    is_zip = data[:4] == b"PK\x03\x04" or suffix == ".zip"
    if suffix not in (".py", ".zip"):
        raise SubmissionError(
            f"upload engine.py (a .py file) or a .zip, not {name or 'a nameless file'}"
        )
    if is_zip:
        if len(data) > MAX_ZIP_BYTES:
            raise SubmissionError(
                f"the zip is {len(data)} bytes; at most {MAX_ZIP_BYTES} ({MAX_ZIP_BYTES >> 20} MiB)"
            )
        check_zip(data)
        file_type = "zip"
    else:
        if len(data) > MAX_PY_BYTES:
            raise SubmissionError(
                f"the file is {len(data)} bytes; at most {MAX_PY_BYTES} ({MAX_PY_BYTES >> 10} KiB)"
            )
        if zipfile.is_zipfile(io.BytesIO(data)):
            raise SubmissionError("a .py file must not also be a zip archive")
        compiles(data, "engine.py")
        file_type = "py"
    return CheckedUpload(data, file_type, hashlib.sha256(data).hexdigest(), name)


def extract_zip(source: Path, dest: Path) -> None:
    """Extracts a stored zip into ``dest`` under the same policy (SubmissionError otherwise)."""
    with _open(Path(source)) as archive:
        members = _members(archive)
        handles: dict[str, io.BufferedWriter] = {}
        try:

            def write(member: zipfile.ZipInfo, chunk: bytes) -> None:
                out = handles.get(member.filename)
                if out is None:
                    target = dest / member.filename
                    target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                    out = handles[member.filename] = open(target, "wb")  # noqa: SIM115
                out.write(chunk)

            _inflate(archive, members, write)
        finally:
            for out in handles.values():
                out.close()
        for member in members:  # empty files too
            (dest / member.filename).touch()


__all__ = [
    "MAX_PY_BYTES",
    "MAX_UNCOMPRESSED_BYTES",
    "MAX_ZIP_BYTES",
    "CheckedUpload",
    "SubmissionError",
    "check",
    "check_zip",
    "compiles",
    "extract_zip",
    "python_sources",
]
