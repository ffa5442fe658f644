"""Playing a hand out fast on card masks, for the expert's Monte-Carlo rollouts.

One side ("me") plays a quick version of the expert's own undercut game (least deadwood
keeping live connections, upcards that meld, Gin only), the other a model of the opponent
that knocks at its first chance, as most programs do. Either side's knock judgement can be
another `KnockRule` (replay analysis plays both sides with the steady game's). Cards are
indices ``suit * 13 + rank``; hands are int masks; the stock is a list whose last item is its
top. Nothing here reads a View: the caller builds the sampled state from what its view allows.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from ...rules import Rules
from ...rules.cards import CARD_POINTS
from ...rules.fast_core import (
    best_discards,
    bits,
    deadwood_after_discards,
    forms_meld,
    least_deadwood,
    meld_partners,
    showdown_points,
)

__all__ = ["KnockRule", "first_chance", "quick_discard", "rollout"]

#: Whether a side knocks: (deadwood after its discard, within the knock limit; its draws this hand).
KnockRule = Callable[[int, int], bool]


def first_chance(deadwood: int, draws: int) -> bool:
    """The opponent model of the expert's search: a knock whenever one is allowed."""
    return True


#: Deadwood a non-melding upcard must save before the quick policy takes it.
TAKE_GAIN: Final = 6
#: Turns after which a playout counts as void: two sides taking each other's discards can
#: pass the same cards back and forth without ever drawing from the stock.
MAX_TURNS: Final = 100
#: Deadwood points one live out of a thrown card is worth to the quick policy (it keeps
#: connected cards the way the undercut game does).
OUTS_WEIGHT: Final = 0.5


def quick_discard(hand: int, forbid: int, live: int) -> tuple[int, int]:
    """(deadwood after, card): Gin when a discard leaves it, else the least deadwood, less
    `OUTS_WEIGHT` per live card that would have made a meld with the thrown card and one kept
    card (so connected cards stay)."""
    best_v = 1e9
    best_d = 1000
    best_card = -1
    for c, d in deadwood_after_discards(hand):
        if c == forbid:
            continue
        if d == 0:
            return 0, c
        rest = hand ^ (1 << c)
        outs = 0
        for a, b in meld_partners(c):
            if (rest >> a & 1 and live >> b & 1) or (rest >> b & 1 and live >> a & 1):
                outs += 1
        v = d + OUTS_WEIGHT * outs - 0.01 * CARD_POINTS[c]
        if v < best_v:
            best_v, best_d, best_card = v, d, c
    return best_d, best_card


def rollout(
    me: int,
    opp: int,
    stock: list[int],
    up: int,
    dead: int,
    rules: Rules,
    knock_limit: int,
    rng: random.Random,
    *,
    me_knocks: KnockRule | None = None,
    opp_knocks: KnockRule = first_chance,
    my_draws: int = 0,
    opp_draws: int = 0,
) -> int:
    """Play the hand out from the opponent's draw; points from my side (+ I score, - it does).

    `up` is the upcard (-1 if none), `dead` the other cards of the discard pile. The stock
    list is consumed. A hand that reaches the end of the stock, or goes on for `MAX_TURNS`
    turns, is void (0). I knock only with
    Gin unless `me_knocks` says when; the opponent knocks as `opp_knocks` says. `my_draws` and
    `opp_draws` are the draws each side made in this hand so far (what the rules count).
    """
    if len(stock) <= 2:
        return 0  # my discard left two stock cards: the hand is void already
    turn_opp = True
    turns = 0
    opp_seen = 0  # cards seen going into the opponent's hand (not live for me)
    while True:
        if turn_opp:
            if up >= 0 and forms_meld(up, opp):
                opp |= 1 << up
                opp_seen |= 1 << up
                taken = up
            else:
                if up >= 0:
                    dead |= 1 << up
                card = stock.pop()
                opp |= 1 << card
                taken = -1
            # The opponent throws a card at random among those leaving the least deadwood.
            d, ties = best_discards(opp, taken)
            choices = bits(ties)
            c = choices[0] if len(choices) == 1 else rng.choice(choices)
            opp ^= 1 << c
            dead |= 1 << c
            opp_draws += 1
            if d <= knock_limit and (d == 0 or opp_knocks(d, opp_draws)):
                return -showdown_points(opp, me, rules)
            up = c
        else:
            cur = least_deadwood(me)
            take = False
            if up >= 0:
                after_take = best_discards(me | 1 << up, up)[0]
                if after_take < cur and (forms_meld(up, me) or cur - after_take >= TAKE_GAIN):
                    take = True
            if take:
                me |= 1 << up
                taken = up
            else:
                if up >= 0:
                    dead |= 1 << up
                card = stock.pop()
                me |= 1 << card
                taken = -1
            d, c = quick_discard(me, taken, ~(me | dead | opp_seen))
            me ^= 1 << c
            my_draws += 1
            if d == 0 or (d <= knock_limit and me_knocks is not None and me_knocks(d, my_draws)):
                return showdown_points(me, opp, rules)
            up = c
        turns += 1
        if len(stock) <= 2 or turns > MAX_TURNS:
            return 0
        turn_opp = not turn_opp
