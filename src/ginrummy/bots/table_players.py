"""Computer players for every game behind one interface, and hints for every game.

`make_game_player(name, rules)` builds a player for the game `rules.game` names. Two-player
Gin uses the registered players as they are. At three- and four-player Gin tables a
two-player player plays its seat's own hand through `GinTableView.two_player()` (the view of
docs/protocol.md version 1), with its total and its opponent's (or the two teams') as the scores.
Rummy has its own players (`rummy_players`). `suggest_move(view)` gives a hint for any view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..rules import GameAction, GameView, GinTableView, Rules, RummyView, View
from .base import Player, available_players, make_player
from .rummy_players import RUMMY_LEVELS, make_rummy_player, rummy_player_names
from .suggest import suggest

__all__ = [
    "GinTablePlayer",
    "Hint",
    "TablePlayer",
    "game_player_names",
    "make_game_player",
    "suggest_move",
]


@dataclass(frozen=True, slots=True)
class Hint:
    """A recommended move in any game and why, e.g. ``lay off 8♥ on meld 2``."""

    action: GameAction
    reason: str
    level: str

    def to_json(self) -> dict[str, object]:
        """`{"action": ACTION, "reason": "...", "level": "advanced"}`."""
        return {"action": self.action.to_json(), "reason": self.reason, "level": self.level}


@runtime_checkable
class TablePlayer(Protocol):
    """Anything that picks an action from a view of any game (the seat's own view only).

    `act` is only called when `view.legal` is non-empty; `observe` receives the seat's view
    of each finished hand and may ignore it.
    """

    name: str

    def act(self, view: GameView) -> GameAction: ...

    def observe(self, view: GameView) -> None: ...


class GinTablePlayer:
    """A two-player Gin player seated at a three- or four-player Gin table: it plays its seat's
    own hand, seeing exactly the two-player view of that hand."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name
        self._observed: set[int] = set()

    def act(self, view: GameView) -> GameAction:
        if not isinstance(view, GinTableView):
            raise TypeError(
                f"a Gin table player needs a three- or four-player Gin view, got {type(view).__name__}"
            )
        return self.player.act(view.two_player())

    def observe(self, view: GameView) -> None:
        if not isinstance(view, GinTableView) or view.table is None:
            return  # a hand this seat sat out
        if view.phase == "over" and view.hand_number not in self._observed:
            self._observed.add(view.hand_number)
            self.player.observe(view.two_player())

    def close(self) -> None:
        close = getattr(self.player, "close", None)
        if close is not None:
            close()


class _TwoPlayer:
    """A registered two-player player, typed for the table interface (it only ever gets `View`s)."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name

    def act(self, view: GameView) -> GameAction:
        if not isinstance(view, View):
            raise TypeError(f"a two-player Gin player needs a two-player view, got {type(view).__name__}")
        return self.player.act(view)

    def observe(self, view: GameView) -> None:
        if isinstance(view, View):
            self.player.observe(view)

    def close(self) -> None:
        close = getattr(self.player, "close", None)
        if close is not None:
            close()


class _RummySeat:
    """A Rummy player, typed for the table interface."""

    def __init__(self, name: str, seed: int | None, time_budget: float | None) -> None:
        self.player = make_rummy_player(name, seed=seed, time_budget=time_budget)
        self.name = self.player.name

    def act(self, view: GameView) -> GameAction:
        if not isinstance(view, RummyView):
            raise TypeError(f"a Rummy player needs a Rummy view, got {type(view).__name__}")
        return self.player.act(view)

    def observe(self, view: GameView) -> None:
        if isinstance(view, RummyView):
            self.player.observe(view)


def game_player_names(game: str) -> list[str]:
    """The names `make_game_player` accepts for `game`."""
    if game == "rummy":
        return [name for name in rummy_player_names() if name != "rummy-random"]
    return available_players()


def make_game_player(
    name: str, rules: Rules, *, seed: int | None = None, time_budget: float | None = None
) -> TablePlayer:
    """A player of kind `name` for the game of `rules`, seeded for reproducible play.

    Raises `ValueError` naming the players available for that game.
    """
    if rules.game == "rummy":
        if name not in game_player_names("rummy"):
            raise ValueError(
                f"unknown Rummy player {name!r}; choose one of {', '.join(game_player_names('rummy'))}"
            )
        return _RummySeat(name, seed, time_budget)
    player = make_player(name, seed=seed, time_budget=time_budget)
    if rules.game == "gin":
        return _TwoPlayer(player)
    return GinTablePlayer(player)


def suggest_move(view: View | GinTableView | RummyView, level: str = "advanced", *, seed: int = 0) -> Hint:
    """The move `level` would play in `view` (any game), with a short reason.

    Gin tables take the two-player hint for the seat's own hand; Rummy's levels are
    `novice` to `advanced`, and `expert` (a Gin level) means Rummy's strongest.
    """
    if isinstance(view, (View, GinTableView)):
        if isinstance(view, GinTableView) and not view.legal:
            raise ValueError("nothing to suggest: it is not this seat's turn")
        two = view if isinstance(view, View) else view.two_player()
        hint = suggest(two, level, seed=seed)
        return Hint(hint.action, hint.reason, hint.level)
    if not view.legal:
        raise ValueError("nothing to suggest: it is not this seat's turn")
    chosen = RUMMY_LEVELS[-1] if level == "expert" else level
    if chosen not in RUMMY_LEVELS:
        raise ValueError(f"unknown Rummy level {level!r}; choose one of {', '.join(RUMMY_LEVELS)}")
    decision = make_rummy_player(chosen, seed=seed).decide(view)
    return Hint(decision.action, decision.reason, chosen)
