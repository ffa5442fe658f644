"""Strength and thinking time of the `expert` player against the baseline.

Plays N matches (classic rules, to 100, seats alternated, fixed seeds) and prints the
expert's match win rate with a Wilson 95% interval, points per hand, and the p50/p95/max
time of its decisions.

    python benchmarks/bench_expert.py --matches 2000 --seed 1
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

from ginrummy.bots import make_player
from ginrummy.bots.base import Player
from ginrummy.rules import new_match


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (centre - half, centre + half)


def play_match(
    expert: Player, other: Player, seed: int, expert_seat: int, times: list[float], stats: dict[str, int]
) -> bool:
    """One match; True when the expert wins. Decision times of the expert go to `times`."""
    match = new_match("classic", seed=seed)
    players = [other, other]
    players[expert_seat] = expert
    while not match.is_over:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        if seat == expert_seat:
            t0 = time.perf_counter()
            action = expert.act(view)
            times.append(time.perf_counter() - t0)
        else:
            action = other.act(view)
        result = match.apply(action, seat)
        if result is not None:
            number = len(match.hands) if match.is_over else len(match.hands) - 1
            for s in (0, 1):
                players[s].observe(match.hand_view(s, number))
            stats["hands"] += 1
            stats[result.outcome] = stats.get(result.outcome, 0) + 1
            if result.scorer == expert_seat:
                stats["expert_points"] += result.points
                stats["expert_hands"] += 1
                stats[f"expert_{result.outcome}"] = stats.get(f"expert_{result.outcome}", 0) + 1
            elif result.scorer is not None:
                stats["other_points"] += result.points
    assert match.result is not None
    return match.result.winner == expert_seat


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    i = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[i]


def run(matches: int, seed: int, opponent: str, expert_name: str = "expert",
        progress: bool = False, expert_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play the matches and return the figures."""

    times: list[float] = []
    stats = {"hands": 0, "expert_points": 0, "other_points": 0, "expert_hands": 0}
    wins = 0
    started = time.perf_counter()
    for i in range(matches):
        match_seed = seed * 1_000_003 + i
        if expert_kwargs:
            from ginrummy.bots.expert import ExpertPlayer

            expert: Player = ExpertPlayer(seed=match_seed, **expert_kwargs)
        else:
            expert = make_player(expert_name, seed=match_seed)
        other = make_player(opponent, seed=match_seed + 7)
        wins += play_match(expert, other, match_seed, i % 2, times, stats)
        if progress and (i + 1) % 50 == 0:
            lo, hi = wilson(wins, i + 1)
            print(f"  {i + 1} matches: {wins / (i + 1):.3f} [{lo:.3f}, {hi:.3f}] "
                  f"{time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
    times.sort()
    lo, hi = wilson(wins, matches)
    hands = stats["hands"] or 1
    return {
        "expert": expert_name,
        "opponent": opponent,
        "matches": matches,
        "expert_wins": wins,
        "win_rate": wins / matches if matches else 0.0,
        "ci95": [lo, hi],
        "hands": stats["hands"],
        "points_per_hand": (stats["expert_points"] - stats["other_points"]) / hands,
        "outcomes": {k: v for k, v in stats.items() if k not in ("hands",)},
        "decisions": len(times),
        "time_p50_ms": percentile(times, 0.50) * 1000,
        "time_p95_ms": percentile(times, 0.95) * 1000,
        "time_max_ms": (times[-1] if times else 0.0) * 1000,
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponent", default="baseline")
    parser.add_argument("--progress", action="store_true", help="print running figures to stderr")
    args = parser.parse_args()
    r = run(args.matches, args.seed, args.opponent, progress=args.progress)
    lo, hi = r["ci95"]
    print(f"expert vs {r['opponent']}: {r['expert_wins']}/{r['matches']} matches won = "
          f"{r['win_rate']:.1%} (95% CI {lo:.1%} - {hi:.1%})")
    print(f"hands {r['hands']}, net points per hand {r['points_per_hand']:+.2f}")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items())))
    print(f"decision time over {r['decisions']} decisions: p50 {r['time_p50_ms']:.1f} ms, "
          f"p95 {r['time_p95_ms']:.1f} ms, max {r['time_max_ms']:.1f} ms")
    print(f"wall time {r['seconds']:.0f} s")


if __name__ == "__main__":
    main()
