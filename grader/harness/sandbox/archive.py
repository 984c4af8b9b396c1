"""A submission laid out for the sandbox: an engine file, a zip (the upload's own policy,
grader/harness/submission.py, checked again) or a folder, copied into the grading slot's
folder, readable by the slot's user."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from grader.harness.submission import SubmissionError, extract_zip

MAX_SUBMISSION_BYTES = 8 << 20
MAX_SUBMISSION_FILES = 256


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
        raise SubmissionError(
            f"the submission is too large ({count} files, {total} bytes; "
            f"at most {MAX_SUBMISSION_FILES} files, {MAX_SUBMISSION_BYTES})"
        )
