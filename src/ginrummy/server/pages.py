"""The site's HTML pages: each page file with the head every page shares (static/head.html).

A page's `<head>` holds the marker `<!--#head-->` and its own stylesheets and script; the shared
lines (charset, viewport, colour scheme, title, icons, manifest, the site's stylesheets) live once
in head.html. A page is put together when it is served and kept until one of its files changes.
"""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["HEAD_MARKER", "page_html"]

HEAD_MARKER = "<!--#head-->"
HEAD_FILE = "head.html"


def page_html(static_dir: Path, filename: str) -> str:
    """The page `filename` of `static_dir` with the shared head in place of its marker."""
    page, head = static_dir / filename, static_dir / HEAD_FILE
    return _assembled(page, page.stat().st_mtime_ns, head, head.stat().st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _assembled(page: Path, _page_version: int, head: Path, _head_version: int) -> str:
    text = page.read_text(encoding="utf-8")
    if HEAD_MARKER not in text:
        raise ValueError(f"{page.name} has no {HEAD_MARKER} in its <head>")
    return text.replace(HEAD_MARKER, head.read_text(encoding="utf-8").rstrip("\n"), 1)
