"""One archive policy (grader/harness/submission.py): what the upload check refuses, the
sandbox's extraction refuses too, and a refused upload is a 400 that stores nothing."""

from __future__ import annotations

import io
import warnings
import zipfile
from pathlib import Path

import pytest

from grader.harness.sandbox import prepare_submission
from grader.harness.submission import SubmissionError
from tests.security.upload_support import post_engine, submissions_in_db

ENGINE = b"def choose_move(board, moves):\n    return moves[0]\n"


def zip_of(files: dict[str, bytes] | list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name": the point of one test
        for name, data in files.items() if isinstance(files, dict) else files:
            archive.writestr(name, data)
    return buffer.getvalue()


def encrypted(data: bytes) -> bytes:
    """The zip with every member flagged as encrypted (traditional PKWARE encryption)."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = out.find(signature)
        while at != -1:
            out[at + offset] |= 0x1
            at = out.find(signature, at + 4)
    return bytes(out)


HOSTILE = {
    "encrypted": (encrypted(zip_of({"engine.py": ENGINE})), "encrypted"),
    "file and folder": (
        zip_of({"engine.py": ENGINE, "engine.py/x.py": b"X = 1\n"}),
        "both as a file and as a folder",
    ),
    "twice": (zip_of([("engine.py", ENGINE), ("engine.py", b"import os\n")]), "twice"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_zip_is_refused_at_upload_and_at_extraction(
    app, client, engine_slot, tmp_path: Path, name
):
    data, reason = HOSTILE[name]
    response = post_engine(client, engine_slot, data, "mine.zip")
    assert response.status_code == 400, response.get_json()
    assert reason in response.get_json()["error"]
    assert "/tmp" not in response.get_json()["error"]
    assert submissions_in_db(app) == 0
    # The sandbox's extraction applies the same policy to the same bytes.
    stored = tmp_path / "stored.zip"
    stored.write_bytes(data)
    with pytest.raises(SubmissionError, match=reason):
        prepare_submission(stored, tmp_path / "submission")


def test_a_good_zip_still_goes_through_both(app, client, engine_slot, tmp_path: Path):
    data = zip_of({"engine.py": ENGINE, "helpers/util.py": b"X = 1\n"})
    response = post_engine(client, engine_slot, data, "mine.zip")
    assert response.status_code == 201, response.get_json()
    stored = tmp_path / "stored.zip"
    stored.write_bytes(data)
    folder = prepare_submission(stored, tmp_path / "submission")
    assert (folder / "engine.py").read_bytes() == ENGINE
    assert (folder / "helpers" / "util.py").is_file()
