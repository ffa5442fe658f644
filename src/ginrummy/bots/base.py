"""The player interface and the registry of computer players by name."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ..rules import Action, View

__all__ = ["Player", "RandomPlayer", "available_players", "make_player", "register_player"]


@runtime_checkable
class Player(Protocol):
    """Anything that picks an action from a seat's view.

    `act` is only called when `view.legal` is non-empty; `observe` receives the
    view at the end of each hand (phase ``over``) and may ignore it.
    """

    name: str

    def act(self, view: View) -> Action: ...

    def observe(self, view: View) -> None: ...


PlayerFactory = Callable[..., Player]
_REGISTRY: dict[str, PlayerFactory] = {}


def register_player(name: str, factory: PlayerFactory) -> None:
    """Make a player available to `make_player(name)`."""
    _REGISTRY[name] = factory


def available_players() -> list[str]:
    """Names `make_player` accepts."""
    return sorted(_REGISTRY)


def make_player(name: str, *, seed: int | None = None, time_budget: float | None = None) -> Player:
    """A new player of kind `name`, seeded for reproducible play.

    `time_budget` is the most seconds the player may think per decision.
    """
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown player {name!r}; choose one of {', '.join(available_players())}") from None
    return factory(seed=seed, time_budget=time_budget)


class RandomPlayer:
    """Picks a uniformly random legal action."""

    name = "random"

    def __init__(self, *, seed: int | None = None, time_budget: float | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: View) -> Action:
        return self.rng.choice(view.legal)

    def observe(self, view: View) -> None:
        return None


register_player("random", RandomPlayer)
