"""The table as one seat sees it, as plain text (the environment's `render()`), for every game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..rules import TEAMS, Discard, Draw, GinTableView, LayMeld, LayOff, RummyEvent, RummyView, View

__all__ = ["render_rummy_view", "render_table_view", "render_view"]


def _name(names: Sequence[str] | None, seat: int) -> str:
    return names[seat] if names is not None else f"seat {seat}"


def _entry_text(entry: dict[str, Any], names: Sequence[str] | None) -> str:
    who = _name(names, int(entry["seat"]))
    action = entry["action"]
    kind = action["type"]
    if kind == "pass":
        return f"{who} passes the upcard"
    if kind == "draw":
        card = entry.get("card")
        if action["source"] == "discard":
            return f"{who} takes {card} from the discard pile"
        return f"{who} draws {card} from the stock" if card else f"{who} draws from the stock"
    if kind == "discard":
        return f"{who} discards {action['card']}"
    if kind == "knock":
        card = action.get("card")
        return f"{who} knocks, discarding {card} face down" if card else f"{who} knocks"
    return f"{who} declares Big Gin"


def render_view(view: View, *, names: Sequence[str] | None = None, last: int = 4) -> str:
    """`view` as text lines: scores, dealer, pile, stock, what is known, the hand, the last actions.

    Only what the view holds is shown, so rendering never reveals a hidden card.
    """
    me = _name(names, view.seat)
    seats = range(len(view.scores))
    scores = ", ".join(f"{_name(names, s)} {view.scores[s]}" for s in seats)
    lines = [
        f"Hand {view.hand_number} · rules {view.rules.preset_name} · target {view.rules.target} · "
        f"knock limit {view.knock_limit} · dealer {_name(names, view.dealer)}",
        f"Scores: {scores}",
    ]
    pile = " ".join(str(c) for c in view.discard_pile)
    lines.append(f"Discard pile (top last): {pile or '-'}   Stock: {view.stock_count} cards")
    if view.opponent_known:
        lines.append(f"Known in the other hand: {view.opponent_known}")
    lines.append(f"{me}'s hand: {' '.join(str(c) for c in view.hand.sorted_by_rank())}")
    recent = [entry.to_json() for entry in view.history[-last:]] if last > 0 else []
    if recent:
        lines.append("Last: " + "; ".join(_entry_text(e, names) for e in recent))
    if view.phase == "over":
        lines.extend(_showdown_lines(view, names))
    elif view.legal:
        lines.append(f"{me} to act ({view.phase}): " + ", ".join(str(a) for a in view.legal))
    else:
        lines.append(f"Waiting for the other player ({view.phase})")
    return "\n".join(lines)


def _showdown_lines(view: View, names: Sequence[str] | None) -> list[str]:
    showdown = view.showdown.to_json() if view.showdown is not None else {}
    outcome = showdown.get("outcome", "over")
    if outcome == "void":
        return ["Void hand: the stock ran down to two cards; nobody scores"]
    lines = []
    hands = showdown.get("hands")
    if hands:
        for seat, cards in enumerate(hands):
            melds = " ".join("[" + " ".join(m) + "]" for m in showdown["melds"][seat])
            dead = " ".join(showdown["deadwood_cards"][seat]) or "-"
            lines.append(
                f"{_name(names, seat)} shows {melds or '-'} deadwood {dead} = {showdown['deadwood'][seat]}"
                f" (hand {' '.join(cards)})"
            )
    layoffs = showdown.get("layoffs") or ()
    knocker = showdown.get("knocker")
    if layoffs and knocker is not None:
        melds = showdown["melds"][knocker]
        laid = ", ".join(f"{lay['card']} on [{' '.join(melds[lay['meld']])}]" for lay in layoffs)
        lines.append(f"{_name(names, 1 - int(knocker))} lays off {laid}")
    scorer = showdown.get("scorer")
    who = "nobody" if scorer is None else _name(names, int(scorer))
    lines.append(f"{outcome.replace('_', ' ').title()}: {who} scores {showdown.get('points', 0)}")
    return lines


def render_table_view(view: GinTableView, *, names: Sequence[str] | None = None, last: int = 4) -> str:
    """A three-player or team Gin `view` as text: scores, each hand being played as the seat
    sees it (its own cards only in its own hand), the last actions and what it may do."""
    me = _name(names, view.seat)
    teams = view.game == "gin4_teams"
    if teams:
        scores = ", ".join(
            f"{' & '.join(_name(names, s) for s in TEAMS[t])} {view.scores[t]}" for t in range(2)
        )
        dealer = f"the team of {' & '.join(_name(names, s) for s in TEAMS[view.dealer])}"
    else:
        scores = ", ".join(f"{_name(names, s)} {view.scores[s]}" for s in range(view.players))
        dealer = f"{_name(names, view.dealer)} (sits this hand out)"
    word = "Round" if teams else "Hand"
    lines = [
        f"{word} {view.hand_number} · rules {view.rules.preset_name} · target {view.rules.target} · "
        f"dealer {dealer}",
        f"Scores: {scores}",
    ]
    for table in view.tables:
        players = " v ".join(_name(names, s) for s in table.players)
        pile = " ".join(str(c) for c in table.discard_pile)
        lines.append(
            f"{players} ({table.phase}, knock limit {table.knock_limit}): discard pile (top last) "
            f"{pile or '-'}   Stock: {table.stock_count} cards"
        )
        for inner, seat in enumerate(table.players):
            if table.known[inner] and seat != view.seat:
                lines.append(f"  Known in {_name(names, seat)}'s hand: {table.known[inner]}")
        if table.hand is not None:
            lines.append(f"  {me}'s hand: {' '.join(str(c) for c in table.hand.sorted_by_rank())}")
        recent = list(table.history[-last:]) if last > 0 else []
        if recent:
            lines.append("  Last: " + "; ".join(_entry_text(e, names) for e in recent))
        if table.showdown is not None:
            shown = table.showdown
            scorer = shown.get("scorer")
            who = "nobody" if scorer is None else _name(names, int(scorer))
            outcome = str(shown.get("outcome", "over")).replace("_", " ").title()
            lines.append(f"  {outcome}: {who} scores {shown.get('points', 0)}")
    if view.round is not None:
        scorer = "nobody" if view.round.scorer is None else f"team {view.round.scorer}"
        lines.append(
            f"Round: the teams made {list(view.round.team_points)}; {scorer} scores {view.round.points}"
        )
    if view.legal:
        lines.append(f"{me} to act ({view.phase}): " + ", ".join(str(a) for a in view.legal))
    elif view.table is None:
        lines.append(f"{me} sits this hand out")
    else:
        lines.append(f"Waiting for another player ({view.phase})")
    return "\n".join(lines)


def render_rummy_view(view: RummyView, *, names: Sequence[str] | None = None, last: int = 4) -> str:
    """A Rummy `view` as text: balances, the table melds, the pile, the hand, the last actions."""
    me = _name(names, view.seat)
    seats = range(view.players)
    scores = ", ".join(f"{_name(names, s)} {view.scores[s]}" for s in seats)
    counts = ", ".join(f"{_name(names, s)} {view.hand_counts[s]}" for s in seats)
    lines = [
        f"Hand {view.hand_number} · rules {view.rules.preset_name} · target {view.rules.target} · "
        f"dealer {_name(names, view.dealer)}",
        f"Balances: {scores}",
        f"Cards in hand: {counts}",
    ]
    for number, meld in enumerate(view.table):
        lines.append(f"Meld {number} ({_name(names, meld.owner)}): {meld.cards}")
    pile = " ".join(str(c) for c in view.discard_pile)
    lines.append(
        f"Discard pile (top last): {pile or '-'}   Stock: {view.stock_count} cards, "
        f"turned over {view.turnovers} of {view.rules.stock_turnovers} times"
    )
    for seat in seats:
        if seat != view.seat and view.known[seat]:
            lines.append(f"Known in {_name(names, seat)}'s hand: {view.known[seat]}")
    lines.append(f"{me}'s hand: {' '.join(str(c) for c in view.hand.sorted_by_rank())}")
    recent = list(view.history[-last:]) if last > 0 else []
    if recent:
        lines.append("Last: " + "; ".join(_rummy_event_text(e, names) for e in recent))
    result = view.result
    if result is not None:
        if result.winner is None:
            lines.append("Void hand: the stock ran out with no turnover left; nobody pays")
        else:
            paid = ", ".join(
                f"{_name(names, s)} {-p}" for s, p in enumerate(result.payments) if s != result.winner
            )
            lines.append(f"{_name(names, result.winner)} goes out ({result.outcome}): paid by {paid}")
    elif view.legal:
        lines.append(f"{me} to act ({view.phase}): " + ", ".join(str(a) for a in view.legal))
    else:
        lines.append(f"Waiting for {_name(names, view.to_act) if view.to_act is not None else 'the deal'}")
    return "\n".join(lines)


def _rummy_event_text(event: RummyEvent, names: Sequence[str] | None) -> str:
    who = _name(names, event.seat)
    action = event.action
    if isinstance(action, Draw):
        turned = "turns the pile over and " if event.turnover else ""
        if action.source == "discard":
            return f"{who} takes {event.card} from the discard pile"
        return (
            f"{who} {turned}draws {event.card} from the stock"
            if event.card
            else f"{who} {turned}draws from the stock"
        )
    if isinstance(action, LayMeld):
        return f"{who} lays {action.cards}"
    if isinstance(action, LayOff):
        return f"{who} lays off {action.card} on meld {action.meld}"
    assert isinstance(action, Discard)  # a Rummy turn's only other action
    return f"{who} discards {action.card}"
