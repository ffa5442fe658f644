"""Benchmark: arena matches/s in the local process pool against a local Ray with the same CPUs.

Both play the same seeded matches (`run_arena`, match i from seed S+i, seats alternating); the
script checks that their results agree, then prints matches/s for each. Ray is started
privately for the run (`ray.init(num_cpus=W)`) and its start-up time is reported apart.

    python benchmarks/bench_arena_ray.py [--players A B] [--matches N] [--workers W] [--seed S]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ginrummy.arena import ArenaSummary, RayCluster, run_arena


def _comparable(summary: ArenaSummary) -> dict[str, Any]:
    data = summary.to_json()
    for key in ("seconds", "matches_per_second"):
        data.pop(key)
    for side in ("stats_a", "stats_b"):
        data[side] = {k: v for k, v in data[side].items() if not k.startswith("decision")}
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", nargs=2, default=["casual", "novice"], metavar=("A", "B"))
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        import ray
    except ImportError:
        print("skipped: ray is not installed (pip install -e '.[ray]')")
        return 0
    a, b = args.players
    local = run_arena(a, b, matches=args.matches, workers=args.workers, seed=args.seed, timing=False)
    started = time.perf_counter()
    ray.init(
        address="local",
        num_cpus=args.workers,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="WARNING",
        _node_ip_address="127.0.0.1",
    )
    startup = time.perf_counter() - started
    try:
        on_ray = run_arena(
            a,
            b,
            matches=args.matches,
            seed=args.seed,
            timing=False,
            cluster=RayCluster(num_cpus=args.workers),
        )
    finally:
        ray.shutdown()
    same = _comparable(local) == _comparable(on_ray)
    print(f"{a} vs {b}: {args.matches} matches, seeds {args.seed}..{args.seed + args.matches - 1}")
    print(f"local pool ({args.workers} processes): {args.matches / local.elapsed:8.2f} matches/s")
    print(f"Ray ({args.workers} CPUs):            {args.matches / on_ray.elapsed:8.2f} matches/s")
    print(f"Ray start-up: {startup:.1f} s (not counted)")
    print("results: the same on both" if same else "results: DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
