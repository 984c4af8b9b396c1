"""Engine uploads: checked in memory, then stored content-addressed (`uploads/ab/cdef....py`).

Everything is checked before anything is written, so a refused upload leaves nothing behind:
the size, the type (a UTF-8 Python file, or a zip), and for a zip the member count, the
uncompressed total (counted while actually inflating: the sizes in the header may lie), no
absolute or `..` paths, no links, and `engine.py` at its top. Every Python file must compile
with `compile()`; the service never imports or runs it (only the sandbox does).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.config import private_dir
from grader.services import Invalid

MAX_PY_BYTES = 256 << 10
MAX_ZIP_BYTES = 1 << 20
MAX_UNCOMPRESSED_BYTES = 4 << 20
MAX_MEMBERS = 64
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class CheckedUpload:
    data: bytes
    kind: str  # "py" or "zip"
    sha256: str
    filename: str

    @property
    def relative_path(self) -> str:
        return f"{self.sha256[:2]}/{self.sha256[2:]}.{self.kind}"


def _compiles(source: bytes, name: str) -> None:
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Invalid(f"{name} is not UTF-8 text (byte {exc.start}): "
                      "upload a Python source file") from None
    try:
        compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise Invalid(f"{name} is not valid Python: line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise Invalid(f"{name} cannot be compiled: {type(exc).__name__}") from None


def _safe_name(name: str) -> str:
    """The member's path, or Invalid when it could leave the folder it is extracted into."""
    if "\\" in name or "\x00" in name:
        raise Invalid(f"the zip member {name!r} has a backslash or NUL in its name")
    if name.startswith("/") or _DRIVE.match(name):
        raise Invalid(f"the zip member {name!r} has an absolute path")
    if ".." in PurePosixPath(name).parts:
        raise Invalid(f"the zip member {name!r} has a '..' in its path")
    return name


def _check_zip(data: bytes) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise Invalid("the file is not a valid zip archive") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise Invalid(f"the zip has {len(members)} members; at most {MAX_MEMBERS}")
        names = set()
        for member in members:
            name = _safe_name(member.filename)
            if stat.S_ISLNK(member.external_attr >> 16):
                raise Invalid(f"the zip member {name!r} is a symbolic link")
            names.add(name)
        if "engine.py" not in names:
            raise Invalid("the zip has no engine.py at its top (zip the files, not their folder)")
        total = 0
        for member in members:
            if member.is_dir():
                continue
            chunks = []
            try:
                with archive.open(member) as stream:
                    while chunk := stream.read(64 << 10):
                        total += len(chunk)
                        if total > MAX_UNCOMPRESSED_BYTES:
                            raise Invalid(
                                "the zip inflates past "
                                f"{MAX_UNCOMPRESSED_BYTES >> 20} MiB (a zip bomb?)")
                        if member.filename.endswith(".py"):
                            chunks.append(chunk)
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
                raise Invalid(f"the zip member {member.filename!r} cannot be read: {exc}"
                              ) from None
            if member.filename.endswith(".py"):
                _compiles(b"".join(chunks), member.filename)


def check(data: bytes, filename: str) -> CheckedUpload:
    """The upload, checked; Invalid with a message for the student otherwise."""
    name = PurePosixPath((filename or "").replace("\\", "/")).name[:200]
    if not data:
        raise Invalid("the file is empty")
    suffix = PurePosixPath(name).suffix.lower()
    is_zip = data[:4] == b"PK\x03\x04" or suffix == ".zip"
    if suffix not in (".py", ".zip"):
        raise Invalid(f"upload engine.py (a .py file) or a .zip, not {name or 'a nameless file'}")
    if is_zip:
        if len(data) > MAX_ZIP_BYTES:
            raise Invalid(f"the zip is {len(data)} bytes; at most {MAX_ZIP_BYTES} "
                          f"({MAX_ZIP_BYTES >> 20} MiB)")
        _check_zip(data)
        kind = "zip"
    else:
        if len(data) > MAX_PY_BYTES:
            raise Invalid(f"the file is {len(data)} bytes; at most {MAX_PY_BYTES} "
                          f"({MAX_PY_BYTES >> 10} KiB)")
        if zipfile.is_zipfile(io.BytesIO(data)):
            raise Invalid("a .py file must not also be a zip archive")
        _compiles(data, "engine.py")
        kind = "py"
    return CheckedUpload(data, kind, hashlib.sha256(data).hexdigest(), name)


def store(upload: CheckedUpload, folder: Path) -> tuple[Path, bool]:
    """Write the file under its hash (temp file, then os.replace); (path, newly written)."""
    path = Path(folder) / upload.relative_path
    if path.is_file():
        return path, False
    private_dir(folder)  # 0700: nobody else reads a student's engine
    private_dir(path.parent)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".upload-")  # 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(upload.data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path, True
