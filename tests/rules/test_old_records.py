"""Records written before every game shared one record format still load and replay.

`records_before_one_format.jsonl` holds, one a line, records as the code of that time wrote them
(two-player Gin as `ginrummy-match` version 1: classic and Hoyle to the end, Oklahoma
unfinished, Big Gin; three-player Gin as `ginrummy-game` version 1, unfinished), each with how many
hands it was dealt, the scores, whether it was over and a digest of every seat's view of every
hand after it was played then.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from ginrummy import Game, GameRecord, Match, RecordError, load_game, loads, render_match

OLD = [
    json.loads(line)
    for line in (Path(__file__).parent / "records_before_one_format.jsonl").read_text("utf-8").splitlines()
]


def views_digest(game: Game) -> str:
    """SHA-256 of every seat's view of every hand dealt, then of every seat's view now."""
    digest = hashlib.sha256()
    for number in range(1, game.hand_number + 1):
        for seat in range(game.seat_count):
            digest.update(game.hand_view(seat, number).dumps().encode())
    for seat in range(game.seat_count):
        digest.update(game.view(seat).dumps().encode())
    return digest.hexdigest()


@pytest.mark.parametrize("old", OLD, ids=[old["case"] for old in OLD])
def test_an_old_record_replays_as_it_did_and_dumps_in_the_one_format(old: dict[str, Any]) -> None:
    text = old["record"]
    record = loads(text)
    game = load_game(text)  # checks every hand's result and the game's against the record's
    assert (game.hand_number, list(game.scores), game.is_over) == (old["hands"], old["scores"], old["over"])
    assert views_digest(game) == old["views"]
    assert game.record() == record

    written, data = json.loads(text), json.loads(record.dumps())
    assert (data["format"], data["version"], data["game"]) == ("ginrummy-game", 2, record.game)
    assert [data[key] for key in ("rules", "seed", "result")] == [
        written[key] for key in ("rules", "seed", "result")
    ]
    for before, after in zip(written["hands"], data["hands"], strict=True):
        seeds = [before["seed"]] if written["format"] == "ginrummy-match" else before["seeds"]
        assert after == {
            "seeds": seeds,
            "dealer": before["dealer"],
            "actions": before["actions"],
            "result": before["result"],
        }

    again = load_game(record.dumps())
    assert again.record().dumps() == record.dumps() and views_digest(again) == old["views"]


def test_an_old_two_player_record_is_the_one_record_of_a_match() -> None:
    old = next(old for old in OLD if old["case"] == "hoyle")
    record = loads(old["record"])
    assert isinstance(record, GameRecord) and record.game == "gin"
    assert all(len(hand.seeds) == 1 for hand in record.hands)
    match = Match.from_record(record)
    assert match.result is not None and match.result.to_json() == record.result
    assert render_match(record) == render_match(match.record())


def test_an_old_two_player_record_of_another_version_is_refused() -> None:
    data = json.loads(OLD[0]["record"])
    data["version"] = 2
    with pytest.raises(RecordError, match="format is 'ginrummy-match', expected 'ginrummy-game'"):
        loads(json.dumps(data))
    del data["version"]
    data["format"] = "ginrummy-game"
    with pytest.raises(RecordError, match="unsupported game record version None"):
        loads(json.dumps(data))
    # The table games' first format never held two-player Gin: such a record is made up.
    new = Match(seed=3).record().to_json()
    assert new["version"] == 2 and loads(json.dumps(new)).game == "gin"
    new["version"] = 1
    with pytest.raises(RecordError, match="version 1 recorded the table games only"):
        loads(json.dumps(new))
