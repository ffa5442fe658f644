"""Helpers for the players' tests: random reachable positions and hand-built views."""

from __future__ import annotations

import random
from collections.abc import Iterator

from ginrummy.rules import Match, Rules, View, build_view, new_match, parse_cards
from ginrummy.rules.hand import Hand

LEVEL_NAMES = ("novice", "casual", "skilled", "advanced")
OUR_PLAYERS = ("random", "baseline", *LEVEL_NAMES)


def random_positions(count: int, seed: int, rules: str = "classic") -> Iterator[tuple[Match, View]]:
    """`count` positions reached by random legal play, with the view of the seat to act."""
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        match = new_match(rules, seed=rng.randrange(1 << 30))
        # Stop somewhere in the first few hands so every phase and stock size shows up.
        for _ in range(rng.randrange(1, 120)):
            if match.is_over:
                break
            actions = match.legal_actions()
            # Knock whenever possible half the time so hands end and new ones start.
            knocks = [a for a in actions if a.__class__.__name__ == "Knock"]
            action = rng.choice(knocks) if knocks and rng.random() < 0.5 else rng.choice(actions)
            match.apply(action)
        if match.is_over:
            continue
        produced += 1
        yield match, match.view(match.to_act)  # type: ignore[arg-type]


def hand_view(hand: str, upcard: str, *, phase: str = "draw", seed: int = 1) -> View:
    """A view for seat 0 holding `hand` with `upcard` on the discard pile, in `phase`.

    Built from a real `Hand` whose cards are rearranged, so it is a legal position.
    """
    h = Hand(Rules(), seed, dealer=1)
    mine = parse_cards(hand).mask
    up = parse_cards(upcard).mask
    assert mine & up == 0
    deck = [i for i in range(52) if not (mine | up) >> i & 1]
    others = deck[:10]
    h.hands[0] = mine
    h.hands[1] = sum(1 << i for i in others)
    h.discard_pile = [up.bit_length() - 1]
    h.upcard = h.discard_pile[0]
    h.stock = deck[10:]
    h.to_act = 0
    if phase == "draw":
        h.phase = "draw"
    else:
        assert phase == "offer"
    return build_view(h, 0, hand_number=1, scores=(0, 0))
