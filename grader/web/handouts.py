"""The engine slot's handouts (the assignment, the rules) as pages of the site.

The handouts are Markdown files shipped in `exercises/checkers/`; they are rendered with
markdown-it-py (CommonMark with tables; raw HTML stays text), their links between each other
pointed at the pages that show them, and their first heading made the page's title.
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it import MarkdownIt
from markupsafe import Markup

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def render(text: str, link: Callable[[str], tuple[str, bool] | None]) -> tuple[str, Markup]:
    """(title, HTML) of a handout; `link` maps a relative link target (`RULES.md`,
    `template/engine.py`) to the URL that serves it and whether that is a file to download (the
    link gets `download`), or None to leave it as written."""
    tokens = _MARKDOWN.parse(text)
    title = ""
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1" and not title:
            title = tokens[index + 1].content
        for child in token.children or []:
            if child.type == "link_open":
                target = str(child.attrGet("href") or "")
                linked = None if "://" in target or target.startswith("#") else link(target)
                if linked is not None:
                    child.attrSet("href", linked[0])
                    if linked[1]:
                        child.attrSet("download", "")
    html = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {})
    # A wide table scrolls inside the page on a phone: keyboard users must reach it too.
    return title, Markup(html.replace("<table>", '<table tabindex="0">'))
