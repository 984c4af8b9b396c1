"""MkDocs hook: the API page is rendered from the service's own OpenAPI document.

Before each build the app is created (on a throwaway instance folder) and its
`/api/openapi.json` written to docs/openapi.json (gitignored), which the API page renders with
neoteroi's `[OAD(...)]` and the site serves as a download. Nothing about an endpoint is typed
twice: the document is spectree's, from the models that validate every request.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def on_pre_build(config: Any) -> None:
    from grader import create_app

    with tempfile.TemporaryDirectory() as folder:
        os.environ["GRADER_INSTANCE_PATH"] = folder
        app = create_app(
            {"SECRET_KEY": "docs", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/docs.sqlite3"}
        )
        answer = app.test_client().get("/api/openapi.json")
        if answer.status_code != 200:
            raise RuntimeError(f"/api/openapi.json answered {answer.status_code}")
        spec = answer.get_json()
    target = Path(config["docs_dir"]) / "openapi.json"
    text = json.dumps(spec, indent=1, sort_keys=True) + "\n"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
