"""Where a kind's page module and styles are: the web works both out from the kind
(`web/kind_pages.py`), the core names no web path. Every kind of the package has its module in
the static folder and every module there is a kind's; a kind's styles are its own file,
`css/kinds/<name>.css`, linked by the page that mounts the kind (`data-kind-styles`)."""

from __future__ import annotations

import re
from pathlib import Path

import grader
from grader.gametree import KINDS
from grader.web.kind_pages import kind_script, kind_styles
from tests.app_support import bearer
from tests.kinds import built_in_kinds

STATIC = Path(grader.__file__).parent / "web" / "static"


def test_each_kind_of_the_package_has_its_module_and_every_module_and_style_is_a_kinds(app):
    with app.test_request_context():
        for name in built_in_kinds():
            assert kind_script(name) == f"/static/js/kinds/{name}.js"
            styles = STATIC / "css" / "kinds" / f"{name}.css"
            assert kind_styles(name) == (
                f"/static/css/kinds/{name}.css" if styles.is_file() else ""
            )
        assert kind_script("essay") == kind_styles("essay") == ""
    modules = {p.stem for p in (STATIC / "js" / "kinds").glob("*.js")} - {"kind"}
    assert modules == set(built_in_kinds())
    assert {p.stem for p in (STATIC / "css" / "kinds").glob("*.css")} <= set(built_in_kinds())


def test_the_core_names_no_web_path():
    """The one arrow back up that was: a kind wrote its script's path under the static folder."""
    core = Path(grader.__file__).parent / "gametree" / "kinds"
    for path in core.rglob("*.py"):
        assert not re.search(r"js/|\.js\b|\.css\b", path.read_text()), path
    assert not any(hasattr(kind, "script") for kind in KINDS.values())


def test_a_kinds_styles_are_its_own_not_the_shared_sheets():
    shared = (STATIC / "css" / "tree.css").read_text() + (
        STATIC / "css" / "exercise.css"
    ).read_text()
    for sheet in (STATIC / "css" / "kinds").glob("*.css"):
        for selector in re.findall(r"^([^\s/{@][^{]*)\{", sheet.read_text(), re.M):
            assert selector.strip() not in shared, (sheet.name, selector)


def test_the_exercise_page_names_its_kinds_module_and_styles(client, factory, auth):
    factory.classroom()
    student = bearer(factory.token("student@example.com"))
    auth.login()
    for kind in ("leaf-order", "minimax"):  # one kind with styles, one without
        body = {"kind": kind, "leaves": "3,12,8,2,4,6,14,5,2", "branching": 3, "depth": 2}
        made = client.post("/api/exercises", headers=student, json=body)
        assert made.status_code == 201, made.get_json()
        page = client.get(f"/exercises/{made.get_json()['id']}").get_data(as_text=True)
        assert f'data-kind-module="/static/js/kinds/{kind}.js"' in page
        has_styles = (STATIC / "css" / "kinds" / f"{kind}.css").is_file()
        assert has_styles == (kind == "leaf-order")
        assert (f'data-kind-styles="/static/css/kinds/{kind}.css"' in page) == has_styles
        assert ("data-kind-styles" in page) == has_styles
