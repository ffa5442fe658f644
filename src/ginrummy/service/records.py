"""The records the web service keeps: matches and their seats and moves, guests, accounts, bots,
ratings, tournaments, fair-play flags, leases, and the errors a store raises (`ports` says what
a store does with them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "AccountRow",
    "AnalysisRow",
    "AnalysisStatus",
    "BoardLine",
    "BoardPart",
    "BotRow",
    "EventRow",
    "FlagRow",
    "GuestRow",
    "Lease",
    "LeaseLost",
    "MatchKind",
    "MatchOutcome",
    "MatchRow",
    "MatchStatus",
    "PlayerLine",
    "PlayerStats",
    "RatingPoint",
    "RatingRow",
    "RatingUpdate",
    "SeatRow",
    "StoreBusy",
    "StoreError",
    "TournamentPlayer",
    "TournamentRow",
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
