"""What finished and ongoing matches show, read from the store: My matches, replays, profiles."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, Protocol

from .accounts import name_key
from .action_log import ActionLog
from .bots import BotAccounts
from .challenges import Challenges
from .errors import NotFinished, NotFound
from .live import LiveMatch
from .multi_ratings import RATED_GAMES
from .multi_ratings import public_rating as table_public_rating
from .options import robot_name
from .ports import (
    AccountStore,
    GuestRow,
    GuestStore,
    MatchRow,
    MatchStore,
    RatingPoint,
    RatingStore,
    TournamentStore,
)
from .ratings import BOT_POOL, GAME, public_change, public_rating, seat_changes
from .replays import replay_hands

__all__ = ["MatchHistory"]


class HistoryPorts(MatchStore, RatingStore, GuestStore, AccountStore, TournamentStore, Protocol):
    """The storage the pages of past and present matches read."""


class MatchHistory:
    """My matches, replays and profiles (the live matches of this process give the scores of
    the ones still being played)."""

    def __init__(
        self,
        store: HistoryPorts,
        bots: BotAccounts,
        challenges: Challenges,
        live: Mapping[str, LiveMatch],
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.bots = bots
        self.challenges = challenges
        self.live = live
        self.clock = clock

    @staticmethod
    def _players_of(
        row: MatchRow, names: dict[str, str], bots: Collection[str], members: Collection[str]
    ) -> list[dict[str, Any]]:
        """Who sat in each seat of a stored match: people by name (bot accounts and guests without
        an account marked), robots by level."""
        players: list[dict[str, Any]] = []
        for s in row.seats:
            seat: dict[str, Any] = {"seat": s.seat, "name": None, "kind": None, "level": None, "bot": False}
            if s.guest_id is not None:
                seat.update(
                    name=names.get(s.guest_id, "Guest"),
                    kind="human",
                    bot=s.guest_id in bots,
                    guest=s.guest_id not in members,
                )
            elif s.robot_level is not None:
                seat.update(name=robot_name(s.robot_level), kind="robot", level=s.robot_level)
            players.append(seat)
        return players

    async def _names(self, rows: list[MatchRow]) -> tuple[dict[str, str], Collection[str], Collection[str]]:
        """The names of the people of `rows`, which of them are bot accounts, and which have an account."""
        ids = list({s.guest_id for r in rows for s in r.seats if s.guest_id})
        if not ids:
            return {}, (), ()
        names = {g.id: g.name for g in (await self.store.get_guests(ids)).values()}
        return names, set(await self.bots.of(ids)), set(await self.store.get_accounts(ids))

    async def my_matches(self, guest: GuestRow, limit: int = 100) -> list[dict[str, Any]]:
        """The guest's matches of every game, newest first, with who played, the scores and the result.

        Scores are per side (`side`: the guest's; team Gin's sides are its teams), the winner is a
        side too; for two-player Gin `opponent` names the other player.
        """
        rows = await self.store.matches_of(guest.id, limit)
        names, bots, members = await self._names(rows)
        changes: dict[str, list[RatingPoint]] = {}
        for point in await self.store.rating_changes([r.id for r in rows if r.rated and r.status == "over"]):
            changes.setdefault(point.match_id, []).append(point)
        items = []
        for row in rows:
            seat = next(s.seat for s in row.seats if s.guest_id == guest.id)
            players = self._players_of(row, names, bots, members)
            game = str(row.rules.get("game", "gin"))
            sides = 2 if game == "gin4_teams" else len(row.seats)
            opponent: dict[str, Any] = {"name": None, "kind": None, "level": None, "bot": False}
            if len(row.seats) == 2:
                opponent = players[1 - seat]
            live = self.live.get(row.id)
            if row.result is not None:
                scores = list(row.result["scores"])
            elif live is not None:
                scores = list(live.match.scores)
            else:
                scores = [0] * sides
            winner = row.result.get("winner") if row.result is not None else None
            items.append(
                {
                    "id": row.id,
                    "status": live.status if live is not None else row.status,
                    "game": game,
                    "players": players,
                    "opponent": opponent["name"],
                    "opponent_kind": opponent["kind"],
                    "opponent_level": opponent["level"],
                    "opponent_bot": opponent["bot"],
                    "opponent_guest": opponent.get("guest", False),
                    "scores": scores,
                    "side": seat % 2 if game == "gin4_teams" else seat,
                    "rules": row.rules,
                    "created_at": row.created_at,
                    "finished_at": row.finished_at,
                    "winner_seat": winner if game == "gin" else None,
                    "winner_side": winner,
                    "seat": seat,
                    # Per seat, what the match did to its rating (None: it moved none).
                    "ratings": seat_changes(changes.get(row.id, ()), [s.guest_id for s in row.seats], game),
                    "url": f"/m/{row.id}",
                }
            )
        return items

    async def replay(self, match_id: str) -> dict[str, Any]:
        """Every deal of a finished game, move by move, all cards face up, with seeds and commitments."""
        row = await self.store.get_match(match_id)
        if row is None:
            raise NotFound(f"no match {match_id!r}")
        if row.status != "over":
            # Nothing of an unfinished match is revealed: its seeds and hands are still secret.
            raise NotFinished("the match is not finished; its replay opens when it ends")
        game = (await ActionLog.rebuild(row, self.store)).game
        players = self._players_of(row, *await self._names([row]))
        return {
            "id": row.id,
            "game": game.rules.game,
            "rules": game.rules.to_json(),
            "players": players,
            "created_at": row.created_at,
            "finished_at": row.finished_at,
            "record": game.record().to_json(),
            "hands": replay_hands(game),
            # A match aborted, resigned or abandoned has the result stored when it ended.
            "result": game.result.to_json() if game.result is not None else row.result,
        }

    async def profile(self, guest_id: str, game: str = GAME) -> dict[str, Any]:
        """A person's public page: name, rating and its history, statistics and finished matches."""
        guest = await self.store.get_guest(guest_id)
        if guest is None:
            raise NotFound(f"no player {guest_id!r}")
        account = await self.store.get_account(guest_id)
        bot = (await self.bots.of([guest_id])).get(guest_id)
        if bot is not None:
            game = BOT_POOL  # a bot is rated in the bots' pool only
        ratings = await self.store.get_ratings([guest_id], game)
        history = await self.store.rating_history(guest_id, game)
        stats = await self.store.player_stats(guest_id, game)
        # The page of two-player Gin, the rated game: the other tables are in My matches.
        every = await self.store.matches_of(guest_id, 100)
        rows = [r for r in every if r.status == "over" and r.rules.get("game", "gin") == "gin"]
        rows = sorted(rows, key=lambda r: r.finished_at or 0.0, reverse=True)[:50]
        other_ids = [s.guest_id for r in rows for s in r.seats if s.guest_id and s.guest_id != guest_id]
        names = {g.id: g.name for g in (await self.store.get_guests(other_ids)).values()} if other_ids else {}
        bots = await self.bots.of(other_ids)
        members = await self.store.get_accounts(other_ids) if other_ids else {}
        moved = {p.match_id: p for p in history}
        recent = []
        for row in rows:
            seat = next(s.seat for s in row.seats if s.guest_id == guest_id)
            point = moved.get(row.id)
            other = row.seats[1 - seat]
            result = row.result or {}
            recent.append(
                {
                    "id": row.id,
                    "finished_at": row.finished_at,
                    "rated": row.rated,
                    "kind": row.kind,
                    "opponent": names.get(other.guest_id, "Guest")
                    if other.guest_id
                    else robot_name(other.robot_level or "casual"),
                    "opponent_id": other.guest_id,
                    "opponent_bot": other.guest_id in bots,
                    "opponent_guest": other.guest_id is not None and other.guest_id not in members,
                    "scores": [result.get("scores", [0, 0])[seat], result.get("scores", [0, 0])[1 - seat]],
                    # An aborted match has no winner, like a draw, but it was never played out.
                    "outcome": "aborted"
                    if result.get("ended") == "aborted"
                    else "drawn"
                    if result.get("winner") is None
                    else ("won" if result.get("winner") == seat else "lost"),
                    "rating": public_change(point) if point is not None else None,
                    "replay": f"/replay/{row.id}",
                }
            )
        played = stats.matches
        # The chart starts from the rating the first match shown started from, when it began.
        first = await self.store.get_match(history[0].match_id) if history else None
        owner = await self.store.get_guest(bot.owner_id) if bot is not None else None
        now = self.clock()
        # Each table game's own rating (Weng-Lin), for the games the person has been rated in.
        tables = {g: (await self.store.get_ratings([guest_id], g)).get(guest_id) for g in RATED_GAMES}
        return {
            "id": guest.id,
            "name": guest.name,
            "account": account is not None,
            "guest": account is None,
            # A bot account: who made it, and whether it is connected to take a challenge now.
            "bot": {
                "owner": {"id": bot.owner_id, "name": owner.name if owner else "?"},
                "online": self.challenges.online(guest_id) and bot.token_hash is not None,
            }
            if bot is not None
            else None,
            "member_since": account.created_at if account else guest.created_at,
            "game": game,
            "rating": public_rating(ratings.get(guest_id), now),
            "table_ratings": [
                {"game": g, **table_public_rating(row, now)} for g, row in tables.items() if row is not None
            ],
            "history": [
                {
                    "at": p.at,
                    "rating": round(p.rating),
                    "before": round(p.before),
                    "deviation": round(p.deviation),
                    "match_id": p.match_id,
                }
                for p in history
            ],
            "history_start": {"at": first.created_at, "rating": round(history[0].before)}
            if first is not None
            else None,
            "stats": {
                "matches": played,
                "won": stats.won,
                "drawn": stats.drawn,
                "lost": played - stats.won - stats.drawn,
                "win_rate": stats.won / played if played else None,
                "hands": stats.hands,
                "gin_rate": stats.gins / stats.hands if stats.hands else None,
                "undercut_rate": stats.undercuts / stats.hands if stats.hands else None,
                "knocks": stats.knocks,
                "knock_deadwood": stats.knock_deadwood / stats.knocks if stats.knocks else None,
            },
            "matches": recent,
            # The public games being played now (a bot's are all public, as on Lichess), to watch.
            "playing": [
                {"id": r.id, "watch": f"/watch/{r.id}"}
                for r in every
                if r.status == "playing" and (bot is not None or await self._public_row(r))
            ],
        }

    async def _public_row(self, row: MatchRow) -> bool:
        """True when a stored match may be listed to watch (as `live_games.is_public`, from its row)."""
        if row.kind == "online":
            return True
        if row.kind == "tourney":
            if row.tournament_id is None:
                return False
            listed = await self.store.get_tournament(row.tournament_id)
            return listed is not None and listed.listed
        return bool(await self.bots.of([s.guest_id for s in row.seats if s.guest_id is not None]))

    async def profile_by_name(self, name: str, game: str = GAME) -> dict[str, Any]:
        account = await self.store.get_account_by_name(name_key(name))
        if account is None:
            raise NotFound(f"no player named {name!r}")
        return await self.profile(account.guest_id, game)
