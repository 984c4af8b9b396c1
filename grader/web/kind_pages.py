"""Where an exercise kind's page module and styles are, worked out by the web from the kind (the
core names no web path): a kind of this package has them in the static folder,
`js/kinds/<name>.js` and, where it has styles, `css/kinds/<name>.css`; a plugin's kind keeps them
beside its module (in its package), `<name>.js` and `<name>.css`, served by this blueprint at
`/kinds/<name>/`. The `kind_page` macro of `templates/_kinds.html` writes both URLs into the
element that mounts the kind (`data-kind-module`, `data-kind-styles`)."""

from __future__ import annotations

import functools
import importlib.resources
import sys
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, url_for

from grader.gametree import KINDS

bp = Blueprint("kind_pages", __name__)

# The package whose kinds' page files are in the static folder.
BUILT_IN = "grader.gametree.kinds."
SUFFIXES = {"js": "text/javascript", "css": "text/css"}


def _plugin_folder(name: str) -> Traversable | None:
    """The folder of a plugin kind's package; None for a kind of this package or no kind."""
    kind = KINDS.get(name)
    if kind is None:
        return None
    module = type(kind).__module__
    if module.startswith(BUILT_IN):
        return None
    # The package the kind's module is in (the module itself where it is a package).
    return importlib.resources.files(sys.modules[module].__package__ or module)


def _static(name: str, suffix: str) -> str:
    return f"js/kinds/{name}.js" if suffix == "js" else f"css/kinds/{name}.css"


@functools.cache
def page_file(name: str, suffix: str, static_folder: str) -> Traversable | None:
    """A kind's page module (``js``) or styles (``css``) as a file; None where it has none."""
    if name not in KINDS:
        return None
    folder = _plugin_folder(name)
    found = (
        Path(static_folder) / _static(name, suffix)
        if folder is None
        else folder / f"{name}.{suffix}"
    )
    return found if found.is_file() else None


def page_url(name: str, suffix: str) -> str:
    """The URL of a kind's page module or styles; "" where it has none."""
    static_folder = current_app.static_folder
    assert static_folder is not None  # the app serves its static folder
    if page_file(name, suffix, static_folder) is None:
        return ""
    if _plugin_folder(name) is None:
        return url_for("static", filename=_static(name, suffix))
    return url_for("kind_pages.plugin_file", name=name, filename=f"{name}.{suffix}")


def kind_script(name: str) -> str:
    """The URL of a kind's page module ("" for a name no kind is registered under)."""
    return page_url(name, "js")


def kind_styles(name: str) -> str:
    """The URL of a kind's styles ("" for a kind without)."""
    return page_url(name, "css")


@bp.get("/kinds/<name>/<filename>")
def plugin_file(name: str, filename: str) -> Any:
    """A plugin kind's page module or styles, read from its package."""
    suffix = filename.rpartition(".")[2]
    folder = _plugin_folder(name)
    if folder is None or suffix not in SUFFIXES or filename != f"{name}.{suffix}":
        abort(404)
    found = folder / filename
    if not found.is_file():
        abort(404)
    return Response(found.read_bytes(), mimetype=SUFFIXES[suffix])
