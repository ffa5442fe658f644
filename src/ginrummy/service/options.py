"""What a person chooses when they set up a game: rules, turn clock, names, robot levels; checked."""

from __future__ import annotations

import unicodedata
from collections.abc import Collection
from typing import Any, Final

from ..rules import Rules, RulesError
from .errors import BadRequest
from .names import imitates_robot, refuse_invisible

__all__ = [
    "GIN_ONLY",
    "NAME_MAX",
    "clean_name",
    "parse_robot_levels",
    "parse_room_seats",
    "parse_rules",
    "parse_turn_seconds",
    "robot_level_for",
    "robot_name",
]

NAME_MAX: Final = 24
#: Quick pairing and tournaments play two-player Gin only.
GIN_ONLY: Final = ("gin",)


def parse_rules(value: Any, *, games: Collection[str] = GIN_ONLY) -> Rules:
    """Rules from a preset name or a Rules JSON object, for one of `games`; `BadRequest` says what is wrong.

    In Rummy the dealer's rotation follows the number of players unless it is given: with two the
    winner deals next, with more the deal passes left (document 002).
    """
    if value is None:
        return Rules.preset("classic")
    try:
        if isinstance(value, str):
            rules = Rules.preset(value)
        elif isinstance(value, dict):
            rules = Rules.from_json(value)
            if rules.game == "rummy" and "next_dealer" not in value:
                rules = rules.replace(next_dealer=Rules.for_game("rummy", rules.players).next_dealer)
        else:
            raise BadRequest(f"rules must be a preset name or an object, got {value!r}")
    except (RulesError, TypeError, ValueError) as exc:
        raise BadRequest(f"bad rules: {exc}") from None
    if rules.game not in games:
        if tuple(games) == GIN_ONLY:
            raise BadRequest(f"bad rules: this is played as two-player Gin only, not {rules.game!r}")
        raise BadRequest(f"bad rules: the game must be one of {', '.join(games)}, not {rules.game!r}")
    return rules


def _level(value: Any, levels: Collection[str], what: str) -> str:
    if value not in levels:
        raise BadRequest(f"{what} must be one of {', '.join(levels)}, got {value!r}")
    return str(value)


def parse_robot_levels(level: Any, levels: Any, others: int, allowed: Collection[str]) -> list[str]:
    """The robots' levels for the `others` seats beside the person: `levels` (one per seat, in
    seat order), else `level` (default casual) in every seat."""
    if levels is None:
        return [_level("casual" if level is None else level, allowed, "level")] * others
    if not isinstance(levels, list) or len(levels) != others:
        raise BadRequest(
            f"levels must be a list of {others} robot levels, one per other seat, got {levels!r}"
        )
    return [_level(value, allowed, f"levels[{n}]") for n, value in enumerate(levels)]


def parse_room_seats(value: Any, players: int, allowed: Collection[str]) -> list[str | None]:
    """Who sits in a room's seats after the creator's (seats 1, 2, ...): None for a friend who comes
    by the link, else a robot's level. By default every seat waits for a friend.

    Each seat is `"friend"` or `{"robot": LEVEL}`; at least one must be a friend's (a table of
    robots only is a robot match).
    """
    others = players - 1
    if value is None:
        return [None] * others
    if not isinstance(value, list) or len(value) != others:
        raise BadRequest(
            f'seats must be a list of {others} seat(s) after yours, each "friend" or '
            f'{{"robot": LEVEL}}, got {value!r}'
        )
    seats: list[str | None] = []
    for n, seat in enumerate(value, start=1):
        if seat == "friend":
            seats.append(None)
        elif isinstance(seat, dict) and set(seat) == {"robot"}:
            seats.append(_level(seat["robot"], allowed, f"the robot of seat {n}"))
        else:
            raise BadRequest(f'seat {n} must be "friend" or {{"robot": LEVEL}}, got {seat!r}')
    if all(level is not None for level in seats):
        raise BadRequest(
            "a room needs a seat for at least one friend; to play robots only, start a robot match"
        )
    return seats


def parse_turn_seconds(value: Any, default: float | None, minimum: float) -> float | None:
    """A turn clock in seconds (None: no clock); `...` means "not given": the default."""
    if value is ...:
        return default
    if value is None or value == 0:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not minimum <= value <= 3600:
        raise BadRequest(
            f"turn_seconds must be 0 (no clock) or a number of seconds from {minimum:g} to 3600, got {value!r}"
        )
    return value


def clean_name(value: Any) -> str:
    """A display name: trimmed, 1-24 characters, nothing invisible, not passing for a robot."""
    if not isinstance(value, str):
        raise BadRequest("name must be a string")
    name = unicodedata.normalize("NFC", " ".join(value.split()))
    if not 1 <= len(name) <= NAME_MAX:
        raise BadRequest(f"name must be 1 to {NAME_MAX} characters after trimming, got {len(name)}")
    refuse_invisible(name)
    if not any(ch.isalnum() for ch in name):
        raise BadRequest("name must contain a letter or a digit")
    if imitates_robot(name):
        raise BadRequest("name must not look like a robot's name")
    return name


def robot_level_for(rating: float) -> str:
    """The robot offered to someone of this rating when nobody else is waiting."""
    for level, below in (("novice", 1300), ("casual", 1500), ("skilled", 1700), ("advanced", 1900)):
        if rating < below:
            return level
    return "expert"


def robot_name(level: str) -> str:
    """How a robot of `level` is named at the table."""
    return f"Robot ({level})"
