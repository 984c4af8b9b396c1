"""docs/privacy.md names every column of every table that holds a person's data: each table
that refers to an account, and those holding a person's uploads, results and exam sheets. A new
personal column without its line in the page fails here."""

from __future__ import annotations

from pathlib import Path

from grader.models import Base

DOC = Path(__file__).resolve().parents[1] / "docs" / "privacy.md"
# Tables holding a person's data by way of another table (an upload's bytes and results, a
# sheet's trees and answers).
THROUGH_ANOTHER = {"blob", "engine_result", "exam_item"}


def personal_tables() -> list[str]:
    return [
        table.name
        for table in Base.metadata.sorted_tables
        if table.name == "user"
        or table.name in THROUGH_ANOTHER
        or any(fk.column.table.name == "user" for c in table.columns for fk in c.foreign_keys)
    ]


def test_the_privacy_page_names_every_personal_column():
    text = DOC.read_text()
    tables = personal_tables()
    assert {"user", "attempt", "submission", "lti_user", "account_erasure"} <= set(tables)
    missing = [
        f"{name}.{column.name}"
        for name in tables
        for column in Base.metadata.tables[name].columns
        if f"`{name}.{column.name}`" not in text
    ]
    assert missing == []
    for name in tables:
        assert f"### {name}\n" in text, name
