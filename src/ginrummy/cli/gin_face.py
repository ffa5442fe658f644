"""Two-player Gin in the terminal: the match's table, prompts, hints, the opponent's moves,
showdowns and the final score (the `Face` of a `View`)."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from ..rules import (
    Action,
    BigGin,
    CardSet,
    Discard,
    Draw,
    Knock,
    MatchResult,
    PublicStep,
    View,
    best_arrangement,
    min_deadwood,
    parse_action,
)
from .faces import OUTCOMES, YOU, Face, cards_text

__all__ = ["GinFace", "move_text"]


def _arrangement_text(cards: CardSet) -> str:
    """Melds in brackets, then the deadwood cards apart with their count."""
    arrangement = best_arrangement(cards)
    melds = " ".join(f"[{meld}]" for meld in arrangement.melds)
    dead = cards_text(arrangement.deadwood_cards)
    text = f"{melds}   " if melds else ""
    return f"{text}deadwood: {dead} = {arrangement.deadwood}"


def move_text(step: PublicStep) -> str:
    """A Gin player's move as another seat saw it, e.g. "takes 7S from the discard pile"."""
    kind = step.kind
    if kind == "pass":
        return "passes the first upcard"
    if kind == "draw" and step.source == "stock":
        return "draws from the stock"
    if kind == "draw":
        return f"takes {step.card or '?'} from the discard pile"
    if kind == "discard":
        return f"discards {step.card}"
    if kind == "knock":
        return "knocks" + (f", discarding {step.card} face down" if step.card is not None else "")
    return "declares Big Gin"


class GinFace(Face):
    """A match between the person and one computer player."""

    noun = "match"
    help_words = frozenset({"help", "legal", "l"})

    @property
    def them(self) -> int:
        return 1 - self.you

    @property
    def opponent_name(self) -> str:
        return self.names[self.them]

    def parse(self, word: str) -> Action:
        return parse_action(word)

    def announce(self, view: View) -> str:
        dealer = "you deal" if view.dealer == self.you else f"{self.opponent_name} deals"
        return f"Hand {view.hand_number} — {dealer}"

    # -- the person's move -------------------------------------------------------

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

    def tell(self, seat: int, view: View) -> str | None:
        return move_text(view.history[-1]) if view.history else None

    def show_hand_end(self, view: View) -> None:
        showdown = view.showdown
        console = self.console
        if showdown is None or showdown.knocker is None:
            console.print(
                "[bold]Void hand:[/bold] the stock is down to two cards (or a card was taken from "
                "the discard pile too many times); nobody scores and the same dealer deals again."
            )
        else:
            knocker = showdown.knocker
            assert showdown.melds is not None and showdown.deadwood_cards is not None
            assert showdown.deadwood is not None
            melds = showdown.melds
            dead = showdown.deadwood_cards
            count = showdown.deadwood
            table = Table(
                title=f"Showdown, hand {view.hand_number}", show_header=True, box=None, padding=(0, 2, 0, 0)
            )
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
            scorer = showdown.scorer
            verb = "score" if scorer == self.you else "scores"
            doubled = " (doubled: the first upcard was a spade)" if showdown.multiplier > 1 else ""
            console.print(
                f"[bold]{OUTCOMES.get(showdown.outcome, showdown.outcome)}:[/bold] "
                f"{escape(self.name(scorer))} {verb} {showdown.points}{doubled}."
            )
        scores = view.scores
        console.print(f"Scores: {YOU} {scores[self.you]} · {escape(self.opponent_name)} {scores[self.them]}")

    def show_end(self, result: MatchResult) -> None:
        console = self.console
        s, t = self.you, self.them
        them = escape(self.opponent_name)
        if result.winner is None:
            verdict = "a draw"
        elif result.winner == s:
            verdict = "you win"
        else:
            verdict = f"{them} wins"
        console.print(f"[bold]Final: {YOU} {result.scores[s]} · {them} {result.scores[t]} — {verdict}[/bold]")
        if any(result.game_bonus) or any(result.box_bonus) or any(result.shutout_bonus):
            console.print(
                f"  hand points {result.points[s]} · {result.points[t]}; game bonus {result.game_bonus[s]} · "
                f"{result.game_bonus[t]}; box bonus {result.box_bonus[s]} · {result.box_bonus[t]}; "
                f"shutout bonus {result.shutout_bonus[s]} · {result.shutout_bonus[t]}"
            )
        console.print(
            f"  {result.hands_played} hands dealt; hands won: {YOU} {result.hands_won[s]} · "
            f"{them} {result.hands_won[t]}"
        )
