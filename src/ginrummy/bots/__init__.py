"""Computer players: each sees only its seat's view and returns an action."""

from .base import Player, RandomPlayer, available_players, make_player, register_player

__all__ = ["Player", "RandomPlayer", "available_players", "make_player", "register_player"]
