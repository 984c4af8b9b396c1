"""What leaves the service as a file a person opens in a spreadsheet (the gradebook's CSV, the
roster's LTI accounts): cells that a spreadsheet will not run."""

from __future__ import annotations


def csv_cell(text: str) -> str:
    """No formula injection when a CSV is opened in a spreadsheet (OWASP's list of leading
    characters a spreadsheet reads as a formula)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
