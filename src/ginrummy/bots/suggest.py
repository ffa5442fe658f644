"""Hints at the table: the recommended action for a view and a short human reason."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import Action, BigGin, CardSet, Discard, Draw, Knock, Pass, View
from ..rules.cards import CARD_POINTS, CARDS
from ..rules.fast_core import (
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
from .reasons import HEADS, Reason

__all__ = ["LEVELS", "Suggestion", "explain", "reasons", "suggest"]

# Strongest first: `suggest` falls back along this list when a level is not installed.
LEVELS = ("expert", "advanced", "skilled", "casual", "novice")


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A recommended action and why, e.g. ``discard K♣ — keeps 7♥8♥ open at both ends``."""

    action: Action
    why: Reason
    level: str

    @property
    def reason(self) -> str:
        """Why, in English."""
        return self.why.text()

    def to_json(self) -> dict[str, object]:
        """`{"action": ACTION, "reason": "...", "why": [PHRASE, ...], "level": "expert"}`."""
        return {
            "action": self.action.to_json(),
            "reason": self.reason,
            "why": self.why.to_json(),
            "level": self.level,
        }


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
    weighed = Reason()
    if decide is not None:
        decision = decide(view)
        action = decision.action
        weighed = getattr(decision, "why", weighed)
    else:
        action = player.act(view)
    if action not in view.legal:
        raise RuntimeError(
            f"player {chosen!r} suggested {action}, which is not legal here"
        )  # pragma: no cover
    facts = reasons(view, action)
    # The facts name the move already; what the level weighed follows, unless the facts say it.
    weighed = weighed.without(HEADS)
    if weighed and not set(weighed.phrases) <= set(facts.phrases):
        facts = facts.join(weighed, lead="; ")
    return Suggestion(action, facts, chosen)


def _open_draw(hand: int, live: int) -> Reason | None:
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
    group = CardSet.from_mask(pair)
    if RANK_OF[cards[0]] == RANK_OF[cards[1]]:
        return Reason.of("keeps_pair", cards=group, n=n)
    if abs(RANK_OF[cards[0]] - RANK_OF[cards[1]]) == 1 and n == 2:
        return Reason.of("keeps_open", cards=group)
    return Reason.of("keeps_run", cards=group, n=n)


def _meld_with(card: int, hand: int) -> CardSet:
    """The cards of `hand` that `card` melds with, `card` included."""
    rank = RANK_OF[card]
    same = hand & RANK_MASKS[rank]
    if same.bit_count() >= 2:
        return CardSet.from_mask(same | 1 << card)
    base = card - rank
    pattern = ((hand >> base) & SUIT_BITS) | 1 << rank
    lo = hi = rank
    while lo > 0 and pattern >> (lo - 1) & 1:
        lo -= 1
    while hi < 12 and pattern >> (hi + 1) & 1:
        hi += 1
    return CardSet.from_mask(sum(1 << (base + r) for r in range(lo, hi + 1)))


def explain(view: View, action: Action) -> str:
    """A short factual reason for `action` in `view`, in the game's words (English)."""
    return reasons(view, action).text()


def reasons(view: View, action: Action) -> Reason:
    """The plain facts of `action` in `view` as phrases (see `ginrummy.bots.reasons`)."""
    hand = view.hand.mask
    k = track(view)
    up = view.discard_pile[-1].index if view.discard_pile else -1
    if isinstance(action, Pass) or (isinstance(action, Draw) and action.source == "stock"):
        verb = "pass" if isinstance(action, Pass) else "stock"
        if up < 0:
            return Reason.of(verb)
        now = least_deadwood(hand)
        after = least_after_discard(hand | 1 << up, up)
        if after < now:
            return Reason.of(f"{verb}_rather", card=CARDS[up], now=now, after=after)
        return Reason.of(f"{verb}_no_help", card=CARDS[up], now=now)
    if isinstance(action, Draw):
        if up < 0:
            return Reason.of("take_upcard")
        if forms_meld(up, hand):
            return Reason.of("take_makes", card=CARDS[up], meld=_meld_with(up, hand))
        now = least_deadwood(hand)
        after = least_after_discard(hand | 1 << up, up)
        return Reason.of("take_deadwood", card=CARDS[up], now=now, after=after)
    if isinstance(action, BigGin):
        return Reason.of("big_gin_all")
    if isinstance(action, Knock):
        card = action.card.index
        left = least_deadwood(hand & ~(1 << card))
        if left == 0:
            return Reason.of("gin_throw", card=CARDS[card])
        est = _opponent_estimate(k)
        return Reason.of("knock_with", card=CARDS[card], left=left, estimate=est)
    if isinstance(action, Discard):
        card = action.card.index
        rest = hand & ~(1 << card)
        out = Reason.of("throw_deadwood", card=CARDS[card], left=least_deadwood(rest))
        draw = _open_draw(rest, k.unseen)
        return out.join(draw, lead=", ") if draw else out
    raise ValueError(f"no reason for {action}")  # pragma: no cover


def _opponent_estimate(k: Knowledge) -> int:
    """A round number the opponent's deadwood is probably above (from its play so far)."""
    return max(5, int(expected_opponent_deadwood(k) * 0.6) // 5 * 5)
