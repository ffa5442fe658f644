"""What every game played in the terminal shares: the person's words (quit, hint, help), the
pause between deals, and a computer player's move that falls back to the first legal move when
the player fails or breaks the rules (a broken bot must not wreck the person's game)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import typer
from rich.console import Console
from rich.markup import escape

__all__ = ["HINT_WORDS", "QUIT_WORDS", "YOU", "Stop", "TerminalSession", "cards_text"]

YOU = "You"
QUIT_WORDS = frozenset({"q", "quit", "exit", "resign"})
HINT_WORDS = frozenset({"h", "hint", "?"})


class Stop(Exception):
    """The person ended the game early (typed quit, or the input ended)."""


def cards_text(cards: Sequence[Any] | Any) -> str:
    """Cards separated by spaces, or "-" for none."""
    return " ".join(str(c) for c in cards) or "-"


class _Seat(Protocol):
    def act(self, view: Any) -> Any: ...


class TerminalSession:
    """One person at the terminal: `read` asks a line, `console` shows the table.

    `noun` names the game in what is printed ("match" or "game"); `help_words` ask for the list
    of every legal move."""

    noun = "match"
    help_words: frozenset[str] = frozenset({"help", "legal"})

    def __init__(self, you: int, console: Console, read: Callable[[str], str]) -> None:
        self.you = you
        self.console = console
        self.read = read

    def read_word(self, prompt: str) -> str:
        """The person's answer, stripped and lower-cased; raise `Stop` when they quit or the
        input ends."""
        try:
            text = self.read(prompt)
        except (typer.Abort, EOFError):
            self.console.print(f"\nInput ended; the {self.noun} is abandoned.")
            raise Stop from None
        word = text.strip().lower()
        if word in QUIT_WORDS:
            self.console.print(f"You leave the {self.noun}.")
            raise Stop
        return word

    def pause(self, prompt: str, *, at_end: bool = False) -> None:
        """Wait for Enter, so a showdown or the final score stays on screen until it has been
        read; at the end, quitting or an ended input just finishes."""
        if not at_end:
            self.read_word(prompt)
            return
        try:
            self.read(prompt)
        except (typer.Abort, EOFError):
            return

    def guarded_move(self, player: _Seat, view: Any, name: str) -> Any:
        """`player`'s move for its own `view`, or the first legal move if it fails or breaks the rules."""
        legal = list(view.legal)
        try:
            action = player.act(view)
        except Exception as exc:  # a broken bot must not wreck the person's game
            self.console.print(
                f"[yellow]{escape(name)} failed ({escape(str(exc))}); it plays its first legal move instead[/yellow]"
            )
            return legal[0]
        if action not in legal:
            self.console.print(
                f"[yellow]{escape(name)} chose the illegal {escape(str(action))}; "
                "it plays its first legal move instead[/yellow]"
            )
            return legal[0]
        return action
