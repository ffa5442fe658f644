"""Terminal play of every game: one person against computer players that each see only their own
seat's view. One loop reads the person's move (with quit, hint and help), shows their view,
applies it and lets the computer players move, pausing between deals; what differs by game is
the game's `Face` (cli/faces.py), chosen from the kind of view the game gives."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import typer
from rich.console import Console
from rich.markup import escape

from ..rules import ActionError, Game, GameAction, GinTableView, IllegalActionError, RummyView, View
from .faces import Face
from .gin_face import GinFace
from .table_faces import GinTableFace, RummyFace

__all__ = ["FACES", "HINT_WORDS", "QUIT_WORDS", "SeatPlayer", "Stop", "TerminalSession"]

QUIT_WORDS = frozenset({"q", "quit", "exit", "resign"})
HINT_WORDS = frozenset({"h", "hint", "?"})

#: Each game's face, by the kind of view the game gives a seat.
FACES: dict[type, type[Face]] = {View: GinFace, GinTableView: GinTableFace, RummyView: RummyFace}


class Stop(Exception):
    """The person ended the game early (typed quit, or the input ended)."""


class SeatPlayer(Protocol):
    """A computer player at one seat: it picks a move from its own view and sees each finished
    deal (a `bots.Player` for two-player Gin, a `bots.table_players.TablePlayer` at a table)."""

    name: str

    def act(self, view: Any) -> Any: ...

    def observe(self, view: Any) -> None: ...


class TerminalSession:
    """One game between the person at seat `you` (`read` asks them a line, `console` shows the
    table) and the computer `players`, seat by seat."""

    def __init__(
        self,
        game: Game,
        you: int,
        players: Mapping[int, SeatPlayer],
        console: Console,
        read: Callable[[str], str],
    ) -> None:
        self.game = game
        self.you = you
        self.players = dict(players)
        self.console = console
        self.read = read
        names = {seat: player.name for seat, player in self.players.items()}
        self.face = FACES[type(game.view(you))](game, you, names, console)

    # -- the loop ----------------------------------------------------------------

    def play(self) -> bool:
        """Play to the end of the game; False if the person stopped early."""
        game, face = self.game, self.face
        self.announce_hand()
        try:
            while not game.is_over:
                # Computer seats first: in team Gin the person's partner plays on meanwhile.
                seat = next((s for s in game.seats_to_act if s != self.you), self.you)
                number = game.hand_number
                action = self.ask() if seat == self.you else self.computer_move(seat)
                ended = game.apply(action, seat)
                if seat != self.you:
                    self.tell(seat, number)
                if ended is None:
                    continue
                for s, player in self.players.items():
                    player.observe(game.hand_view(s, number))
                # At team Gin one table can finish before the other: the deal goes on.
                if game.hand_number != number or game.is_over:
                    face.show_hand_end(game.hand_view(self.you, number))
                    if not game.is_over:
                        self.pause("Press Enter for the next deal  (q = quit)")
                        self.announce_hand()
        except Stop:
            return False
        self.console.rule(f"{face.noun.capitalize()} over")
        face.show_end(game.result)
        self.pause("Press Enter to finish", at_end=True)
        return True

    def announce_hand(self) -> None:
        self.console.rule(escape(self.face.announce(self.game.view(self.you))))

    def tell(self, seat: int, number: int) -> None:
        """Say what a computer seat just did, as the person's own view of the deal shows it."""
        text = self.face.tell(seat, self.game.hand_view(self.you, number))
        if text is not None:
            self.console.print(f"[cyan]{escape(self.face.name(seat))} {escape(text)}.[/cyan]")

    def computer_move(self, seat: int) -> GameAction:
        """`seat`'s move for its own view (and nothing more), or its first legal move if the
        player fails or breaks the rules: a broken bot must not wreck the person's game."""
        view = self.game.view(seat)
        legal = list(view.legal)
        name = escape(self.face.name(seat))
        try:
            action = self.players[seat].act(view)
        except Exception as exc:
            self.console.print(
                f"[yellow]{name} failed ({escape(str(exc))}); it plays its first legal move instead[/yellow]"
            )
            return legal[0]
        if action not in legal:
            self.console.print(
                f"[yellow]{name} chose the illegal {escape(str(action))}; "
                "it plays its first legal move instead[/yellow]"
            )
            return legal[0]
        move: GameAction = action
        return move

    # -- the person --------------------------------------------------------------

    def ask(self) -> GameAction:
        """The person's legal move: asked again after a line that is not one, with the reason."""
        view: Any = self.game.view(self.you)
        face = self.face
        face.show_table(view)
        while True:
            word = self.read_word(face.prompt(view))
            if word in HINT_WORDS:
                self.console.print(f"hint: {escape(face.hint(view))}")
                continue
            if word in face.help_words:
                self.console.print("allowed: " + escape(", ".join(str(a) for a in view.legal)))
                continue
            if word == "p" and view.phase == "offer":
                word = "pass"
            try:
                action = face.parse(word)
                self.game.check(action, self.you)
            except (ActionError, IllegalActionError) as exc:
                self.console.print(f"[red]{escape(str(exc))}[/red]")
                continue
            return action

    def read_word(self, prompt: str) -> str:
        """The person's answer, stripped and lower-cased; raise `Stop` when they quit or the
        input ends."""
        try:
            text = self.read(prompt)
        except (typer.Abort, EOFError):
            self.console.print(f"\nInput ended; the {self.face.noun} is abandoned.")
            raise Stop from None
        word = text.strip().lower()
        if word in QUIT_WORDS:
            self.console.print(f"You leave the {self.face.noun}.")
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
