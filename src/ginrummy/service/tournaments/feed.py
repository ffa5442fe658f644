"""What a tournament's pages were last sent, so that each push carries only what changed."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..live import Connection

#: The compact JSON a tournament's pages are sent.
dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class PageFeed:
    """What the tournament pages were last sent, so that a push carries only what changed.

    A page gets the whole state when it opens (and again at the first push after, so nothing
    changed meanwhile is missed); every push after that is a delta: `order` (the ids of the lines
    shown, best first) when it changed, `lines` (by id, without the rank) for the lines that
    changed, `tournament` and `playing` when they changed, and `me` when the viewer's own part
    changed; a page for which nothing changed is sent nothing. Every push reaches every open page
    in order (a page too slow to keep up is closed, reopens and starts again from a whole state),
    so a page that applies each delta to what it has shows what the server would send whole.
    """

    def __init__(self) -> None:
        self.order: list[str] = []
        self.ranked = 0
        self.lines: dict[str, str] = {}
        self.summary = ""
        self.playing = ""
        self.fresh: set[Connection] = set()  # opened since the last push
        self.me_sent: dict[Connection, str] = {}
        self.pages: dict[str, set[Connection]] = {}  # guest id -> its open pages

    def opened(self, conn: Connection, guest_id: str | None) -> None:
        self.fresh.add(conn)
        if guest_id is not None:
            self.pages.setdefault(guest_id, set()).add(conn)

    def closed(self, conn: Connection, guest_id: str | None) -> None:
        self.fresh.discard(conn)
        self.me_sent.pop(conn, None)
        pages = self.pages.get(guest_id or "")
        if pages is not None:
            pages.discard(conn)
            if not pages:
                del self.pages[guest_id or ""]

    def delta(
        self, *, now: float, ranked: int, lines: dict[str, str], summary: str, playing: str
    ) -> tuple[str, bool]:
        """The delta message since the last push, without its closing brace, and whether anything
        every page shows changed; remembers this push."""
        parts = ['{"type":"tournament","delta":true,"now":', dumps(now), ',"players_ranked":', str(ranked)]
        size = len(parts)
        if ranked != self.ranked:
            parts.append("")  # counted as a change; the count is in every push
        order = list(lines)
        if order != self.order:
            parts += [',"order":', dumps(order)]
        news = [f"{dumps(guest)}:{text}" for guest, text in lines.items() if self.lines.get(guest) != text]
        if news:
            parts += [',"lines":{', ",".join(news), "}"]
        if summary != self.summary:
            parts += [',"tournament":', summary]
        if playing != self.playing:
            parts += [',"playing":', playing]
        self.order, self.lines, self.ranked = order, lines, ranked
        self.summary, self.playing = summary, playing
        return "".join(parts), len(parts) > size
