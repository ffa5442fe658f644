"""Rules: every disputed rule of docs/rules.md as a field, with named presets for each game."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Final, Literal

__all__ = ["CUSTOM", "GAMES", "PRESETS", "RANGES", "Rules", "RulesError"]

FirstDealer = Literal["random", "cut"]
NextDealer = Literal["alternate", "loser", "winner"]
GameName = Literal["gin", "gin3", "gin4_teams", "rummy"]
AceRank = Literal["low", "high", "either"]

#: The games these rules describe, with the seats each allows (docs/rules.md §7, §8).
GAMES: Final[dict[str, tuple[int, ...]]] = {
    "gin": (2,),
    "gin3": (3,),
    "gin4_teams": (4,),
    "rummy": (2, 3, 4, 5, 6),
}

# Fields that only the table games (three or more seats, classic Rummy) use. Two-player Gin
# leaves them at their defaults and `to_json` leaves them out, so its JSON (docs/protocol.md
# version 1, match records) is exactly what it was before they existed.
TABLE_FIELDS: Final = ("game", "players", "ace", "stock_turnovers", "rummy_multiplier")


class RulesError(ValueError):
    """An unknown preset, an unknown field or a value outside what the rules allow."""


#: The range of every whole-number field. Wide enough for every variant of docs/rules.md (knock at
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
    # Rummy: turning the discard pile over more than ten times is no game; a rummy paid up
    # to ten times over covers every house rule (double, triple).
    "stock_turnovers": (0, 10),
    "rummy_multiplier": (1, 10),
    "retake_limit": (1, 100),
}
#: The name of rules that are no preset exactly.
CUSTOM: Final = "custom"
NAME_MAX: Final = 40


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """The parameters of a game: two-player Gin (docs/rules.md §3, §5, §6), Gin for three or four
    (§7) or classic Rummy (§8), chosen by `game` and `players`.

    With more than two seats, `next_dealer` names who deals next: `alternate` passes the
    deal to the next seat (to the left; in team Gin to the other team), `loser`/`winner` to
    the loser/winner of the hand (in team Gin, of the round).

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
    #: The game: two-player Gin, three-player Gin (the dealer sits out), four-player team
    #: Gin (two hands at once, partners' points added) or classic Rummy (docs/rules.md §7-§8).
    game: GameName = "gin"
    #: Seats at the table: 2 for Gin, 3 for gin3, 4 for gin4_teams, 2 to 6 for Rummy.
    players: int = 2
    #: Rummy: the ace ranks low (A-2-3), high (Q-K-A) or either (never K-A-2); it counts 1.
    ace: AceRank = "low"
    #: Rummy: how many times the discard pile may be turned over as a new stock; when the
    #: stock runs out after that, the hand is void (docs/rules.md).
    stock_turnovers: int = 2
    #: Rummy: a player who goes out "rummy" (all cards in one turn, nothing laid before)
    #: is paid this many times the cards' value (1 = no rummy bonus).
    rummy_multiplier: int = 2
    #: The end of an endless hand: the rules let two players keep taking each other's
    #: discards, and then the stock never shrinks. A hand is void (no score, as when the stock
    #: runs out) at the end of a turn in which a card was taken from the discard pile after it
    #: had already been taken this many times in the hand (every game). A player may still knock,
    #: go Gin or go out in that turn.
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
        self._check_table_fields()
        # The name says which preset these rules are exactly, or "custom": a table labelled
        # "classic" always scores as classic does.
        object.__setattr__(self, "preset_name", _name_of(self))

    def _check_table_fields(self) -> None:
        game = self.game
        if game not in GAMES:
            raise RulesError(f"game must be one of {', '.join(GAMES)}, got {_shown(game)}")
        seats = GAMES[game]
        players = self.players
        if not isinstance(players, int) or isinstance(players, bool) or players not in seats:
            allowed = str(seats[0]) if len(seats) == 1 else f"{seats[0]} to {seats[-1]}"
            raise RulesError(f"{game} is played by {allowed} players, got players={_shown(players)}")
        if self.ace not in ("low", "high", "either"):
            raise RulesError(f"ace must be 'low', 'high' or 'either', got {_shown(self.ace)}")
        if game == "rummy":
            if self.oklahoma or self.spade_double or self.big_gin_bonus is not None:
                raise RulesError("Oklahoma and Big Gin are Gin variants: Rummy plays neither")
            if self.next_dealer == "loser" and players > 2:
                raise RulesError(
                    "next_dealer 'loser' needs a single loser: in Rummy with more than two players "
                    "choose 'alternate' (the deal passes left) or 'winner'"
                )
        else:
            rummy_only = [
                name
                for name in ("ace", "stock_turnovers", "rummy_multiplier")
                if getattr(self, name) != _TABLE_DEFAULTS[name]
            ]
            if rummy_only:
                raise RulesError(f"only Rummy uses {', '.join(rummy_only)}; these rules are for {game!r}")

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The named preset: `classic`, `hoyle`, `oklahoma`, `big_gin`, `gin3`, `gin4_teams` or `rummy`."""
        key = name.strip().lower().replace("-", "_").replace(" ", "_")
        try:
            return PRESETS[key]
        except KeyError:
            raise RulesError(f"unknown rules preset {name!r}; choose one of {', '.join(PRESETS)}") from None

    @staticmethod
    def preset_names() -> tuple[str, ...]:
        """The names `Rules.preset` accepts."""
        return tuple(PRESETS)

    @classmethod
    def for_game(cls, game: str, players: int | None = None) -> Rules:
        """The book rules of `game` for `players` seats (its preset when `players` is None).

        Two-player Gin is `classic`. Rummy follows document 002: with two players the
        winner of a hand deals the next, with more the deal passes left.

        >>> Rules.for_game("rummy", 2).next_dealer, Rules.for_game("rummy", 5).next_dealer
        ('winner', 'alternate')
        """
        if game not in GAMES:
            raise RulesError(f"unknown game {_shown(game)}; choose one of {', '.join(GAMES)}")
        rules = PRESETS["classic" if game == "gin" else game]
        if players is None or players == rules.players:
            return rules
        if game == "rummy":
            return rules.replace(players=players, next_dealer="winner" if players == 2 else "alternate")
        return rules.replace(players=players)  # refused with the seats the game allows

    @property
    def seats(self) -> int:
        """How many seats the game has (the `players` field)."""
        return self.players

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
        """Every field, with the preset name under `preset` (docs/protocol.md VIEW `rules`)."""
        # Every field is a plain value: reading them directly is much cheaper than asdict's deep copy.
        names = _GIN_JSON_FIELDS if self.game == "gin" else _ALL_FIELDS
        data = {name: getattr(self, name) for name in names}
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
            written = _GIN_JSON_FIELDS if data.get("game", "gin") == "gin" else _ALL_FIELDS
            missing = set(written) - {"preset_name"} - _LATER_FIELDS - set(data)
            if missing:
                raise RulesError(
                    f"unknown rules preset {name!r}; choose one of {', '.join(PRESETS)} "
                    f"(or give every field; missing: {', '.join(sorted(missing))})"
                )
            base = Rules()
        return base.replace(**data) if data else base


def _name_of(rules: Rules) -> str:
    """The preset `rules` equal in every field but the name and the target, else "custom".

    The target is how long a match lasts, not how it is scored, and the table shows it on
    its own ("to 25"): classic rules played to 25 are still classic.
    """
    presets: dict[str, Rules] | None = globals().get("PRESETS")
    if presets is None:  # building the presets themselves
        return rules.preset_name
    for name, preset in presets.items():
        if all(getattr(rules, f.name) == getattr(preset, f.name) for f in _NAMED_FIELDS):
            return name
    return CUSTOM


def _shown(value: Any) -> str:
    """A value for an error message, short whatever was sent (a huge number has no cheap text)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        return f"a number of about {round(value.bit_length() * 0.30103)} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_RULE_FIELDS = tuple(f for f in fields(Rules) if f.name != "preset_name")
_NAMED_FIELDS = tuple(f for f in _RULE_FIELDS if f.name != "target")
_ALL_FIELDS: Final = tuple(f.name for f in fields(Rules))
_GIN_JSON_FIELDS: Final = tuple(name for name in _ALL_FIELDS if name not in TABLE_FIELDS)
_TABLE_DEFAULTS: Final = {f.name: f.default for f in fields(Rules) if f.name in TABLE_FIELDS}

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
    # Three players (guide 000): the dealer deals to the other two and sits out, the role
    # passes left each hand; the guide's cut for the first deal and its end-of-match bonuses.
    "gin3": Rules(
        preset_name="gin3",
        game="gin3",
        players=3,
        first_dealer="cut",
        next_dealer="alternate",
        game_bonus=100,
        box_bonus=25,
        shutout_bonus=100,
    ),
    # Four players in two teams (guide 000; the partnership game's published figures: the
    # low-cutting side deals, winners deal next, game to 125, game and shutout bonus 100,
    # box bonus per round won).
    "gin4_teams": Rules(
        preset_name="gin4_teams",
        game="gin4_teams",
        players=4,
        target=125,
        first_dealer="cut",
        next_dealer="winner",
        game_bonus=100,
        box_bonus=25,
        shutout_bonus=100,
    ),
    # Classic Rummy (document 002) for four; `Rules.for_game("rummy", n)` seats two to six.
    "rummy": Rules(
        preset_name="rummy",
        game="rummy",
        players=4,
        target=100,
        next_dealer="alternate",
    ),
}
