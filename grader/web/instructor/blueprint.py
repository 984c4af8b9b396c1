"""The instructor dashboard's blueprint (/instructor), which every module of the package adds its
routes to, and what their views share."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from flask import Blueprint, Response, flash, redirect, url_for
from flask_login import login_required

from grader.services import Invalid, ServiceError
from grader.web.forms import refused_beside

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
        label = getattr(form, name).label.text if name and hasattr(form, name) else None
        for error in errors:
            flash(f"{label}: {error}" if label else error, "error")


def kept(
    form: Any,
    change: Callable[[], T],
    words: Callable[[T], str],
    refused: type[ServiceError] = Invalid,
    fields: Mapping[str, str] | None = None,
) -> T | None:
    """The change a valid `form` asks for, its `words` flashed; None when the form's checks or
    the service refused it (nothing changed then), each refusal then on the form beside the
    field it names (`refused_beside`, `fields` mapping the service's names to the form's), for
    the view to show the form again as typed, with 422."""
    if not form.validate_on_submit():
        return None
    try:
        done = change()
    except refused as error:
        refused_beside(form, error, fields)
        return None
    flash(words(done), "info")
    return done


def submitted(
    form: Any,
    change: Callable[[], T],
    words: Callable[[T], str],
    refused: type[ServiceError] = Invalid,
) -> T | None:
    """`kept`, for a form with nothing typed to keep (a choice, a button): its refusals are
    flashed for the page the view goes back to."""
    done = kept(form, change, words, refused)
    if done is None:
        flash_errors(form)
    return done


def csv_response(text: str, name: str) -> Response:
    return Response(
        text, mimetype="text/csv", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )
