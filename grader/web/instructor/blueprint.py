"""The instructor dashboard's blueprint (/instructor), which every module of the package adds its
routes to, and what their views share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Blueprint, Response, flash, redirect, url_for
from flask_login import login_required

from grader.services import Invalid, ServiceError

bp = Blueprint("instructor", __name__, url_prefix="/instructor")


T = TypeVar("T")


@bp.before_request
@login_required
def _signed_in() -> None:
    """Every dashboard page needs a signed-in user; the services check the course role."""


def redirect_to(endpoint: str, **values: Any) -> Any:
    return redirect(url_for(endpoint, **values))


def flash_errors(form: Any) -> None:
    for name, errors in form.errors.items():
        label = getattr(form, name).label.text if hasattr(form, name) else name
        for error in errors:
            flash(f"{label}: {error}", "error")


def submitted(
    form: Any,
    change: Callable[[], T],
    words: Callable[[T], str],
    refused: type[ServiceError] = Invalid,
) -> T | None:
    """The change a valid `form` asks for, its `words` flashed; None when the form's errors or
    the service's refusal were flashed instead (nothing changed then)."""
    if not form.validate_on_submit():
        flash_errors(form)
        return None
    try:
        done = change()
    except refused as error:
        flash(str(error), "error")
        return None
    flash(words(done), "info")
    return done


def csv_response(text: str, name: str) -> Response:
    return Response(
        text, mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )
