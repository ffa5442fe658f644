"""Helpers for the rules tests: rigged deals, simple policies, and the universe of all actions."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ginrummy import (
    Action,
    BigGin,
    Discard,
    Draw,
    Hand,
    Knock,
    Match,
    Pass,
    Rules,
    min_deadwood,
    parse_cards,
)
from ginrummy.rules.cards import CARDS

#: Every action a client could ever send: pass, both draws, Big Gin, 52 discards, 52 knocks.
ALL_ACTIONS: tuple[Action, ...] = (
    Pass(),
    Draw("stock"),
    Draw("discard"),
    BigGin(),
    *(Discard(c) for c in CARDS),
    *(Knock(c) for c in CARDS),
)


def rig_hand(
    rules: Rules | None = None,
    *,
    dealer: int = 0,
    non_dealer: str,
    dealer_cards: str,
    upcard: str | None = None,
    stock_top: Sequence[str] = (),
    stock_size: int | None = None,
    seed: int = 0,
) -> Hand:
    """A hand in its offer phase with chosen cards.

    The hand is dealt from `seed` and then its fields are set: both players' cards,
    the upcard (the seed's own upcard when None, so an Oklahoma knock limit stays
    consistent), and the stock with `stock_top` drawn first. The other cards fill the
    stock below them; `stock_size` cuts the stock to that many cards (cards removed
    from play so void-hand timing can be tested).
    """
    rules = rules if rules is not None else Rules()
    assert not (rules.oklahoma and upcard is not None), "Oklahoma: choose the upcard by seed"
    hand = Hand(rules, seed, dealer)
    cards = [parse_cards(non_dealer), parse_cards(dealer_cards)]
    assert len(cards[0]) == 10 and len(cards[1]) == 10 and cards[0].isdisjoint(cards[1])
    up = parse_cards(upcard).mask if upcard is not None else 1 << hand.upcard
    up_index = up.bit_length() - 1
    used = cards[0].mask | cards[1].mask | up
    assert used.bit_count() == 21, "upcard overlaps a hand"
    top = [parse_cards(t).mask.bit_length() - 1 for t in stock_top]
    assert all(not used >> i & 1 for i in top) and len(set(top)) == len(top)
    rest = [i for i in range(52) if not used >> i & 1 and i not in top]
    stock = rest + list(reversed(top))  # the top of the stock is the last element
    if stock_size is not None:
        stock = stock[len(stock) - stock_size :]
    seats = [0, 0]
    seats[1 - dealer] = cards[0].mask
    seats[dealer] = cards[1].mask
    hand.hands = seats
    hand.initial_hands = (seats[0], seats[1])
    hand.upcard = up_index
    hand.discard_pile = [up_index]
    hand.stock = stock
    return hand


def rig_match(rules: Rules | None, hand: Hand, *, seed: int = 1) -> Match:
    """A match whose first hand is `hand` (dealt by `hand.dealer`)."""
    match = Match(rules, seed=seed, first_dealer=hand.dealer)
    match.hands[-1] = hand
    return match


Policy = Callable[[Match, random.Random], Action]


def random_policy(match: Match, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(match.legal_actions())


def eager_policy(match: Match, rng: random.Random) -> Action:
    """Random play that ends hands quickly: Big Gin or a knock whenever allowed (mostly)."""
    legal = match.legal_actions()
    endings = [a for a in legal if isinstance(a, (Knock, BigGin))]
    if endings and rng.random() < 0.85:
        return rng.choice(endings)
    return rng.choice(legal)


def greedy_policy(match: Match, rng: random.Random) -> Action:
    """A simple sensible player: keeps the least deadwood and knocks at once."""
    hand = match.hand
    legal = match.legal_actions()
    cards = hand.hand_of(hand.to_act)
    if hand.phase in ("offer", "draw"):
        top = CARDS[hand.discard_pile[-1]]
        with_top = cards | top
        improves = min(min_deadwood(with_top - c) for c in cards) < min_deadwood(cards)
        take = Draw("discard")
        if improves and take in legal:
            return take
        return Pass() if hand.phase == "offer" else Draw("stock")
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks:
        return min(knocks, key=lambda a: min_deadwood(cards - a.card))
    discards = [a for a in legal if isinstance(a, Discard)]
    return min(discards, key=lambda a: (min_deadwood(cards - a.card), -a.card.points, rng.random()))


def play(match: Match, policy: Policy, rng: random.Random, *, max_actions: int = 200_000) -> None:
    """Play `match` to its end with `policy` for both seats."""
    for _ in range(max_actions):
        if match.is_over:
            return
        match.apply(policy(match, rng))
    raise AssertionError("match did not end")


def seed_with_upcard(predicate: Callable[[int], bool], start: int = 0) -> int:
    """The first deal seed (from `start`) whose first upcard index satisfies `predicate`."""
    seed = start
    while not predicate(Hand(Rules(), seed, 0).upcard):
        seed += 1
    return seed
