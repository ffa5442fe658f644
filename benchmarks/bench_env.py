"""Benchmark: environment steps/s with random agents, ours against OpenSpiel's and RLCard's Gin Rummy.

Every contender plays whole single hands; each decision of a player is one step, and each
step hands the acting player what its library gives an agent (an observation and the legal
actions) before a uniformly random legal action is applied:

- ours: `ginrummy.env.raw_env("classic", episode="hand")`, `last()` (observation vector and
  action mask from the seat's VIEW) then `step()`; also PettingZoo's order-checking `env()`;
- OpenSpiel, bare: `pyspiel` `gin_rummy` states, `observation_tensor()` and `legal_actions()`
  each decision, chance nodes (deals, stock draws) sampled and not counted;
- OpenSpiel, its RL environment: `open_spiel.python.rl_environment.Environment("gin_rummy")`;
- RLCard: `rlcard.make("gin-rummy")`, `step()` with a random key of `state["legal_actions"]`.

Rates are per second of this process's CPU time (the machine is shared; wall-clock rates are
printed too). Rounds alternate the order of the contenders; the median ratio is reported.
Goal (issue 17): ours >= 3x OpenSpiel.

    python benchmarks/bench_env.py [--seconds N] [--rounds R] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from ginrummy.env import env, raw_env

Runner = Callable[[float, int], tuple[int, float, float]]  # (seconds, seed) -> steps, cpu s, wall s


def _clocks() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


def run_ours(wrapped: bool) -> Runner:
    def run(seconds: float, seed: int) -> tuple[int, float, float]:
        game = env("classic", episode="hand") if wrapped else raw_env("classic", episode="hand")
        uniform = random.Random(seed).random
        steps = 0
        episode = seed * 1_000_003
        cpu0, wall0 = _clocks()
        deadline = cpu0 + seconds
        while time.process_time() < deadline:
            game.reset(seed=episode)
            episode += 1
            while True:
                obs, _, terminated, truncated, _ = game.last()
                if terminated or truncated:
                    break
                legal = obs["action_mask"].nonzero()[0]
                game.step(int(legal[int(uniform() * len(legal))]))
                steps += 1
        cpu1, wall1 = _clocks()
        return steps, cpu1 - cpu0, wall1 - wall0

    return run


def run_openspiel_bare(pyspiel: Any) -> Runner:
    game = pyspiel.load_game("gin_rummy")

    def run(seconds: float, seed: int) -> tuple[int, float, float]:
        uniform = random.Random(seed).random
        steps = 0
        cpu0, wall0 = _clocks()
        deadline = cpu0 + seconds
        while time.process_time() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()  # uniform over the unseen cards
                    state.apply_action(outcomes[int(uniform() * len(outcomes))][0])
                    continue
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[int(uniform() * len(legal))])
                steps += 1
        cpu1, wall1 = _clocks()
        return steps, cpu1 - cpu0, wall1 - wall0

    return run


def run_openspiel_rl(rl_environment: Any) -> Runner:
    def run(seconds: float, seed: int) -> tuple[int, float, float]:
        environment = rl_environment.Environment("gin_rummy")
        environment.seed(seed)
        uniform = random.Random(seed).random
        steps = 0
        cpu0, wall0 = _clocks()
        deadline = cpu0 + seconds
        while time.process_time() < deadline:
            step = environment.reset()
            while not step.last():
                player = step.observations["current_player"]
                legal = step.observations["legal_actions"][player]
                step = environment.step([legal[int(uniform() * len(legal))]])
                steps += 1
        cpu1, wall1 = _clocks()
        return steps, cpu1 - cpu0, wall1 - wall0

    return run


def run_rlcard(rlcard: Any) -> Runner:
    def run(seconds: float, seed: int) -> tuple[int, float, float]:
        environment = rlcard.make("gin-rummy", config={"seed": seed})
        uniform = random.Random(seed).random
        steps = 0
        cpu0, wall0 = _clocks()
        deadline = cpu0 + seconds
        while time.process_time() < deadline:
            state, _ = environment.reset()
            while not environment.is_over():
                legal = list(state["legal_actions"])
                state, _ = environment.step(legal[int(uniform() * len(legal))])
                steps += 1
        cpu1, wall1 = _clocks()
        return steps, cpu1 - cpu0, wall1 - wall0

    return run


def contenders() -> tuple[dict[str, Runner], list[str]]:
    """Every contender that can run here, and why the others cannot."""
    runners: dict[str, Runner] = {
        "ours (raw_env)": run_ours(wrapped=False),
        "ours (env, order-checked)": run_ours(wrapped=True),
    }
    missing = []
    try:
        import pyspiel  # type: ignore[import-not-found]  # the bench extra, no stubs
        from open_spiel.python import rl_environment  # type: ignore[import-not-found]
    except ImportError:
        missing.append("OpenSpiel (pip install -e '.[bench]')")
    else:
        runners["OpenSpiel pyspiel state"] = run_openspiel_bare(pyspiel)
        runners["OpenSpiel rl_environment"] = run_openspiel_rl(rl_environment)
    try:
        import rlcard  # type: ignore[import-not-found]  # the bench extra, no stubs
    except ImportError:
        missing.append("RLCard (pip install -e '.[bench]')")
    else:
        runners["RLCard gin-rummy"] = run_rlcard(rlcard)
    return runners, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per contender per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; medians are reported (default 3)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    runners, missing = contenders()
    for what in missing:
        print(f"not measured: {what} is not installed")
    names = list(runners)
    cpu_rates: dict[str, list[float]] = {name: [] for name in names}
    wall_rates: dict[str, list[float]] = {name: [] for name in names}
    for number in range(1, args.rounds + 1):
        order = names if number % 2 else list(reversed(names))
        for name in order:
            steps, cpu, wall = runners[name](args.seconds, args.seed + number)
            cpu_rates[name].append(steps / cpu if cpu > 0 else 0.0)
            wall_rates[name].append(steps / wall if wall > 0 else 0.0)
    print(f"{'contender':<28} {'steps/s (CPU)':>14} {'steps/s (wall)':>15}")
    medians = {name: statistics.median(cpu_rates[name]) for name in names}
    for name in names:
        print(f"{name:<28} {medians[name]:>14,.0f} {statistics.median(wall_rates[name]):>15,.0f}")
    for name in names:
        if name.startswith("ours"):
            continue
        ratio = statistics.median(
            a / b for a, b in zip(cpu_rates["ours (raw_env)"], cpu_rates[name], strict=True) if b
        )
        verdict = ""
        if name.startswith("OpenSpiel"):
            verdict = f" ({'meets' if ratio >= 3 else 'misses'} the goal >= 3x)"
        print(f"ours/{name}: {ratio:.2f}x{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
