"""Games at a table of three to six in the terminal: three-player Gin and team Gin (the `Face` of
a `GinTableView`) and classic Rummy (of a `RummyView`)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from rich.markup import escape
from rich.table import Table

from ..bots.table_players import suggest_move
from ..rules import (
    Discard,
    Draw,
    GameAction,
    GameResult,
    GinTableView,
    LayMeld,
    LayOff,
    PublicStep,
    RummyView,
    best_arrangement,
    parse_game_action,
    rummy_melds,
)
from .faces import OUTCOMES, Face, cards_text
from .gin_face import move_text

__all__ = ["GinTableFace", "RummyFace"]


class _TableFace(Face):
    """What the tables share: seats named with their numbers, scores by side, any game's hint."""

    def player_name(self, seat: int) -> str:
        return f"{self.names[seat]} (seat {seat})"

    def side_name(self, side: int) -> str:
        seats = self.game.sides[side]
        if len(seats) == 1:
            return self.name(seats[0])
        return " + ".join(self.name(s) for s in seats)

    def show_scores(self, scores: Sequence[int]) -> str:
        return " · ".join(f"{escape(self.side_name(i))} {score}" for i, score in enumerate(scores))

    def parse(self, word: str) -> GameAction:
        return parse_game_action(word)

    def hint(self, view: GinTableView | RummyView) -> str:
        hint = suggest_move(view)
        return f"{hint.action} — {hint.reason}"

    def show_table(self, view: GinTableView | RummyView) -> None:
        table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
        table.add_column(style="bold")
        table.add_column()
        table.add_row("Scores", f"{self.show_scores(view.scores)}   (to {view.rules.target})")
        self.add_rows(view, table)
        self.console.print(table)

    @abstractmethod
    def add_rows(self, view: Any, table: Table) -> None:
        """The game's own rows of the table, below the scores."""

    def show_hand_end(self, view: GinTableView | RummyView) -> None:
        self.show_outcome(view)
        self.console.print(f"Scores: {self.show_scores(view.scores)}")

    @abstractmethod
    def show_outcome(self, view: Any) -> None:
        """How the deal ended, before the scores."""

    def show_end(self, result: GameResult) -> None:
        winners = result.winners
        if not winners:
            verdict = "a draw"
        elif self.you in winners:
            verdict = "you win" if len(winners) == 1 else "your team wins"
        else:
            verdict = f"{escape(' + '.join(self.name(s) for s in winners))} win" + (
                "s" if len(winners) == 1 else ""
            )
        self.console.print(f"[bold]Final: {self.show_scores(result.scores)} — {verdict}[/bold]")


class GinTableFace(_TableFace):
    """Three-player Gin (the dealer sits out) and team Gin (two tables of two)."""

    def announce(self, view: GinTableView) -> str:
        if view.game == "gin3":
            title = f"Hand {view.hand_number} — {self.name(view.dealer)} deals"
            if view.dealer == self.you:
                return title + " and sits out"
            return title + f" and sits out; you play {self.name(self._opponent(view))}"
        team = "your team" if self.you % 2 == view.dealer else "the other team"
        return f"Round {view.hand_number} — {team} deals; you play {self.name(self._opponent(view))}"

    def _opponent(self, view: GinTableView) -> int:
        number = view.table
        assert number is not None
        players = view.tables[number].players
        return players[1] if players[0] == self.you else players[0]

    def prompt(self, view: GinTableView) -> str:
        number = view.table
        assert number is not None
        table = view.tables[number]
        up = table.discard_pile[-1] if table.discard_pile else None
        if table.phase == "offer":
            return f"Take the first upcard {up}? [u]pcard / [p]ass  (h = hint, q = quit)"
        if table.phase == "draw":
            if Draw("discard") in view.legal:
                return f"Draw: [s]tock / [u]pcard {up}  (h = hint, q = quit)"
            return "Draw: [s]tock (both passed the first upcard)  (h = hint, q = quit)"
        return "Discard a card (`7H`) or knock (`knock 7H`)  (h = hint, help = every legal move, q = quit)"

    def add_rows(self, view: GinTableView, table: Table) -> None:
        for number, hand in enumerate(view.tables):
            mine = number == view.table
            label = "Your hand" if mine else "Other hand"
            who = " v ".join(self.name(s) for s in hand.players)
            pile = hand.discard_pile
            top = f"upcard {pile[-1]}" if pile else "no upcard"
            table.add_row(label, f"{escape(who)}: {hand.phase}, {top}, {hand.stock_count} in the stock")
            if mine and hand.hand is not None:
                other = hand.players[1] if hand.players[0] == self.you else hand.players[0]
                known = hand.known[hand.players.index(other)]
                table.add_row("They took", cards_text(known) if known else "nothing you saw")
                arrangement = best_arrangement(hand.hand)
                melds = " ".join(f"[{m}]" for m in arrangement.melds)
                text = (
                    f"{melds}   deadwood: {cards_text(arrangement.deadwood_cards)} = {arrangement.deadwood}"
                )
                table.add_row("Your cards", escape(text.strip()) + f"   ({len(hand.hand)} cards)")

    def tell(self, seat: int, view: GinTableView) -> str | None:
        for hand in view.tables:
            if seat in hand.players and hand.history and hand.history[-1]["seat"] == seat:
                # The table's history names the game's seats; a step names the hand's two.
                return move_text(PublicStep.from_json({**hand.history[-1], "seat": hand.players.index(seat)}))
        return None

    def show_outcome(self, view: GinTableView) -> None:
        console = self.console
        for hand in view.tables:
            showdown = hand.showdown or {}
            outcome = showdown.get("outcome", "void")
            who = " v ".join(self.name(s) for s in hand.players)
            if outcome == "void":
                console.print(f"[bold]{escape(who)}: void hand[/bold] — nobody scores.")
                continue
            deadwood = showdown.get("deadwood", [0, 0])
            console.print(
                f"[bold]{escape(who)}: {OUTCOMES.get(outcome, outcome)}[/bold] — "
                f"{escape(self.name(showdown.get('scorer')))} scores {showdown.get('points', 0)} "
                f"(deadwood {deadwood[0]} v {deadwood[1]})"
            )
        if view.round is not None:
            points = view.round.team_points
            console.print(
                f"Round: team of seats 0+2 made {points[0]}, team of seats 1+3 made {points[1]}; "
                + (
                    f"{escape(self.side_name(view.round.scorer))} score {view.round.points}."
                    if view.round.scorer is not None
                    else "level: nobody scores."
                )
            )


class RummyFace(_TableFace):
    """Classic Rummy for two to six: melds laid on the table, layoffs, going out."""

    def announce(self, view: RummyView) -> str:
        return f"Hand {view.hand_number} — {self.name(view.dealer)} deals"

    def prompt(self, view: RummyView) -> str:
        if view.phase == "draw":
            choices = []
            if Draw("stock") in view.legal:
                choices.append("[s]tock" if view.stock_count else "[s]tock (turns the discard pile over)")
            if Draw("discard") in view.legal:
                choices.append(f"[u]pcard {view.upcard}")
            return f"Draw: {' / '.join(choices)}  (h = hint, q = quit)"
        lines = ["Lay a meld (`meld 7H 8H 9H`), lay off (`layoff 9H 2` on table meld 2), or discard (`7H`)"]
        if not any(isinstance(a, Discard) for a in view.legal):
            lines[0] = "Lay down (`meld …` / `layoff CARD N`)"
        lines.append("(h = hint, help = every legal move, q = quit)")
        return "\n".join(lines)

    def add_rows(self, view: RummyView, table: Table) -> None:
        counts = " · ".join(
            f"{escape(self.name(s))} {n}" for s, n in enumerate(view.hand_counts) if s != self.you
        )
        table.add_row("Cards held", counts)
        stock = f"{view.stock_count} cards"
        if view.turnovers:
            stock += f" (discard pile turned over {view.turnovers} of {view.rules.stock_turnovers} times)"
        table.add_row("Stock", stock)
        pile = view.discard_pile
        table.add_row("Discard pile", f"top {pile[-1]}   ({len(pile)} in the pile)" if pile else "empty")
        for number, meld in enumerate(view.table):
            table.add_row(f"Meld {number}", f"{meld.cards}   (laid by {escape(self.name(meld.owner))})")
        melds = [m for m in rummy_melds(view.hand, view.rules.ace)]
        table.add_row("Your hand", f"{cards_text(view.hand)}   ({len(view.hand)} cards)")
        if melds:
            table.add_row("You could lay", " ".join(f"[{m}]" for m in melds[:6]))

    def tell(self, seat: int, view: RummyView) -> str | None:
        if not view.history or view.history[-1].seat != seat:
            return None
        event = view.history[-1]
        action = event.action
        if isinstance(action, Draw):
            if action.source == "discard":
                return f"takes {event.card} from the discard pile"
            return "turns the discard pile over and draws" if event.turnover else "draws from the stock"
        if isinstance(action, LayMeld):
            return f"lays {action.cards}"
        if isinstance(action, LayOff):
            return f"lays off {action.card} on meld {action.meld}"
        return f"discards {getattr(action, 'card', '')}"

    def show_outcome(self, view: RummyView) -> None:
        console = self.console
        result = view.result
        assert result is not None
        if result.winner is None:
            console.print(
                "[bold]Void hand:[/bold] the stock ran out with no turnover left; "
                "nobody pays and the same dealer deals again."
            )
            return
        doubled = f" (rummy: paid {result.multiplier} times over)" if result.multiplier > 1 else ""
        console.print(
            f"[bold]{OUTCOMES[result.outcome]}:[/bold] {escape(self.name(result.winner))} went out{doubled}."
        )
        for seat, paid in enumerate(result.payments):
            if seat != result.winner:
                console.print(f"  {escape(self.name(seat))} pays {-paid} for {cards_text(result.left[seat])}")
