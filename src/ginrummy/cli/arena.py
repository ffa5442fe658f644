"""The `arena` subcommand: matches between players, with live progress and a results table."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from ..arena import ArenaSummary, MatchStats, PlayerSpec, RayCluster, RayUnavailable, run_arena
from ..arena.matches import ENGINE_PREFIX
from .arena_progress import arena_progress
from .root import app, fail

#: What `--ray` given without an address stands for (see `optional_option_values`).
LOCAL_RAY = "local"


def optional_option_values(argv: list[str]) -> list[str]:
    """`argv` with a value after an option whose value may be left out (``--ray`` alone).

    Typer options always take a value; ``ginrummy arena a b --ray`` means "this machine's
    Ray", so a bare ``--ray`` (last, or followed by another option) gets the value ``local``.
    As with any optional value, ``--ray ADDRESS`` takes the next word: put ``--ray`` last or
    write ``--ray=ADDRESS``.

    >>> optional_option_values(["arena", "a", "b", "--ray"])
    ['arena', 'a', 'b', '--ray', 'local']
    >>> optional_option_values(["arena", "--ray", "--workers", "2", "a", "b"])
    ['arena', '--ray', 'local', '--workers', '2', 'a', 'b']
    >>> optional_option_values(["arena", "a", "b", "--ray", "head:6379"])
    ['arena', 'a', 'b', '--ray', 'head:6379']
    """
    out: list[str] = []
    for i, word in enumerate(argv):
        out.append(word)
        if word == "--ray" and (i + 1 == len(argv) or argv[i + 1].startswith("-")):
            out.append(LOCAL_RAY)
    return out


DEFAULT_TIME_LIMIT = 10.0  # seconds an outside engine may take per move


@app.command()
def arena(
    players: list[str] = typer.Argument(
        None,
        help="Two players (or several with --round-robin): level names, baseline, random, engine:COMMAND.",
    ),
    matches: int = typer.Option(100, "--matches", "-n", help="Matches per pairing."),
    workers: int = typer.Option(1, "--workers", "-w", help="Worker processes."),
    seed: int = typer.Option(0, "--seed", help="Match i is dealt from seed S+i."),
    mirrored: bool = typer.Option(
        False,
        "--mirrored",
        help="Play each deal twice with the seats swapped (matches 2j and 2j+1 use seed S+j); paired interval.",
    ),
    rules: str = typer.Option("classic", "--rules", help="Rules preset: classic, hoyle, oklahoma, big_gin."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object and nothing else on stdout."),
    round_robin: bool = typer.Option(
        False, "--round-robin", help="Every pair of the players plays; print a cross table."
    ),
    engine: list[str] = typer.Option(
        None,
        "--engine",
        help='Seat an outside program speaking docs/protocol.md (repeatable): "COMMAND ARGS".',
    ),
    time_limit: float = typer.Option(
        DEFAULT_TIME_LIMIT, "--time-limit", help="Seconds per move for outside engines."
    ),
    time_budget: float | None = typer.Option(
        None, "--time-budget", help="Seconds per decision for our players."
    ),
    ray: str | None = typer.Option(
        None,
        "--ray",
        metavar="[ADDRESS]",
        help=(
            "Run the matches on Ray: --ray alone starts a private Ray on this machine with --workers "
            "CPUs; --ray auto joins the cluster 'ray start' runs here; --ray HOST:6379 or "
            "ray://HOST:10001 joins that one. Needs pip install 'ginrummy[ray]'."
        ),
    ),
    stream: bool = typer.Option(
        False,
        "--stream",
        help="Print each match as one JSON line on stdout as it finishes, then the summary as the last line.",
    ),
    game: str = typer.Option(
        "gin", "--game", help="gin, or a table game: gin3, gin4_teams, rummy (players at mixed tables)."
    ),
    seats: int | None = typer.Option(None, "--players", help="Rummy: two to six seats (default four)."),
    ladder: bool = typer.Option(
        False, "--ladder", help="Table games: each player against the one before it (weakest first)."
    ),
) -> None:
    """Play matches between players and report win rates with 95% intervals.

    Seats alternate match by match and seeds are fixed, so a run can be repeated exactly;
    with --mirrored each deal is played twice with the seats swapped. On a Ray cluster (--ray)
    the same seeds give the same results as the local worker processes. With --game gin3,
    gin4_teams or rummy, two players share tables in every seating (see docs/bots.md) and
    --matches counts games.
    """
    from ..bots import available_players
    from ..rules import PRESETS

    cluster = None
    if ray is not None:
        address = None if ray in ("", LOCAL_RAY) else ray
        cluster = RayCluster(address=address, num_cpus=workers if address is None and workers > 1 else None)
    if game != "gin":
        two_player_only = {
            "--mirrored": mirrored,
            "--stream": stream,
            "--rules": rules != "classic",
            "--time-limit": time_limit != DEFAULT_TIME_LIMIT,
            "--time-budget": time_budget is not None,
        }
        given = [flag for flag, used in two_player_only.items() if used]
        if given:
            raise fail(
                f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to two-player Gin only; "
                f"--game {game} deals each seed to every seating of the two players already"
            )
        from .table_arena_cmd import table_arena

        table_arena(
            list(players or []) + [ENGINE_PREFIX + cmd for cmd in (engine or [])],
            game=game,
            players=seats,
            games=matches,
            workers=workers,
            seed=seed,
            ladder=ladder,
            round_robin=round_robin,
            as_json=as_json,
            cluster=cluster,
        )
        return

    names = list(players or []) + [ENGINE_PREFIX + cmd for cmd in (engine or [])]
    if matches < 1:
        raise fail(f"--matches must be at least 1, got {matches}")
    if workers < 1:
        raise fail(f"--workers must be at least 1, got {workers}")
    if mirrored and matches % 2:
        raise fail(f"--mirrored plays each deal twice: give an even --matches, got {matches}")
    if time_limit <= 0:
        raise fail(f"--time-limit must be positive, got {time_limit}")
    if rules not in PRESETS:
        raise fail(f"unknown rules preset {rules!r}; choose one of {', '.join(sorted(PRESETS))}")
    if PRESETS[rules].game != "gin":
        raise fail(f"--rules {rules} is a table game: play it with --game {PRESETS[rules].game}")
    known = set(available_players())
    for name in names:
        if name.startswith(ENGINE_PREFIX):
            if not name[len(ENGINE_PREFIX) :].strip():
                raise fail('an engine needs a command, e.g. --engine "ginrummy engine --bot casual"')
        elif name not in known:
            raise fail(f"unknown player {name!r}; choose from {', '.join(sorted(known))} or engine:COMMAND")
    if round_robin:
        if len(names) < 2:
            raise fail("--round-robin needs at least two players")
        if len(set(names)) != len(names):
            raise fail("--round-robin players must be distinct")
    elif len(names) != 2:
        raise fail(f"give exactly two players (got {len(names)}), or use --round-robin")
    specs = [PlayerSpec(n, time_budget=time_budget, time_limit=time_limit) for n in names]
    pairs = (
        [(a, b) for i, a in enumerate(specs) for b in specs[i + 1 :]]
        if round_robin
        else [(specs[0], specs[1])]
    )
    # With --json or --stream, stdout carries JSON only; progress goes to stderr when it is a terminal.
    machine = as_json or stream
    console = Console(stderr=machine)
    show_progress = console.is_terminal or not machine
    results: list[ArenaSummary] = []
    with arena_progress(console, show=show_progress, transient=machine) as progress:
        for a, b in pairs:
            task = progress.add_task(f"{a.label} vs {b.label}", total=matches, rate="")

            def update(stats: MatchStats, summary: ArenaSummary, task: Any = task) -> None:
                if stream:
                    line = {"a": summary.a, "b": summary.b, **stats.to_json()}
                    sys.stdout.write(json.dumps(line) + "\n")
                    sys.stdout.flush()
                lo, hi = summary.interval()
                progress.update(
                    task,
                    completed=summary.matches,
                    rate=f"win rate {summary.win_rate:.3f} [{lo:.3f}, {hi:.3f}]",
                )

            try:
                results.append(
                    run_arena(
                        a,
                        b,
                        matches=matches,
                        workers=workers,
                        seed=seed,
                        rules=rules,
                        mirrored=mirrored,
                        on_match=update,
                        cluster=cluster,
                    )
                )
            except (ValueError, RayUnavailable) as exc:
                raise fail(str(exc)) from None
    if machine:
        if round_robin:
            out: dict[str, Any] = {
                "round_robin": [s.label for s in specs],
                "matches": matches,
                "seed": seed,
                "mirrored": mirrored,
                "rules": rules,
                "table": _cross(specs, results),
                "pairs": [r.to_json() for r in results],
            }
        else:
            out = results[0].to_json()
        sys.stdout.write(json.dumps({"summary": out} if stream else out) + "\n")
        if not as_json:
            _print_tables(console, specs, results, round_robin)
        return
    _print_tables(console, specs, results, round_robin)


def _print_tables(
    console: Console, specs: list[PlayerSpec], results: list[ArenaSummary], round_robin: bool
) -> None:
    if round_robin:
        console.print(_pairs_table(results))
        for summary in results:
            _print_forfeits(console, summary)
        console.print(_cross_table(specs, results))
        return
    console.print(_summary_table(results[0]))
    _print_forfeits(console, results[0])


def _cross(specs: list[PlayerSpec], results: list[ArenaSummary]) -> dict[str, dict[str, float | None]]:
    """Win rate of each row player against each column player."""
    table: dict[str, dict[str, float | None]] = {s.label: {} for s in specs}
    for r in results:
        table[r.a][r.b] = round(r.win_rate, 4)
        table[r.b][r.a] = round(1 - r.win_rate, 4)
    for s in specs:
        table[s.label][s.label] = None
    return table


def _cross_table(specs: list[PlayerSpec], results: list[ArenaSummary]) -> Table:
    cross = _cross(specs, results)
    table = Table(title="Round robin: match win rate of row against column")
    table.add_column("")
    for s in specs:
        table.add_column(s.label, justify="right")
    table.add_column("mean", justify="right")
    for s in specs:
        row = cross[s.label]
        rates = [v for v in row.values() if v is not None]
        cells = ["-" if row[o.label] is None else f"{row[o.label]:.3f}" for o in specs]
        table.add_row(s.label, *cells, f"{sum(rates) / len(rates):.3f}" if rates else "-")
    return table


def _pairs_table(results: list[ArenaSummary]) -> Table:
    """One line per pairing: the figures of `_summary_table`, side a first."""
    table = Table(title="Round robin: every pairing")
    for name in (
        "a vs b",
        "matches",
        "a wins (95% CI)",
        "Elo",
        "points/hand",
        "Gin %",
        "undercut %",
        "hand turns",
        "forfeits",
    ):
        table.add_column(name, justify="left" if name == "a vs b" else "right")
    for r in results:
        d = r.to_json()
        sa, sb = d["stats_a"], d["stats_b"]
        lo, hi = d["ci95"]
        table.add_row(
            f"{r.a} vs {r.b}",
            str(r.matches),
            f"{d['win_rate']:.1%} [{lo:.1%}, {hi:.1%}]",
            f"{d['elo_diff']:+.0f}",
            f"{sa['points_per_hand']:.1f} / {sb['points_per_hand']:.1f}",
            f"{sa['gin_pct']:.1f} / {sb['gin_pct']:.1f}",
            f"{sa['undercut_pct']:.1f} / {sb['undercut_pct']:.1f}",
            f"{d['avg_hand_turns']:.1f}",
            str(d["forfeits"]),
        )
    return table


def _summary_table(summary: ArenaSummary) -> Table:
    data = summary.to_json()
    lo, hi = data["ci95"]
    deals = (summary.matches + 1) // 2 if summary.mirrored else summary.matches
    how = ", each deal mirrored" if summary.mirrored else ""
    table = Table(
        title=(
            f"{summary.a} vs {summary.b}: {summary.matches} matches, rules {summary.rules}, "
            f"seeds {summary.seed}..{summary.seed + deals - 1}{how}"
        )
    )
    table.add_column("")
    table.add_column(summary.a, justify="right")
    table.add_column(summary.b, justify="right")
    sa, sb = data["stats_a"], data["stats_b"]
    table.add_row(
        "match wins (95% CI)",
        f"{summary.a_wins} = {data['win_rate']:.1%} [{lo:.1%}, {hi:.1%}]",
        f"{summary.b_wins}",
    )
    table.add_row("hands won", str(sa["hands_won"]), str(sb["hands_won"]))
    table.add_row("points per hand", f"{sa['points_per_hand']:.2f}", f"{sb['points_per_hand']:.2f}")
    table.add_row("Gin % of decided hands", f"{sa['gin_pct']:.1f}", f"{sb['gin_pct']:.1f}")
    table.add_row("undercut % of decided hands", f"{sa['undercut_pct']:.1f}", f"{sb['undercut_pct']:.1f}")
    table.add_row("knocks (Gin included)", str(sa["knocks"]), str(sb["knocks"]))
    table.add_row(
        "decision ms p50 / p95",
        f"{sa['decision_ms_p50']:.3f} / {sa['decision_ms_p95']:.3f}",
        f"{sb['decision_ms_p50']:.3f} / {sb['decision_ms_p95']:.3f}",
    )
    if data["forfeits"]:
        table.add_row("forfeits", str(sa["forfeits"]), str(sb["forfeits"]))
    table.caption = (
        f"hands {data['hands']} (void {data['void_hands']}), average hand {data['avg_hand_turns']:.1f} turns, "
        f"Elo difference {data['elo_diff']:+.0f}, {data['matches_per_second'] or 0:.1f} matches/s"
    )
    return table


def _print_forfeits(console: Console, summary: ArenaSummary) -> None:
    if not any(summary.forfeits):
        return
    console.print(
        f"[yellow]forfeits:[/yellow] {summary.a} {summary.forfeits[0]}, {summary.b} {summary.forfeits[1]}"
    )
    for reason in summary.forfeit_reasons[:5]:
        console.print(f"  {reason}")
