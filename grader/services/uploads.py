"""Engine uploads: checked in memory, then stored content-addressed (`uploads/ab/cdef....py`).

Everything is checked before anything is written, so a refused upload leaves nothing behind.
The rules are the archive policy of `grader.harness.submission`, the same the sandbox applies
when it extracts the stored file. The service never imports or runs an upload (only the
sandbox does).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from grader.config import private_dir
from grader.harness import submission
from grader.harness.submission import MAX_ZIP_BYTES, CheckedUpload, SubmissionError
from grader.services import Invalid

__all__ = ["MAX_ZIP_BYTES", "CheckedUpload", "check", "store"]

def check(data: bytes, filename: str) -> CheckedUpload:
    """The upload under the archive policy (`grader.harness.submission`, which the sandbox's
    extraction applies too); Invalid with a message for the student otherwise."""
    try:
        return submission.check(data, filename)
    except SubmissionError as exc:
        raise Invalid(str(exc)) from None


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
