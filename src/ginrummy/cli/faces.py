"""What differs by game when a person plays in the terminal, as one small piece per game (a
`Face`): how a seat's view is printed, the prompt for the person's move and its hint, the words
that read a move, what a computer seat just did, a hand's end and the final score.
`TerminalSession` (cli/terminal.py) plays every game with the one loop and the game's face."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console

from ..rules import Game, GameAction

__all__ = ["OUTCOMES", "YOU", "Face", "cards_text"]

YOU = "You"

#: How a deal ended, as the person reads it (every game's outcomes).
OUTCOMES = {
    "knock": "Knock",
    "gin": "Gin",
    "big_gin": "Big Gin",
    "undercut": "Undercut",
    "tie": "Tie",
    "void": "Void hand",
    "out": "Out",
    "rummy": "Rummy",
}


def cards_text(cards: Sequence[Any] | Any) -> str:
    """Cards separated by spaces, or "-" for none."""
    return " ".join(str(c) for c in cards) or "-"


class Face(ABC):
    """One game's part of terminal play, for the person at seat `you` of `game`.

    `noun` names the game in what is printed ("match" or "game"); `help_words` ask for the list
    of every legal move. `names` are the computer seats' players' names."""

    noun = "game"
    help_words: frozenset[str] = frozenset({"help", "legal"})

    def __init__(self, game: Game, you: int, names: Mapping[int, str], console: Console) -> None:
        self.game = game
        self.you = you
        self.names = dict(names)
        self.console = console

    def name(self, seat: int | None) -> str:
        """How a seat is named to the person: "You", a computer player, or "nobody"."""
        if seat is None:
            return "nobody"
        return YOU if seat == self.you else self.player_name(seat)

    def player_name(self, seat: int) -> str:
        """A computer seat's name."""
        return self.names[seat]

    @abstractmethod
    def parse(self, word: str) -> GameAction:
        """The move the person typed (raise `ActionError` when it cannot be read)."""

    @abstractmethod
    def announce(self, view: Any) -> str:
        """The title of a new deal, from the person's view of it."""

    @abstractmethod
    def show_table(self, view: Any) -> None:
        """Print what the person sees before their move."""

    @abstractmethod
    def prompt(self, view: Any) -> str:
        """What the person is asked for their move."""

    @abstractmethod
    def hint(self, view: Any) -> str:
        """A suggested move and why."""

    @abstractmethod
    def tell(self, seat: int, view: Any) -> str | None:
        """What computer `seat` just did, as the person's `view` of the deal shows it (None if
        the person saw nothing)."""

    @abstractmethod
    def show_hand_end(self, view: Any) -> None:
        """Print how a deal ended, from the person's view of the finished deal."""

    @abstractmethod
    def show_end(self, result: Any) -> None:
        """Print the final score."""
