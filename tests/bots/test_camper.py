"""`camper` follows its description (docs/bots.md) in scripted positions."""

from __future__ import annotations

from bot_helpers import hand_view, random_positions
from test_expert import position

from ginrummy.bots import make_player
from ginrummy.bots.camper import CamperPlayer, layoff_targets, miss_chance
from ginrummy.rules import Card, Discard, Draw, Knock, Pass, parse_cards
from ginrummy.rules.masks import FULL_DECK, best_melds, least_deadwood

THROWN = ["KS", "QS", "JS", "TS", "6S", "4S", "2S", "TD", "9D", "8D", "7D", "6D", "4D", "3D"]


def _turns(n: int) -> tuple[str, list[tuple[int, dict[str, str], str | None]]]:
    """A discard pile and a history of n turns of each seat (the opponent first), ending with
    seat 0's n-th draw from the stock: seat 0 is to throw a card on its n-th turn."""
    steps: list[tuple[int, dict[str, str], str | None]] = []
    pile = ["QH"]
    for i in range(n):
        for seat in (1, 0):
            steps.append((seat, {"type": "draw", "source": "stock"}, None))
            card = THROWN[2 * i + seat]
            steps.append((seat, {"type": "discard", "card": card}, None))
            pile.append(card)
    steps.pop()
    pile.pop()
    return " ".join(pile), steps


def test_takes_the_upcard_only_to_complete_a_meld() -> None:
    camper = CamperPlayer(seed=1)
    hand = "7H 8H 2C 3C KD QS 5S 9D AC 4D"
    assert camper.act(hand_view(hand, "9H")) == Draw("discard")  # 7-8-9 of hearts
    assert camper.act(hand_view(hand, "4C")) == Draw("discard")  # 2-3-4 of clubs
    assert camper.act(hand_view(hand, "KS")) == Draw("stock")  # a pair only
    assert camper.act(hand_view(hand, "KS", phase="offer")) == Pass()


def test_knocks_only_during_its_first_three_turns_then_plays_for_gin() -> None:
    mine = "AC 2C 3C 7S 8S 9S 5D 5H 5C 3H KH"  # throwing KH knocks with 3, 3H with 10
    camper = CamperPlayer(seed=1)
    for turn in (1, 2, 3):
        pile, history = _turns(turn)
        assert camper.act(position(mine, pile, history=history)) == Knock(Card.parse("KH"))
    pile, history = _turns(4)
    assert isinstance(camper.act(position(mine, pile, history=history)), Discard)


def test_goes_gin_whenever_it_can() -> None:
    gin = "AC 2C 3C 7S 8S 9S 5D 5H 5C 4C KH"  # throw KH: A-2-3-4 of clubs, three fives, 7-8-9 of spades
    pile, history = _turns(6)
    assert CamperPlayer(seed=1).act(position(gin, pile, history=history)) == Knock(Card.parse("KH"))


def test_the_lookahead_weighs_less_as_its_turns_go_by() -> None:
    """Early in a hand it keeps cards that draw to melds; late it keeps fewer points."""
    camper = CamperPlayer(seed=1)
    changed = 0
    for _, view in random_positions(60, seed=11):
        if view.phase != "discard":
            continue
        hand = view.hand.mask
        discards = [a.card.index for a in view.legal if isinstance(a, Discard)]
        unseen = FULL_DECK & ~hand
        probs = [0.0] * 52
        early = camper.choose_discard(hand, discards, 1, unseen, probs)
        late = camper.choose_discard(hand, discards, 30, unseen, probs)
        kept_early, kept_late = hand ^ 1 << early, hand ^ 1 << late
        assert least_deadwood(kept_late) <= least_deadwood(kept_early)
        assert miss_chance(kept_early, unseen) <= miss_chance(kept_late, unseen) + 1e-12
        changed += early != late
    assert changed > 0


def test_layoff_targets() -> None:
    hand = parse_cards("AC 2C 3C 4C 7S 8S 9S 5D 5H 5C JH").mask
    melds = best_melds(hand & ~parse_cards("JH").mask)
    # The fives take 5S; A-4 of clubs takes 5C (held, in the set); 7-9 of spades 6S and TS.
    assert layoff_targets(melds) == parse_cards("5S 5C 6S TS").mask


def test_registered_and_plays_whole_matches() -> None:
    from ginrummy.arena import play_match

    stats = play_match(make_player("camper", seed=1), "baseline", seed=3)
    assert stats.winner in ("a", "b") and stats.hands >= 1
