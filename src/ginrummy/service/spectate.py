"""What a spectator may see of a match: only what both players see, built from their two VIEWs.

A spectator's view is never read from the match state: it is the common part of the two seats'
own views (`Match.view(0)` and `Match.view(1)`). A card one seat saw and the other did not (a
stock draw, a face-down knock card, a hand) is in one view only, so it is not in the common part;
the discard pile, the stock count, the scores, the cards a player took from the pile and, once a
hand is over, the showdown are in both, as at a real table.
"""

from __future__ import annotations

from typing import Any

from ..rules import View

__all__ = ["common", "spectator_view"]

_MISSING = object()


def common(a: Any, b: Any) -> Any:
    """The part two JSON values share: equal scalars, shared keys of objects, lists item by item."""
    if isinstance(a, dict) and isinstance(b, dict):
        shared = {}
        for key in a.keys() & b.keys():
            value = common(a[key], b[key])
            if value is not _MISSING:
                shared[key] = value
        return shared
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return _MISSING
        items = [common(x, y) for x, y in zip(a, b, strict=True)]
        return _MISSING if any(item is _MISSING for item in items) else items
    return a if type(a) is type(b) and a == b else _MISSING


def spectator_view(first: View, second: View) -> dict[str, Any]:
    """The public view of a table from the views of seat 0 and seat 1."""
    if {first.seat, second.seat} != {0, 1}:
        raise ValueError("a spectator view needs the views of both seats")
    views = (first, second) if first.seat == 0 else (second, first)
    a, b = views[0].to_json(), views[1].to_json()
    shared = {
        key: value
        for key in ("dealer", "hand_number", "scores", "knock_limit", "phase", "discard_pile", "stock_count")
        if (value := common(a[key], b[key])) is not _MISSING
    }
    history = common(a["history"], b["history"])
    showdown = common(a["showdown"], b["showdown"]) if a["showdown"] and b["showdown"] else None
    return {
        **shared,
        # How many cards each holds: each seat's own view says it; the cards stay hidden.
        "hand_sizes": [len(views[0].hand), len(views[1].hand)],
        # Cards a player took from the discard pile and still holds: the other player saw them taken.
        "known": [b["opponent_known"], a["opponent_known"]],
        "history": history if history is not _MISSING else [],
        "to_act": 0 if views[0].legal else (1 if views[1].legal else None),
        "showdown": showdown if showdown is not _MISSING else None,
    }
