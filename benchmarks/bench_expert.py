"""Strength and thinking time of the `expert`, as it is or with some of its figures changed.

Plays the arena's matches (classic rules, to 100, match i dealt from seed S+i, seats
alternating; `--mirrored` plays each deal twice with the seats swapped), so without
`--param` it prints exactly what `ginrummy arena expert OPPONENT` prints for the same seeds.
Each `--param NAME=VALUE` overrides one of the expert's named constants (the upper-case
class attributes of `ExpertPlayer`) in a subclass built here, a variant to compare on
those same seeds; the product itself takes no such parameters:

    python benchmarks/bench_expert.py --matches 1000 --workers 2 --seed 0
    python benchmarks/bench_expert.py --matches 1000 --workers 2 --seed 0 --param ADAPTIVE_OPENING=false
    python benchmarks/bench_expert.py --opponent advanced --seed 100000 --param DANGER=2 --mirrored --json

Values are read as JSON (`false`, `2`, `0.5`), so booleans and numbers keep their types.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ginrummy.arena import run_arena
from ginrummy.bots.base import register_player
from ginrummy.bots.expert import ExpertPlayer, SearchingExpert

# The variant's changes travel to the arena's worker processes (which import this module
# afresh) through the environment.
ENV = "GINRUMMY_BENCH_EXPERT_PARAMS"
VARIANT = "expert-variant"
#: The players a variant can be made of (`--player`).
BASES: dict[str, type[ExpertPlayer]] = {"expert": ExpertPlayer, "searcher": SearchingExpert}


def constants(base: type[ExpertPlayer] = ExpertPlayer) -> dict[str, Any]:
    """The player's named constants and their values."""
    return {
        name: getattr(base, name)
        for name in dir(base)
        if name.isupper() and isinstance(getattr(base, name), (bool, int, float))
    }


def parse_params(items: list[str], base: type[ExpertPlayer] = ExpertPlayer) -> dict[str, Any]:
    """`["ADAPTIVE_OPENING=false", "DANGER=2"]` -> `{"ADAPTIVE_OPENING": False, "DANGER": 2}`,
    checked against the expert's constants and their types; a ValueError says what is wrong."""
    known = constants(base)
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep:
            raise ValueError(f"--param {item!r}: expected NAME=VALUE")
        if name not in known:
            raise ValueError(
                f"--param {item!r}: the expert has no constant {name!r} (constants: {', '.join(sorted(known))})"
            )
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            raise ValueError(f"--param {item!r}: {text!r} is not a JSON value") from None
        default = known[name]
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        else:  # numbers: an int may stand for a float
            ok = (
                not isinstance(value, bool)
                and isinstance(value, (int, float))
                and (isinstance(default, float) or isinstance(value, int))
            )
        if not ok:
            raise ValueError(
                f"--param {item!r}: {name} takes a {type(default).__name__}, got {type(value).__name__}"
            )
        out[name] = value
    return out


def variant_class(params: dict[str, Any], base: type[ExpertPlayer] = ExpertPlayer) -> type[ExpertPlayer]:
    """A subclass of the player with some constants overridden."""
    return type("ExpertVariant", (base,), dict(params))


def _make_variant(*, seed: int | None = None, time_budget: float | None = None) -> ExpertPlayer:
    setting = json.loads(os.environ.get(ENV, "{}"))
    base = BASES[setting.get("player", "expert")]
    return variant_class(setting.get("params", {}), base)(seed=seed, time_budget=time_budget)


register_player(VARIANT, _make_variant)


def run(
    matches: int,
    seed: int,
    opponent: str,
    params: dict[str, Any],
    workers: int = 1,
    *,
    mirrored: bool = False,
    player: str = "expert",
) -> dict[str, Any]:
    """Play the matches and return the arena's JSON object, with the changed figures."""
    os.environ[ENV] = json.dumps({"player": player, "params": params})
    name = VARIANT if params else player
    result = run_arena(
        name, opponent, matches=matches, workers=workers, seed=seed, mirrored=mirrored
    ).to_json()
    result["params"] = params
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--opponent", default="baseline")
    parser.add_argument("--player", choices=sorted(BASES), default="expert", help="the player varied")
    parser.add_argument("--mirrored", action="store_true", help="each deal twice, seats swapped")
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override one of the expert's constants (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print the arena's JSON object")
    args = parser.parse_args(argv)
    try:
        params = parse_params(args.param, BASES[args.player])
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.mirrored and args.matches % 2:
        print(f"error: --mirrored needs an even --matches, got {args.matches}", file=sys.stderr)
        return 2
    r = run(
        args.matches,
        args.seed,
        args.opponent,
        params,
        workers=args.workers,
        mirrored=args.mirrored,
        player=args.player,
    )
    if args.json:
        print(json.dumps(r))
        return 0
    lo, hi = r["ci95"]
    a = r["stats_a"]
    changed = ", ".join(f"{k}={json.dumps(v)}" for k, v in params.items()) or "as it is"
    deals = args.matches // 2 if args.mirrored else args.matches
    print(
        f"expert ({changed}) vs {r['b']}, seeds {args.seed}-{args.seed + deals - 1}"
        f"{', mirrored' if args.mirrored else ''}: "
        f"{r['a_wins']}/{r['matches']} matches won = {r['win_rate']:.1%} "
        f"(95% CI {lo:.1%} - {hi:.1%}), Elo {r['elo_diff']:+.0f}"
    )
    print(
        f"hands {r['hands']}: points per hand {a['points_per_hand']:.2f} against "
        f"{r['stats_b']['points_per_hand']:.2f}; Gin {a['gin_pct']:.1f}%, undercuts "
        f"{a['undercut_pct']:.1f}% of decided hands"
    )
    print(
        f"decision time over {a['decisions']} decisions: p50 {a['decision_ms_p50']:.1f} ms, "
        f"p95 {a['decision_ms_p95']:.1f} ms, max {a['decision_ms_max']:.1f} ms; wall time {r['seconds']:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
