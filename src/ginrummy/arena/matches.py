"""The arena: whole matches between two players, their statistics, and many matches in parallel.

`play_match` plays one match and returns its statistics (`MatchStats`); `run_arena`
plays many, seats alternating match by match and match ``i`` dealt from seed
``seed + i`` (or, mirrored, each deal played twice with the seats swapped), in worker
processes, and sums them up (`ArenaSummary`). Players are
named by their registry name (`make_player`) or, for an outside program, by
``engine:COMMAND``; an engine that times out, crashes or sends an illegal action
forfeits the match, and the reason is kept.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots import Player, make_player
from ..engine.host import EngineCrashed, EngineFailure, EnginePlayer
from ..rules import Draw, IllegalActionError, Rules, new_match
from .cluster import RayCluster
from .jobs import run_jobs

__all__ = [
    "ArenaSummary",
    "MatchStats",
    "PlayerSpec",
    "close_engines",
    "elo_difference",
    "make_spec_player",
    "paired_interval",
    "percentile",
    "play_match",
    "run_arena",
    "run_round_robin",
    "wilson_interval",
]

ENGINE_PREFIX = "engine:"


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """How to build a player in any process: a registry name or an outside engine command."""

    name: str
    time_budget: float | None = None
    time_limit: float = 10.0  # per move, outside engines only

    @property
    def is_engine(self) -> bool:
        """True for ``engine:COMMAND``."""
        return self.name.startswith(ENGINE_PREFIX)

    @property
    def label(self) -> str:
        """The name shown in tables."""
        return self.name


def make_spec_player(spec: PlayerSpec | str, seed: int) -> Player:
    """A fresh player for one match (an outside engine is started here)."""
    if isinstance(spec, str):
        spec = PlayerSpec(spec)
    if spec.is_engine:
        command = spec.name[len(ENGINE_PREFIX) :]
        return EnginePlayer(command, move_time=spec.time_limit, name=spec.name)
    return make_player(spec.name, seed=seed, time_budget=spec.time_budget)


def _is_engine_failure(exc: BaseException) -> bool:
    return isinstance(exc, EngineFailure)


@dataclass(slots=True)
class MatchStats:
    """One match from the point of view of players ``a`` and ``b``.

    Pairs are ``(a, b)``. ``forfeit`` is None, or ``"a"``/``"b"`` for the side that
    lost by forfeit, with ``forfeit_reason`` saying why.
    """

    seed: int
    a_seat: int
    winner: str | None  # "a", "b" or None (a drawn match, possible only with bonuses)
    scores: tuple[int, int] = (0, 0)
    hands: int = 0
    void_hands: int = 0
    hands_won: tuple[int, int] = (0, 0)
    points: tuple[int, int] = (0, 0)
    knocks: tuple[int, int] = (0, 0)  # hands this side ended by knocking (Gin included)
    gins: tuple[int, int] = (0, 0)  # Gin and Big Gin
    undercuts: tuple[int, int] = (0, 0)  # hands this side won by undercutting the knocker
    turns: int = 0  # draws in all hands, both sides
    forfeit: str | None = None
    forfeit_reason: str | None = None
    times: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))

    def to_json(self, *, with_times: bool = False) -> dict[str, Any]:
        """The statistics as a JSON object."""
        data: dict[str, Any] = {
            "seed": self.seed,
            "a_seat": self.a_seat,
            "winner": self.winner,
            "scores": list(self.scores),
            "hands": self.hands,
            "void_hands": self.void_hands,
            "hands_won": list(self.hands_won),
            "points": list(self.points),
            "knocks": list(self.knocks),
            "gins": list(self.gins),
            "undercuts": list(self.undercuts),
            "turns": self.turns,
            "forfeit": self.forfeit,
            "forfeit_reason": self.forfeit_reason,
        }
        if with_times:
            data["times"] = [list(self.times[0]), list(self.times[1])]
        return data


def play_match(
    player_a: Player | PlayerSpec | str,
    player_b: Player | PlayerSpec | str,
    rules: Rules | str | None = None,
    seed: int = 0,
    a_seat: int = 0,
    *,
    timing: bool = True,
) -> MatchStats:
    """Play one match; `a_seat` is player a's seat (0 or 1). Players may be specs or objects.

    Each player only ever receives its own seat's views. A player that raises an
    engine failure or returns an illegal action forfeits the match.
    """
    if a_seat not in (0, 1):
        raise ValueError(f"a_seat must be 0 or 1, got {a_seat!r}")
    if isinstance(rules, str) or rules is None:
        rules = Rules.preset(rules or "classic")
    owned: list[Player] = []
    pa = _as_player(player_a, seed * 2, owned)
    pb = _as_player(player_b, seed * 2 + 1, owned)
    try:
        return _play(pa, pb, rules, seed, a_seat, timing)
    finally:
        for player in owned:
            close = getattr(player, "close", None)
            if close is not None:
                close()


def _as_player(p: Player | PlayerSpec | str, seed: int, owned: list[Player]) -> Player:
    if isinstance(p, (str, PlayerSpec)):
        player = make_spec_player(p, seed)
        owned.append(player)
        return player
    return p


def _play(pa: Player, pb: Player, rules: Rules, seed: int, a_seat: int, timing: bool) -> MatchStats:
    match = new_match(rules, seed=seed)
    players = (pa, pb) if a_seat == 0 else (pb, pa)
    side = ("a", "b") if a_seat == 0 else ("b", "a")  # side of each seat
    times: tuple[list[float], list[float]] = ([], [])
    seat_times = (times[0], times[1]) if a_seat == 0 else (times[1], times[0])
    hands_won = [0, 0]
    knocks = [0, 0]
    gins = [0, 0]
    undercuts = [0, 0]
    void = 0
    turns = 0
    clock = time.perf_counter
    seat = -1
    try:
        while match.result is None:
            seat = match.hands[-1].to_act
            view = match.view(seat)
            player = players[seat]
            if timing:
                t0 = clock()
                action = player.act(view)
                seat_times[seat].append(clock() - t0)
            else:
                action = player.act(view)
            result = match.apply(action, seat)
            if result is None:
                continue
            number = len(match.hands) if match.result is not None else len(match.hands) - 1
            hand = match.hands[number - 1]
            turns += sum(1 for step in hand.steps if isinstance(step.action, Draw))
            if result.outcome == "void":
                void += 1
            if result.scorer is not None:
                hands_won[result.scorer] += 1
            if result.knocker is not None:
                knocks[result.knocker] += 1
                if result.outcome in ("gin", "big_gin"):
                    gins[result.knocker] += 1
                elif result.outcome == "undercut" and result.scorer is not None:
                    undercuts[result.scorer] += 1
            for s in (0, 1):
                seat = s
                players[s].observe(match.hand_view(s, number))
    except IllegalActionError as exc:
        return _forfeit(
            match, seed, a_seat, side[seat], f"{side[seat]} played an illegal action: {exc}", times
        )
    except Exception as exc:
        if not _is_engine_failure(exc):
            raise
        return _forfeit(match, seed, a_seat, side[seat], str(exc), times)
    res = match.result
    assert res is not None

    def ab(pair: Sequence[int]) -> tuple[int, int]:
        return (pair[0], pair[1]) if a_seat == 0 else (pair[1], pair[0])

    winner = None if res.winner is None else side[res.winner]
    return MatchStats(
        seed=seed,
        a_seat=a_seat,
        winner=winner,
        scores=ab(res.scores),
        hands=len(match.hands),
        void_hands=void,
        hands_won=ab(hands_won),
        points=ab(res.points),
        knocks=ab(knocks),
        gins=ab(gins),
        undercuts=ab(undercuts),
        turns=turns,
        times=times,
    )


def _forfeit(
    match: Any, seed: int, a_seat: int, loser: str, reason: str, times: tuple[list[float], list[float]]
) -> MatchStats:
    scores = (match.scores[0], match.scores[1]) if a_seat == 0 else (match.scores[1], match.scores[0])
    return MatchStats(
        seed=seed,
        a_seat=a_seat,
        winner="b" if loser == "a" else "a",
        scores=scores,
        hands=len(match.hands),
        forfeit=loser,
        forfeit_reason=reason,
        times=times,
    )


# -- statistics --------------------------------------------------------------------


def wilson_interval(wins: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a win rate of `wins` out of `n`."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def paired_interval(pair_scores: list[float], z: float = 1.959964) -> tuple[float, float]:
    """The 95% interval of a mean win rate over mirrored deals, from each deal's own mean.

    A deal played twice with the seats swapped scores 0, 0.25, ..., 1 for a: its luck is the
    same for both players, so these means vary less than single matches and the interval
    is narrower than Wilson's over the same matches (normal approximation).
    """
    n = len(pair_scores)
    if n < 2:
        return (0.0, 1.0)
    mean = sum(pair_scores) / n
    var = sum((x - mean) ** 2 for x in pair_scores) / (n - 1)
    half = z * math.sqrt(var / n)
    return (max(0.0, mean - half), min(1.0, mean + half))


def elo_difference(win_rate: float, n: int | None = None) -> float:
    """Elo points of a over b implied by a's win rate (clamped half a game from 0 and 1)."""
    eps = 0.5 / n if n else 1e-4
    p = min(max(win_rate, eps), 1 - eps)
    return 400 * math.log10(p / (1 - p))


def percentile(sorted_values: list[float], q: float) -> float:
    """The `q` quantile (0 to 1) of sorted values, interpolated between neighbours."""
    if not sorted_values:
        return 0.0
    k = (len(sorted_values) - 1) * q
    lo = math.floor(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


@dataclass(slots=True)
class ArenaSummary:
    """Totals over many matches between a and b."""

    a: str
    b: str
    rules: str
    seed: int
    matches: int = 0
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0
    hands: int = 0
    void_hands: int = 0
    turns: int = 0
    hands_won: list[int] = field(default_factory=lambda: [0, 0])
    points: list[int] = field(default_factory=lambda: [0, 0])
    knocks: list[int] = field(default_factory=lambda: [0, 0])
    gins: list[int] = field(default_factory=lambda: [0, 0])
    undercuts: list[int] = field(default_factory=lambda: [0, 0])
    forfeits: list[int] = field(default_factory=lambda: [0, 0])
    forfeit_reasons: list[str] = field(default_factory=list)
    times: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    elapsed: float = 0.0
    #: Each deal played twice with the seats swapped (`run_arena(mirrored=True)`).
    mirrored: bool = False
    #: a's result (1, 0.5 or 0) in each match, by the match's seed.
    results: dict[int, list[float]] = field(default_factory=dict)

    def add(self, m: MatchStats) -> None:
        """Count one match."""
        self.matches += 1
        if m.winner == "a":
            self.a_wins += 1
        elif m.winner == "b":
            self.b_wins += 1
        else:
            self.draws += 1
        self.results.setdefault(m.seed, []).append(
            1.0 if m.winner == "a" else 0.0 if m.winner == "b" else 0.5
        )
        self.hands += m.hands
        self.void_hands += m.void_hands
        self.turns += m.turns
        for i in (0, 1):
            self.hands_won[i] += m.hands_won[i]
            self.points[i] += m.points[i]
            self.knocks[i] += m.knocks[i]
            self.gins[i] += m.gins[i]
            self.undercuts[i] += m.undercuts[i]
            self.times[i].extend(m.times[i])
        if m.forfeit is not None:
            self.forfeits[0 if m.forfeit == "a" else 1] += 1
            if m.forfeit_reason and len(self.forfeit_reasons) < 20:
                self.forfeit_reasons.append(f"match seed {m.seed}: {m.forfeit_reason}")

    def interval(self) -> tuple[float, float]:
        """The 95% interval of a's win rate: paired over deals when mirrored, else Wilson's."""
        if self.mirrored:
            pairs = [sum(r) / len(r) for r in self.results.values() if len(r) == 2]
            return paired_interval(pairs)
        return wilson_interval(self.a_wins + 0.5 * self.draws, self.matches)

    @property
    def win_rate(self) -> float:
        """a's share of the matches (a drawn match counts half)."""
        return (self.a_wins + 0.5 * self.draws) / self.matches if self.matches else 0.0

    def to_json(self) -> dict[str, Any]:
        """The summary object printed by ``ginrummy arena --json``."""
        n = self.matches
        lo, hi = self.interval()
        hands = max(self.hands, 1)
        decided = max(self.hands - self.void_hands, 1)

        def per_side(i: int) -> dict[str, Any]:
            t = sorted(self.times[i])
            return {
                "hands_won": self.hands_won[i],
                "points": self.points[i],
                "points_per_hand": round(self.points[i] / hands, 3),
                "knocks": self.knocks[i],
                "gins": self.gins[i],
                "gin_pct": round(100 * self.gins[i] / decided, 2),
                "undercuts": self.undercuts[i],
                "undercut_pct": round(100 * self.undercuts[i] / decided, 2),
                "forfeits": self.forfeits[i],
                "decisions": len(t),
                "decision_ms_p50": round(1000 * percentile(t, 0.5), 4),
                "decision_ms_p95": round(1000 * percentile(t, 0.95), 4),
                "decision_ms_max": round(1000 * (t[-1] if t else 0.0), 4),
            }

        return {
            "a": self.a,
            "b": self.b,
            "matches": n,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "draws": self.draws,
            "win_rate": round(self.win_rate, 6) if n else 0.0,
            "ci95": [round(lo, 6), round(hi, 6)],
            "elo_diff": round(elo_difference(self.win_rate, n), 1) if n else 0.0,
            "mirrored": self.mirrored,
            "rules": self.rules,
            "seed": self.seed,
            "hands": self.hands,
            "void_hands": self.void_hands,
            "avg_hand_turns": round(self.turns / hands, 3),
            "forfeits": self.forfeits[0] + self.forfeits[1],
            "forfeit_reasons": list(self.forfeit_reasons),
            "seconds": round(self.elapsed, 3),
            "matches_per_second": round(n / self.elapsed, 2) if self.elapsed > 0 else None,
            "stats_a": per_side(0),
            "stats_b": per_side(1),
        }


# -- many matches ----------------------------------------------------------------

# Outside engines are expensive to start, so a worker keeps one per spec across
# matches and starts a new one only after a failure.
_ENGINES: dict[tuple[PlayerSpec, int], Player] = {}


def _worker_match(job: tuple[PlayerSpec, PlayerSpec, Rules, int, int, bool]) -> MatchStats:
    a, b, rules, seed, a_seat, timing = job
    pa = _reusable(a, 0, seed * 2)
    pb = _reusable(b, 1, seed * 2 + 1)
    stats = play_match(pa, pb, rules, seed, a_seat, timing=timing)
    if stats.forfeit is not None:
        for spec, slot in ((a, 0), (b, 1)):
            if spec.is_engine:
                _drop_engine(spec, slot)
    return stats


def _reusable(spec: PlayerSpec, slot: int, seed: int) -> Player:
    if not spec.is_engine:
        return make_spec_player(spec, seed)
    key = (spec, slot)
    player = _ENGINES.get(key)
    if player is None:
        try:
            player = make_spec_player(spec, seed)
        except Exception as exc:
            if not _is_engine_failure(exc):
                raise
            return _FailedEngine(spec.name, getattr(exc, "detail", str(exc)))
        _ENGINES[key] = player
    return player


def _drop_engine(spec: PlayerSpec, slot: int) -> None:
    player = _ENGINES.pop((spec, slot), None)
    close = getattr(player, "close", None)
    if close is not None:
        close()


def close_engines() -> None:
    """Stop every outside engine this process started for the arena."""
    for key in list(_ENGINES):
        _drop_engine(*key)


class _FailedEngine:
    """Stands in for an engine that could not start: it forfeits at its first move."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def act(self, view: Any) -> Any:
        raise EngineCrashed(self.name, self.reason)

    def observe(self, view: Any) -> None:
        return None


def _worker_init() -> None:
    import atexit

    atexit.register(close_engines)
    # Make sure every player module is registered in a fresh (spawned) process.
    import ginrummy.bots  # noqa: F401


def _jobs(
    a: PlayerSpec, b: PlayerSpec, rules: Rules, matches: int, seed: int, timing: bool, mirrored: bool
) -> Iterator[tuple[PlayerSpec, PlayerSpec, Rules, int, int, bool]]:
    for i in range(matches):
        if mirrored:
            yield (a, b, rules, seed + i // 2, i % 2, timing)
        else:
            yield (a, b, rules, seed + i, i % 2, timing)


def run_arena(
    a: PlayerSpec | str,
    b: PlayerSpec | str,
    *,
    matches: int = 100,
    workers: int = 1,
    seed: int = 0,
    rules: Rules | str = "classic",
    timing: bool = True,
    mirrored: bool = False,
    on_match: Callable[[MatchStats, ArenaSummary], None] | None = None,
    cluster: RayCluster | None = None,
) -> ArenaSummary:
    """Play `matches` matches of a against b and sum them up.

    Match ``i`` uses seed ``seed + i`` and seats a in seat ``i % 2``. `mirrored` plays each
    deal twice with the seats swapped instead: matches ``2j`` and ``2j + 1`` both use seed
    ``seed + j`` (so `matches` must be even), and the interval is paired over the deals. With
    ``workers > 1`` the matches run in that many processes; `on_match` is called in
    this process after each match (in completion order) with the running summary.
    With a `cluster` the same matches run as Ray tasks there (`workers` is then unused).
    """
    if matches < 1:
        raise ValueError(f"matches must be at least 1, got {matches}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if mirrored and matches % 2:
        raise ValueError(f"mirrored deals need an even number of matches, got {matches}")
    spec_a = a if isinstance(a, PlayerSpec) else PlayerSpec(a)
    spec_b = b if isinstance(b, PlayerSpec) else PlayerSpec(b)
    for spec in (spec_a, spec_b):
        if not spec.is_engine:
            make_player(spec.name, seed=0)  # an unknown name fails here, before any work
    rules_obj = Rules.preset(rules) if isinstance(rules, str) else rules
    summary = ArenaSummary(
        a=spec_a.label, b=spec_b.label, rules=rules_obj.preset_name, seed=seed, mirrored=mirrored
    )
    start = time.perf_counter()
    jobs = _jobs(spec_a, spec_b, rules_obj, matches, seed, timing, mirrored)

    def take(stats: MatchStats) -> None:
        summary.add(stats)
        summary.elapsed = time.perf_counter() - start
        if on_match is not None:
            on_match(stats, summary)

    try:
        run_jobs(
            jobs,
            _worker_match,
            take,
            total=matches,
            workers=workers,
            cluster=cluster,
            init=_worker_init,
            chunk=1 if spec_a.is_engine or spec_b.is_engine else None,
        )
    finally:
        close_engines()  # the engines this process started (with one worker)
    summary.elapsed = time.perf_counter() - start
    return summary


def run_round_robin(
    names: list[PlayerSpec | str],
    *,
    matches: int = 100,
    workers: int = 1,
    seed: int = 0,
    rules: Rules | str = "classic",
    mirrored: bool = False,
    on_pair: Callable[[ArenaSummary], None] | None = None,
    on_match: Callable[[MatchStats, ArenaSummary], None] | None = None,
    cluster: RayCluster | None = None,
) -> dict[tuple[str, str], ArenaSummary]:
    """Every pair of `names` plays `matches` matches; keyed by (row label, column label)."""
    specs = [n if isinstance(n, PlayerSpec) else PlayerSpec(n) for n in names]
    labels = [s.label for s in specs]
    if len(set(labels)) != len(labels):
        raise ValueError("round-robin players must be distinct")
    table: dict[tuple[str, str], ArenaSummary] = {}
    for i, sa in enumerate(specs):
        for sb in specs[i + 1 :]:
            summary = run_arena(
                sa,
                sb,
                matches=matches,
                workers=workers,
                seed=seed,
                rules=rules,
                mirrored=mirrored,
                on_match=on_match,
                cluster=cluster,
            )
            table[(sa.label, sb.label)] = summary
            if on_pair is not None:
                on_pair(summary)
    return table
