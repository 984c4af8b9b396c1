"""c53f1a2b3d40: every LMS registration made before it keeps its rows and values, and is framed
by no origin besides its own (issuer and authorization URL) until an administrator adds one."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from grader.extensions import db
from tests.migrations.rows_support import Schema, fill, lost, migrated_app, upgrade

BEFORE = "b51d3e5f7a90"


def test_registrations_made_before_get_no_other_frame_origins(database_url: str, tmp_path: Path):
    with migrated_app(database_url, tmp_path / "instance") as app:
        upgrade(app, BEFORE)
        with db.engine.begin() as connection:
            before = fill(connection, Schema.of(connection))
        assert len(before["lti_registration"]) == 3

        upgrade(app, "c53f1a2b3d40")

        with db.engine.connect() as connection:
            assert lost(before, connection) == []
        from grader.models import LtiRegistration
        from grader.services.lti import frames

        registrations = db.session.scalars(sa.select(LtiRegistration).order_by(LtiRegistration.id))
        for reg, row in zip(registrations, before["lti_registration"], strict=True):
            assert reg.frame_origins == []
            # The origins it is framed by are those it was framed by before the revision.
            assert frames.registration_origins(reg) == [
                o
                for o in dict.fromkeys(
                    [frames.origin_of(row["issuer"]), frames.origin_of(row["auth_login_url"])]
                )
                if o
            ]
