"""Terminal play at a table of three to six: three-player Gin, team Gin and classic Rummy, one
person against computer players that each see only their own seat's view."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..bots.table_players import TablePlayer, suggest_move
from ..rules import (
    ActionError,
    Discard,
    Draw,
    Game,
    GameAction,
    GinTableView,
    IllegalActionError,
    LayMeld,
    LayOff,
    Rules,
    RulesError,
    RummyView,
    best_arrangement,
    new_game,
    parse_game_action,
    rummy_melds,
)
from .terminal import HINT_WORDS, YOU, Stop, TerminalSession, cards_text

__all__ = ["TerminalTable", "play_table"]

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


class TerminalTable(TerminalSession):
    """One game of three-player Gin, team Gin or Rummy between a person and computer players."""

    noun = "game"

    def __init__(
        self,
        game: Game,
        you: int,
        players: dict[int, TablePlayer],
        console: Console,
        read: Callable[[str], str],
    ) -> None:
        super().__init__(you, console, read)
        self.game = game
        self.players = players
        self.names = {seat: player.name for seat, player in players.items()}

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return YOU if seat == self.you else f"{self.names[seat]} (seat {seat})"

    def side_name(self, side: int) -> str:
        seats = self.game.sides[side]
        if len(seats) == 1:
            return self.name(seats[0])
        return " + ".join(self.name(s) for s in seats)

    # -- the loop ----------------------------------------------------------------

    def play(self) -> bool:
        """Play to the end of the game; False if the person stopped early."""
        game = self.game
        self.announce_hand()
        try:
            while not game.is_over:
                acting = game.seats_to_act
                # Computer seats first: in team Gin the person's partner plays on meanwhile.
                seat = next((s for s in acting if s != self.you), self.you)
                number = game.hand_number
                action = self.ask() if seat == self.you else self.computer_move(seat)
                ended = game.apply(action, seat)
                if seat != self.you:
                    self.tell(seat, number)
                if ended is not None:
                    for s, player in self.players.items():
                        player.observe(game.hand_view(s, number))
                    if game.hand_number != number or game.is_over:
                        self.show_hand_end(number)
                        if not game.is_over:
                            self.pause("Press Enter for the next deal  (q = quit)")
                            self.announce_hand()
        except Stop:
            return False
        self.show_game_end()
        self.pause("Press Enter to finish", at_end=True)
        return True

    def computer_move(self, seat: int) -> GameAction:
        # Its own view and nothing more.
        action: GameAction = self.guarded_move(self.players[seat], self.game.view(seat), self.name(seat))
        return action

    # -- the person's moves ----------------------------------------------------------

    def ask(self) -> GameAction:
        view = self.game.view(self.you)
        self.show_table(view)
        legal = list(view.legal)
        while True:
            word = self.read_word(self.prompt(view))
            if word in HINT_WORDS:
                hint = suggest_move(view)  # type: ignore[arg-type]
                self.console.print(f"hint: {escape(str(hint.action))} — {escape(hint.reason)}")
                continue
            if word in self.help_words:
                self.console.print("allowed: " + escape(", ".join(str(a) for a in legal)))
                continue
            if word == "p" and isinstance(view, GinTableView) and view.phase == "offer":
                word = "pass"
            try:
                action = parse_game_action(word)
                self.game.check(action, self.you)
            except (ActionError, IllegalActionError) as exc:
                self.console.print(f"[red]{escape(str(exc))}[/red]")
                continue
            return action

    def prompt(self, view: Any) -> str:
        up = getattr(view, "upcard", None)
        if isinstance(view, GinTableView):
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
            return (
                "Discard a card (`7H`) or knock (`knock 7H`)  (h = hint, help = every legal move, q = quit)"
            )
        assert isinstance(view, RummyView)
        if view.phase == "draw":
            choices = []
            if Draw("stock") in view.legal:
                choices.append("[s]tock" if view.stock_count else "[s]tock (turns the discard pile over)")
            if Draw("discard") in view.legal:
                choices.append(f"[u]pcard {up}")
            return f"Draw: {' / '.join(choices)}  (h = hint, q = quit)"
        lines = ["Lay a meld (`meld 7H 8H 9H`), lay off (`layoff 9H 2` on table meld 2), or discard (`7H`)"]
        if not any(isinstance(a, Discard) for a in view.legal):
            lines[0] = "Lay down (`meld …` / `layoff CARD N`)"
        lines.append("(h = hint, help = every legal move, q = quit)")
        return "\n".join(lines)

    # -- showing the table -------------------------------------------------------------

    def announce_hand(self) -> None:
        game = self.game
        view = game.view(self.you)
        if isinstance(view, GinTableView) and view.game == "gin3":
            title = f"Hand {view.hand_number} — {self.name(view.dealer)} deals"
            if view.dealer == self.you:
                title += " and sits out"
            else:
                title += f" and sits out; you play {self.name(self._opponent(view))}"
        elif isinstance(view, GinTableView):
            team = "your team" if self.you % 2 == view.dealer else "the other team"
            title = f"Round {view.hand_number} — {team} deals; you play {self.name(self._opponent(view))}"
        else:
            assert isinstance(view, RummyView)
            title = f"Hand {view.hand_number} — {self.name(view.dealer)} deals"
        self.console.rule(escape(title))

    def _opponent(self, view: GinTableView) -> int:
        number = view.table
        assert number is not None
        players = view.tables[number].players
        return players[1] if players[0] == self.you else players[0]

    def show_scores(self, scores: Sequence[int]) -> str:
        return " · ".join(f"{escape(self.side_name(i))} {score}" for i, score in enumerate(scores))

    def show_table(self, view: Any) -> None:
        table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
        table.add_column(style="bold")
        table.add_column()
        table.add_row("Scores", f"{self.show_scores(view.scores)}   (to {view.rules.target})")
        if isinstance(view, GinTableView):
            self._gin_rows(view, table)
        else:
            self._rummy_rows(view, table)
        self.console.print(table)

    def _gin_rows(self, view: GinTableView, table: Table) -> None:
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

    def _rummy_rows(self, view: RummyView, table: Table) -> None:
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

    def tell(self, seat: int, number: int) -> None:
        """Say what a computer seat just did, as the person's own view of the deal shows it."""
        view = self.game.hand_view(self.you, number)
        who = escape(self.name(seat))
        if isinstance(view, GinTableView):
            for hand in view.tables:
                if seat in hand.players and hand.history:
                    entry = hand.history[-1]
                    if entry["seat"] == seat:
                        self.console.print(f"[cyan]{who} {escape(_gin_entry(entry))}.[/cyan]")
            return
        assert isinstance(view, RummyView)
        if not view.history or view.history[-1].seat != seat:
            return
        event = view.history[-1]
        action = event.action
        if isinstance(action, Draw):
            if action.source == "discard":
                text = f"takes {event.card} from the discard pile"
            else:
                text = "turns the discard pile over and draws" if event.turnover else "draws from the stock"
        elif isinstance(action, LayMeld):
            text = f"lays {action.cards}"
        elif isinstance(action, LayOff):
            text = f"lays off {action.card} on meld {action.meld}"
        else:
            text = f"discards {getattr(action, 'card', '')}"
        self.console.print(f"[cyan]{who} {escape(text)}.[/cyan]")

    def show_hand_end(self, number: int) -> None:
        view = self.game.hand_view(self.you, number)
        console = self.console
        if isinstance(view, GinTableView):
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
        else:
            assert isinstance(view, RummyView) and view.result is not None
            result = view.result
            if result.winner is None:
                console.print(
                    "[bold]Void hand:[/bold] the stock ran out with no turnover left; "
                    "nobody pays and the same dealer deals again."
                )
            else:
                doubled = f" (rummy: paid {result.multiplier} times over)" if result.multiplier > 1 else ""
                console.print(
                    f"[bold]{OUTCOMES[result.outcome]}:[/bold] {escape(self.name(result.winner))} "
                    f"went out{doubled}."
                )
                for seat, paid in enumerate(result.payments):
                    if seat != result.winner:
                        console.print(
                            f"  {escape(self.name(seat))} pays {-paid} for {cards_text(result.left[seat])}"
                        )
        console.print(f"Scores: {self.show_scores(view.scores)}")

    def show_game_end(self) -> None:
        result = self.game.result
        assert result is not None
        self.console.rule("Game over")
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


def _gin_entry(entry: dict[str, Any]) -> str:
    action = entry["action"]
    kind = action["type"]
    if kind == "pass":
        return "passes the first upcard"
    if kind == "draw" and action["source"] == "stock":
        return "draws from the stock"
    if kind == "draw":
        return f"takes {entry.get('card', '?')} from the discard pile"
    if kind == "discard":
        return f"discards {action['card']}"
    if kind == "knock":
        return "knocks" + (f", discarding {action['card']} face down" if "card" in action else "")
    return "declares Big Gin"


def play_table(
    console: Console,
    game_name: str,
    players: int | None,
    seed: int | None,
    rules_name: str,
    opponent: str | None,
    seat: int,
    save: Path | None,
    read: Callable[[str], str],
) -> None:
    """`ginrummy play --game NAME [--players N]`: a whole game against computer players."""
    from ..bots.table_players import make_game_player

    try:
        rules = Rules.for_game(game_name, players)
        if rules_name not in ("classic", game_name):
            rules = _with_gin_variant(rules, rules_name)
    except RulesError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    if not 0 <= seat < rules.players:
        console.print(f"[red]error:[/red] {game_name} has seats 0 to {rules.players - 1}, not {seat}")
        raise typer.Exit(2)
    others = [s for s in range(rules.players) if s != seat]
    default = "casual"
    names = [n.strip() for n in (opponent or default).split(",") if n.strip()]
    if len(names) == 1:
        names *= len(others)
    if len(names) != len(others):
        console.print(
            f"[red]error:[/red] name one opponent for every computer seat ({len(others)}), or one for all"
        )
        raise typer.Exit(2)
    if seed is None:
        seed = secrets.randbelow(10**9)
    seated: dict[int, TablePlayer] = {}
    try:
        for other, name in zip(others, names, strict=True):
            seated[other] = make_game_player(name, rules, seed=seed * 8 + other)
    except ValueError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    game = new_game(rules, seed=seed)
    who = ", ".join(f"seat {s}: {seated[s].name}" for s in others)
    console.print(
        f"{GAME_TITLES[rules.game]} — {rules.players} players, rules {rules.preset_name}, target "
        f"{rules.target}, seed {seed}; you are seat {seat}; {escape(who)}."
    )
    TerminalTable(game, seat, seated, console, read).play()
    if save is not None:
        try:
            save.write_text(game.record().dumps() + "\n", encoding="utf-8")
        except OSError as exc:
            console.print(
                f"[red]error:[/red] cannot write the record to {escape(str(save))}: {escape(str(exc))}"
            )
            raise typer.Exit(1) from None
        console.print(f"Game record saved to {escape(str(save))} (replay it with `ginrummy replay`).")


GAME_TITLES = {
    "gin3": "Three-player Gin",
    "gin4_teams": "Team Gin",
    "rummy": "Classic Rummy",
    "gin": "Gin Rummy",
}


def _with_gin_variant(rules: Rules, name: str) -> Rules:
    """A table Gin game under a two-player preset's scoring (e.g. `--rules oklahoma`)."""
    if rules.game == "rummy":
        raise RulesError(f"--rules {name} is a Gin variant; Rummy's rules are the rummy preset's")
    variant = Rules.preset(name)
    if variant.game != "gin":
        raise RulesError(f"--rules {name} is a whole game; choose it with --game {variant.game}")
    return rules.replace(**variant.changes())
