"""A restore cannot bring an erased person back (issue 49, finding 5: back up, erase
gone@x.edu, restore, and the account was back with its password hash and a live API token).
The ledger of erasures lives outside the database, every backup carries it, and a restore makes
again every erasure made after the backup was taken, naming each."""

from __future__ import annotations

import json
import re

import sqlalchemy as sa

from tests.instructor_support import ALICE, BOB
from tests.privacy_support import full_room, traces
from tests.services.backup_support import new_instance, parts


def test_a_restore_erases_again_whoever_was_erased_after_the_backup(app, factory, runner, tmp_path):
    from grader.extensions import db
    from grader.models import ApiToken, User

    room = full_room(app, factory)
    alice = room.ids[ALICE]
    from grader.services import accounts

    with app.app_context():
        db.session.get(User, alice).name = "Gone Person"
        db.session.commit()
        token = accounts.issue_token(alice, "kept in the backup")
    backup = tmp_path / "before.tar"
    assert runner.invoke(args=["db", "backup", str(backup)]).exit_code == 0
    erased = runner.invoke(args=["user", "erase", ALICE], input="y\n")
    assert erased.exit_code == 0, erased.output

    ledger = (tmp_path / "instance" / "erasures.jsonl").read_text()
    assert [json.loads(line)["account"] for line in ledger.splitlines()] == [alice]
    assert ALICE not in ledger and "Gone Person" not in ledger

    app.config["GRADER_TIMEZONE"] = "America/Chicago"  # the server's clock tells the times
    restored = runner.invoke(args=["db", "restore", str(backup), "--force"])
    assert restored.exit_code == 0, restored.output
    chicago = r"\w{3} \d{1,2} \w{3} \d{4}, \d\d:\d\d C[SD]T \(America/Chicago\)"
    assert re.search(rf"restored \S+: taken {chicago} by release", restored.output)
    assert re.search(
        rf"erased again: account {alice}, erased on {chicago} after this backup", restored.output
    ), restored.output
    assert "UTC" not in restored.output and "+00:00" not in restored.output
    assert traces(app, ALICE, "Gone Person", "lms-alice-7") == []
    with app.app_context():
        row = db.session.get(User, alice)
        assert row.erased_at is not None and row.password_hash is None
        assert db.session.scalar(sa.select(ApiToken.id).where(ApiToken.user_id == alice)) is None
        assert accounts.user_for_token(token) is None
        assert db.session.scalar(sa.select(User.id).where(User.email == BOB)) == room.ids[BOB]
    # Restored again: nothing more to erase, and the output says so.
    again = runner.invoke(args=["db", "restore", str(backup), "--force"])
    assert again.exit_code == 0, again.output
    assert f"erased again: account {alice}," in again.output  # the backup undid it once more
    assert traces(app, ALICE) == []


def test_every_backup_carries_the_ledger_to_a_new_machine(
    app, factory, runner, tmp_path, monkeypatch
):
    from grader.extensions import db
    from grader.models import User

    room = full_room(app, factory)
    alice, bob = room.ids[ALICE], room.ids[BOB]
    old = tmp_path / "old.tar"
    assert runner.invoke(args=["db", "backup", str(old)]).exit_code == 0
    assert runner.invoke(args=["user", "erase", ALICE], input="y\n").exit_code == 0
    newer = tmp_path / "newer.tar"
    assert runner.invoke(args=["db", "backup", str(newer)]).exit_code == 0
    carried = parts(newer)["erasures.jsonl"].decode()
    assert [json.loads(line)["account"] for line in carried.splitlines()] == [alice]
    assert ALICE not in carried

    # The old machine is lost: a new one gets the newer backup (its ledger), then someone
    # restores the older one there. The person erased in between stays erased.
    other = new_instance(tmp_path / "new", monkeypatch)
    cli = other.test_cli_runner()
    first = cli.invoke(args=["db", "restore", str(newer)])
    assert first.exit_code == 0, first.output
    assert "erased again: none" in first.output
    second = cli.invoke(args=["db", "restore", str(old), "--force"])
    assert second.exit_code == 0, second.output
    assert f"erased again: account {alice}," in second.output
    assert traces(other, ALICE, "lms-alice-7") == []
    with other.app_context():
        assert db.session.get(User, bob).erased_at is None


def test_an_erasure_made_before_the_ledger_is_not_undone(app, factory, runner, tmp_path):
    """An erasure the database records but no ledger holds (made by an older release) is read
    from the database the restore overwrites."""
    room = full_room(app, factory)
    backup = tmp_path / "before.tar"
    assert runner.invoke(args=["db", "backup", str(backup)]).exit_code == 0
    assert runner.invoke(args=["user", "erase", ALICE], input="y\n").exit_code == 0
    (tmp_path / "instance" / "erasures.jsonl").unlink()
    restored = runner.invoke(args=["db", "restore", str(backup), "--force"])
    assert restored.exit_code == 0, restored.output
    assert f"erased again: account {room.ids[ALICE]}," in restored.output
    assert traces(app, ALICE) == []
