"""Hints at the table: the recommended action for a view and a short human reason."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import Action, BigGin, Discard, Draw, Knock, Pass, View
from ..rules.cards import CARD_POINTS, CARDS
from ..rules.masks import (
    RANK_MASKS,
    RANK_OF,
    SUIT_BITS,
    bits,
    deadwood_cards,
    forms_meld,
    least_after_discard,
    least_deadwood,
)
from .base import available_players, make_player
from .knowledge import Knowledge, expected_opponent_deadwood, partial_melds, track

__all__ = ["LEVELS", "Suggestion", "explain", "suggest"]

# Strongest first: `suggest` falls back along this list when a level is not installed.
LEVELS = ("expert", "advanced", "skilled", "casual", "novice")


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A recommended action and why, e.g. ``discard K♣ — keeps 7♥8♥ open at both ends``."""

    action: Action
    reason: str
    level: str

    def to_json(self) -> dict[str, object]:
        """`{"action": ACTION, "reason": "...", "level": "expert"}`."""
        return {"action": self.action.to_json(), "reason": self.reason, "level": self.level}


def suggest(
    view: View, level: str = "expert", *, seed: int = 0, time_budget: float | None = None
) -> Suggestion:
    """The action `level` would play in `view`, with a short reason a person can follow.

    Falls back to the strongest installed level below `level` when it is not
    registered (for instance before the expert is installed). Raises `ValueError`
    for an unknown level or a view with nothing to do.
    """
    if level not in LEVELS and level not in available_players():
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    if not view.legal:
        raise ValueError("nothing to suggest: it is not this seat's turn")
    installed = set(available_players())
    chosen = level
    if level in LEVELS:
        for name in LEVELS[LEVELS.index(level) :]:
            if name in installed:
                chosen = name
                break
    player = make_player(chosen, seed=seed, time_budget=time_budget)
    decide = getattr(player, "decide", None)
    reason = ""
    if decide is not None:
        decision = decide(view)
        action = decision.action
        reason = getattr(decision, "reason", "") or ""
    else:
        action = player.act(view)
    if action not in view.legal:
        raise RuntimeError(
            f"player {chosen!r} suggested {action}, which is not legal here"
        )  # pragma: no cover
    detail = explain(view, action)
    if reason and reason not in detail:
        detail = f"{detail}; {reason}"
    return Suggestion(action, detail, chosen)


def _pretty(cards: int) -> str:
    return "".join(CARDS[i].pretty for i in bits(cards))


def _open_draw(hand: int, live: int) -> str | None:
    """The best two-card draw kept in `hand`, described by its live outs."""
    best: tuple[int, int, int] | None = None
    for pair, outs in partial_melds(deadwood_cards(hand), live):
        score = outs.bit_count() * 10 + sum(CARD_POINTS[c] for c in bits(pair))
        if best is None or score > best[0]:
            best = (score, pair, outs)
    if best is None:
        return None
    _, pair, outs = best
    n = outs.bit_count()
    cards = bits(pair)
    if n == 0:
        return None
    if RANK_OF[cards[0]] == RANK_OF[cards[1]]:
        return f"keeps the pair {_pretty(pair)} ({n} left to make a set)"
    if abs(RANK_OF[cards[0]] - RANK_OF[cards[1]]) == 1 and n == 2:
        return f"keeps {_pretty(pair)} open at both ends"
    return f"keeps {_pretty(pair)} ({n} card{'s' if n > 1 else ''} to make a run)"


def _meld_with(card: int, hand: int) -> str:
    """The cards of `hand` that `card` melds with, as a short string."""
    rank = RANK_OF[card]
    same = hand & RANK_MASKS[rank]
    if same.bit_count() >= 2:
        return _pretty(same | 1 << card)
    base = card - rank
    pattern = ((hand >> base) & SUIT_BITS) | 1 << rank
    lo = hi = rank
    while lo > 0 and pattern >> (lo - 1) & 1:
        lo -= 1
    while hi < 12 and pattern >> (hi + 1) & 1:
        hi += 1
    return "".join(CARDS[base + r].pretty for r in range(lo, hi + 1))


def explain(view: View, action: Action) -> str:
    """A short factual reason for `action` in `view`, in the game's words."""
    hand = view.hand.mask
    k = track(view)
    up = view.discard_pile[-1].index if view.discard_pile else -1
    if isinstance(action, Pass) or (isinstance(action, Draw) and action.source == "stock"):
        verb = "pass" if isinstance(action, Pass) else "draw from the stock"
        if up < 0:
            return verb
        now = least_deadwood(hand)
        after = least_after_discard(hand | 1 << up, up)
        if after < now:
            return f"{verb} rather than take {CARDS[up].pretty} (deadwood {now} → {after})"
        return f"{verb}: {CARDS[up].pretty} does not help your hand (deadwood {now})"
    if isinstance(action, Draw):
        if up < 0:
            return "take the upcard"
        if forms_meld(up, hand):
            return f"take {CARDS[up].pretty}: it makes {_meld_with(up, hand)}"
        now = least_deadwood(hand)
        after = least_after_discard(hand | 1 << up, up)
        return f"take {CARDS[up].pretty}: deadwood {now} → {after}"
    if isinstance(action, BigGin):
        return "all eleven cards are melded"
    if isinstance(action, Knock):
        card = action.card.index
        left = least_deadwood(hand & ~(1 << card))
        if left == 0:
            return f"Gin: throw {CARDS[card].pretty} and every card is melded"
        est = _opponent_estimate(k)
        return f"knock with {CARDS[card].pretty}: {left} deadwood, opponent likely above {est}"
    if isinstance(action, Discard):
        card = action.card.index
        rest = hand & ~(1 << card)
        left = least_deadwood(rest)
        parts = [f"throw {CARDS[card].pretty}: deadwood {left}"]
        draw = _open_draw(rest, k.unseen)
        if draw:
            parts.append(draw)
        return ", ".join(parts)
    return str(action)  # pragma: no cover


def _opponent_estimate(k: Knowledge) -> int:
    """A round number the opponent's deadwood is probably above (from its play so far)."""
    return max(5, int(expected_opponent_deadwood(k) * 0.6) // 5 * 5)
