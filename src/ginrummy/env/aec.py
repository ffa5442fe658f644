"""The PettingZoo AEC environment: every game of the rules engine, one seat's view per observation."""

from __future__ import annotations

import operator
import random
import secrets
from collections.abc import Callable
from typing import Any, Final, Literal

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..rules import (
    GameAction,
    GameView,
    GinTableView,
    IllegalActionError,
    Match,
    Rules,
    RummyGame,
    RummyView,
    TeamGin,
    View,
    new_game,
)
from ..rules.game import Game, HandOutcome
from .encoding import ACTIONS, ObservationLayout
from .observer import TableObserver
from .rummy import RUMMY_ACTIONS, RummyEncoder
from .tables import GinTableEncoder
from .text import render_rummy_view, render_table_view, render_view

__all__ = ["GinRummyEnv", "Episode", "RewardKind", "env", "raw_env"]

Episode = Literal["match", "hand"]
RewardKind = Literal["win", "points"]
Observation = dict[str, npt.NDArray[Any]]
Encoded = tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]

#: Actions after which a Gin hand is cut short (truncated): two players who keep taking each
#: other's discards never shrink the stock, so the rules alone need not end such a hand.
DEFAULT_MAX_HAND_STEPS: Final = 1000
#: The same for a hand of Rummy, whose six-player hands run to a few hundred actions.
DEFAULT_MAX_RUMMY_STEPS: Final = 2000


def _agent(seat: int) -> str:
    return f"player_{seat}"


class GinRummyEnv(AECEnv[str, Observation, int]):
    """Any game of the rules engine as an agent-environment-cycle game (PettingZoo AEC API).

    `rules` (a `Rules` or a preset name) chooses the game: two-player Gin (`classic`, `hoyle`,
    `oklahoma`, `big_gin`), three-player Gin (`gin3`), team Gin (`gin4_teams`) or classic
    Rummy (`rummy`, or ``Rules.for_game("rummy", n)`` for 2 to 6 players). Agents are
    ``player_0`` … ``player_{n-1}`` (the game's seats). Each observation is the dictionary
    ``{"observation": float32 vector, "action_mask": int8 vector}`` built from the observing
    seat's view only (`ginrummy.env.encoding`, `.tables`, `.rummy`); actions are the integers of
    `ACTIONS` (every Gin game) or `RUMMY_ACTIONS`.

    - ``episode="match"``: deals are played until the game ends (a total reaches the target);
      ``episode="hand"``: one deal (in team Gin one round: both hands), then the episode ends.
    - ``reward="win"`` (default for matches): +1 to each winning seat, the others sharing the
      loss (0 each when the top totals tie); in a hand episode the side that scored the deal
      wins it. ``reward="points"`` (default for hands): as each deal ends, the change in the
      seat's side total minus the mean change of the other sides' totals, end-of-match
      bonuses included, so a seat's rewards add up to its final margin over the others; in
      Rummy, whose balances already sum to zero, the change in the seat's balance.
    - Team Gin plays two hands at once, and the rules let a seat of each act at the same
      time. This environment still names one agent at a time: the two hands take turns, one
      action each, the hand of seat 0 first in every round; once one hand is over the other
      plays on alone. So a seed and the agents' actions give one game, always.
    - ``reset(seed=S)`` plays the game the rules engine deals from seed ``S`` (the same deals
      as ``ginrummy play --seed S`` and the arena); later resets without a seed draw new
      seeds from ``S``. ``options={"dealer": d}`` fixes the first dealer (in team Gin, team d).
    - An illegal action raises `IllegalActionError` saying why, and changes nothing.
    - A deal longer than ``max_hand_steps`` actions is truncated for every agent.
    - ``render()`` is text: the table as one seat sees it (the seat to act, or ``render_seat``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "name": "ginrummy_v0",
        "render_modes": ["ansi", "human"],
        "render_fps": 1,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str = "classic",
        *,
        episode: Episode = "match",
        reward: RewardKind | None = None,
        render_mode: str | None = None,
        render_seat: int | None = None,
        max_hand_steps: int | None = None,
    ) -> None:
        super().__init__()
        self.rules = Rules.preset(rules) if isinstance(rules, str) else rules
        if episode not in ("match", "hand"):
            raise ValueError(f"episode must be 'match' or 'hand', got {episode!r}")
        if reward is None:
            reward = "win" if episode == "match" else "points"
        if reward not in ("win", "points"):
            raise ValueError(f"reward must be 'win' or 'points', got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        game = self.rules.game
        if max_hand_steps is None:
            max_hand_steps = DEFAULT_MAX_RUMMY_STEPS if game == "rummy" else DEFAULT_MAX_HAND_STEPS
        if max_hand_steps < 1:
            raise ValueError(f"max_hand_steps must be at least 1, got {max_hand_steps}")
        self.episode: Episode = episode
        self.reward_kind: RewardKind = reward
        self.render_mode = render_mode
        self.seats = self.rules.players
        if render_seat is not None and not 0 <= render_seat < self.seats:
            raise ValueError(f"render_seat must be a seat from 0 to {self.seats - 1}, got {render_seat}")
        self.render_seat = render_seat
        self.max_hand_steps = max_hand_steps
        self._pair = game == "gin"  # two-player Gin: observations read from the hand itself
        self._teams = game == "gin4_teams"
        self._rummy = game == "rummy"
        self._observer = TableObserver(ACTIONS)
        # Two-player Gin reads observations from the hand (`TableObserver`); the other games
        # encode the seat's view.
        self._encode: Callable[[Any], Encoded] | None = None
        layout: ObservationLayout
        if self._pair:
            layout = self._observer.layout
        elif self._rummy:
            rummy = RummyEncoder(self.rules)
            layout, self._encode = rummy.layout, rummy.encode
        else:
            table = GinTableEncoder(self.rules)
            layout, self._encode = table.layout, table.encode
        self.layout = layout
        self.codec_size = len(RUMMY_ACTIONS) if self._rummy else len(ACTIONS)
        self.possible_agents = [_agent(s) for s in range(self.seats)]
        self._seat_of = {name: s for s, name in enumerate(self.possible_agents)}
        self._agent_names = tuple(self.possible_agents)
        self._paid = False  # whether `rewards` holds a payment to clear at the next step
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(layout.low(), layout.high(), (layout.size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (self.codec_size,), np.int8),
            }
        )
        # One space object per agent, as PettingZoo requires (each is seeded on its own).
        self.observation_spaces = {
            a: obs_space if i == 0 else _copy(obs_space) for i, a in enumerate(self.possible_agents)
        }
        self.action_spaces = {a: gymnasium.spaces.Discrete(self.codec_size) for a in self.possible_agents}
        # Where resets without a seed draw theirs: the last seed given (its generator made on
        # first use, so a seeded reset costs no generator), or a random one.
        self._seed_root: int = secrets.randbits(63)
        self._seeds: random.Random | None = None
        self._game: Game | None = None
        self._match: Match | None = None  # the game, in two-player Gin
        self._target = self.rules.target
        self._hand_steps = 0
        self._deal_totals: tuple[int, ...] = ()  # each side's total as the deal began
        self._last_table: int | None = None  # team Gin: the hand the last action was played in
        self._final_hand: int | None = None  # the deal an ended episode shows

    # -- PettingZoo API --------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed_root, self._seeds = seed, None
            match_seed: int = seed
        else:
            if self._seeds is None:
                self._seeds = random.Random(self._seed_root)
            match_seed = self._seeds.getrandbits(63)
        dealer = (options or {}).get("dealer")
        dealers = 2 if self._teams else self.seats
        if dealer is not None and dealer not in range(dealers):
            what = "a team, 0 or 1" if self._teams else f"a seat from 0 to {self.seats - 1}"
            raise ValueError(f"options['dealer'] must be {what}, got {dealer!r}")
        self._game = new_game(self.rules, seed=match_seed, first_dealer=dealer)
        self._match = self._game if isinstance(self._game, Match) else None
        self._observer.reset()
        self._hand_steps = 0
        self._deal_totals = tuple(self._game.scores)
        self._last_table = None
        self._final_hand = None
        self._paid = False
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = _agent(self._seat_to_act())

    def observe(self, agent: str) -> Observation:
        match = self._match
        if match is None:  # every game but two-player Gin: the seat's view, encoded
            if self._encode is None:
                raise RuntimeError("call reset() before using the environment")
            obs, mask = self._encode(self._view(self._seat_of[agent]))
            return {"observation": obs, "action_mask": mask}
        # Two-player Gin: what `ObservationEncoder` makes of `self.view(agent)`, read from the hand.
        final = self._final_hand
        if final is None:
            hand = match.hands[-1]
            scores: tuple[int, int] | list[int] = (
                match.scores_after[-1] if hand.phase == "over" else match.scores
            )
        else:
            hand = match.hands[final - 1]
            scores = match.scores_after[final - 1]
        obs, mask = self._observer.observe(hand, self._seat_of[agent], scores, self._target)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            index = operator.index(action)  # type: ignore[arg-type] # None: refused below
        except TypeError:
            if action is None:
                raise ValueError(f"{agent} is to act and must choose an action, not None") from None
            raise ValueError(
                f"an action is an integer from 0 to {self.codec_size - 1}, got {action!r}"
            ) from None
        seat = self._seat_of[agent]
        match = self._match
        ended: HandOutcome | None
        if match is not None:  # two-player Gin: the path the benchmark measures
            if not 0 <= index < 108:
                raise ValueError(f"action must be an integer from 0 to 107, got {index}")
            chosen: GameAction = _GIN_ACTIONS[index]
            try:
                ended = match.apply(chosen, seat)
            except IllegalActionError as exc:
                raise IllegalActionError(f"{agent} cannot play action {index} ({chosen}): {exc}") from None
            self._cumulative_rewards[agent] = 0.0
            if self._paid:
                self._clear_rewards()
                self._paid = False
            self._hand_steps += 1
            if ended is None and self._hand_steps < self.max_hand_steps:
                # Only a finished deal pays rewards; between deals every reward is already zero.
                self.agent_selection = self._agent_names[match.hands[-1].to_act]
                if self.render_mode == "human":
                    self.render()
                return
            number = len(match.hands) if match.result is not None else len(match.hands) - 1
        else:
            game = self.game
            chosen = self._decode(index, seat)
            number = game.hand_number
            try:
                ended = game.apply(chosen, seat)
            except IllegalActionError as exc:
                raise IllegalActionError(f"{agent} cannot play action {index} ({chosen}): {exc}") from None
            if ended is not None and not game.is_over and game.hand_number == number:
                ended = None  # team Gin: one hand of the round is over, the other plays on
            if self._teams:
                self._last_table = None if game.hand_number != number else _team_table(number, seat)
            self._cumulative_rewards[agent] = 0.0
            if self._paid:
                self._clear_rewards()
                self._paid = False
            self._hand_steps += 1
        if ended is not None:
            self._hand_steps = 0
            self._deal_over(ended.outcome, number)
            self._accumulate_rewards()
            self._paid = True
        elif self._hand_steps >= self.max_hand_steps:
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a] = {"truncated": f"the hand passed {self.max_hand_steps} actions"}
        if self.terminations[agent] or self.truncations[agent]:
            self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
        else:
            self.agent_selection = self._agent_names[self._seat_to_act()]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() was called without a render_mode; pass render_mode='ansi' or 'human'"
            )
            return None
        seat = self.render_seat
        if seat is None:
            seat = self._seat_of[self.agent_selection]
        view = self._view(seat)
        if isinstance(view, View):
            text = render_view(view, names=self.possible_agents)
        elif isinstance(view, GinTableView):
            text = render_table_view(view, names=self.possible_agents)
        else:
            assert isinstance(view, RummyView)
            text = render_rummy_view(view, names=self.possible_agents)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._game = self._match = None

    # -- beyond the API --------------------------------------------------------

    @property
    def game(self) -> Game:
        """The game being played (the environment's authority; agents only see views)."""
        if self._game is None:
            raise RuntimeError("call reset() before using the environment")
        return self._game

    @property
    def match(self) -> Match:
        """The two-player Gin match being played (`game`, typed for two-player Gin)."""
        game = self.game
        if not isinstance(game, Match):
            raise TypeError(f"this environment plays {self.rules.game}, not two-player Gin: use .game")
        return game

    def view(self, agent: str) -> GameView:
        """What `agent`'s seat may know now (the view its observation is built from).

        Once the episode has ended it is the last deal's view, showdown included.
        """
        return self._view(self._seat_of[agent])

    def decode(self, index: int, agent: str | None = None) -> GameAction:
        """The action numbered `index` now (Rummy's layoffs depend on the table); `ValueError`
        for a number out of range or a layoff no table meld takes."""
        seat = self._seat_of[agent if agent is not None else self.agent_selection]
        return self._decode(index, seat)

    def encode(self, action: GameAction) -> int:
        """The number of `action` now (what `step` takes to play it); `KeyError` if this game has none."""
        if self._rummy:
            return RUMMY_ACTIONS.index(action, self._table_masks())
        return ACTIONS.index(action)  # type: ignore[arg-type]

    # -- internals -------------------------------------------------------------

    def _view(self, seat: int) -> GameView:
        if self._final_hand is not None:
            return self.game.hand_view(seat, self._final_hand)
        return self.game.view(seat)

    def _decode(self, index: int, seat: int) -> GameAction:
        if not 0 <= index < self.codec_size:
            raise ValueError(f"action must be an integer from 0 to {self.codec_size - 1}, got {index}")
        if not self._rummy:
            return ACTIONS.actions[index]
        try:
            return RUMMY_ACTIONS.action(index, self._table_masks(), self.rules.ace)
        except ValueError as exc:
            raise IllegalActionError(f"{self._agent_names[seat]} cannot play action {index}: {exc}") from None

    def _table_masks(self) -> list[int]:
        """The melds on the Rummy table (public: every seat sees them), as card masks."""
        game = self.game
        assert isinstance(game, RummyGame)
        return game.hand.table

    def _seat_to_act(self) -> int:
        acting = self.game.seats_to_act
        if len(acting) == 1 or not self._teams:
            return acting[0]
        # Team Gin's two hands take turns: the other hand than the last action's, hand 0 first.
        tables = TeamGin.pairing(self.game.hand_number)
        want = 0 if self._last_table is None else 1 - self._last_table
        return next(seat for seat in acting if seat in tables[want])

    def _totals(self) -> tuple[int, ...]:
        result = self.game.result
        return tuple(result.scores) if result is not None else tuple(self.game.scores)

    def _deal_over(self, outcome: str, number: int) -> None:
        game = self.game
        result = game.result
        # A hand episode is paid the deal's points; a match's last deal its end bonuses too.
        totals = self._totals() if self.episode == "match" else tuple(game.scores)
        gained = [after - before for after, before in zip(totals, self._deal_totals, strict=True)]
        self._deal_totals = totals
        if self.reward_kind == "points":
            self._pay_sides([float(g) for g in gained])
        elif self.episode == "hand":
            top = max(gained)
            if top > 0 and gained.count(top) == 1:
                self._pay_winner(gained.index(top))
        elif result is not None and result.winners:
            first = result.winners[0]
            self._pay_winner(next(i for i, side in enumerate(game.sides) if first in side))
        if self.episode == "hand" or result is not None:
            self._end(outcome=outcome, number=number)

    def _pay_sides(self, gained: list[float]) -> None:
        """Points: each side's gain less the mean gain of the others (Rummy: the balance's change)."""
        sides = self.game.sides
        count = len(sides)
        total = sum(gained)
        for i, side in enumerate(sides):
            amount = gained[i] if self._rummy else gained[i] - (total - gained[i]) / (count - 1)
            for seat in side:
                self.rewards[_agent(seat)] += amount

    def _pay_winner(self, winner: int) -> None:
        """Zero-sum: the side `winner` gains 1, the other sides share its loss."""
        sides = self.game.sides
        share = 1.0 / (len(sides) - 1)
        for i, side in enumerate(sides):
            for seat in side:
                self.rewards[_agent(seat)] += 1.0 if i == winner else -share

    def _end(self, *, outcome: str, number: int) -> None:
        game = self.game
        self._final_hand = number
        final = game.result
        scores = list(self._totals())
        for a in self.agents:
            self.terminations[a] = True
            info: dict[str, Any] = {"outcome": outcome, "scores": scores}
            if final is not None:
                winners = [_agent(s) for s in final.winners]
                info["winners"] = winners
                if not self._teams:
                    info["winner"] = winners[0] if winners else None
            self.infos[a] = info


_GIN_ACTIONS: Final = ACTIONS.actions


def _team_table(round_number: int, seat: int) -> int:
    """The hand (0 or 1) `seat` plays in team Gin's round `round_number`."""
    return 0 if seat in TeamGin.pairing(round_number)[0] else 1


def _copy(space: gymnasium.spaces.Dict) -> gymnasium.spaces.Dict:
    return gymnasium.spaces.Dict({key: _copy_box(value) for key, value in space.spaces.items()})


def _copy_box(space: gymnasium.spaces.Space[Any]) -> gymnasium.spaces.Box:
    assert isinstance(space, gymnasium.spaces.Box)
    return gymnasium.spaces.Box(space.low, space.high, space.shape, space.dtype)


def raw_env(rules: Rules | str = "classic", **kwargs: Any) -> GinRummyEnv:
    """The environment without PettingZoo's order-checking wrapper."""
    return GinRummyEnv(rules, **kwargs)


def env(rules: Rules | str = "classic", **kwargs: Any) -> AECEnv[str, Observation, int]:
    """The environment as PettingZoo's classic games ship it: wrapped to enforce the call order.

    Keywords are those of `GinRummyEnv` (``episode``, ``reward``, ``render_mode``, ...).
    """
    return wrappers.OrderEnforcingWrapper(GinRummyEnv(rules, **kwargs))
