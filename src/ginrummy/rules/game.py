"""One typed interface for every game: two-player Gin, three-player Gin, team Gin and Rummy.

`new_game(rules, seed=...)` starts the game `rules.game` names; every game satisfies the
`Game` protocol, so a host (the terminal, the arena, the web platform) drives them all the
same way: ask `seats_to_act` (two seats at once in team Gin, where two hands run side by
side), give a seat its `view`, `check`/`apply` the seat's action (illegal ones raise
`IllegalActionError` and change nothing), show `hand_view` once a hand is over, and keep
the `record`, which `game_from_record` replays into the same state.

>>> game = new_game(Rules.preset("rummy"), seed=11)
>>> game.seat_count, game.seats_to_act, type(game.view(0)).__name__
(4, (1,), 'RummyView')
>>> text = game.record().dumps()
>>> load_game(text).record().dumps() == text
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from .actions import GameAction
from .gin_table_views import GinTableView
from .gin_tables import TeamGin, ThreeGin
from .match import Match
from .record import GameRecord, loads
from .rummy_game import RummyGame
from .rummy_views import RummyView
from .variants import Rules
from .views import View, ViewError, view_object

__all__ = [
    "Game",
    "GameResult",
    "GameView",
    "HandOutcome",
    "game_from_record",
    "game_view_from_json",
    "load_game",
    "new_game",
]


@runtime_checkable
class HandOutcome(Protocol):
    """How a hand ended (Gin's `HandResult`, Rummy's `RummyHandResult`)."""

    @property
    def outcome(self) -> str: ...

    @property
    def scorer(self) -> int | None: ...

    @property
    def points(self) -> int: ...


class GameResult(Protocol):
    """The end of a game: final totals per side (see `Game.sides`) and the winning seats (none
    on a tie at the top)."""

    @property
    def winners(self) -> tuple[int, ...]: ...

    @property
    def scores(self) -> tuple[int, ...]: ...

    def to_json(self) -> dict[str, Any]: ...


class GameView(Protocol):
    """What one seat may know: never a card hidden from it. `to_json()` is the protocol's VIEW."""

    @property
    def seat(self) -> int: ...

    @property
    def hand_number(self) -> int: ...

    @property
    def legal(self) -> Sequence[GameAction]: ...

    @property
    def scores(self) -> tuple[int, ...]: ...

    def to_json(self) -> dict[str, Any]: ...

    def dumps(self) -> str: ...


class Game(Protocol):
    """What every game offers its host (see the module docstring).

    `sides` are the seats that score together: one seat each, or team Gin's two teams;
    `scores[i]` (and the result's) is the running total of `sides[i]`. `hand_number`
    counts deals (rounds of two hands in team Gin), void ones included.
    """

    @property
    def rules(self) -> Rules: ...

    @property
    def seed(self) -> int | str: ...

    @property
    def seat_count(self) -> int: ...

    @property
    def seats_to_act(self) -> tuple[int, ...]: ...

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]: ...

    @property
    def hand_number(self) -> int: ...

    @property
    def scores(self) -> Sequence[int]: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def result(self) -> GameResult | None: ...

    def legal_actions(self, seat: int | None = None) -> Sequence[GameAction]: ...

    def check(self, action: GameAction, seat: int | None = None) -> None: ...

    def apply(self, action: GameAction, seat: int | None = None) -> HandOutcome | None: ...

    def view(self, seat: int) -> GameView: ...

    def hand_view(self, seat: int, hand_number: int) -> GameView: ...

    def deal_summary(self, hand_number: int) -> tuple[tuple[int, ...], int, dict[str, Any] | None]:
        """Deal `hand_number`'s seeds (one per hand dealt: two in team Gin), its dealer and its
        result as its record holds it (None while it is played)."""
        ...

    def record(self) -> GameRecord:
        """The game so far as data (`record.py`): `game_from_record` replays it into this state."""
        ...


class _GameClass(Protocol):
    """A game's class: it starts a game (`new_game`) and replays a record (`game_from_record`)."""

    def __call__(
        self,
        rules: Rules,
        *,
        seed: int | str | None = None,
        seed_source: Callable[[int], int] | None = None,
        first_dealer: int | None = None,
    ) -> Game: ...

    def from_record(self, record: GameRecord) -> Game: ...


_GAMES: dict[str, _GameClass] = {
    "gin": Match,
    "gin3": ThreeGin,
    "gin4_teams": TeamGin,
    "rummy": RummyGame,
}


def new_game(
    rules: Rules | str | None = None,
    *,
    seed: int | str | None = None,
    seed_source: Callable[[int], int] | None = None,
    first_dealer: int | None = None,
) -> Game:
    """Start the game `rules.game` names (first hand dealt). `rules` is a `Rules` or a preset name.

    Deal number `i` (0-based, void deals included; in team Gin each round's two hands are
    deals `2r` and `2r + 1`) is dealt from `deal_seed(seed, i)` unless `seed_source` gives
    the seeds, so every deal can be checked from its published seed with `deal_order`.
    `first_dealer` fixes the first deal's dealer (a seat; in team Gin a team, 0 or 1) instead
    of the rules' `first_dealer` draw.
    """
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    rules = rules if rules is not None else Rules()
    return _GAMES[rules.game](rules, seed=seed, seed_source=seed_source, first_dealer=first_dealer)


def game_from_record(record: GameRecord) -> Game:
    """Replay a record (of any game) into a game in the same state; `ValueError` if it disagrees."""
    return _GAMES[record.game].from_record(record)


def load_game(text: str | bytes) -> Game:
    """Replay the record in `text` (any game, any format `loads` reads): `load_game(g.record().dumps())`
    is `g` again."""
    return game_from_record(loads(text))


def game_view_from_json(data: Any) -> View | GinTableView | RummyView:
    """Any game's VIEW: dispatched on its `game` field (absent or `gin`: docs/protocol.md version 1)."""
    data = view_object(data)
    game = data.get("game", "gin")
    if game == "gin":
        body = {k: v for k, v in data.items() if k not in ("game", "players")}
        return View.from_json(body)
    if game in ("gin3", "gin4_teams"):
        return GinTableView.from_json(data)
    if game == "rummy":
        return RummyView.from_json(data)
    raise ViewError(f"unknown game {game!r}; expected gin, gin3, gin4_teams or rummy")
