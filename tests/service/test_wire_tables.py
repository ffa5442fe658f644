"""The tables' wire (`service/wire.py`, `TableWire`): its texts, made from caches as a game goes on
(each hand's history encoded as it grows, the rules once, the shared part of a Rummy view once a
version), always say exactly what the seat's view says, at every step of random whole games."""

from __future__ import annotations

import json
import random

import pytest

from ginrummy.rules import Rules, new_game
from ginrummy.service.wire import wire_for


@pytest.mark.parametrize("preset", ["gin3", "gin4_teams", "rummy"])
def test_every_state_text_is_the_seat_view_at_every_step(preset: str) -> None:
    for seed in range(2):
        rng = random.Random(seed)
        # To 40: several deals, so caches meet a new deal, a finished one, a team hand that ends
        # while the other plays on.
        game = new_game(Rules.preset(preset).replace(target=40), seed=seed)
        wire = wire_for(game)
        version = 0
        deals = set()
        while not game.is_over and version < 600:
            seat = rng.choice(game.seats_to_act)
            game.apply(rng.choice(game.legal_actions(seat)), seat)
            version += 1
            # Not every seat every time: a cache must also catch up over several steps at once.
            for asked in range(game.seat_count):
                if rng.random() < 0.6 or game.is_over:
                    message = json.loads(wire.state_text(asked, {"id": "m"}, version, None))
                    number = game.hand_number
                    view = message["view"]
                    # A finished game's last deal comes with its proof (the seeds, checked elsewhere).
                    assert ("deal" in view) == game.is_over
                    view.pop("deal", None)
                    assert view == game.hand_view(asked, number).to_json(), (seed, version, asked)
                    assert message["match"]["rules"] == game.rules.to_json()
                    deals.add(number)
        assert len(deals) >= 2
