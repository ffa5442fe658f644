"""A readable text rendering of hands and matches, like a hand history."""

from __future__ import annotations

from .actions import Discard, Draw, Knock, Pass
from .cards import CardSet
from .record import GameRecord

__all__ = ["render_hand", "render_match"]


def _seat(seat: int) -> str:
    return f"Seat {seat}"


def render_hand(match: object, number: int) -> str:
    """Hand `number` (1-based) of a `Match`, all cards face up, as text lines."""
    from .match import Match
    from .melds import best_arrangement

    assert isinstance(match, Match)
    hand = match.hands[number - 1]
    lines = [f"Hand {number} — seat {hand.dealer} deals (seed {hand.seed})"]
    for seat in (0, 1):
        cards = CardSet.from_mask(hand.initial_hands[seat])
        lines.append(f"  {_seat(seat)} dealt: {cards}  ({best_arrangement(cards).deadwood} deadwood)")
    upcard = CardSet.from_mask(1 << hand.upcard)
    extra = ""
    if hand.rules.oklahoma:
        extra = f"; knock limit {hand.knock_limit}" + (", points doubled" if hand.multiplier > 1 else "")
    lines.append(f"  Upcard: {upcard}{extra}")
    for step in hand.steps:
        action = step.action
        if isinstance(action, Pass):
            text = "passes the upcard"
        elif isinstance(action, Draw):
            text = f"draws {step.card} from the {'stock' if action.source == 'stock' else 'discard pile'}"
        elif isinstance(action, Discard):
            text = f"discards {action.card}"
        elif isinstance(action, Knock):
            text = f"knocks, discarding {action.card} face down"
        else:
            text = "declares Big Gin"
        lines.append(f"  {_seat(step.seat)} {text}")
    result = hand.result
    if result is None:
        lines.append(f"  (in play: seat {hand.to_act} to act, {len(hand.stock)} cards in the stock)")
    elif result.outcome == "void":
        lines.append(
            "  Void hand: the stock is down to two cards; nobody scores, the same dealer deals again"
        )
    else:
        sd = result.showdown
        assert sd is not None and result.knocker is not None
        knocker, defender = result.knocker, 1 - result.knocker
        melds = " ".join(f"[{m}]" for m in sd.knocker_melds)
        lines.append(
            f"  {_seat(knocker)} shows {melds} deadwood {sd.knocker_deadwood_cards or '-'} = {sd.knocker_deadwood}"
        )
        melds = " ".join(f"[{m}]" for m in sd.defender_melds)
        lines.append(f"  {_seat(defender)} shows {melds} deadwood {sd.defender_deadwood_cards or '-'}")
        if sd.layoffs:
            laid = ", ".join(f"{lay.card} on [{sd.knocker_melds[lay.meld]}]" for lay in sd.layoffs)
            lines.append(f"  {_seat(defender)} lays off {laid}")
        lines.append(f"  {_seat(defender)} deadwood after layoffs = {sd.defender_deadwood}")
        who = "nobody" if result.scorer is None else _seat(result.scorer)
        lines.append(f"  {result.outcome.replace('_', ' ').title()}: {who} scores {result.points}")
    scores = match.scores_after[number - 1] if number <= len(match.scores_after) else tuple(match.scores)
    lines.append(f"  Scores: {scores[0]} – {scores[1]}")
    return "\n".join(lines)


def render_match(record: GameRecord) -> str:
    """A whole recorded two-player match, hand by hand, as text."""
    from .match import Match

    match = Match.from_record(record)
    rules = record.rules
    lines = [f"Gin Rummy match — rules {rules.preset_name}, target {rules.target}, seed {record.seed}"]
    for number in range(1, len(match.hands) + 1):
        lines.append("")
        lines.append(render_hand(match, number))
    lines.append("")
    if match.result is not None:
        r = match.result
        winner = "a draw" if r.winner is None else f"seat {r.winner} wins"
        lines.append(f"Final: {r.scores[0]} – {r.scores[1]}, {winner}")
        if any(r.game_bonus) or any(r.box_bonus) or any(r.shutout_bonus):
            lines.append(
                f"  (hand points {r.points[0]} – {r.points[1]}; game bonus {list(r.game_bonus)}, "
                f"box bonus {list(r.box_bonus)}, shutout bonus {list(r.shutout_bonus)})"
            )
    else:
        lines.append(f"Unfinished: {match.scores[0]} – {match.scores[1]}")
    return "\n".join(lines)
