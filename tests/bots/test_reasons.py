"""Reasons as phrases: English text, JSON for the web table, and the phrase book the catalogues translate."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bot_helpers import random_positions

from ginrummy.bots import suggest
from ginrummy.bots.reasons import ENGLISH, Phrase, Reason
from ginrummy.rules import Card, parse_cards

CATALOGUES = Path(__file__).resolve().parents[2] / "src" / "ginrummy" / "server" / "static" / "i18n"


def test_a_reason_reads_in_english_and_travels_as_keys_and_values() -> None:
    why = Reason.of("take_makes", card=Card.parse("9H"), meld=parse_cards("7H 8H 9H"))
    why = why.then("stock_would_leave", lead="; ", expected=28.5666)
    assert why.text() == "take 9♥: it makes 7♥8♥9♥; a stock card would leave 28.6 on average"
    assert why.to_json() == [
        {"key": "take_makes", "values": {"card": "9H", "meld": ["7H", "8H", "9H"]}},
        {"key": "stock_would_leave", "values": {"expected": 28.6}, "lead": "; "},
    ]
    # Plural pairs are chosen by the value n, as the web catalogues' plural forms are.
    one = Reason.of("keeps_run", cards=parse_cards("7H 9H"), n=1)
    two = Reason.of("keeps_run", cards=parse_cards("7H 8H"), n=3)
    assert one.text() == "keeps 7♥9♥ (1 card to make a run)" and two.text().endswith(
        "(3 cards to make a run)"
    )
    # Dropping the phrase that only names the move leaves the rest with no dangling lead.
    named = Reason.of("discard_head", card=Card.parse("KC")).then("leaves_expected", lead=": ", expected=7.0)
    assert named.without({"discard_head"}).text() == "leaves 7.0 deadwood expected after the next draw"
    assert (
        not Reason() and Reason().join(named, lead="; ") == named and named.join(Reason(), lead=", ") == named
    )


def test_unknown_phrases_and_leads_are_refused() -> None:
    with pytest.raises(ValueError, match="no phrase 'brilliant'"):
        Reason.of("brilliant")
    with pytest.raises(ValueError, match="joins with one of"):
        Phrase("pass", (), " and ")


def test_every_reason_a_level_gives_is_in_the_phrase_book() -> None:
    for _, view in random_positions(60, seed=11):
        for level in ("novice", "casual", "skilled", "advanced", "expert"):
            hint = suggest(view, level)
            assert hint.why and hint.reason == hint.why.text()
            assert all(p.book_key in ENGLISH for p in hint.why.phrases)
            json.dumps(hint.to_json())  # plain JSON all the way down


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_web_catalogues_translate_every_phrase_with_the_same_values(lang: str) -> None:
    strings = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    for key, english in ENGLISH.items():
        text = strings[f"hint.{key}"]
        assert set(re.findall(r"\{(\w+)", english)) == set(re.findall(r"\{(\w+)\}", text)), key
        if lang == "en":
            assert text == english, key  # the English of the terminal and of the web table agree
