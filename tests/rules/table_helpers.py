"""Helpers for the tests of the table games: rigged Rummy deals and the universe of actions to try."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

from ginrummy import (
    Card,
    CardSet,
    Discard,
    Draw,
    GameAction,
    LayMeld,
    LayOff,
    Rules,
    RummyGame,
    RummyHand,
    parse_cards,
)
from ginrummy.rules.cards import CARDS


def rig_rummy(
    rules: Rules | None = None,
    *,
    dealer: int = 0,
    hands: Sequence[str],
    upcard: str,
    stock_top: Sequence[str] = (),
    stock_size: int | None = None,
    seed: int = 0,
) -> RummyHand:
    """A Rummy hand about to be played with chosen cards.

    `hands[i]` is seat i's hand; `stock_top` is drawn first; the other cards fill the stock
    below them, cut to `stock_size` cards when given (the rest leave play: tests that run
    the stock out). The hand size of the deal is not enforced, so positions mid-game can be set.
    """
    rules = rules if rules is not None else Rules.preset("rummy").replace(players=len(hands))
    hand = RummyHand(rules, seed, dealer)
    masks = [parse_cards(h).mask for h in hands]
    up = parse_cards(upcard).mask
    used = up
    for mask in masks:
        assert not used & mask, "a card is dealt twice"
        used |= mask
    top = [Card.parse(t).index for t in stock_top]
    assert all(not used >> i & 1 for i in top)
    rest = [i for i in range(52) if not used >> i & 1 and i not in top]
    stock = rest + list(reversed(top))
    if stock_size is not None:
        stock = stock[len(stock) - stock_size :]
    hand.hands = masks
    hand.initial_hands = tuple(masks)
    hand.upcard = up.bit_length() - 1
    hand.discard_pile = [hand.upcard]
    hand.stock = stock
    return hand


def rig_rummy_game(rules: Rules, hand: RummyHand, *, seed: int = 1) -> RummyGame:
    """A game whose first hand is `hand`."""
    game = RummyGame(rules, seed=seed, first_dealer=hand.dealer)
    game.hands[-1] = hand
    return game


def rummy_candidates(hand: RummyHand, rng: random.Random, extra: int = 25) -> list[GameAction]:
    """Actions to try against the checker: every draw, every discard and layoff of every card
    onto every table meld (and one number past them), every meld of the player's cards, and
    random three- and four-card groups from anywhere (mostly not melds, often not held)."""
    actions: list[GameAction] = [Draw("stock"), Draw("discard")]
    actions += [Discard(c) for c in CARDS]
    seat = hand.to_act
    held = CardSet.from_mask(hand.hands[seat])
    for card in held:
        for number in range(len(hand.table) + 1):
            actions.append(LayOff(card, number))
    actions += [LayOff(CARDS[rng.randrange(52)], rng.randrange(len(hand.table) + 1)) for _ in range(5)]
    cards = list(held)
    for size in (3, 4):
        groups = list(combinations(cards, size))
        rng.shuffle(groups)
        actions += [LayMeld(CardSet(g)) for g in groups[:extra]]
    actions += [LayMeld(CardSet(rng.sample(CARDS, rng.choice((3, 4))))) for _ in range(5)]
    return actions
