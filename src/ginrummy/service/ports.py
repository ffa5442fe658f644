"""The storage ports: what the web service needs from storage (its records are in `records`,
re-exported here so a port and the rows it takes are imported together).

One narrow port per aggregate (guests, matches and their moves, analyses, accounts, bots,
ratings and boards, tournaments, fair play, failed sign-ins, leases); a use case depends on the
ports it uses (`ActionLog` on `EventStore` alone, `FairPlay` on `FairPlayStore`), and `Store` is
all of them, what `storage.sql.SqlStore` implements and the service's host hands out.
"""

from __future__ import annotations

from typing import Any, Protocol

from .records import (
    AccountRow,
    AnalysisRow,
    AnalysisStatus,
    BoardLine,
    BoardPart,
    BotRow,
    EventRow,
    FlagRow,
    GuestRow,
    Lease,
    LeaseLost,
    MatchKind,
    MatchOutcome,
    MatchRow,
    MatchStatus,
    PlayerLine,
    PlayerStats,
    RatingPoint,
    RatingRow,
    RatingUpdate,
    SeatRow,
    StoreBusy,
    StoreError,
    TournamentPlayer,
    TournamentRow,
)

__all__ = [
    "AccountRow",
    "AccountStore",
    "AnalysisRow",
    "AnalysisStatus",
    "AnalysisStore",
    "BoardLine",
    "BoardPart",
    "BotRow",
    "BotStore",
    "EventRow",
    "EventStore",
    "FairPlayStore",
    "FlagRow",
    "GuestRow",
    "GuestStore",
    "Lease",
    "LeaseLost",
    "LeaseStore",
    "MatchKind",
    "MatchOutcome",
    "MatchRow",
    "MatchStatus",
    "MatchStore",
    "PlayerLine",
    "PlayerStats",
    "RatingPoint",
    "RatingRow",
    "RatingStore",
    "RatingUpdate",
    "SeatRow",
    "SignInFailures",
    "Store",
    "StoreBusy",
    "StoreError",
    "TournamentPlayer",
    "TournamentRow",
    "TournamentStore",
]


class SignInFailures(Protocol):
    """Failed sign-ins by key (what a failure counts against), shared by every process of a site.

    Times are the server's wall clock, in seconds.
    """

    async def sign_in_failures(self, keys: list[str], since: float) -> dict[str, list[float]]:
        """Each key's failures after `since`, oldest first (an empty list for a key with none)."""
        ...

    async def add_sign_in_failure(self, keys: list[str], at: float, forget_before: float) -> None:
        """Count one failure at `at` against each key, and forget every failure at or before
        `forget_before` (of any key)."""
        ...

    async def clear_sign_in_failures(self, key: str) -> None:
        """Forget the failures counted against `key`."""
        ...


class GuestStore(Protocol):
    """Guests and their sessions: who a cookie names."""

    async def create_guest(self, guest: GuestRow) -> None: ...

    async def get_guest(self, guest_id: str) -> GuestRow | None: ...

    async def get_guests(self, guest_ids: list[str]) -> dict[str, GuestRow]: ...

    async def rename_guest(self, guest_id: str, name: str) -> None: ...

    async def cookie_guest(self, guest_id: str, session_hash: str | None) -> GuestRow | None:
        """The guest a true cookie signature names, if the cookie still signs it in: with
        `session_hash`, the guest of that live session; without, a guest that has no account (an
        account signs in by its sessions only)."""
        ...

    async def create_session(self, session_hash: str, guest_id: str, at: float) -> None:
        """Keep a new session of an account (`session_hash`: the SHA-256 of its token)."""
        ...

    async def end_session(self, session_hash: str) -> bool:
        """Forget one session (its cookie signs nobody in any more); whether it existed."""
        ...

    async def revoke_sessions(self, guest_id: str) -> int:
        """End every session of the guest and raise its session epoch (every cookie given before
        stops working); the new epoch."""
        ...


class EventStore(Protocol):
    """A match's moves: appended one by one, read back to rebuild it."""

    async def append_event(self, match_id: str, event: EventRow, fence: Lease | None = None) -> None:
        """Append one action; raises `StoreError` if that sequence number exists already.

        With `fence`, the action is written only while that lease is held (same owner and epoch,
        not run out), in the same transaction; otherwise `LeaseLost` and nothing is written.
        """
        ...

    async def events(self, match_id: str) -> list[EventRow]: ...


class MatchStore(EventStore, Protocol):
    """Matches: their seats, their moves (`EventStore`), their ends, who played what."""

    async def create_match(self, match: MatchRow) -> None: ...

    async def create_matches(self, matches: list[MatchRow], fence: Lease | None = None) -> None:
        """Store several matches in one transaction (an arena's pairing wave): all or none.

        With `fence` (a cluster: the lease of the pool or tournament pairing them), they are stored
        only while that lease is held, in the same transaction; otherwise `LeaseLost`, nothing stored.
        """
        ...

    async def get_match(self, match_id: str) -> MatchRow | None: ...

    async def get_match_by_code(self, code: str) -> MatchRow | None: ...

    async def take_seat(self, match_id: str, seat: int, guest_id: str) -> bool:
        """Seat a guest in an empty seat, and mark the match playing if no seat is left empty;
        False if the seat was taken."""
        ...

    async def finish_match(
        self,
        match_id: str,
        result: dict[str, Any],
        finished_at: float,
        outcome: MatchOutcome | None = None,
    ) -> None:
        """Mark the match over; with `outcome`, also add its statistics, boards and ratings, atomically.

        Idempotent: a match already over is left as it is (its outcome was written with it).
        """
        ...

    async def set_rematch(self, match_id: str, rematch: MatchRow) -> str:
        """Create `rematch` and link it, unless a rematch exists already; returns the rematch's id."""
        ...

    async def live_matches(self, active_since: float | None = None) -> list[MatchRow]:
        """Every match not over yet; with `active_since`, only those created or played since then."""
        ...

    async def matches_of(self, guest_id: str, limit: int = 100) -> list[MatchRow]:
        """The guest's matches, newest first."""
        ...

    # -- accounts ----------------------------------------------------------------


class AnalysisStore(Protocol):
    """Replay analyses: queued, made, kept."""

    async def request_analysis(self, match_id: str, engine: str, at: float) -> AnalysisRow:
        """The analysis of `match_id`: the stored one when it exists and was made (or is being made)
        by `engine`; otherwise a new one queued at `at` (a failed analysis or another engine's is
        queued again)."""
        ...

    async def get_analysis(self, match_id: str) -> AnalysisRow | None: ...

    async def set_analysis(
        self,
        match_id: str,
        status: AnalysisStatus,
        at: float,
        *,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        """Move an analysis on: running, done with its `result`, or failed with an `error`."""
        ...

    async def unfinished_analyses(self) -> list[str]:
        """The matches whose analysis is queued or was running, oldest request first."""
        ...


class AccountStore(Protocol):
    """Accounts: a guest that claimed its name."""

    async def create_account(self, account: AccountRow) -> None:
        """Claim a guest; raises `StoreError` if the name or the guest is taken already."""
        ...

    async def get_account(self, guest_id: str) -> AccountRow | None: ...

    async def get_account_by_name(self, name_key: str) -> AccountRow | None: ...

    async def get_accounts(self, guest_ids: list[str]) -> dict[str, AccountRow]: ...

    async def rename_account(self, guest_id: str, name: str, name_key: str, at: float) -> None:
        """Change an account's name (and its guest's); raises `StoreError` if the name is taken."""
        ...

    # -- bot accounts ----------------------------------------------------------------


class BotStore(Protocol):
    """Bot accounts and their tokens."""

    async def create_bot(self, guest: GuestRow, account: AccountRow, bot: BotRow) -> None:
        """Make the bot's guest, account and bot rows in one transaction; raises `StoreError` if the
        name is taken."""
        ...

    async def get_bots(self, guest_ids: list[str]) -> dict[str, BotRow]:
        """The bots among these guests."""
        ...

    async def bots_of(self, owner_id: str) -> list[BotRow]:
        """The bots a person made, oldest first."""
        ...

    async def set_bot_token(self, guest_id: str, token_hash: str | None, at: float) -> None:
        """Replace the bot's token hash (None revokes it)."""
        ...

    # -- ratings, statistics, leaderboards -----------------------------------------


class RatingStore(Protocol):
    """Ratings, their history, statistics and the leaderboards made from finished matches."""

    async def get_ratings(self, guest_ids: list[str], game: str) -> dict[str, RatingRow]: ...

    async def rating_history(self, guest_id: str, game: str, limit: int = 500) -> list[RatingPoint]:
        """The rating before and after each rated match, oldest first (the last `limit`)."""
        ...

    async def rating_changes(self, match_ids: list[str]) -> list[RatingPoint]:
        """What the rated matches of `match_ids` did to their players' ratings (unrated ones: nothing)."""
        ...

    async def player_stats(self, guest_id: str, game: str) -> PlayerStats: ...

    async def points_board(
        self, game: str, window: BoardPart, limit: int, guest_id: str | None
    ) -> tuple[list[BoardLine], BoardLine | None]:
        """The top `limit` of a window by wins then points, and `guest_id`'s line (any rank)."""
        ...

    async def rating_board(
        self, game: str, now: float, limit: int, guest_id: str | None
    ) -> tuple[list[BoardLine], BoardLine | None]:
        """The top `limit` ratings ranked at `now`, and `guest_id`'s line if it is ranked."""
        ...

    # -- tournaments ---------------------------------------------------------------


class TournamentStore(Protocol):
    """Tournaments: their players, rounds, byes and matches."""

    async def create_tournament(self, tournament: TournamentRow) -> None: ...

    async def get_tournament(self, tournament_id: str) -> TournamentRow | None: ...

    async def tournaments(
        self, statuses: tuple[str, ...], *, listed_only: bool, created_by: str | None = None
    ) -> list[TournamentRow]:
        """Tournaments in these states (made by `created_by`, if given), soonest first."""
        ...

    async def set_tournament_status(
        self, tournament_id: str, status: str, *, ends_at: float | None = None, fence: Lease | None = None
    ) -> None:
        """Change the state (and, when given, the end time). `fence` as for `create_matches`."""
        ...

    async def start_round(
        self,
        tournament_id: str,
        round_number: int,
        matches: list[MatchRow],
        byes: list[str],
        fence: Lease | None = None,
    ) -> bool:
        """Pair Swiss round `round_number` in one transaction: its matches, its byes, and the
        tournament's round counter, which must stand at `round_number - 1`; False (nothing written)
        when it does not (another process paired it). `fence` as for `create_matches`."""
        ...

    async def tournament_byes(self, tournament_id: str) -> list[tuple[int, str]]:
        """(round, guest id) of every pairing-allocated bye."""
        ...

    async def set_tournament_player(
        self, tournament_id: str, player: TournamentPlayer, fence: Lease | None = None
    ) -> None:
        """Add the player, or change whether it is withdrawn or paused. `fence` as for
        `create_matches`."""
        ...

    async def tournament_players(self, tournament_id: str) -> list[TournamentPlayer]: ...

    async def tournament_matches(self, tournament_id: str) -> list[MatchRow]: ...

    # -- fair play -------------------------------------------------------------------


class FairPlayStore(Protocol):
    """What fair play checks: the addresses guests play from, their games together, the flags raised."""

    async def note_address(self, guest_id: str, address: str, at: float) -> None:
        """Remember that `guest_id` entered rated play from `address` at `at`."""
        ...

    async def guests_seen_at(self, address: str, since: float) -> list[str]:
        """The guests that entered rated play from `address` at `since` or later."""
        ...

    async def shared_addresses(self, first: str, second: str) -> list[str]:
        """The addresses both guests entered rated play from (they are linked when there is one)."""
        ...

    async def head_to_head(self, first: str, second: str, game: str, since: float) -> list[tuple[str, float]]:
        """The rated matches between the two finished since `since`, oldest first, as (match id,
        `first`'s score: 1 won, 0.5 drawn, 0 lost)."""
        ...

    async def add_flag(self, flag: FlagRow) -> None:
        """Record a suspicious result (a second one of the same match and kind changes nothing)."""
        ...

    async def flags(self, limit: int) -> list[FlagRow]:
        """The `limit` newest suspicious results, newest first."""
        ...


class Store(
    GuestStore,
    MatchStore,
    AnalysisStore,
    AccountStore,
    BotStore,
    RatingStore,
    TournamentStore,
    FairPlayStore,
    SignInFailures,
    Protocol,
):
    """Everything the service needs from storage, one port per aggregate above (a use case
    depends only on the ports it uses). Every write is committed when the awaitable returns."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def get_or_create_setting(self, key: str, value: str) -> str:
        """The stored value of `key`, storing `value` first if there is none."""
        ...


class LeaseStore(Protocol):
    """Leases in the shared database, for many server processes (used only when they are configured).

    Every time is on the database's clock; `ttl` is in seconds.
    """

    async def claim_lease(self, name: str, owner: str, ttl: float) -> Lease:
        """Take the lease if nobody holds it or it ran out (a new epoch); keep it if `owner` holds it.

        Returns the lease as it now stands: `lease.owner != owner` means another process holds it.
        """
        ...

    async def renew_leases(self, owner: str, ttl: float) -> list[Lease]:
        """Extend every lease `owner` still holds (one statement); returns them."""
        ...

    async def release_lease(self, lease: Lease) -> bool:
        """Give the lease up at once (if still held with that epoch), so another process may take it."""
        ...

    async def claim_expired(
        self, owner: str, ttl: float, prefix: str, limit: int, lapsed_for: float = 0.0
    ) -> list[Lease]:
        """Take over up to `limit` leases named `prefix`... whose holder let them run out (at least
        `lapsed_for` seconds ago)."""
        ...

    async def get_lease(self, name: str) -> Lease | None: ...
