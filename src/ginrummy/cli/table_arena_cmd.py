"""`ginrummy arena --game …`: players at tables of three to six, their share of wins at mixed
tables, a ladder of levels (each against the one below) or a round robin."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from ..arena import RayCluster, RayUnavailable
from ..arena.tables import TableGameStats, TableSummary, arrangements, run_table_arena
from ..rules import Rules, RulesError
from .arena_progress import arena_progress
from .root import fail

__all__ = ["table_arena"]


def table_arena(
    names: list[str],
    *,
    game: str,
    players: int | None,
    games: int,
    workers: int,
    seed: int,
    ladder: bool,
    round_robin: bool,
    as_json: bool,
    cluster: RayCluster | None = None,
) -> None:
    """Run the arena at a table of `game` (see `ginrummy arena --help`)."""
    from ..bots.table_players import game_player_names

    try:
        rules = Rules.for_game(game, players)
    except RulesError as exc:
        raise fail(str(exc)) from None
    known = game_player_names(rules.game)
    for name in names:
        if not name.startswith("engine:") and name not in known:
            raise fail(f"unknown {game} player {name!r}; choose from {', '.join(known)} or engine:COMMAND")
    if len(set(names)) != len(names):
        raise fail("the players must be distinct")
    if ladder or round_robin:
        if len(names) < 2:
            raise fail("--ladder and --round-robin need at least two players")
    elif len(names) != 2:
        raise fail(f"give exactly two players (got {len(names)}), or use --ladder or --round-robin")
    if games < 1 or workers < 1:
        raise fail("--matches and --workers must be at least 1")
    if ladder:
        pairs = [(names[i + 1], names[i]) for i in range(len(names) - 1)]
    elif round_robin:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    else:
        pairs = [(names[0], names[1])]
    console = Console(stderr=as_json)
    results: list[TableSummary] = []
    with arena_progress(console, show=console.is_terminal or not as_json, transient=as_json) as progress:
        for a, b in pairs:
            task = progress.add_task(f"{a} vs {b}", total=games, rate="")

            def update(stats: TableGameStats, summary: TableSummary, task: Any = task) -> None:
                progress.update(task, completed=summary.games, rate=f"share {summary.win_rate:.3f}")

            try:
                results.append(
                    run_table_arena(
                        a,
                        b,
                        rules=rules,
                        games=games,
                        workers=workers,
                        seed=seed,
                        on_game=update,
                        cluster=cluster,
                    )
                )
            except (ValueError, RayUnavailable) as exc:
                raise fail(str(exc)) from None
    if as_json:
        out: dict[str, Any] = {
            "game": rules.game,
            "players": rules.players,
            "games": games,
            "seed": seed,
            "mode": "ladder" if ladder else "round_robin" if round_robin else "pair",
            "seatings": [list(s) for s in arrangements(rules)],
            "pairs": [r.to_json() for r in results],
        }
        sys.stdout.write(json.dumps(out) + "\n")
        return
    console.print(_table(rules, results, ladder=ladder))
    for summary in results:
        for reason in summary.reasons:
            console.print(f"[yellow]{summary.a} vs {summary.b}: {reason}[/yellow]")


def _table(rules: Rules, results: list[TableSummary], *, ladder: bool) -> Table:
    seats = rules.players
    title = (
        f"{rules.game} with {seats} seats: share of games won by the first player at tables mixing the two"
        + (" (each level against the one below)" if ladder else "")
    )
    table = Table(title=title)
    for column in (
        "a vs b",
        "games",
        "a's share (95% CI)",
        "a won",
        "b won",
        "split",
        "hands/game",
        "stalled",
    ):
        table.add_column(column, justify="left" if column == "a vs b" else "right")
    for summary in results:
        data = summary.to_json()
        lo, hi = data["ci95"]
        table.add_row(
            f"{summary.a} vs {summary.b}",
            str(data["games"]),
            f"{data['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]",
            str(data["a_wins"]),
            str(data["b_wins"]),
            str(data["split"]),
            f"{data['hands_per_game']:.1f}",
            str(data["stalled"]),
        )
    return table
