"""Rules subcommands: `deadwood`, `play` (a match in the terminal against a computer player), `replay`."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..rules import (
    Action,
    ActionError,
    BigGin,
    CardError,
    CardSet,
    Discard,
    Draw,
    IllegalActionError,
    Knock,
    Match,
    MatchRecord,
    RecordError,
    Rules,
    RulesError,
    View,
    best_arrangement,
    dumps,
    load_record,
    min_deadwood,
    new_match,
    parse_action,
    parse_cards,
    render_game,
    render_match,
)
from .root import app
from .terminal import HINT_WORDS, YOU, Stop, TerminalSession, cards_text

if TYPE_CHECKING:
    from ..bots import Player


def _console() -> Console:
    # Made per command, not at import, so the output goes wherever stdout is at call time.
    return Console(highlight=False, soft_wrap=True)


@app.command()
def deadwood(
    cards: list[str] = typer.Argument(..., help="Cards in rule-book notation, e.g. 3S 4S 5S 9C"),
) -> None:
    """Print the best arrangement of some cards and their least deadwood."""
    console = _console()
    try:
        hand = parse_cards(" ".join(cards))
    except CardError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    arrangement = best_arrangement(hand)
    for meld in arrangement.melds:
        console.print(f"meld:     {meld}")
    console.print(f"deadwood: {arrangement.deadwood_cards or '-'}")
    console.print(f"deadwood count: {arrangement.deadwood}")


# -- play ----------------------------------------------------------------------


def _default_opponent() -> str:
    from ..bots import available_players

    return "baseline" if "baseline" in available_players() else "random"


def _arrangement_text(cards: CardSet) -> str:
    """Melds in brackets, then the deadwood cards apart with their count."""
    arrangement = best_arrangement(cards)
    melds = " ".join(f"[{meld}]" for meld in arrangement.melds)
    dead = cards_text(arrangement.deadwood_cards)
    text = f"{melds}   " if melds else ""
    return f"{text}deadwood: {dead} = {arrangement.deadwood}"


class TerminalMatch(TerminalSession):
    """One match between a person at the terminal and a computer player that sees only its view."""

    help_words = frozenset({"help", "legal", "l"})

    def __init__(
        self,
        match: Match,
        you: int,
        opponent: Player,
        console: Console,
        read: Callable[[str], str],
    ) -> None:
        super().__init__(you, console, read)
        self.match = match
        self.them = 1 - you
        self.opponent = opponent
        self.opponent_name = str(getattr(opponent, "name", "computer"))

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return YOU if seat == self.you else self.opponent_name

    # -- the loop --------------------------------------------------------------

    def play(self) -> bool:
        """Play to the end of the match; False if the person stopped early."""
        match = self.match
        self.announce_hand()
        try:
            while not match.is_over:
                number = match.hand_number
                seat = match.to_act
                if seat == self.you:
                    action = self.ask()
                else:
                    action = self.opponent_move()
                result = match.apply(action, seat)
                if seat == self.them:
                    self.tell(number, seat)
                if result is not None:
                    self.opponent.observe(match.hand_view(self.them, number))
                    self.show_hand_end(number)
                    if not match.is_over:
                        self.pause("Press Enter for the next deal  (q = quit)")
                        self.announce_hand()
        except Stop:
            return False
        self.show_match_end()
        self.pause("Press Enter to finish", at_end=True)
        return True

    def opponent_move(self) -> Action:
        # The opponent gets its own view and nothing more.
        action: Action = self.guarded_move(self.opponent, self.match.view(self.them), self.opponent_name)
        return action

    # -- reading the person's moves ----------------------------------------------

    def ask(self) -> Action:
        view = self.match.view(self.you)
        self.show_table(view)
        while True:
            word = self.read_word(self.prompt(view))
            if word in HINT_WORDS:
                self.console.print(f"hint: {escape(self.hint(view))}")
                continue
            if word in self.help_words:
                self.console.print("allowed: " + escape(", ".join(str(a) for a in view.legal)))
                continue
            if word == "p" and view.phase == "offer":
                word = "pass"
            try:
                action = parse_action(word)
                self.match.check(action, self.you)
            except (ActionError, IllegalActionError) as exc:
                self.console.print(f"[red]{escape(str(exc))}[/red]")
                continue
            return action

    def prompt(self, view: View) -> str:
        up = view.upcard
        if view.phase == "offer":
            return f"Take the first upcard {up}? [u]pcard / [p]ass  (h = hint, q = quit)"
        if view.phase == "draw":
            if any(isinstance(a, Draw) and a.source == "discard" for a in view.legal):
                return f"Draw: [s]tock / [u]pcard {up}  (h = hint, q = quit)"
            return "Draw: [s]tock (both passed the first upcard)  (h = hint, q = quit)"
        discards = [a.card for a in view.legal if isinstance(a, Discard)]
        knocks = [
            (a.card, min_deadwood(view.hand - CardSet([a.card]))) for a in view.legal if isinstance(a, Knock)
        ]
        example = discards[-1] if discards else "7H"
        lines = [f"Discard a card: `{example}` or `discard {example}`"]
        if knocks:
            options = ", ".join(
                f"knock {card} ({'gin' if dw == 0 else f'{dw} deadwood'})" for card, dw in knocks
            )
            lines.append(f"or knock: {options}")
        if any(isinstance(a, BigGin) for a in view.legal):
            lines.append("or `big gin`: all eleven cards are melded")
        lines.append("(h = hint, help = every legal move, q = quit)")
        return "\n".join(lines)

    def hint(self, view: View) -> str:
        """A simple suggestion: the move that leaves the least deadwood now."""
        hand = view.hand
        if view.phase in ("offer", "draw"):
            up = view.upcard
            can_take = any(isinstance(a, Draw) and a.source == "discard" for a in view.legal)
            if up is None or not can_take:
                return "draw from the stock"
            now = min_deadwood(hand)
            with_up = min(min_deadwood((hand | CardSet([up])) - CardSet([c])) for c in hand)
            if with_up < now:
                return f"take {up}: your deadwood could drop from {now} to {with_up}"
            if view.phase == "offer":
                return f"pass: {up} does not lower your deadwood ({now})"
            return f"draw from the stock: {up} does not lower your deadwood ({now})"
        best: tuple[int, int, Action] | None = None
        for action in view.legal:
            if isinstance(action, BigGin):
                return "big gin: every card is melded"
            if isinstance(action, (Discard, Knock)):
                left = min_deadwood(hand - CardSet([action.card]))
                # Less deadwood first; among equals, shed the higher card; knocking beats discarding.
                key = (left, -action.card.points)
                if best is None or key < best[:2] or (key == best[:2] and isinstance(action, Knock)):
                    best = (key[0], key[1], action)
        assert best is not None
        left, _, action = best
        if isinstance(action, Knock):
            return f"{action}: {'gin!' if left == 0 else f'you would knock with {left} deadwood'}"
        return f"{action}: leaves {left} deadwood"

    # -- showing the table -------------------------------------------------------

    def announce_hand(self) -> None:
        match = self.match
        dealer = "you deal" if match.dealer == self.you else f"{self.opponent_name} deals"
        self.console.rule(escape(f"Hand {match.hand_number} — {dealer}"))

    def show_table(self, view: View) -> None:
        rules = view.rules
        table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
        table.add_column(style="bold")
        table.add_column()
        you, them = view.scores[self.you], view.scores[self.them]
        table.add_row("Scores", f"{YOU} {you} · {escape(self.opponent_name)} {them}   (to {rules.target})")
        table.add_row("Dealer", escape(self.name(view.dealer)))
        limit = f"{view.knock_limit}" + (" (Oklahoma: set by the first upcard)" if rules.oklahoma else "")
        table.add_row("Knock limit", limit)
        table.add_row("Stock", f"{view.stock_count} cards")
        pile = view.discard_pile
        if pile:
            recent = " ".join(str(c) for c in pile[-6:])
            table.add_row(
                "Discard pile", f"top {pile[-1]}   (last discards: {recent}; {len(pile)} in the pile)"
            )
        else:
            table.add_row("Discard pile", "empty")
        known = view.opponent_known
        table.add_row(f"{escape(self.opponent_name)} took", cards_text(known) if known else "nothing you saw")
        drawn = self._just_drawn(view)
        if drawn:
            table.add_row("You drew", drawn)
        table.add_row("Your hand", escape(_arrangement_text(view.hand)) + f"   ({len(view.hand)} cards)")
        self.console.print(table)

    def _just_drawn(self, view: View) -> str:
        if view.phase != "discard" or not view.history:
            return ""
        last = view.history[-1]
        if last.seat != self.you or last.kind != "draw":
            return ""
        where = "the stock" if last.source == "stock" else "the discard pile"
        return f"{last.card or '?'} from {where}"

    def tell(self, number: int, seat: int | None) -> None:
        """Say what the opponent just did, as the person's view of that hand shows it."""
        history = self.match.hand_view(self.you, number).history
        if not history:
            return
        entry = history[-1]
        kind = entry.kind
        who = escape(self.opponent_name)
        if kind == "pass":
            text = "passes the first upcard"
        elif kind == "draw" and entry.source == "stock":
            text = "draws from the stock"
        elif kind == "draw":
            text = f"takes {entry.card or '?'} from the discard pile"
        elif kind == "discard":
            text = f"discards {entry.card}"
        elif kind == "knock":
            text = "knocks" + (f", discarding {entry.card} face down" if entry.card is not None else "")
        else:
            text = "declares Big Gin"
        self.console.print(f"[cyan]{who} {text}.[/cyan]")

    def show_hand_end(self, number: int) -> None:
        view = self.match.hand_view(self.you, number)
        showdown = view.showdown
        console = self.console
        if showdown is None or showdown.knocker is None:
            console.print(
                "[bold]Void hand:[/bold] the stock is down to two cards (or a card was taken from "
                "the discard pile too many times); nobody scores and the same dealer deals again."
            )
        else:
            outcome = showdown.outcome
            knocker = showdown.knocker
            assert showdown.melds is not None and showdown.deadwood_cards is not None
            assert showdown.deadwood is not None
            melds = showdown.melds
            dead = showdown.deadwood_cards
            count = showdown.deadwood
            table = Table(title=f"Showdown, hand {number}", show_header=True, box=None, padding=(0, 2, 0, 0))
            table.add_column("Player", style="bold")
            table.add_column("Melds")
            table.add_column("Deadwood")
            for seat in (knocker, 1 - knocker):
                role = "knocked" if seat == knocker else ("defend" if seat == self.you else "defends")
                if seat == knocker and showdown.knock_card is not None:
                    role += f" (discarded {showdown.knock_card})"
                meld_text = " ".join(f"[{' '.join(m.to_json())}]" for m in melds[seat]) or "-"
                table.add_row(
                    f"{escape(self.name(seat))} {role}",
                    escape(meld_text),
                    f"{cards_text(dead[seat].to_json())} = {count[seat]}",
                )
            console.print(table)
            layoffs = showdown.layoffs
            if layoffs:
                knocker_melds = melds[knocker]
                laid = ", ".join(
                    f"{lay.card} on [{' '.join(knocker_melds[lay.meld].to_json())}]" for lay in layoffs
                )
                verb = "lay off" if 1 - knocker == self.you else "lays off"
                console.print(f"{escape(self.name(1 - knocker))} {verb} {escape(laid)}")
            names = {
                "knock": "Knock",
                "gin": "Gin",
                "big_gin": "Big Gin",
                "undercut": "Undercut",
                "tie": "Tie",
            }
            scorer = showdown.scorer
            points = showdown.points
            who = self.name(scorer)
            verb = "score" if scorer == self.you else "scores"
            doubled = " (doubled: the first upcard was a spade)" if showdown.multiplier > 1 else ""
            console.print(
                f"[bold]{names.get(outcome, outcome)}:[/bold] {escape(who)} {verb} {points}{doubled}."
            )
        scores = view.scores
        console.print(f"Scores: {YOU} {scores[self.you]} · {escape(self.opponent_name)} {scores[self.them]}")

    def show_match_end(self) -> None:
        result = self.match.result
        assert result is not None
        console = self.console
        console.rule("Match over")
        you, them = result.scores[self.you], result.scores[self.them]
        if result.winner is None:
            verdict = "a draw"
        elif result.winner == self.you:
            verdict = "you win"
        else:
            verdict = f"{escape(self.opponent_name)} wins"
        console.print(f"[bold]Final: {YOU} {you} · {escape(self.opponent_name)} {them} — {verdict}[/bold]")
        if any(result.game_bonus) or any(result.box_bonus) or any(result.shutout_bonus):
            s, t = self.you, self.them
            console.print(
                f"  hand points {result.points[s]} · {result.points[t]}; game bonus {result.game_bonus[s]} · "
                f"{result.game_bonus[t]}; box bonus {result.box_bonus[s]} · {result.box_bonus[t]}; "
                f"shutout bonus {result.shutout_bonus[s]} · {result.shutout_bonus[t]}"
            )
        console.print(
            f"  {result.hands_played} hands dealt; hands won: {YOU} {result.hands_won[self.you]} · "
            f"{escape(self.opponent_name)} {result.hands_won[self.them]}"
        )


def _read_line(prompt: str) -> str:
    # typer.prompt reads stdin line by line, so a pipe can drive a whole match;
    # at the end of input it raises typer.Abort, which the match loop handles. An empty line
    # is an answer (Enter after a showdown), not a reason to ask again silently.
    return str(typer.prompt(prompt, default="", show_default=False, prompt_suffix="\n> "))


@app.command()
def play(
    seed: int | None = typer.Option(None, "--seed", help="Match seed: the same seed deals the same cards."),
    rules: str = typer.Option(
        "classic", "--rules", help="Rules preset: classic, hoyle, oklahoma or big_gin."
    ),
    opponent: str | None = typer.Option(
        None, "--opponent", help="Computer player (default: baseline if available, else random)."
    ),
    seat: int = typer.Option(
        0, "--seat", min=0, help="Your seat: 0 or 1 (0 to players-1 at a bigger table)."
    ),
    save: Path | None = typer.Option(None, "--save", help="Write the match record (JSON) to this file."),
    game: str = typer.Option(
        "gin", "--game", help="gin (two players), gin3 (three), gin4_teams (two teams of two) or rummy."
    ),
    players: int | None = typer.Option(None, "--players", help="Rummy: two to six players (default four)."),
) -> None:
    """Play a whole match in the terminal against computer players.

    `--opponent` names one level for every computer seat, or a comma-separated list, seat by seat.
    """
    from ..bots import make_player

    console = _console()
    if game != "gin" or players not in (None, 2):
        from .table_play import play_table

        play_table(console, game, players, seed, rules, opponent, seat, save, _read_line)
        return
    if seat > 1:
        console.print(f"[red]error:[/red] two-player Gin has seats 0 and 1, not {seat}")
        raise typer.Exit(2)
    try:
        chosen_rules = Rules.preset(rules)
    except RulesError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    name = opponent or _default_opponent()
    if seed is None:
        seed = secrets.randbelow(10**9)
    try:
        player = make_player(name, seed=seed)
    except ValueError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    match = new_match(chosen_rules, seed=seed)
    console.print(
        f"Gin Rummy — rules {chosen_rules.preset_name}, target {chosen_rules.target}, seed {seed}; "
        f"you are seat {seat}, {escape(name)} is seat {1 - seat}."
    )
    TerminalMatch(match, seat, player, console, _read_line).play()
    if save is not None:
        try:
            save.write_text(dumps(match.record()) + "\n", encoding="utf-8")
        except OSError as exc:
            console.print(
                f"[red]error:[/red] cannot write the record to {escape(str(save))}: {escape(str(exc))}"
            )
            raise typer.Exit(1) from None
        console.print(f"Match record saved to {escape(str(save))} (replay it with `ginrummy replay`).")


@app.command()
def replay(
    file: Path = typer.Argument(..., help="A record written by `ginrummy play --save` (any game)."),
) -> None:
    """Print a recorded match or game hand by hand."""
    console = _console()
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        console.print(f"[red]error:[/red] cannot read {escape(str(file))}: {escape(str(exc))}")
        raise typer.Exit(2) from None
    try:
        record = load_record(text)
        rendered = render_match(record) if isinstance(record, MatchRecord) else render_game(record)
    except (RecordError, ValueError) as exc:
        console.print(
            f"[red]error:[/red] {escape(str(file))} is not a valid match record: {escape(str(exc))}"
        )
        raise typer.Exit(2) from None
    # Plain echo: the rendering's [meld] brackets are text, not Rich markup.
    typer.echo(rendered)
