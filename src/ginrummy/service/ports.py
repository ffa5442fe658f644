"""The storage ports: the records the web service keeps and what it needs from storage.

One narrow port per aggregate (guests, matches and their moves, analyses, accounts, bots,
ratings and boards, tournaments, fair play, failed sign-ins, leases); a use case depends on the
ports it uses (`ActionLog` on `EventStore` alone, `FairPlay` on `FairPlayStore`), and `Store` is
all of them, what `storage.sql.SqlStore` implements and the service's host hands out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

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

#: robot: a person against a robot; room: friends by a private link; online: strangers paired by
#: the quick-pairing pool; tourney: a tournament's pairing.
MatchKind = Literal["robot", "room", "online", "tourney"]
MatchStatus = Literal["waiting", "playing", "over"]
#: A replay analysis waits its turn, is being made, is stored, or could not be made.
AnalysisStatus = Literal["queued", "running", "done", "failed"]


class StoreError(RuntimeError):
    """The store refused or failed an operation (a conflict, a lost connection)."""


class StoreBusy(StoreError):
    """The database could not take the work in time (another process holds a lock); nothing was
    changed, and trying again after `retry_after` seconds is worth it."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class LeaseLost(StoreError):
    """A write fenced by a lease its writer no longer holds (another process took the match over,
    or the lease ran out): nothing was written."""


@dataclass(frozen=True, slots=True)
class Lease:
    """The right of one server process to run one live thing ("match:ID", "tournament:ID") alone.

    `epoch` grows by one each time the lease changes hands; a write fenced by a lease is refused
    unless the lease still has this owner and epoch and has not run out. `expires_at` is seconds
    on the database's clock (the processes' own clocks may differ).
    """

    name: str
    owner: str
    epoch: int
    expires_at: float


@dataclass(frozen=True, slots=True)
class GuestRow:
    """A guest identity: the id its cookie signs and its display name."""

    id: str
    name: str
    created_at: float
    #: Raised by signing out everywhere: cookies of an older epoch sign nobody in.
    session_epoch: int = 0


@dataclass(frozen=True, slots=True)
class SeatRow:
    """Who sits in a seat: a guest, a robot of some level, or nobody yet."""

    seat: int
    guest_id: str | None = None
    robot_level: str | None = None
    #: The seat's rating when the match was made (tournament matches: a robot's is its level's):
    #: the arena's performance tie-break counts it, so the standings rebuilt after a restart are
    #: the ones kept up to date before.
    rating: float | None = None

    @property
    def empty(self) -> bool:
        return self.guest_id is None and self.robot_level is None


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A match as stored: its secret seed, rules, seats and status (the actions are events)."""

    id: str
    kind: MatchKind
    status: MatchStatus
    rules: dict[str, Any]
    seed: str
    seats: tuple[SeatRow, ...]  # one per seat of the game, in seat order
    created_at: float
    room_code: str | None = None
    turn_seconds: float | None = None
    finished_at: float | None = None
    result: dict[str, Any] | None = None
    rematch_of: str | None = None
    rematch_id: str | None = None
    #: Bits of each deal's seed (`deal_seed`): 256 for every match made now; 64 for those stored
    #: before, which keep dealing as they began.
    deal_bits: int = 256
    #: Rated matches change both players' ratings and count on the points leaderboards (people
    #: only); hints and other help are refused in them.
    rated: bool = False
    tournament_id: str | None = None
    round: int | None = None  # a Swiss tournament's round


@dataclass(frozen=True, slots=True)
class EventRow:
    """One accepted action: its 1-based sequence number in the match, the seat and the ACTION JSON."""

    seq: int
    seat: int
    action: dict[str, Any]
    #: The server moved for the seat (a robot, or a stand-in when the turn clock ran out).
    auto: bool = False


@dataclass(frozen=True, slots=True)
class AnalysisRow:
    """A finished match's replay analysis as stored: its status, the engine that makes it, the result."""

    match_id: str
    status: AnalysisStatus
    engine: str
    requested_at: float
    finished_at: float | None = None
    result: dict[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class AccountRow:
    """A claimed guest: a unique name (`name_key` is its case-folded form) and an Argon2id hash."""

    guest_id: str
    name: str
    name_key: str
    password_hash: str
    created_at: float
    name_changed_at: float


@dataclass(frozen=True, slots=True)
class BotRow:
    """A bot account: its own guest and account (a unique name), the person who made it, and the
    SHA-256 of its API token (None: no token, or revoked). The token itself is never stored."""

    guest_id: str
    owner_id: str
    created_at: float
    token_hash: str | None = None
    token_at: float | None = None  # when the current token was issued


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A person's Glicko-2 rating in one game as stored after their last rated match."""

    guest_id: str
    game: str
    rating: float
    deviation: float
    volatility: float
    games: int
    last_at: float
    #: Until when the rating's deviation stays within the leaderboard's bound (0: not ranked).
    ranked_until: float = 0.0


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """One point of a rating history: a person's rating before and after a rated match."""

    guest_id: str
    match_id: str
    at: float
    before: float  # the rating the match started from
    rating: float  # the rating it left
    deviation: float  # the deviation it left


@dataclass(frozen=True, slots=True)
class PlayerLine:
    """What one person did in a finished match: the result and the counts of the profile statistics."""

    guest_id: str
    seat: int
    score: float  # 1 won, 0.5 drawn, 0 lost
    points: int  # their final score in the match
    hands: int
    gins: int
    undercuts: int  # hands they won by undercutting a knock
    knocks: int  # their knocks, gins included
    knock_deadwood: int  # their deadwood summed over those knocks
    opponent_id: str | None = None
    opponent_robot: str | None = None


BoardPart = tuple[int, int]  # a points leaderboard's window: (span in days, its last UTC day)

#: Computes the new ratings of a rated match from the stored ones (missing: never rated): each
#: person's rating before the match, with the row it leaves.
RatingUpdate = Callable[[dict[str, "RatingRow | None"]], list[tuple[float, "RatingRow"]]]


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """Everything a finished match adds besides its result, written in the same transaction."""

    game: str
    lines: tuple[PlayerLine, ...]
    day: int  # the UTC day it finished on (unix seconds // 86400)
    counts: bool  # on the points leaderboards (rated, between people)
    buckets: tuple[BoardPart, ...] = ()  # the leaderboard windows it adds to
    rate: RatingUpdate | None = None


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A person's totals over their finished matches in one game."""

    matches: int = 0
    won: int = 0
    drawn: int = 0
    hands: int = 0
    gins: int = 0
    undercuts: int = 0
    knocks: int = 0
    knock_deadwood: int = 0


@dataclass(frozen=True, slots=True)
class BoardLine:
    """One person's line on a leaderboard: rank and what it is ranked by."""

    rank: int
    guest_id: str
    wins: int
    points: int
    matches: int
    rating: float | None = None
    deviation: float | None = None


@dataclass(frozen=True, slots=True)
class TournamentRow:
    """A tournament as stored: an arena runs from `starts_at` to `ends_at` with these options; a Swiss
    plays `rounds` rounds from `starts_at` (its `ends_at` is when it finished), `round` of them paired."""

    id: str
    name: str
    format: str  # "arena" or "swiss"
    status: str  # "created", "started", "finished"
    starts_at: float
    ends_at: float
    rules: dict[str, Any]
    turn_seconds: float | None
    rated: bool
    robots: bool  # a robot may fill in for an odd number of waiting people
    listed: bool  # shown on the home page; otherwise reached by its link only
    created_by: str | None
    created_at: float
    rounds: int | None = None
    round: int = 0


@dataclass(frozen=True, slots=True)
class FlagRow:
    """A rated result that looks arranged (service/fairplay.py): the match, the kind of suspicion,
    who gained and who lost, when, and the evidence (JSON)."""

    match_id: str
    kind: str
    winner_id: str
    loser_id: str
    at: float
    evidence: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TournamentPlayer:
    guest_id: str
    joined_at: float
    withdrawn: bool = False
    paused: bool = False


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
