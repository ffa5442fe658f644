"""Helpers of the competition tests: finished matches made by the real rules engine."""

from __future__ import annotations

import random

from ginrummy.rules import (
    Action,
    BigGin,
    Card,
    CardSet,
    Discard,
    Draw,
    Knock,
    Match,
    Pass,
    Rules,
    min_deadwood,
)


def finished_match(seed: int, *, target: int = 25, winner: int | None = None) -> Match:
    """A whole match played at random (knocking whenever allowed); with `winner`, one that seat won."""
    for attempt in range(200):
        rng = random.Random(seed * 1000 + attempt)
        match = Match(Rules.preset("classic").replace(target=target), seed=seed * 1000 + attempt)
        while not match.is_over:
            legal = match.legal_actions()
            enders = [a for a in legal if type(a).__name__ in ("Knock", "BigGin")]
            match.apply(rng.choice(enders) if enders else rng.choice(legal))
        assert match.result is not None
        if winner is None or match.result.winner == winner:
            return match
    raise AssertionError("no random match with that winner")


def greedy_match(seed: int, *, target: int = 25) -> Match:
    """A whole match by a fixed greedy script (seat 1 deals first): knock as soon as allowed with
    the least deadwood, take the upcard or discard when it lowers the deadwood, else draw from
    the stock, and throw the card whose loss leaves the least deadwood. The same seed gives the
    same hands, showdowns and result every time: tests know what happened in them."""
    match = Match(Rules.preset("classic").replace(target=target), seed=seed, first_dealer=1)
    while not match.is_over:
        match.apply(_greedy(match))
    return match


def _greedy(match: Match) -> Action:
    hand = match.hand
    seat = match.to_act
    assert seat is not None
    legal = match.legal_actions()
    mine = hand.hand_of(seat)
    knocks = [a for a in legal if isinstance(a, (Knock, BigGin))]
    if knocks:
        options = hand.knock_options()
        return min(knocks, key=lambda a: 0 if isinstance(a, BigGin) else options[a.card.index])
    if hand.phase in ("offer", "draw"):
        up = Card(hand.discard_pile[-1])
        if Draw("discard") in legal:
            with_up = mine | CardSet([up])
            best = min(min_deadwood(with_up - CardSet([card])) for card in with_up if card != up)
            if best < min_deadwood(mine):
                return Draw("discard")
        return Draw("stock") if Draw("stock") in legal else Pass()
    discards = [a for a in legal if isinstance(a, Discard)]
    return min(discards, key=lambda a: (min_deadwood(mine - CardSet([a.card])), -a.card.index))
