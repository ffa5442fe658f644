"""Rules: every disputed rule of RULES.md as a field, with named presets."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Final, Literal

__all__ = ["CUSTOM", "PRESETS", "RANGES", "Rules", "RulesError"]

FirstDealer = Literal["random", "cut"]
NextDealer = Literal["alternate", "loser", "winner"]


class RulesError(ValueError):
    """An unknown preset, an unknown field or a value outside what the rules allow."""


#: The range of every whole-number field. Wide enough for every variant of RULES.md (knock at
#: 10 or lower, Oklahoma's 1 to 10; bonuses 10 to 31 or 50; Hoyle's 100-point game and shutout
#: bonuses; matches to 100, 150 or 250) and narrow enough that every total fits easily in JSON.
RANGES: Final[dict[str, tuple[int, int]]] = {
    "knock_limit": (0, 10),
    "gin_bonus": (0, 100),
    "undercut_bonus": (0, 100),
    "big_gin_bonus": (0, 100),
    "target": (1, 1000),
    "game_bonus": (0, 1000),
    "box_bonus": (0, 100),
    "shutout_bonus": (0, 1000),
    "retake_limit": (1, 100),
}
#: The name of rules that are no preset exactly.
CUSTOM: Final = "custom"
NAME_MAX: Final = 40


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """The parameters of a Gin Rummy match (RULES.md §3, §5, §6).

    >>> Rules.preset("oklahoma").oklahoma
    True
    >>> Rules.preset("classic").replace(gin_bonus=20).gin_bonus
    20
    """

    preset_name: str = "classic"
    #: Most deadwood a player may knock with (Oklahoma replaces it per hand).
    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 25
    #: A tie in deadwood is an undercut (True) or scores nothing (False).
    undercut_on_tie: bool = True
    #: Bonus for Big Gin (all eleven cards melded after drawing); None = variant off.
    big_gin_bonus: int | None = None
    target: int = 100
    first_dealer: FirstDealer = "random"
    next_dealer: NextDealer = "alternate"
    #: End of match (Hoyle): the winner's game bonus, the box bonus per hand won,
    #: and the shutout bonus when the loser won no hand.
    game_bonus: int = 0
    box_bonus: int = 0
    shutout_bonus: int = 0
    #: Oklahoma: the first upcard sets the hand's knock limit (ace: Gin only).
    oklahoma: bool = False
    #: Oklahoma: a spade as first upcard doubles the hand's points.
    spade_double: bool = False
    #: The end of an endless hand: the rules let two players keep taking each other's
    #: discards, and then the stock never shrinks. A hand is void (no score, as when the stock
    #: runs out) at the end of a turn in which a card was taken from the discard pile after it
    #: had already been taken this many times in the hand. A player may still knock or go Gin
    #: in that turn.
    retake_limit: int = 3

    def __post_init__(self) -> None:
        for name, (low, high) in RANGES.items():
            value = getattr(self, name)
            if name == "big_gin_bonus" and value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                allowed = "None or " if name == "big_gin_bonus" else ""
                raise RulesError(
                    f"{name} must be {allowed}a whole number from {low} to {high}, got {_shown(value)}"
                )
        if self.first_dealer not in ("random", "cut"):
            raise RulesError(f"first_dealer must be 'random' or 'cut', got {self.first_dealer!r}")
        if self.next_dealer not in ("alternate", "loser", "winner"):
            raise RulesError(
                f"next_dealer must be 'alternate', 'loser' or 'winner', got {self.next_dealer!r}"
            )
        for name in ("undercut_on_tie", "oklahoma", "spade_double"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if not isinstance(self.preset_name, str):
            raise RulesError(f"the rules' preset name must be text, got {self.preset_name!r}")
        # The name says which preset these rules are exactly, or "custom": a table labelled
        # "classic" always scores as classic does.
        object.__setattr__(self, "preset_name", _name_of(self))

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The named preset: `classic`, `hoyle`, `oklahoma` or `big_gin`."""
        key = name.strip().lower().replace("-", "_").replace(" ", "_")
        try:
            return PRESETS[key]
        except KeyError:
            raise RulesError(f"unknown rules preset {name!r}; choose one of {', '.join(PRESETS)}") from None

    @staticmethod
    def preset_names() -> tuple[str, ...]:
        """The names `Rules.preset` accepts."""
        return tuple(PRESETS)

    def hand_terms(self, first_upcard: int) -> tuple[int, int]:
        """(knock limit, points multiplier) of a hand whose first upcard has index
        `first_upcard` (``suit * 13 + rank``).

        Oklahoma (guide 003): the first upcard's points are the hand's knock limit, an ace
        allows Gin only, and a spade doubles the hand when `spade_double` is on.

        >>> Rules.preset("oklahoma").hand_terms(39 + 6)  # the seven of spades
        (7, 2)
        >>> Rules().hand_terms(0)
        (10, 1)
        """
        if not self.oklahoma:
            return self.knock_limit, 1
        rank = first_upcard % 13
        limit = 0 if rank == 0 else min(rank + 1, 10)
        return limit, 2 if self.spade_double and first_upcard // 13 == 3 else 1

    @property
    def big_gin(self) -> bool:
        """Whether the Big Gin variant is played."""
        return self.big_gin_bonus is not None

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (the preset name is kept unless given)."""
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise RulesError(f"unknown rules field(s): {', '.join(sorted(unknown))}")
        return replace(self, **changes)

    def changes(self, base: Rules | None = None) -> dict[str, Any]:
        """The fields whose values differ from `base` (default: the classic preset), in field order.

        >>> Rules.preset("hoyle").changes()
        {'first_dealer': 'cut', 'next_dealer': 'loser', 'game_bonus': 100, 'box_bonus': 25, 'shutout_bonus': 100}
        """
        base = base if base is not None else PRESETS["classic"]
        return {
            f.name: getattr(self, f.name)
            for f in _RULE_FIELDS
            if getattr(self, f.name) != getattr(base, f.name)
        }

    def to_json(self) -> dict[str, Any]:
        """Every field, with the preset name under `preset` (PROTOCOL.md VIEW `rules`)."""
        # Every field is a plain value: reading them directly is much cheaper than asdict's deep copy.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["preset"] = data.pop("preset_name")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rules:
        """Rules from `to_json()` output; missing fields take the named preset's values.

        A name that is not a preset (`custom`, as `to_json()` writes rules a host customised)
        needs every field. Whatever name was sent, the rules are named after the preset
        they equal exactly, or `custom`.
        """
        if not isinstance(data, dict):
            raise RulesError(f"rules must be a JSON object, got {data!r}")
        data = dict(data)
        name = data.pop("preset", "classic")
        if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX:
            shown = f"{len(name)} characters" if isinstance(name, str) and name.strip() else _shown(name)
            raise RulesError(
                f"the rules' preset name must be text of 1 to {NAME_MAX} characters, got {shown}"
            )
        key = name.strip().lower().replace("-", "_").replace(" ", "_")
        if key in PRESETS:
            base = PRESETS[key]
        else:
            missing = {f.name for f in fields(cls)} - {"preset_name"} - _LATER_FIELDS - set(data)
            if missing:
                raise RulesError(
                    f"unknown rules preset {name!r}; choose one of {', '.join(PRESETS)} "
                    f"(or give every field; missing: {', '.join(sorted(missing))})"
                )
            base = Rules()
        return base.replace(**data) if data else base


def _name_of(rules: Rules) -> str:
    """The preset `rules` equal in every field but the name, else "custom"."""
    presets: dict[str, Rules] | None = globals().get("PRESETS")
    if presets is None:  # building the presets themselves
        return rules.preset_name
    for name, preset in presets.items():
        if all(getattr(rules, f.name) == getattr(preset, f.name) for f in _RULE_FIELDS):
            return name
    return CUSTOM


def _shown(value: Any) -> str:
    """A value for an error message, short whatever was sent (a huge number has no cheap text)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        return f"a number of about {round(value.bit_length() * 0.30103)} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_RULE_FIELDS = tuple(f for f in fields(Rules) if f.name != "preset_name")

# Fields added after rules were first stored: rules saved without them take their defaults.
_LATER_FIELDS: Final = frozenset({"retake_limit"})

PRESETS: Final[dict[str, Rules]] = {
    # The online site (seed 001): alternate deals, no end-of-match bonus.
    "classic": Rules(),
    # The how-to guide (seed 000): cut for the first deal, loser deals, Hoyle bonuses.
    "hoyle": Rules(
        preset_name="hoyle",
        first_dealer="cut",
        next_dealer="loser",
        game_bonus=100,
        box_bonus=25,
        shutout_bonus=100,
    ),
    # Guide 003: the first upcard sets the knock limit; a spade doubles the hand.
    "oklahoma": Rules(preset_name="oklahoma", oklahoma=True, spade_double=True),
    # Big Gin: eleven melded cards end the hand for 31.
    "big_gin": Rules(preset_name="big_gin", big_gin_bonus=31),
}
