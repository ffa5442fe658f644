"""Classic Rummy by document 002 (seeds/002_…, RULES.md §8): each rule of the document as a
scenario, named after the section it comes from (Chia bài — the deal; Chơi — play; Bắt buộc —
laying off; Đi ra — going out; Cách giữ điểm — scoring)."""

from __future__ import annotations

import random

import pytest
from table_helpers import rig_rummy, rig_rummy_game

from ginrummy import (
    DEAL_SIZES,
    Card,
    CardSet,
    Discard,
    Draw,
    IllegalActionError,
    LayMeld,
    LayOff,
    Rules,
    RummyGame,
    RummyHand,
    deal_order,
    parse_cards,
)


def c(text: str) -> Card:
    return Card.parse(text)


def meld(text: str) -> LayMeld:
    return LayMeld(parse_cards(text))


STOCK = Draw("stock")
UPCARD = Draw("discard")


# -- Chia bài: the deal ----------------------------------------------------------------------


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_deal_ten_seven_or_six_cards_one_at_a_time_from_the_dealers_left(players: int, size: int) -> None:
    """002: "Khi hai người chơi, mỗi người được 10 lá … ba hoặc bốn … bảy lá; năm hoặc sáu … sáu lá";
    the dealer deals one card at a time starting with the player on the left; the next card
    is turned up to start the discard pile; the rest is the stock; play starts on the left."""
    assert DEAL_SIZES[players] == size
    rules = Rules.for_game("rummy", players)
    for dealer in range(players):
        hand = RummyHand(rules, seed=100 + dealer, dealer=dealer)
        deck = deal_order(hand.seed)
        assert [h.bit_count() for h in hand.hands] == [size] * players
        for i in range(players * size):
            assert hand.hands[(dealer + 1 + i) % players] >> deck[i] & 1
        assert hand.discard_pile == [deck[players * size]]
        assert hand.stock[-1] == deck[players * size + 1], "the stock's top is the card after the upcard"
        assert len(hand.stock) == 52 - players * size - 1
        assert hand.to_act == (dealer + 1) % players
        assert hand.legal_actions() == [STOCK, UPCARD]


# -- Chơi: a turn ------------------------------------------------------------------------------


def test_a_turn_draws_lays_melds_face_up_and_discards() -> None:
    """002: draw the stock's top or the discard pile's top, lay any melds face up, then discard."""
    hand = rig_rummy(hands=["7C 7D 7H 2S 9D", "KC", "KD", "KH"], upcard="5S", stock_top=["QS"], dealer=3)
    assert hand.to_act == 0
    hand.apply(STOCK, 0)
    assert hand.phase == "play" and c("QS") in hand.hand_of(0)
    hand.apply(meld("7C 7D 7H"), 0)
    assert [str(m.cards) for m in hand.table_melds()] == ["7C 7D 7H"]
    assert hand.table_melds()[0].owner == 0
    hand.apply(Discard(c("QS")), 0)
    assert hand.to_act == 1 and hand.phase == "draw"
    assert str(hand.hand_of(0)) == "9D 2S"


def test_the_card_taken_from_the_pile_cannot_be_discarded_that_turn() -> None:
    """002: "Nếu người chơi đã rút từ chồng bài loại bỏ, anh ta không được phép loại bỏ lá bài tương tự trong lượt đó"."""
    hand = rig_rummy(hands=["2C 9D KS", "KC", "KD", "KH"], upcard="5S", dealer=3)
    hand.apply(UPCARD, 0)
    with pytest.raises(IllegalActionError, match="5S was just taken from the discard pile"):
        hand.apply(Discard(c("5S")), 0)
    assert Discard(c("5S")) not in hand.legal_actions()
    hand.apply(Discard(c("KS")), 0)
    assert hand.discard_pile[-1] == c("KS").index


def test_laying_down_may_not_leave_only_the_card_just_taken() -> None:
    """What the rule above implies: with only the taken card left the turn could not end, so a
    meld or layoff that would leave it alone is refused (it may still be melded itself)."""
    hand = rig_rummy(hands=["7C 7D 7H", "KC", "KD", "KH"], upcard="5S", dealer=3)
    hand.apply(UPCARD, 0)
    with pytest.raises(IllegalActionError, match="leave only 5S"):
        hand.apply(meld("7C 7D 7H"), 0)
    assert hand.legal_actions() == [Discard(c("7C")), Discard(c("7D")), Discard(c("7H"))]


# -- Bắt buộc: laying off on any meld on the table --------------------------------------------


def table_with_threes_and_a_spade_run(seat0: str, draw: str = "KC") -> RummyHand:
    """Seat 1 lays 3♣3♦3♥ and seat 2 lays 8♠9♠10♠; then seat 0 (holding `seat0`) draws `draw`."""
    hand = rig_rummy(
        hands=[seat0, "3C 3D 3H 4D 5D", "8S 9S TS 4C 5C", "2D 6D KH AD AC"],
        upcard="KD",
        stock_top=["QC", "QD", "QH", draw],
        dealer=0,
    )
    for seat, cards in ((1, "3C 3D 3H"), (2, "8S 9S TS")):
        hand.apply(STOCK, seat)
        hand.apply(meld(cards), seat)
        hand.apply(Discard(CardSet.from_mask(hand.hands[seat]).sorted_by_rank()[-1]), seat)
    hand.apply(STOCK, 3)
    hand.apply(Discard(c("QH")), 3)
    hand.apply(STOCK, 0)
    return hand


@pytest.mark.parametrize(
    ("cards", "meld_number"),
    [(["3S"], 0), (["JS"], 1), (["JS", "QS"], 1), (["7S"], 1), (["7S", "6S"], 1)],
)
def test_any_player_adds_to_any_meld_on_the_table(cards: list[str], meld_number: int) -> None:
    """002: "nếu số ba được hiển thị, anh ta có thể thêm ba số thứ tư; nếu 10, 9, 8 xuất hiện,
    người đó có thể thêm J, hoặc Q, J, 7 hoặc 7, 6"."""
    hand = table_with_threes_and_a_spade_run("3S JS QS 7S 6S 2H 4H")
    for text in cards:
        assert LayOff(c(text), meld_number) in hand.legal_actions()
        hand.apply(LayOff(c(text), meld_number), 0)
    table = hand.table_melds()
    assert set(cards) <= set(table[meld_number].cards.to_json())
    assert [(str(card), seat) for card, seat in table[meld_number].added] == [(t, 0) for t in cards]
    assert table[meld_number].owner == (1 if meld_number == 0 else 2)


def test_a_layoff_must_fit_the_meld() -> None:
    hand = table_with_threes_and_a_spade_run("3S JS QS 7S 6S 2H 4H")
    with pytest.raises(IllegalActionError, match="6S does not fit table meld 1"):
        hand.apply(LayOff(c("6S"), 1), 0)  # the 7♠ must come first
    with pytest.raises(IllegalActionError, match="there is no table meld 2"):
        hand.apply(LayOff(c("JS"), 2), 0)
    with pytest.raises(IllegalActionError, match="does not fit"):
        hand.apply(LayOff(c("3S"), 1), 0)
    assert hand.table_melds()[1].cards == parse_cards("8S 9S TS")


# -- Đi ra: going out ----------------------------------------------------------------------


def test_going_out_by_laying_the_last_cards_needs_no_discard() -> None:
    """002: "Nếu tất cả các lá bài còn lại của anh ta đều giống nhau, người chơi có thể đặt chúng
    xuống mà không bỏ đi ở lượt cuối cùng … Điều này kết thúc trò chơi"."""
    hand = table_with_threes_and_a_spade_run("3S JS 4H 5H 6H", draw="QS")
    hand.apply(LayOff(c("3S"), 0), 0)
    hand.apply(meld("4H 5H 6H"), 0)
    hand.apply(LayOff(c("JS"), 1), 0)
    assert hand.result is None
    hand.apply(LayOff(c("QS"), 1), 0)
    result = hand.result
    assert hand.phase == "over" and result is not None and result.winner == 0
    assert hand.discard_pile[-1] == c("QH").index, "no final discard"
    assert result.outcome == "rummy", "everything was laid in this one turn"


def test_going_out_with_a_final_discard() -> None:
    hand = rig_rummy(hands=["7C 7D 7H", "KC 5H", "KD 5D 9S", "KH"], upcard="5S", stock_top=["4C"], dealer=3)
    hand.laid_before[0] = True  # seat 0 laid a meld in an earlier turn
    hand.apply(STOCK, 0)
    hand.apply(meld("7C 7D 7H"), 0)
    hand.apply(Discard(c("4C")), 0)
    result = hand.result
    assert hand.phase == "over" and result is not None and result.outcome == "out" and result.winner == 0
    assert hand.discard_pile[-1] == c("4C").index


# -- Cách giữ điểm: scoring -----------------------------------------------------------------


def test_everyone_pays_the_winner_the_pip_value_of_their_cards_melds_or_not() -> None:
    """002: "Mỗi người chơi trả cho người chiến thắng giá trị pip của các quân bài còn lại trên tay
    mình, cho dù các quân bài đó có phải là bộ giống nhau hay không. Mỗi quân bài có 10 quân, mỗi
    quân át 1 và mỗi quân bài khác có giá trị pip"."""
    hand = rig_rummy(
        hands=["7C 7D 7H", "KS QS 7S 8S 9S AC", "2C 3C", "TD"],
        upcard="5S",
        stock_top=["4C"],
        dealer=3,
    )
    hand.laid_before[0] = True
    hand.apply(STOCK, 0)
    hand.apply(meld("7C 7D 7H"), 0)
    hand.apply(Discard(c("4C")), 0)
    result = hand.result
    assert result is not None
    # Seat 1 pays 10 + 10 + 7 + 8 + 9 + 1 = 45 although 7♠8♠9♠ is a meld; seat 2 pays 5; seat 3 pays 10.
    assert result.payments == (60, -45, -5, -10)
    assert result.multiplier == 1 and [str(cards) for cards in result.left[1:]] == [
        "AC 7S 8S 9S QS KS",
        "2C 3C",
        "TD",
    ]


def test_going_rummy_doubles_every_payment() -> None:
    """002: a player goes "rummy" by getting rid of every card at once without having laid or laid
    off any card before; every other player then pays double."""
    rules = Rules.preset("rummy")
    hand = rig_rummy(
        rules,
        hands=["3H 4H 5H 6H 9C 9D 9S", "KS QS", "2D 3D", "TD"],
        upcard="5S",
        stock_top=["2C"],
        dealer=3,
    )
    game = rig_rummy_game(rules, hand)
    game.apply(STOCK, 0)
    game.apply(meld("3H 4H 5H 6H"), 0)
    game.apply(meld("9C 9D 9S"), 0)
    result = game.apply(Discard(c("2C")), 0)
    assert result is not None and result.outcome == "rummy" and result.multiplier == 2
    assert result.payments == (2 * 35, -2 * 20, -2 * 5, -2 * 10)
    assert game.scores == [70, -40, -10, -20]


def test_going_out_over_two_turns_is_not_rummy() -> None:
    hand = rig_rummy(
        hands=["3H 4H 5H 6H 9C 9D 9S 8D", "KS QS", "2D 3D", "TD"],
        upcard="5S",
        stock_top=["2C", "KC", "QC", "JC", "7H"],
        dealer=3,
    )
    hand.apply(STOCK, 0)
    hand.apply(meld("9C 9D 9S"), 0)
    hand.apply(Discard(c("8D")), 0)
    for seat, card in ((1, "KC"), (2, "QC"), (3, "JC")):
        hand.apply(STOCK, seat)
        hand.apply(Discard(c(card)), seat)
    hand.apply(STOCK, 0)  # 7♥
    hand.apply(meld("3H 4H 5H 6H 7H"), 0)
    hand.apply(Discard(c("2C")), 0)
    result = hand.result
    assert result is not None and result.outcome == "out" and result.multiplier == 1
    assert result.payments == (20 + 5 + 10, -20, -5, -10)


# -- Đi ra: the stock runs out ---------------------------------------------------------------


def test_when_the_stock_runs_out_the_next_player_takes_the_upcard_or_turns_the_pile_over() -> None:
    """002: "Nếu lá bài cuối cùng của kho đã được rút và không có người chơi nào bị loại thì đến lượt
    người chơi tiếp theo có thể chiếm phần trên cùng của chồng bài bị loại hoặc có thể lật chồng bài
    bỏ đi để tạo thành một kho mới (không cần xáo trộn) và rút lá bài trên cùng"."""
    hand = rig_rummy(
        hands=["2C 9D KS", "2D 9H KC", "3D 9S KH", "4D 8S KD"],
        upcard="5S",
        stock_top=["AC", "AD"],
        stock_size=2,
        dealer=3,
    )
    hand.apply(STOCK, 0)
    hand.apply(Discard(c("KS")), 0)
    hand.apply(STOCK, 1)
    hand.apply(Discard(c("KC")), 1)
    assert hand.stock_count == 0
    assert hand.legal_actions() == [STOCK, UPCARD], "turn the pile over, or take its top"
    pile = list(hand.discard_pile)  # 5♠ (the first upcard), K♠, K♣ (the top)
    hand.apply(STOCK, 2)
    assert hand.turnovers == 1 and hand.steps[-1].turnover
    assert hand.steps[-1].card == c("5S"), "turned over unshuffled: the first card discarded is drawn first"
    assert hand.discard_pile == [] and hand.stock == pile[:0:-1]


def test_the_turnover_limit_ends_the_hand_void_and_the_dealer_deals_again() -> None:
    """The stock may be turned over `stock_turnovers` times; when it runs out after that, the hand
    is void: nobody pays and the same dealer deals again (docs/rules.md)."""
    rules = Rules.preset("rummy").replace(stock_turnovers=0)
    hand = rig_rummy(
        rules, hands=["2C 9D KS", "2D 9H KC", "3D 9S KH", "4D 8S KD"], upcard="5S", stock_size=1, dealer=3
    )
    game = rig_rummy_game(rules, hand)
    game.apply(STOCK, 0)
    result = game.apply(Discard(c("KS")), 0)
    assert result is not None and result.outcome == "void" and result.payments == (0, 0, 0, 0)
    assert game.scores == [0, 0, 0, 0] and game.hand_number == 2 and game.dealer == 3


@pytest.mark.parametrize(("players", "rule"), [(2, "winner"), (3, "left"), (4, "left"), (6, "left")])
def test_two_players_the_winner_deals_next_more_the_deal_passes_left(players: int, rule: str) -> None:
    """002: "Khi hai người chơi, người thắng mỗi ván sẽ chia bài tiếp theo. Khi có nhiều hơn hai người
    chơi, phần thưởng sẽ được chuyển cho người chơi tiếp theo ở bên trái"."""
    rules = Rules.for_game("rummy", players).replace(target=1000)
    seen = 0
    for seed in range(4):
        game = RummyGame(rules, seed=seed)
        rng = random.Random(seed)
        while game.hand_number < 6:
            seat = game.seats_to_act[0]
            legal = game.legal_actions()
            lays = [a for a in legal if isinstance(a, (LayMeld, LayOff))]
            game.apply(rng.choice(lays) if lays and rng.random() < 0.9 else rng.choice(legal), seat)
        for before, after in zip(game.hands, game.hands[1:], strict=False):
            result = before.result
            assert result is not None
            if result.winner is None:
                assert after.dealer == before.dealer
                continue
            seen += 1
            expected = result.winner if rule == "winner" else (before.dealer + 1) % players
            assert after.dealer == expected
    assert seen >= 4


# -- Hạng bài: the ace high or low -------------------------------------------------------------


@pytest.mark.parametrize(
    ("ace", "cards", "allowed"),
    [
        ("low", "AH 2H 3H", True),
        ("low", "QH KH AH", False),
        ("high", "QH KH AH", True),
        ("high", "AH 2H 3H", False),
        ("either", "AH 2H 3H", True),
        ("either", "QH KH AH", True),
        ("either", "KH AH 2H", False),
    ],
)
def test_the_ace_ranks_low_or_high_as_the_rules_say(ace: str, cards: str, allowed: bool) -> None:
    """002: "K (cao), Q, J, 10 … A. (Trong nhiều hình thức Rummy, quân át có thể xếp hạng cao hoặc thấp.)"."""
    rules = Rules.preset("rummy").replace(ace=ace)
    hand = rig_rummy(rules, hands=[cards + " 9C", "KC", "KD", "9S"], upcard="5S", dealer=3)
    hand.apply(STOCK, 0)
    assert (meld(cards) in hand.legal_actions()) == allowed
    if allowed:
        hand.apply(meld(cards), 0)
    else:
        with pytest.raises(IllegalActionError, match="is not a meld"):
            hand.apply(meld(cards), 0)
