"""The options of a player-made tournament as its form sends them, checked one by one."""

from __future__ import annotations

import time
import unicodedata
from typing import Any

from ..errors import BadRequest
from ..names import refuse_invisible

NAME_MAX = 40
#: A player-made tournament starts at most this many days ahead; a start up to START_GRACE
#: seconds ago (the form took a moment) means now.
START_AHEAD_DAYS = 30
START_GRACE = 60.0


def parse_name(value: Any) -> str:
    if not isinstance(value, str):
        raise BadRequest("name must be a string")
    name = unicodedata.normalize("NFC", " ".join(value.split()))
    if not 1 <= len(name) <= NAME_MAX:
        raise BadRequest(f"a tournament name has 1 to {NAME_MAX} characters")
    refuse_invisible(name, "a tournament name")
    return name


def parse_number(body: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise BadRequest(f"{key} must be a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def parse_start(body: dict[str, Any], now: float) -> float:
    """When a player-made tournament starts: `starts_in` minutes from now or at `starts_at` (unix
    seconds, UTC); now by default. Not in the past, at most `START_AHEAD_DAYS` ahead."""
    if "starts_at" in body and "starts_in" in body:
        raise BadRequest("give the start as starts_in (minutes from now) or starts_at (a time), not both")
    if "starts_at" not in body:
        return now + 60 * parse_number(body, "starts_in", 0, 0, START_AHEAD_DAYS * 24 * 60)
    value = body["starts_at"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise BadRequest(f"starts_at must be a time in unix seconds (UTC), got {value!r}")
    late = now - float(value)
    if late > START_GRACE:
        stamp = (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(value))) if value >= 0 else "before 1970"
        )
        raise BadRequest(f"starts_at is in the past ({stamp}): choose a time from now on")
    if float(value) > now + START_AHEAD_DAYS * 86400:
        raise BadRequest(f"starts_at is more than {START_AHEAD_DAYS} days ahead: choose an earlier time")
    return max(now, float(value))  # a start a few seconds ago (a slow form) is now


def parse_flag(body: dict[str, Any], key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise BadRequest(f"{key} must be true or false, got {value!r}")
    return value
