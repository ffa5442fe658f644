"""`ginrummy fair-play`: the pairs of players whose rated results look arranged, for the site's operator."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer

from .root import app

__all__ = ["fair_play"]


@app.command("fair-play")
def fair_play(
    limit: int = typer.Option(1000, min=1, help="Read the newest LIMIT records."),
    as_json: bool = typer.Option(False, "--json", help="Print the pairs as JSON."),
) -> None:
    """Pairs of players with suspicious rated results (quick losses between players of one
    address, one-sided series), with the evidence: for a person to judge, nothing is decided here.

    Reads the site's database (DATABASE_URL, or the SQLite file of GINRUMMY_DATA_DIR).
    """
    from sqlalchemy.engine import make_url

    from ..server import Settings, SettingsError

    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        raise typer.BadParameter(str(exc)) from None
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite" and url.database and not Path(url.database).is_file():
        typer.echo(
            f"No database at {url.database}: set DATABASE_URL, or GINRUMMY_DATA_DIR to the server's folder.",
            err=True,
        )
        raise typer.Exit(2)
    pairs = asyncio.run(_pairs(settings.database_url, limit))
    if as_json:
        typer.echo(json.dumps(pairs, indent=2, ensure_ascii=False))
        return
    if not pairs:
        typer.echo("No suspicious rated result is recorded.")
        return
    typer.echo(f"{len(pairs)} pair(s) of players with suspicious rated results:")
    for pair in pairs:
        first, second = pair["players"]
        typer.echo("")
        typer.echo(f"{_who(first)} and {_who(second)}: {len(pair['records'])} record(s)")
        for record in pair["records"]:
            typer.echo(
                f"  {record['when']}  {record['kind']:<10}  match {record['match']}  {record['evidence']}"
            )


def _who(player: dict[str, Any]) -> str:
    return f"{player['name']} ({'account' if player['account'] else 'guest'} {player['id']})"


async def _pairs(database_url: str, limit: int) -> list[dict[str, Any]]:
    from ..service.fairplay import FairPlay
    from ..storage import SqlStore

    store = SqlStore(database_url)
    await store.start()
    try:
        pairs = await FairPlay(store, time.time).suspicious_pairs(limit)
        ids = sorted({g for p in pairs for g in (p.first, p.second)})
        guests = await store.get_guests(ids) if ids else {}
        accounts = await store.get_accounts(ids) if ids else {}
    finally:
        await store.close()

    def name(guest_id: str) -> str:
        guest = guests.get(guest_id)
        return guest.name if guest is not None else "?"

    def player(guest_id: str) -> dict[str, Any]:
        return {"id": guest_id, "name": name(guest_id), "account": guest_id in accounts}

    return [
        {
            "players": [player(p.first), player(p.second)],
            "records": [
                {
                    "when": datetime.fromtimestamp(f.at, UTC).strftime("%Y-%m-%d %H:%M UTC"),
                    "at": f.at,
                    "kind": f.kind,
                    "match": f.match_id,
                    "winner": player(f.winner_id),
                    "loser": player(f.loser_id),
                    "evidence": _evidence(f.kind, f.evidence, name(f.winner_id), name(f.loser_id)),
                    "details": f.evidence,
                }
                for f in p.flags
            ],
        }
        for p in pairs
    ]


def _evidence(kind: str, evidence: dict[str, Any], winner: str, loser: str) -> str:
    """One line a person reads."""
    if kind == "quick_loss":
        moves = evidence.get("moves") or []
        how = "resigned" if evidence.get("ended") == "resigned" else "left"
        return (
            f"{loser} {how} to {winner} after {sum(moves)} moves ({' and '.join(map(str, moves))}); "
            f"both entered rated play from {', '.join(evidence.get('addresses') or [])}"
        )
    if kind == "one_sided":
        return (
            f"{winner} won {evidence.get('won')} of the {evidence.get('of')} rated matches against "
            f"{loser} within {evidence.get('days'):g} days"
        )
    return json.dumps(evidence, sort_keys=True)
