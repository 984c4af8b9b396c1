"""The student kit's download: the service's own wheel, by a signed, expiring per-student link
(pip sends no session cookie). Thin view over services/engines/kit.py."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, send_file

from grader.services import NotFound
from grader.services.engines import kit

bp = Blueprint("kit", __name__)


@bp.get("/kit/<token>/<filename>")
def download(token: str, filename: str) -> Any:
    kit.user_for(token)
    if filename != kit.wheel_name():  # pip names the file from the URL: only the real name
        raise NotFound("no such download")
    return send_file(
        kit.wheel_file(current_app.instance_path),
        mimetype="application/octet-stream",
        as_attachment=True,
        download_name=filename,
        max_age=0,
    )


def install_command(user: Any) -> str | None:
    """The one command that installs the kit, with `user`'s own link; None where no wheel can
    be served (an installed package without the image's prebuilt kit)."""
    from flask import url_for

    if not kit.available():
        return None
    url = url_for(
        "kit.download", token=kit.download_token(user), filename=kit.wheel_name(), _external=True
    )
    return f'python3 -m pip install "{url}"'
