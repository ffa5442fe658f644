"""The environment's observations, read from the hand, equal the encoding of each seat's VIEW.

`GinRummyEnv.observe` uses `TableObserver` (the hand's card masks and public steps);
`ObservationEncoder` encodes the seat's VIEW (the PROTOCOL.md object). Random whole matches
and single hands under every preset compare them for both seats at every step, after the
episode ends, and from a fresh encoder fed the view's JSON.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the env extra is not installed")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ginrummy import Rules, View  # noqa: E402
from ginrummy.env import ACTIONS, GinRummyEnv, ObservationEncoder, raw_env  # noqa: E402
from ginrummy.env.observer import TableObserver  # noqa: E402
from ginrummy.rules import Card, Knock  # noqa: E402

#: The first action code that ends the hand (a knock discarding a card, then Big Gin).
KNOCKS = ACTIONS.index(Knock(Card.parse("AC")))


def _assert_same(game: GinRummyEnv, encoders: dict[str, ObservationEncoder], agent: str) -> None:
    obs = game.observe(agent)
    expected, expected_mask = encoders[agent].encode(game.view(agent))
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    differ = np.flatnonzero(obs["observation"] != expected)
    assert not differ.size, [game.layout.describe()[_row(game, int(i))][0] for i in differ]
    assert np.array_equal(obs["action_mask"], expected_mask)


def _row(game: GinRummyEnv, index: int) -> int:
    return next(i for i, (_, start, stop, _) in enumerate(game.layout.describe()) if start <= index < stop)


@settings(max_examples=25, deadline=None)
@given(
    preset=st.sampled_from([n for n in Rules.preset_names() if Rules.preset(n).game == "gin"]),
    episode=st.sampled_from(["match", "hand"]),
    seed=st.integers(0, 2**63 - 1),
    choices=st.integers(0, 2**32 - 1),
    fresh_every=st.integers(3, 40),
)
def test_observations_equal_the_encoded_views_at_every_step(
    preset: str, episode: str, seed: int, choices: int, fresh_every: int
) -> None:
    rules = Rules.preset(preset).replace(target=min(Rules.preset(preset).target, 60))
    game = raw_env(rules, episode=episode)
    game.reset(seed=seed)
    encoders = {a: ObservationEncoder(2) for a in game.possible_agents}
    rng = random.Random(choices)
    steps = 0
    while not all(game.terminations.values()) and not all(game.truncations.values()):
        for agent in game.possible_agents:  # the seat to act, and the seat waiting
            _assert_same(game, encoders, agent)
        agent = game.agent_selection
        obs = game.observe(agent)
        steps += 1
        if steps % fresh_every == 0:
            fresh, fresh_mask = ObservationEncoder(2).encode(View.from_json(game.view(agent).to_json()))
            assert np.array_equal(obs["observation"], fresh)
            assert np.array_equal(obs["action_mask"], fresh_mask)
        legal = np.flatnonzero(obs["action_mask"])
        knocks = legal[legal >= KNOCKS]  # knocking half the time it may: showdowns, shorter hands
        game.step(int(rng.choice(knocks if knocks.size and rng.random() < 0.5 else legal)))
    for agent in game.possible_agents:  # the ended episode shows its last hand, showdown included
        _assert_same(game, encoders, agent)
        assert not game.observe(agent)["action_mask"].any()


def test_returned_arrays_are_the_callers_own() -> None:
    game = raw_env("classic", episode="hand")
    game.reset(seed=11)
    agent = game.agent_selection
    first = game.observe(agent)
    kept = first["observation"].copy(), first["action_mask"].copy()
    first["observation"][:] = 7.0
    first["action_mask"][:] = 1
    again = game.observe(agent)
    assert np.array_equal(again["observation"], kept[0])
    assert np.array_equal(again["action_mask"], kept[1])
    game.step(int(np.flatnonzero(again["action_mask"])[0]))
    assert np.array_equal(first["observation"], np.full_like(kept[0], 7.0))


def test_the_observer_only_writes_in_the_environments_numbering() -> None:
    from ginrummy.env import ActionCodec

    with pytest.raises(ValueError, match="numbering of ginrummy.env.ACTIONS"):
        TableObserver(ActionCodec(tuple(reversed(ACTIONS.actions))))
