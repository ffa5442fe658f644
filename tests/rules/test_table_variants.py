"""The Rules fields of the games for more than two (RULES.md §7-§8): each test fails if its field
is ignored; the presets gin3 / gin4_teams / rummy; what the rules refuse; and two-player Gin's
rules JSON left exactly as it was."""

from __future__ import annotations

import random
import sys

import pytest
from table_helpers import rig_rummy, rig_rummy_game

from ginrummy import (
    DEAL_SIZES,
    Card,
    Discard,
    Draw,
    LayMeld,
    LayOff,
    Match,
    Rules,
    RulesError,
    RummyGame,
    RummyHand,
    TeamGin,
    ThreeGin,
    new_game,
    parse_cards,
)
from ginrummy.rules.cards import CARDS
from ginrummy.rules.variants import TABLE_FIELDS

STOCK = Draw("stock")


def c(text: str) -> Card:
    return Card.parse(text)


def test_field_game() -> None:
    """`game` chooses the game `new_game` starts, and the two-player match refuses the others."""
    kinds = {
        name: type(new_game(Rules.preset(name), seed=1))
        for name in ("classic", "gin3", "gin4_teams", "rummy")
    }
    assert kinds == {"classic": Match, "gin3": ThreeGin, "gin4_teams": TeamGin, "rummy": RummyGame}
    for name in ("gin3", "gin4_teams", "rummy"):
        with pytest.raises(RulesError, match=f"these rules are for '{name}'"):
            Match(Rules.preset(name), seed=1)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_field_players(players: int) -> None:
    """`players` sets the Rummy table: that many hands of the document's size, turns passing round."""
    game = RummyGame(Rules.preset("rummy").replace(players=players), seed=players)
    hand = game.hand
    assert game.seat_count == players == len(hand.hands)
    assert {h.bit_count() for h in hand.hands} == {DEAL_SIZES[players]}
    seen = []
    rng = random.Random(players)
    while len(seen) < 2 * players:
        seat = game.seats_to_act[0]
        if not seen or seen[-1] != seat:
            seen.append(seat)
        game.apply(
            rng.choice([a for a in game.legal_actions() if not isinstance(a, (LayMeld, LayOff))]), seat
        )
    assert seen == [(game.dealer + 1 + i) % players for i in range(2 * players)]


@pytest.mark.parametrize(
    ("ace", "melds"), [("low", {"AH 2H 3H"}), ("high", {"QH KH AH"}), ("either", {"AH 2H 3H", "QH KH AH"})]
)
def test_field_ace(ace: str, melds: set[str]) -> None:
    """`ace` decides which runs hold the ace (and which layoffs fit)."""
    rules = Rules.preset("rummy").replace(ace=ace)
    hand = rig_rummy(
        rules, hands=["AH 2H 3H QH KH 9C", "KC", "KD", "9S"], upcard="5S", stock_top=["5C"], dealer=3
    )
    hand.apply(STOCK, 0)
    laid = {a.cards for a in hand.legal_actions() if isinstance(a, LayMeld)}
    assert laid == {parse_cards(m) for m in melds}
    # Left over: Q K 9 5 with the ace low, 2 3 9 5 with it high (the better choice under `either`).
    assert hand.deadwood_of(0) == (10 + 10 + 9 + 5 if ace == "low" else 2 + 3 + 9 + 5)


@pytest.mark.parametrize("turnovers", [0, 1, 3])
def test_field_stock_turnovers(turnovers: int) -> None:
    """`stock_turnovers` is how often the pile becomes the stock; the hand is void after the last."""
    rules = Rules.preset("rummy").replace(stock_turnovers=turnovers)
    hand = rig_rummy(rules, hands=["2C 9D", "2D 9H", "3D 9S", "4D 8S"], upcard="5S", stock_size=1, dealer=3)
    done = 0
    while hand.result is None:
        seat = hand.to_act
        if not hand.stock:
            assert hand.legal_actions() == [STOCK, Draw("discard")]
            done += 1
        hand.apply(STOCK, seat)
        hand.apply(Discard(hand.hand_of(seat).sorted_by_rank()[-1]), seat)
    assert hand.turnovers == done == turnovers
    assert hand.result.outcome == "void" and hand.stock == []


@pytest.mark.parametrize("limit", [1, 3, 5])
def test_retake_limit_ends_a_rummy_hand_of_players_who_keep_retaking(limit: int) -> None:
    """Two players who always take the discard and throw back what they took the turn before
    never shrink the stock: the hand is void at the end of the turn in which a card is taken
    for the (limit + 1)-th time (docs/rules.md §8), and not a turn earlier."""
    rules = Rules.preset("rummy").replace(players=2, retake_limit=limit)
    hand = rig_rummy(rules, hands=["2C 5D 9H", "3S 7C JD"], upcard="KH", dealer=1)
    stock = len(hand.stock)
    takes: dict[str, int] = {}
    before: dict[int, Card] = {}
    while hand.result is None:
        seat = hand.to_act
        top = CARDS[hand.discard_pile[-1]]
        assert takes.get(str(top), 0) <= limit, "a card was taken past the limit and play went on"
        hand.apply(Draw("discard"), seat)
        takes[str(top)] = takes.get(str(top), 0) + 1
        held = hand.hand_of(seat)
        back = before.get(seat)
        throw = (
            back if back is not None and back in held else next(c for c in held.sorted_by_rank() if c != top)
        )
        hand.apply(Discard(throw), seat)
        before[seat] = top
    assert hand.result.outcome == "void" and len(hand.stock) == stock
    assert max(takes.values()) == limit + 1


@pytest.mark.parametrize("multiplier", [1, 2, 3])
def test_field_rummy_multiplier(multiplier: int) -> None:
    """`rummy_multiplier` multiplies the payments when the winner goes out rummy (and only then)."""
    rules = Rules.preset("rummy").replace(rummy_multiplier=multiplier)
    hand = rig_rummy(
        rules, hands=["3H 4H 5H 6H 9C 9D 9S", "KS QS", "2D 3D", "TD"], upcard="5S", stock_top=["2C"], dealer=3
    )
    game = rig_rummy_game(rules, hand)
    game.apply(STOCK, 0)
    game.apply(LayMeld(parse_cards("3H 4H 5H 6H")), 0)
    game.apply(LayMeld(parse_cards("9C 9D 9S")), 0)
    result = game.apply(Discard(c("2C")), 0)
    assert result is not None and result.outcome == "rummy"
    assert result.payments == (35 * multiplier, -20 * multiplier, -5 * multiplier, -10 * multiplier)
    plain = rig_rummy(
        rules, hands=["9C 9D 9S", "KS QS", "2D 3D", "TD"], upcard="5S", stock_top=["2C"], dealer=3
    )
    plain.laid_before[0] = True
    plain.apply(STOCK, 0)
    plain.apply(LayMeld(parse_cards("9C 9D 9S")), 0)
    plain.apply(Discard(c("2C")), 0)
    assert plain.result is not None and plain.result.payments == (35, -20, -5, -10)


def test_every_table_field_has_a_test_here() -> None:
    """A new field of the table games must get a `test_field_<name>` in this file."""
    module = sys.modules[__name__]
    assert set(TABLE_FIELDS) == {"game", "players", "ace", "stock_turnovers", "rummy_multiplier"}
    for name in TABLE_FIELDS:
        assert callable(getattr(module, f"test_field_{name}", None)), f"no test_field_{name}"


# -- the Gin fields at the bigger tables -------------------------------------------------------


def play(game: ThreeGin | TeamGin | RummyGame, rng: random.Random, *, limit: int = 400_000) -> None:
    for _ in range(limit):
        if game.is_over:
            return
        seat = rng.choice(game.seats_to_act)
        legal = game.legal_actions(seat)
        eager = [a for a in legal if type(a).__name__ in ("Knock", "LayMeld", "LayOff")]
        game.apply(rng.choice(eager) if eager and rng.random() < 0.9 else rng.choice(legal), seat)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("name", ["gin3", "gin4_teams", "rummy"])
@pytest.mark.parametrize("target", [30, 90])
def test_target_ends_every_table_game(name: str, target: int) -> None:
    rules = Rules.preset(name).replace(target=target)
    for seed in range(3):
        game = new_game(rules, seed=seed)
        play(game, random.Random(seed))  # type: ignore[arg-type]
        after = game.scores_after  # type: ignore[attr-defined]
        assert max(after[-1]) >= target
        assert all(max(t) < target for t in after[:-1]), "the game went on past the target"


def test_knock_limit_and_bonuses_reach_the_hands_of_every_gin_table() -> None:
    for name in ("gin3", "gin4_teams"):
        rules = Rules.preset(name).replace(knock_limit=4, gin_bonus=20, big_gin_bonus=31)
        game = new_game(rules, seed=2)
        hands = game.hands if isinstance(game, ThreeGin) else list(game.rounds[-1])  # type: ignore[attr-defined]
        assert all(h.knock_limit == 4 and h.rules.gin_bonus == 20 and h.rules.big_gin for h in hands)


@pytest.mark.parametrize("rule", ["alternate", "winner", "loser"])
def test_next_dealer_in_team_gin(rule: str) -> None:
    rules = Rules.preset("gin4_teams").replace(next_dealer=rule, target=1000)
    kinds = set()
    for seed in range(6):
        game = TeamGin(rules, seed=seed)
        rng = random.Random(seed)
        while game.hand_number < 8:
            seat = rng.choice(game.seats_to_act)
            legal = game.legal_actions(seat)
            knocks = [a for a in legal if type(a).__name__ == "Knock"]
            game.apply(rng.choice(knocks) if knocks else rng.choice(legal), seat)
        for number in range(1, len(game.rounds)):
            scorer = game.round_results[number - 1].scorer
            team, following = game.dealers[number - 1], game.dealers[number]
            void = all(h.result is not None and h.result.outcome == "void" for h in game.rounds[number - 1])
            if void or (scorer is None and rule != "alternate"):
                assert following == team
                continue
            kinds.add(scorer == team)
            expected = {
                "alternate": 1 - team,
                "winner": scorer,
                "loser": None if scorer is None else 1 - scorer,
            }
            assert following == expected[rule]
    assert kinds == {True, False}, "the dealing team and the other both scored rounds"


def test_first_dealer_is_cut_among_all_seats() -> None:
    for name, seats in (("gin3", 3), ("rummy", 4), ("gin4_teams", 2)):
        cut = [new_game(Rules.preset(name).replace(first_dealer="cut"), seed=s).dealer for s in range(60)]  # type: ignore[attr-defined]
        drawn = [
            new_game(Rules.preset(name).replace(first_dealer="random"), seed=s).dealer for s in range(60)
        ]  # type: ignore[attr-defined]
        assert set(cut) == set(drawn) == set(range(seats))
        assert cut != drawn


# -- presets, the refusals, and JSON ------------------------------------------------------------


def test_presets_of_the_table_games() -> None:
    gin3, teams, rummy = (Rules.preset(n) for n in ("gin3", "gin4_teams", "rummy"))
    assert (gin3.game, gin3.players, gin3.first_dealer, gin3.next_dealer, gin3.target) == (
        "gin3",
        3,
        "cut",
        "alternate",
        100,
    )
    assert (gin3.game_bonus, gin3.box_bonus, gin3.shutout_bonus) == (100, 25, 100)
    assert (teams.game, teams.players, teams.target, teams.next_dealer, teams.first_dealer) == (
        "gin4_teams",
        4,
        125,
        "winner",
        "cut",
    )
    assert (rummy.game, rummy.players, rummy.ace, rummy.stock_turnovers, rummy.rummy_multiplier) == (
        "rummy",
        4,
        "low",
        2,
        2,
    )
    assert Rules().game == "gin" and Rules().players == 2
    assert Rules.for_game("rummy", 2) == rummy.replace(players=2, next_dealer="winner")
    assert Rules.for_game("rummy", 6) == rummy.replace(players=6)
    assert Rules.for_game("gin") == Rules() and Rules.for_game("gin3") == gin3
    with pytest.raises(RulesError, match="gin3 is played by 3 players"):
        Rules.for_game("gin3", 4)
    with pytest.raises(RulesError, match="unknown game 'poker'"):
        Rules.for_game("poker")


@pytest.mark.parametrize(
    ("base", "change", "message"),
    [
        ("classic", {"game": "gin3"}, "gin3 is played by 3 players, got players=2"),
        ("rummy", {"players": 7}, "rummy is played by 2 to 6 players, got players=7"),
        ("rummy", {"players": 1}, "rummy is played by 2 to 6 players"),
        ("gin4_teams", {"players": 3}, "gin4_teams is played by 4 players"),
        ("classic", {"game": "bridge"}, "game must be one of gin, gin3, gin4_teams, rummy"),
        ("rummy", {"ace": "middle"}, "ace must be 'low', 'high' or 'either'"),
        ("rummy", {"stock_turnovers": 11}, "stock_turnovers must be a whole number from 0 to 10"),
        ("rummy", {"stock_turnovers": -1}, "stock_turnovers"),
        ("rummy", {"rummy_multiplier": 0}, "rummy_multiplier must be a whole number from 1 to 10"),
        ("rummy", {"rummy_multiplier": True}, "rummy_multiplier"),
        ("rummy", {"oklahoma": True}, "Rummy plays neither"),
        ("rummy", {"big_gin_bonus": 31}, "Rummy plays neither"),
        ("rummy", {"next_dealer": "loser"}, "needs a single loser"),
        ("classic", {"ace": "high"}, "only Rummy uses ace"),
        ("gin3", {"stock_turnovers": 1}, "only Rummy uses stock_turnovers"),
        ("classic", {"players": 3}, "gin is played by 2 players"),
    ],
)
def test_impossible_tables_are_refused(base: str, change: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.preset(base).replace(**change)


def test_loser_deals_is_fine_for_two_player_rummy() -> None:
    assert Rules.for_game("rummy", 2).replace(next_dealer="loser").next_dealer == "loser"


def test_two_player_gin_rules_json_is_unchanged() -> None:
    """Version 1 of the protocol and the match records carry exactly the fields they always had."""
    for name in ("classic", "hoyle", "oklahoma", "big_gin"):
        assert list(Rules.preset(name).to_json()) == [
            "knock_limit",
            "gin_bonus",
            "undercut_bonus",
            "undercut_on_tie",
            "big_gin_bonus",
            "target",
            "first_dealer",
            "next_dealer",
            "game_bonus",
            "box_bonus",
            "shutout_bonus",
            "oklahoma",
            "spade_double",
            "retake_limit",
            "preset",
        ]
    # A customised two-player rule set written before the table games existed still loads.
    old = Rules.preset("hoyle").replace(preset_name="house", target=150).to_json()
    assert Rules.from_json(old) == Rules.preset("hoyle").replace(preset_name="house", target=150)


@pytest.mark.parametrize("name", ["gin3", "gin4_teams", "rummy"])
def test_table_rules_json_round_trips(name: str) -> None:
    rules = Rules.preset(name)
    variant = rules.replace(
        preset_name="house",
        target=77,
        **({"ace": "either", "players": 5} if name == "rummy" else {"gin_bonus": 20}),
    )
    for value in (rules, variant):
        assert Rules.from_json(value.to_json()) == value
    partial = variant.to_json()
    del partial["players"]
    with pytest.raises(RulesError, match="missing: players"):
        Rules.from_json(partial)


def test_a_rummy_hand_refuses_gin_rules() -> None:
    with pytest.raises(RulesError, match="not Rummy"):
        RummyHand(Rules(), seed=1, dealer=0)
