"""Hints: `suggest` returns a legal action with a human reason, and falls back when a level is missing."""

from __future__ import annotations

import pytest
from bot_helpers import LEVEL_NAMES, hand_view, random_positions

from ginrummy.bots import suggest
from ginrummy.bots.base import _REGISTRY
from ginrummy.bots.suggest import Suggestion, explain
from ginrummy.rules import Discard, Draw, Hand, Knock, Rules, build_view, new_match, parse_cards


def _discard_view(cards: str) -> object:
    h = Hand(Rules(), 1, dealer=1)
    h.hands[0] = parse_cards(cards).mask
    h.hands[1] = 0
    h.to_act = 0
    h.phase = "discard"
    return build_view(h, 0, hand_number=1, scores=(0, 0))


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_suggestions_are_legal_and_explained(level: str) -> None:
    for _, view in random_positions(40, seed=3):
        hint = suggest(view, level)
        assert isinstance(hint, Suggestion)
        assert hint.action in view.legal
        assert hint.level == level
        assert len(hint.reason) > 10


def test_default_level_is_the_expert_when_installed_else_the_best_below(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view = hand_view("7H 8H 2C 4D 6S 9S JC QD KS AH", "9H")
    if "expert" in _REGISTRY:
        assert suggest(view).level == "expert"
        monkeypatch.delitem(_REGISTRY, "expert")
    assert suggest(view).level == "advanced"
    monkeypatch.delitem(_REGISTRY, "advanced")
    assert suggest(view, "expert").level == "skilled"
    assert suggest(view, "casual").level == "casual"


def test_reason_names_the_meld_an_upcard_makes() -> None:
    view = hand_view("7H 8H 2C 4D 6S 9S JC QD KS AH", "9H")
    hint = suggest(view, "casual")
    assert hint.action == Draw("discard")
    assert hint.reason == "take 9♥: it makes 7♥8♥9♥"


def test_reason_for_a_discard_mentions_an_open_draw() -> None:
    view = _discard_view("7H 8H 2C 3C 4C JD 2S 9S KC 5D 5S")
    text = explain(view, Discard(parse_cards("KC").__iter__().__next__()))  # type: ignore[arg-type]
    assert "throw K♣" in text and "7♥8♥ open at both ends" in text


def test_reason_for_a_knock_gives_the_deadwood_and_the_opponent_estimate() -> None:
    view = _discard_view("AC 2C 3C 5D 6D 7D 9H 9S 9C 4H KS")
    hint = suggest(view, "casual")  # type: ignore[arg-type]
    assert isinstance(hint.action, Knock)
    assert "knock with K♠: 4 deadwood" in hint.reason and "opponent likely above" in hint.reason
    assert "at the first chance" in hint.reason


def test_reasons_for_upcards_compare_deadwood() -> None:
    view = hand_view("7H 8H 2C 3C 4C 6D 7D 8D KS KC", "AS")
    advanced = suggest(view, "advanced")
    assert advanced.action == Draw("discard")
    assert advanced.reason.startswith("take A♠: deadwood 35 → 26; a stock card would leave")
    casual = suggest(view, "casual")
    assert casual.reason == "draw from the stock rather than take A♠ (deadwood 35 → 26)"


def test_gin_is_called_gin() -> None:
    view = _discard_view("AC 2C 3C 4C 5D 6D 7D 9H 9S 9C KS")
    gin = Knock(next(iter(parse_cards("KS"))))
    assert gin in view.legal  # type: ignore[attr-defined]
    assert explain(view, gin).startswith("Gin")  # type: ignore[arg-type]


def test_suggest_rejects_unknown_levels_and_idle_views() -> None:
    match = new_match(seed=2)
    waiting = match.view(1 - match.to_act)  # type: ignore[operator]
    with pytest.raises(ValueError, match="unknown level 'grandmaster'"):
        suggest(match.view(match.to_act), "grandmaster")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not this seat's turn"):
        suggest(waiting, "casual")


def test_suggestion_json() -> None:
    view = hand_view("7H 8H 2C 4D 6S 9S JC QD KS AH", "9H")
    data = suggest(view, "skilled").to_json()
    assert data["action"] == {"type": "draw", "source": "discard"}
    assert data["level"] == "skilled" and data["reason"]
