"""The table as one seat sees it, as plain text (the environment's `render()`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..rules import View

__all__ = ["render_view"]


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
