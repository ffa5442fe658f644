"""Computer players' speed: whole baseline-vs-baseline matches per second, and decision times per level.

Run: python benchmarks/bench_bots.py [--seconds 10] [--levels novice casual skilled advanced expert]
                                    [--build both|python|compiled]

Prints (one core, no worker processes), once per build of the card masks (benchmarks/builds.py:
the Python source, then the fast core of scripts/build_fast_core.py):
- matches per second of `baseline` against `baseline` (classic rules, to 100), with the
  split of the time between building views, the players' decisions and applying actions,
  against the EAAI Java framework's 447 matches per second (issue 27's target);
- for each level, its decision time p50 / p95 / max in milliseconds, measured over
  whole matches against `baseline`;
- the searching expert's rate: sampled deals played out per CPU second (each deal once per
  candidate discard), over the discard decisions of seeded `expert` matches.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ginrummy.arena import percentile, play_match
from ginrummy.bots import available_players, make_player
from ginrummy.bots.expert import SearchingExpert
from ginrummy.rules import new_match

sys.path.insert(0, str(Path(__file__).resolve().parent))
from builds import add_build_options, child_argv, run_both, write_result, wrong_build  # noqa: E402

#: Whole baseline-vs-baseline matches per second of the EAAI challenge's Java framework.
JAVA_RATE = 447.0


def baseline_throughput(seconds: float, seed: int = 0) -> dict[str, float]:
    """Play baseline against baseline for about `seconds`; matches/s and where the time goes."""
    view_t = act_t = apply_t = 0.0
    matches = 0
    clock = time.perf_counter
    start = clock()
    while clock() - start < seconds:
        match = new_match("classic", seed=seed + matches)
        players = (make_player("baseline", seed=2 * matches), make_player("baseline", seed=2 * matches + 1))
        while match.result is None:
            seat = match.hands[-1].to_act
            t0 = clock()
            view = match.view(seat)
            t1 = clock()
            action = players[seat].act(view)
            t2 = clock()
            match.apply(action, seat)
            t3 = clock()
            view_t += t1 - t0
            act_t += t2 - t1
            apply_t += t3 - t2
        matches += 1
    elapsed = clock() - start
    # The arena's own loop, without the timers above, is what `ginrummy arena` runs. CPU time
    # is reported beside wall time: on a shared machine the wall clock also counts other jobs.
    plain_start = clock()
    cpu_start = time.process_time()
    plain = 0
    while clock() - plain_start < seconds:
        play_match("baseline", "baseline", "classic", seed=seed + plain, a_seat=plain % 2, timing=False)
        plain += 1
    plain_elapsed = clock() - plain_start
    cpu_elapsed = time.process_time() - cpu_start
    return {
        "matches": matches,
        "profiled_matches_per_second": matches / elapsed,
        "arena_matches_per_second": plain / plain_elapsed,
        "arena_matches_per_cpu_second": plain / cpu_elapsed,
        "view_share": view_t / elapsed,
        "act_share": act_t / elapsed,
        "apply_share": apply_t / elapsed,
    }


def search_rate(seconds: float, seed: int = 0) -> dict[str, float]:
    """Sampled deals the searching expert plays out per CPU second: it searches its three best
    discards at the discard decisions of seeded expert-against-expert matches."""
    searcher = SearchingExpert(seed=seed)
    views = []
    match = new_match("classic", seed=seed)
    players = (make_player("expert", seed=seed), make_player("expert", seed=seed + 1))
    while len(views) < 400:
        if match.result is not None:
            match = new_match("classic", seed=seed + len(views))
        seat = match.hands[-1].to_act
        view = match.view(seat)
        if view.phase == "discard" and view.stock_count > 2:
            views.append(view)
        match.apply(players[seat].act(view), seat)
    deals = playouts = 0
    cpu = 0.0
    while cpu < seconds:
        for view in views:
            turn = searcher.read(view)
            cards = [c for _, c, _ in searcher.score_discards(turn.k.hand, turn.k.taken, turn, 3)]
            t0 = time.process_time()
            searcher.search_discards(view, turn, cards, None)
            cpu += time.process_time() - t0
            deals += searcher.SEARCH_WORLDS
            playouts += searcher.SEARCH_WORLDS * len(cards)
            if cpu >= seconds:
                break
    return {"deals_per_cpu_second": deals / cpu, "playouts_per_cpu_second": playouts / cpu}


def decision_times(level: str, seconds: float, seed: int = 0) -> dict[str, float]:
    """Decision times of `level` in whole matches against baseline for about `seconds`."""
    times: list[float] = []
    matches = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or matches == 0:
        stats = play_match(level, "baseline", "classic", seed=seed + matches, a_seat=matches % 2)
        times.extend(stats.times[0])
        matches += 1
    times.sort()
    return {
        "matches": matches,
        "decisions": len(times),
        "p50_ms": 1000 * percentile(times, 0.5),
        "p95_ms": 1000 * percentile(times, 0.95),
        "max_ms": 1000 * (times[-1] if times else 0.0),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    parser.add_argument("--levels", nargs="*", default=None, help="levels to time (default: all installed)")
    add_build_options(parser)
    args = parser.parse_args(argv)
    if args.build == "both":
        results = run_both(__file__, child_argv(argv))
        print(f"=== both builds: baseline vs baseline (target >= {JAVA_RATE:g} matches/s, EAAI's Java) ===")
        for build, figures in results.items():
            rate = figures["arena_matches_per_cpu_second"]
            print(
                f"{build:>8} build: {rate:.1f} matches per CPU second, {rate / JAVA_RATE:.2f}x Java's "
                f"({'meets' if rate >= JAVA_RATE else 'misses'} the target)"
            )
        return 0
    problem = wrong_build(args.build)
    if problem is not None:
        print(f"skipped the {args.build} build: {problem}")
        return 0
    installed = available_players()
    levels = (
        args.levels
        if args.levels is not None
        else [
            name
            for name in ("baseline", "novice", "casual", "skilled", "advanced", "expert")
            if name in installed
        ]
    )
    t = baseline_throughput(args.seconds)
    write_result(args.result_file, t)
    print(
        f"baseline vs baseline: {t['arena_matches_per_cpu_second']:.1f} matches per CPU second, "
        f"{t['arena_matches_per_second']:.1f} per wall second (play_match, one core; "
        f"EAAI's Java framework: {JAVA_RATE:g})"
    )
    print(
        f"  time split over {t['matches']} profiled matches: views {t['view_share']:.0%}, decisions {t['act_share']:.0%}, "
        f"applying actions {t['apply_share']:.0%}"
    )
    print(f"{'level':<10} {'matches':>7} {'decisions':>9} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for level in levels:
        if level not in installed:
            print(f"{level:<10} not installed")
            continue
        d = decision_times(level, args.seconds)
        print(
            f"{level:<10} {d['matches']:>7} {d['decisions']:>9} {d['p50_ms']:>8.3f} "
            f"{d['p95_ms']:>8.3f} {d['max_ms']:>8.3f}"
        )
    r = search_rate(args.seconds)
    print(
        f"search: {r['deals_per_cpu_second']:.0f} sampled deals per CPU second "
        f"({r['playouts_per_cpu_second']:.0f} playouts: each deal once per candidate discard)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
