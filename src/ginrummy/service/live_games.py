"""The live games list ("Watch"): the public matches being played, highest rated first, public facts only.

A match is public when strangers play it: the quick-pairing pool (rated or casual), a listed
tournament, or a game with a bot account (a bot's games are public, as on Lichess). A robot match
and a room of friends are not listed (anyone given the link may still watch one). Each entry
carries what a passer-by at the table could know: the names, the ratings, the score, the game and
how many watch; never a card, a seed or a commitment (those stay with the seats' own views).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .live import LiveMatch
from .ratings import BOT_POOL, GAME

__all__ = ["LIVE_SHOWN", "entries", "is_public", "ordered", "pool_of"]

#: The list shows this many matches at most (the highest rated).
LIVE_SHOWN = 50


def is_public(live: LiveMatch, listed_tournament: Callable[[str], bool]) -> bool:
    """True when `live` is being played and may be listed for anyone to watch."""
    if live.status != "playing" or live.closed:
        return False
    if any(s.bot for s in live.seats):
        return True
    if live.kind == "online":
        return True
    return live.kind == "tourney" and live.tournament_id is not None and listed_tournament(live.tournament_id)


def pool_of(live: LiveMatch) -> str:
    """The rating pool the match's players are shown with: the bots' own when a bot plays."""
    return BOT_POOL if any(s.bot for s in live.seats) else GAME


def _rating_of(guest_id: str | None, kind: str | None, ratings: dict[str, dict[str, Any]]) -> int | None:
    found = ratings.get(guest_id) if kind == "human" and guest_id else None
    return int(found["rating"]) if found else None


def _entry(
    live: LiveMatch, ratings: dict[str, dict[str, Any]], tournament: dict[str, Any] | None
) -> dict[str, Any]:
    game = live.match
    players = []
    for s in live.seats:
        rating = ratings.get(s.guest_id) if s.kind == "human" and s.guest_id else None
        players.append(
            {
                "seat": s.seat,
                "name": s.name,
                "id": s.guest_id if s.kind == "human" else None,
                "kind": s.kind,
                "level": s.level,
                "bot": s.bot,
                "guest": s.kind == "human" and s.guest,
                "rating": rating["rating"] if rating else None,
                "provisional": bool(rating and rating["provisional"]),
            }
        )
    rated = [r for s in live.seats if (r := _rating_of(s.guest_id, s.kind, ratings)) is not None]
    return {
        "id": live.id,
        "watch": f"/watch/{live.id}",
        "game": game.rules.game,
        "kind": live.kind,
        "rated": live.rated,
        "tournament": tournament,
        "target": game.rules.target,
        "hand_number": game.hand_number,
        "scores": list(game.scores),
        "to_act": list(game.seats_to_act),
        "players": players,
        # The order of the list: the mean rating of its people (robots have none).
        "rating": round(sum(rated) / len(rated)) if rated else None,
        "spectators": live.spectators,
    }


def entries(
    matches: Iterable[LiveMatch],
    ratings: dict[str, dict[str, dict[str, Any]]],
    tournaments: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """The list's entries of public `matches`: `ratings` is per pool, per guest, as
    `public_rating` gives it; `tournaments` the id and name of each match's tournament."""
    return [
        _entry(live, ratings.get(pool_of(live), {}), tournaments.get(live.tournament_id or ""))
        for live in matches
    ]


def ordered(found: Iterable[dict[str, Any]], limit: int = LIVE_SHOWN) -> list[dict[str, Any]]:
    """Entries (of one process or gathered from several) highest mean rating first, then the most
    watched, the furthest on; each match once (one moving between processes may be listed by
    both); at most `limit`."""
    unique = {e["id"]: e for e in found}
    return sorted(
        unique.values(), key=lambda e: (-(e["rating"] or 0), -e["spectators"], -sum(e["scores"]), e["id"])
    )[:limit]
