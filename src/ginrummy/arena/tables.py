"""The arena at a table of any size: whole games of three-player Gin, team Gin or Rummy between
computer players, and two players' share of wins over tables that mix them.

`play_table_game` plays one game, one player per seat, each seeing only its seat's views.
`run_table_arena(a, b, rules=...)` seats a and b together: at a table of N seats every
arrangement of ⌈N/2⌉ and ⌊N/2⌋ copies of each (for four: AABB, ABAB, ABBA, BAAB, BABA, BBAA;
in team Gin, a team of a against a team of b, both ways round) plays the same deal seeds, so
seats and cards are shared out alike. A game counts 1 for a when every winning seat holds a,
0 when every one holds b, and ½ otherwise (a game abandoned as stalled has no winner).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ..bots.table_players import TablePlayer, make_game_player
from ..engine.host import EngineFailure, EnginePlayer, EngineSeat
from ..rules import TEAMS, IllegalActionError, Rules, new_game
from .cluster import RayCluster
from .jobs import run_jobs
from .matches import ENGINE_PREFIX, percentile, wilson_interval

__all__ = [
    "TableGameStats",
    "TableSummary",
    "arrangements",
    "play_table_game",
    "run_table_arena",
    "run_table_round_robin",
]

# A Rummy hand of six players runs to a few hundred actions; one that passes this many is a
# loop of players taking each other's discards (the stock never shrinks), so the game is
# abandoned as stalled rather than hanging the arena.
MAX_HAND_ACTIONS = 2000


@dataclass(slots=True)
class TableGameStats:
    """One game: who sat where, who won, the final totals per side, and how it went."""

    seed: int
    seats: tuple[str, ...]
    winners: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    hands: int = 0
    void_hands: int = 0
    actions: int = 0
    forfeit: int | None = None  # the seat that forfeited
    forfeit_reason: str | None = None
    stalled: str | None = None
    times: list[list[float]] = field(default_factory=list)  # decision seconds per seat

    def share(self, name: str) -> float:
        """1 if every winner is `name`, 0 if none is, ½ otherwise (or with no winner)."""
        if not self.winners:
            return 0.5
        held = [self.seats[s] == name for s in self.winners]
        return 1.0 if all(held) else 0.0 if not any(held) else 0.5

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "seats": list(self.seats),
            "winners": list(self.winners),
            "scores": list(self.scores),
            "hands": self.hands,
            "void_hands": self.void_hands,
            "actions": self.actions,
            "forfeit": self.forfeit,
            "forfeit_reason": self.forfeit_reason,
            "stalled": self.stalled,
        }


def play_table_game(
    players: Sequence[TablePlayer | str],
    rules: Rules | str,
    seed: int = 0,
    *,
    timing: bool = True,
) -> TableGameStats:
    """Play one game of `rules` with one player per seat: objects, names for `make_game_player`,
    or ``engine:COMMAND`` for an outside program (offered protocol version 2, then 1).

    A player that returns an illegal action, or an engine that fails, forfeits: the game ends
    there with every seat of the other side(s) winning.
    """
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    if len(players) != rules.players:
        raise ValueError(f"{rules.game} seats {rules.players} players, got {len(players)}")
    labels = tuple(p if isinstance(p, str) else p.name for p in players)
    owned: list[EngineSeat] = []
    try:
        seated = [_seat(p, rules, seed * 8 + s, owned) for s, p in enumerate(players)]
        return _play(seated, labels, rules, seed, timing)
    finally:
        for engine in owned:
            engine.close()


def _seat(player: TablePlayer | str, rules: Rules, seed: int, owned: list[EngineSeat]) -> TablePlayer:
    if not isinstance(player, str):
        return player
    if player.startswith(ENGINE_PREFIX):
        protocols = (2,) if rules.game == "rummy" else (2, 1)
        seat = EngineSeat(EnginePlayer(player[len(ENGINE_PREFIX) :], protocols=protocols, name=player))
        owned.append(seat)
        return seat
    return make_game_player(player, rules, seed=seed)


def _play(
    seated: list[TablePlayer], labels: tuple[str, ...], rules: Rules, seed: int, timing: bool
) -> TableGameStats:
    game = new_game(rules, seed=seed)
    stats = TableGameStats(seed=seed, seats=labels, times=[[] for _ in seated])
    clock = time.perf_counter
    turn = 0
    since_deal = 0
    while not game.is_over:
        acting = game.seats_to_act
        seat = acting[turn % len(acting)]  # simultaneous hands take turns
        turn += 1
        number = game.hand_number
        view = game.view(seat)
        start = clock() if timing else 0.0
        try:
            action = seated[seat].act(view)
            if timing:
                stats.times[seat].append(clock() - start)
            ended = game.apply(action, seat)
        except (IllegalActionError, EngineFailure) as exc:
            stats.forfeit = seat
            what = "played an illegal action" if isinstance(exc, IllegalActionError) else "failed"
            stats.forfeit_reason = f"seat {seat} ({labels[seat]}) {what}: {exc}"
            stats.winners = tuple(s for s in range(rules.players) if s not in _side_of(rules, seat))
            stats.hands = game.hand_number
            stats.scores = tuple(game.scores)
            return stats
        stats.actions += 1
        since_deal += 1
        if since_deal > MAX_HAND_ACTIONS:
            stats.stalled = (
                f"deal {number} passed {MAX_HAND_ACTIONS} actions: the players keep taking discards"
            )
            stats.hands = game.hand_number
            stats.scores = tuple(game.scores)
            return stats
        if ended is None:
            continue
        if ended.outcome == "void":
            stats.void_hands += 1
        if game.hand_number != number or game.is_over:
            since_deal = 0
        for s in range(rules.players):
            try:
                seated[s].observe(game.hand_view(s, number))
            except EngineFailure as exc:
                stats.forfeit = s
                stats.forfeit_reason = f"seat {s} ({labels[s]}) failed: {exc}"
                stats.winners = tuple(t for t in range(rules.players) if t not in _side_of(rules, s))
                stats.hands = game.hand_number
                stats.scores = tuple(game.scores)
                return stats
    result = game.result
    assert result is not None
    stats.winners = result.winners
    stats.scores = result.scores
    stats.hands = game.hand_number
    return stats


def _side_of(rules: Rules, seat: int) -> tuple[int, ...]:
    if rules.game == "gin4_teams":
        return TEAMS[seat % 2]
    return (seat,)


def arrangements(rules: Rules) -> list[tuple[int, ...]]:
    """The seatings of two players at the table of `rules`: 0 marks a, 1 marks b (see the module)."""
    n = rules.players
    if rules.game == "gin4_teams":
        return [(0, 1, 0, 1), (1, 0, 1, 0)]
    counts = {n // 2, n - n // 2}
    found = []
    for count in sorted(counts):
        for chosen in combinations(range(n), count):
            found.append(tuple(0 if s in chosen else 1 for s in range(n)))
    return sorted(set(found))


@dataclass(slots=True)
class TableSummary:
    """Totals over many games between a and b at mixed tables."""

    a: str
    b: str
    rules: Rules
    seed: int
    games: int = 0
    a_score: float = 0.0
    a_wins: int = 0
    b_wins: int = 0
    split: int = 0  # games whose winners held both, or none
    hands: int = 0
    void_hands: int = 0
    actions: int = 0
    stalled: int = 0
    forfeits: int = 0
    reasons: list[str] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=dict)
    elapsed: float = 0.0

    def add(self, stats: TableGameStats) -> None:
        """Count one game."""
        share = stats.share(self.a)
        self.games += 1
        self.a_score += share
        self.a_wins += share == 1.0
        self.b_wins += share == 0.0
        self.split += share == 0.5
        self.hands += stats.hands
        self.void_hands += stats.void_hands
        self.actions += stats.actions
        if stats.stalled is not None:
            self.stalled += 1
        if stats.forfeit is not None:
            self.forfeits += 1
        for reason in (stats.stalled, stats.forfeit_reason):
            if reason and len(self.reasons) < 20:
                self.reasons.append(f"game seed {stats.seed}: {reason}")
        for seat, times in enumerate(stats.times):
            self.times.setdefault(stats.seats[seat], []).extend(times)

    @property
    def win_rate(self) -> float:
        """a's share of the games (split games count half)."""
        return self.a_score / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        """The summary printed by ``ginrummy arena --game ... --json``."""
        lo, hi = wilson_interval(self.a_score, self.games)

        def timing(name: str) -> dict[str, Any]:
            values = sorted(self.times.get(name, []))
            return {
                "decisions": len(values),
                "decision_ms_p50": round(1000 * percentile(values, 0.5), 4),
                "decision_ms_p95": round(1000 * percentile(values, 0.95), 4),
            }

        return {
            "a": self.a,
            "b": self.b,
            "game": self.rules.game,
            "players": self.rules.players,
            "rules": self.rules.to_json(),
            "games": self.games,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "split": self.split,
            "win_rate": round(self.win_rate, 6),
            "ci95": [round(lo, 6), round(hi, 6)],
            "seed": self.seed,
            "hands": self.hands,
            "hands_per_game": round(self.hands / self.games, 3) if self.games else 0.0,
            "void_hands": self.void_hands,
            "actions": self.actions,
            "stalled": self.stalled,
            "forfeits": self.forfeits,
            "reasons": list(self.reasons),
            "seconds": round(self.elapsed, 3),
            "games_per_second": round(self.games / self.elapsed, 2) if self.elapsed > 0 else None,
            "timing_a": timing(self.a),
            "timing_b": timing(self.b),
        }


_Job = tuple[str, str, Rules, int, tuple[int, ...], bool]


def _jobs(a: str, b: str, rules: Rules, games: int, seed: int, timing: bool) -> Iterator[_Job]:
    seatings = arrangements(rules)
    for i in range(games):
        yield (a, b, rules, seed + i // len(seatings), seatings[i % len(seatings)], timing)


def _worker_game(job: _Job) -> TableGameStats:
    a, b, rules, seed, seating, timing = job
    names = [a if mark == 0 else b for mark in seating]
    return play_table_game(names, rules, seed, timing=timing)


def _worker_init() -> None:
    import ginrummy.bots  # noqa: F401  (registers every player in a fresh, spawned process)


def run_table_arena(
    a: str,
    b: str,
    *,
    rules: Rules | str = "rummy",
    games: int = 120,
    workers: int = 1,
    seed: int = 0,
    timing: bool = True,
    on_game: Callable[[TableGameStats, TableSummary], None] | None = None,
    cluster: RayCluster | None = None,
) -> TableSummary:
    """Play `games` games of a and b at mixed tables (see the module) and sum them up.

    Games come in blocks of every seating; block ``k`` is dealt from seed ``seed + k``. With
    ``workers > 1`` the games run in that many processes, with a `cluster` as Ray tasks there
    (`workers` is then unused): the same games either way.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if a == b:
        raise ValueError("the two players must differ")
    rules_obj = Rules.preset(rules) if isinstance(rules, str) else rules
    for name in (a, b):
        if not name.startswith(ENGINE_PREFIX):
            make_game_player(name, rules_obj, seed=0)  # an unknown name fails here, before any work
    summary = TableSummary(a=a, b=b, rules=rules_obj, seed=seed)
    start = time.perf_counter()
    jobs = _jobs(a, b, rules_obj, games, seed, timing)

    def count(stats: TableGameStats) -> None:
        summary.add(stats)
        summary.elapsed = time.perf_counter() - start
        if on_game is not None:
            on_game(stats, summary)

    run_jobs(jobs, _worker_game, count, total=games, workers=workers, cluster=cluster, init=_worker_init)
    summary.elapsed = time.perf_counter() - start
    return summary


def run_table_round_robin(
    names: Sequence[str],
    *,
    rules: Rules | str = "rummy",
    games: int = 120,
    workers: int = 1,
    seed: int = 0,
    on_pair: Callable[[TableSummary], None] | None = None,
    on_game: Callable[[TableGameStats, TableSummary], None] | None = None,
    cluster: RayCluster | None = None,
) -> dict[tuple[str, str], TableSummary]:
    """Every pair of `names` plays `games` games at mixed tables; keyed by (row, column) names."""
    if len(set(names)) != len(names):
        raise ValueError("round-robin players must be distinct")
    table: dict[tuple[str, str], TableSummary] = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            summary = run_table_arena(
                a, b, rules=rules, games=games, workers=workers, seed=seed, on_game=on_game, cluster=cluster
            )
            table[(a, b)] = summary
            if on_pair is not None:
                on_pair(summary)
    return table
