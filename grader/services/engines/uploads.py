"""Engine uploads: checked in memory, their bytes stored as blobs (`services.engines.blobs`); a worker
writes them to a file content-addressed (`uploads/ab/cdef....py`, `write_file`).

Everything is checked before anything is written, so a refused upload leaves nothing behind.
The rules are the archive policy of `grader.harness.submission`, the same the sandbox applies
when it extracts the stored file. The service never imports or runs an upload (only the
sandbox does). The harness is imported on the first upload, not when the app is made: a web
worker that takes no upload never loads it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from grader.config import private_dir
from grader.services import Invalid

if TYPE_CHECKING:
    from grader.harness.submission import CheckedUpload

__all__ = ["body_limit", "check", "checked", "write_file"]

BODY_OVERHEAD = 64 << 10  # a multipart body's headers and boundaries around the file


def body_limit() -> int:
    """The largest request body an upload may have: the largest zip the policy takes, plus the
    multipart envelope (the app's default limit is smaller)."""
    from grader.harness.submission import MAX_ZIP_BYTES

    return MAX_ZIP_BYTES + BODY_OVERHEAD


def check(data: bytes, filename: str) -> CheckedUpload:
    """The upload under the archive policy (`grader.harness.submission`, which the sandbox's
    extraction applies too); Invalid with a message for the student otherwise."""
    from grader.harness import submission

    try:
        return submission.check(data, filename)
    except submission.SubmissionError as exc:
        raise Invalid(str(exc)) from None


def checked(data: bytes, file_type: str, sha256: str) -> CheckedUpload:
    """Bytes already checked at upload (a blob fetched back by a worker), as an upload."""
    from grader.harness.submission import CheckedUpload

    return CheckedUpload(data, file_type, sha256, "")


def write_file(upload: CheckedUpload, folder: Path) -> tuple[Path, bool]:
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
