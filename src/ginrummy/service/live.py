"""A live match: the single writer of one match, its connections, its robots and its clocks.

Every accepted action is appended to the store and committed before it is applied in memory
and before any seat hears of it, so a crash at any moment loses nothing that was acknowledged.
Everything sent to a seat is built from `Match.view(seat)` / `Match.hand_view(seat, n)` plus
public metadata: no other path from the match state to the wire exists.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..bots import Player, suggest
from ..rules import (
    Action,
    ActionError,
    IllegalActionError,
    Match,
    NotYourTurnError,
    PublicStep,
    Rules,
    action_from_json,
    seed_commitment,
)
from .errors import encodable
from .ports import EventRow, LeaseLost, MatchKind, MatchStatus, SeatRow, StoreBusy, StoreError
from .robots import QUICK_LEVELS, resolve_level, robot_player
from .spectate import spectator_view

if TYPE_CHECKING:
    from .platform import GameService

__all__ = [
    "Connection",
    "LiveMatch",
    "SeatInfo",
    "STANDIN_LEVEL",
    "SHOWDOWN_PAUSE",
    "HINT_BURST",
    "HINT_RATE",
    "REACTIONS",
    "TIMEOUTS_GONE",
]

log = logging.getLogger("ginrummy.service")

STANDIN_LEVEL = "casual"  # plays for a disconnected or timed-out person
SHOWDOWN_PAUSE = 8.0  # seconds the table shows a showdown before the next deal
#: After this many turn clocks in a row run out, a player counts as gone: the stand-in robot plays
#: for them at once (as for a player who left) until they say they are back or act again.
TIMEOUTS_GONE = 2
#: The quick reactions a player may send the other: a fixed set, so there is nothing to moderate.
REACTIONS = ("hello", "good_luck", "nice", "wow", "oops", "thinking", "thanks", "gg")
REACTION_RATE = 0.5  # reactions a second a seat may send on average...
REACTION_BURST = 3  # ...and this many at once
#: Hints (casual matches only) a seat may ask for: one every 4 s on average, three at once. Asking
#: again about the same move costs nothing (the hint is kept until the table changes).
HINT_RATE = 0.25
HINT_BURST = 3
HINT_LEVEL = "expert"


class _Allowance:
    """A token bucket per seat: `rate` a second on average, `burst` at once."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = [self.burst, self.burst]
        self.at = [now, now]

    def take(self, seat: int, now: float) -> bool:
        tokens = min(self.burst, self.tokens[seat] + (now - self.at[seat]) * self.rate)
        self.at[seat] = now
        if tokens < 1.0:
            self.tokens[seat] = tokens
            return False
        self.tokens[seat] = tokens - 1.0
        return True


class Connection(Protocol):
    """One open socket of a seated player; `send_text` queues a message and never blocks."""

    def send_text(self, text: str) -> None: ...


@dataclass(slots=True)
class SeatInfo:
    """Who sits in a seat, as the table shows it."""

    seat: int
    kind: Literal["human", "robot"] | None = None
    guest_id: str | None = None
    level: str | None = None
    name: str | None = None
    #: For an empty seat kept for someone (a rematch not accepted yet): that player's name.
    invited: str | None = None
    #: A bot account (a program, service/bots.py): seated and treated as a person, shown as a bot.
    bot: bool = False


# One encoder for every message: json.dumps with options builds a new one on each call.
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


@functools.lru_cache(maxsize=64)
def _rules_texts(rules: Rules) -> tuple[str, dict[str, Any]]:
    """The rules as JSON text and what differs from the classic preset: a tournament's matches
    share their rules, so each is computed once (the dict is only ever read)."""
    return _dumps(rules.to_json()), rules.changes()


def error_message(code: str, message: str) -> str:
    """The {"type": "error"} message text (always encodable, whatever the message quotes)."""
    return _dumps({"type": "error", "code": code, "message": encodable(message)})


def _reveal_seed(showdown: dict[str, Any] | None, seed: int, *, match_over: bool) -> dict[str, Any] | None:
    # Only for finished hands: the seed lets anyone check the deal against the commitment. A void
    # hand is thrown in unseen, as at a real table: its seed (the whole deal) waits for the match's end.
    if showdown is None:
        return None
    if showdown["outcome"] == "void" and not match_over:
        return showdown
    return {**showdown, "seed": str(seed), "commitment": seed_commitment(seed)}


class LiveMatch:
    """One match being played: the only object that changes it (under `lock`)."""

    def __init__(
        self,
        service: GameService,
        *,
        match_id: str,
        kind: MatchKind,
        status: MatchStatus,
        match: Match,
        version: int,
        seats: list[SeatInfo],
        room_code: str | None,
        turn_seconds: float | None,
        rematch_id: str | None,
        rated: bool = False,
        tournament_id: str | None = None,
        ending: dict[str, Any] | None = None,
    ) -> None:
        self.service = service
        self.id = match_id
        self.kind = kind
        self.status: MatchStatus = status
        self.match = match
        self.version = version
        self.seats = seats
        self.room_code = room_code
        self.turn_seconds = turn_seconds
        self.rematch_id = rematch_id
        self.rated = rated  # rated matches are between people; no help (hints) is given in them
        self.tournament_id = tournament_id
        #: Casual matches give hints; rated and tournament matches never do.
        self.hints = not rated and tournament_id is None and kind != "tourney"
        #: The result of a match ended before the rules ended it: aborted, resigned or abandoned.
        self.ending = ending
        self._abandon: dict[int, asyncio.TimerHandle] = {}
        self.watchers: set[Connection] = set()  # spectators: they get `spectator_text` only
        self.lock = asyncio.Lock()
        self.conns: list[set[Connection]] = [set(), set()]
        now = self.clock()
        # A person counts as disconnected until a socket opens (also after a restart).
        self.disconnected_since: list[float | None] = [now if s.kind == "human" else None for s in seats]
        self.turn_started = now
        self.last_activity = now
        self.closed = False
        self._players: dict[int, Player] = {}  # robots, and stand-ins for absent people
        self._quick: dict[int, bool] = {}  # seat -> its robot decides on the event loop
        self.timeouts = [0, 0]  # turn clocks run out in a row, per seat
        self._reactions = _Allowance(REACTION_RATE, REACTION_BURST, now)
        self._hint_allowance = _Allowance(HINT_RATE, HINT_BURST, now)
        self._hint_cache: dict[int, tuple[int, str]] = {}  # seat -> (version, hint message text)
        self._timer: asyncio.TimerHandle | None = None
        self._thinking: tuple[int, int] | None = None  # (seat, version) of a robot move in progress
        self._tasks: set[asyncio.Task[None]] = set()
        self._last_hand_cache: dict[tuple[int, int], str] = {}
        self._rules_text, self._rule_changes = _rules_texts(match.rules)
        self._history_cache: list[tuple[int, int, str]] = [(0, 0, ""), (0, 0, "")]
        self._meta_cache: list[tuple[tuple[Any, ...], str]] = [((), ""), ((), "")]  # per seat: (key, text)
        self._commitment: tuple[int, str] = (-1, "")  # (deal seed, its commitment): one sha256 per hand

    @property
    def clock(self) -> Callable[[], float]:
        return self.service.clock

    # -- seats and connections -------------------------------------------------

    def seat_of(self, guest_id: str) -> int | None:
        """The seat `guest_id` sits in, or None."""
        for info in self.seats:
            if info.kind == "human" and info.guest_id == guest_id:
                return info.seat
        return None

    def seat_rows(self) -> tuple[SeatRow, ...]:
        """The seats as stored (who sits where)."""
        return tuple(SeatRow(s.seat, s.guest_id, s.level if s.kind == "robot" else None) for s in self.seats)

    def connected(self, seat: int) -> bool:
        return self.seats[seat].kind == "robot" or bool(self.conns[seat])

    def autoplay(self, seat: int) -> bool:
        """True when a stand-in robot plays for this person: gone past the grace period, or timed out."""
        if self.kind != "room" or self.seats[seat].kind != "human":
            return False
        if self.timeouts[seat] >= TIMEOUTS_GONE:
            return True
        at = self.autoplay_at(seat)
        return at is not None and self.clock() >= at

    def autoplay_at(self, seat: int) -> float | None:
        """When the stand-in robot takes over for this disconnected person (None while connected)."""
        since = self.disconnected_since[seat]
        if self.kind != "room" or self.seats[seat].kind != "human" or self.conns[seat] or since is None:
            return None
        return since + self.service.config.grace_seconds

    def connect(self, seat: int, conn: Connection) -> None:
        """A seated player's socket opened: it gets the state at once; the other seat hears of it."""
        first = not self.conns[seat]
        self.conns[seat].add(conn)
        self.last_activity = self.clock()
        timer = self._abandon.pop(seat, None)
        if timer is not None:
            timer.cancel()
        if first:
            self.disconnected_since[seat] = None
            self.timeouts[seat] = 0  # a player who opens the table again is at the keyboard
            self.broadcast()
            self.reschedule()
        else:
            conn.send_text(self.state_text(seat))

    def disconnect(self, seat: int, conn: Connection) -> None:
        """A socket closed; the last one closing starts the grace period."""
        self.conns[seat].discard(conn)
        self.last_activity = self.clock()
        if self.conns[seat] or self.closed:
            return
        self.disconnected_since[seat] = self.clock()
        self.watch_absence(seat)
        self.broadcast()
        self.reschedule()
        self.service.release(self)

    def has_connections(self) -> bool:
        return bool(self.conns[0] or self.conns[1] or self.watchers)

    def watch(self, conn: Connection) -> None:
        """A spectator's socket opened: it gets the public view now and after every change."""
        self.watchers.add(conn)
        self.last_activity = self.clock()
        conn.send_text(self.spectator_text())

    def unwatch(self, conn: Connection) -> None:
        self.watchers.discard(conn)
        self.last_activity = self.clock()
        self.service.release(self)

    def spectator_text(self) -> str:
        """What a spectator sees: the common part of both seats' views, never the match state itself."""
        match = self.match
        if self.status == "waiting":  # a room whose first hand is not dealt yet: nothing to see
            return _dumps(
                {"type": "spectate", "version": self.version, "match": {"id": self.id, "status": "waiting"}}
            )
        view = spectator_view(match.view(0), match.view(1))
        finished = len(match.hands) if match.hand.phase == "over" else len(match.hands) - 1
        last = None
        if finished >= 1 and match.hand.phase != "over":
            last = spectator_view(match.hand_view(0, finished), match.hand_view(1, finished))["showdown"]
        result = match.result.to_json() if match.result is not None else self.ending
        meta = {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "players": self._players_json(),
            "turn_deadline": self.turn_deadline(),
            "rated": self.rated,
            "tournament_id": self.tournament_id,
            "target": match.rules.target,
        }
        return _dumps(
            {
                "type": "spectate",
                "version": self.version,
                "match": meta,
                "view": view,
                "last_showdown": last,
                "result": result,
            }
        )

    def idle_since(self, now: float) -> float:
        """Seconds nobody has watched this match with nothing due in it (0 when busy)."""
        if self.has_connections() or self._timer is not None or self._thinking is not None or self._tasks:
            return 0.0
        return now - self.last_activity

    # -- outbound messages -----------------------------------------------------

    def turn_deadline(self) -> float | None:
        if self.status != "playing" or not self.turn_seconds or self.match.is_over:
            return None
        return self.turn_started + self.turn_seconds

    def _players_json(self) -> list[dict[str, Any]]:
        return [
            {
                "seat": s.seat,
                "name": s.name,
                "kind": s.kind,
                "level": s.level,
                "connected": self.connected(s.seat) if s.kind is not None else False,
                "autoplay": self.autoplay(s.seat),
                "autoplay_at": self.autoplay_at(s.seat),
                "timeouts": self.timeouts[s.seat],
                "invited": s.invited,
                "bot": s.bot,
            }
            for s in self.seats
        ]

    def _last_hand(self, seat: int, number: int) -> str:
        # A finished hand never changes: encode its view once per seat (text only, few objects to keep).
        key = (seat, number)
        cached = self._last_hand_cache.get(key)
        if cached is None:
            data = self.match.hand_view(seat, number).to_json()
            data["showdown"] = _reveal_seed(
                data["showdown"], self.match.hands[number - 1].seed, match_over=self.match.is_over
            )
            if len(self._last_hand_cache) > 8:
                self._last_hand_cache.clear()
            cached = self._last_hand_cache[key] = _dumps(data)
        return cached

    def _commitment_of(self, seed: int) -> str:
        cached_seed, text = self._commitment
        if cached_seed != seed:
            text = seed_commitment(seed)
            self._commitment = (seed, text)
        return text

    def _parts(self, seat: int, *, full: bool = True) -> tuple[dict[str, Any], dict[str, Any], int]:
        """The `match` metadata and the VIEW of `seat`, and the number of the last finished hand.

        With `full=False` the VIEW lacks "rules" and holds "history" as the View's own tuple of
        (shared, never to be changed) entries: `state_text` encodes those parts from caches.
        """
        match = self.match
        hand = match.hand
        if full:
            view = match.view(seat).to_json()
        else:
            v = match.view(seat)
            # The same fields as View.to_json, without copying the rules and every history entry.
            view = {
                "seat": v.seat,
                "dealer": v.dealer,
                "hand_number": v.hand_number,
                "scores": list(v.scores),
                "knock_limit": v.knock_limit,
                "phase": v.phase,
                "hand": v.hand.to_json(),
                "discard_pile": [str(c) for c in v.discard_pile],
                "stock_count": v.stock_count,
                "opponent_known": v.opponent_known.to_json(),
                "history": v.history,
                "legal": [a.to_json() for a in v.legal],
                "showdown": None if v.showdown is None else v.showdown.to_json(),
            }
        if hand.phase == "over":
            view["showdown"] = _reveal_seed(view["showdown"], hand.seed, match_over=match.is_over)
            last_number = len(match.hands)
        else:
            last_number = len(match.hands) - 1
        return self._meta(seat, self._commitment_of(hand.seed)), view, last_number

    def _meta(self, seat: int, commitment: str | None) -> dict[str, Any]:
        """The public `match` object of a state (without the rules)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "seat": seat,
            "players": self._players_json(),
            "turn_deadline": self.turn_deadline(),
            "commitment": commitment,
            "room_code": self.room_code,
            "rematch_id": self.rematch_id,
            # Every rule that differs from the classic preset, for the table to show.
            "rule_changes": self._rule_changes,
            "rated": self.rated,
            "tournament_id": self.tournament_id,
            "hints": self.hints,
            # Strangers may abort until both have moved, and resign after.
            "abortable": self.forfeitable
            and self.status == "playing"
            and not (self.moved(0) and self.moved(1)),
            "resignable": self.forfeitable and self.status == "playing",
        }

    def _waiting_state(self, seat: int) -> dict[str, Any]:
        """A room before the friend sits down: its first hand is not dealt for anyone yet, so
        the state has no view at all (no card, no upcard, no dealer) and no commitment."""
        meta = self._meta(seat, None)
        meta["rules"] = self.match.rules.to_json()
        return {
            "type": "state",
            "version": self.version,
            "match": meta,
            "view": None,
            "last_hand": None,
            "result": None,
        }

    def state(self, seat: int) -> dict[str, Any]:
        """The state message for `seat`: its VIEW, the last finished hand's VIEW, public metadata."""
        if self.status == "waiting":
            return self._waiting_state(seat)
        meta, view, last_number = self._parts(seat)
        meta["rules"] = self.match.rules.to_json()
        result = self.match.result
        return {
            "type": "state",
            "version": self.version,
            "match": meta,
            "view": view,
            "last_hand": json.loads(self._last_hand(seat, last_number)) if last_number >= 1 else None,
            "result": result.to_json() if result is not None else self.ending,
        }

    def _history_text(self, seat: int, view: dict[str, Any]) -> str:
        """The view's history as JSON text, encoding only the entries new since the last state.

        While a hand is being played an entry never changes for a given seat (a face-down knock
        is revealed only once the hand is over, and then the text is rebuilt in full).
        """
        entries: tuple[PublicStep, ...] = view.pop("history")
        if view["phase"] == "over":
            return _dumps([entry.to_json() for entry in entries])
        number, count, text = self._history_cache[seat]
        if number != view["hand_number"] or count > len(entries):
            number, count, text = view["hand_number"], 0, ""
        if count < len(entries):
            new = ",".join(_dumps(entry.to_json()) for entry in entries[count:])
            text = f"{text},{new}" if text else new
            count = len(entries)
        self._history_cache[seat] = (number, count, text)
        return f"[{text}]"

    def _meta_text(self, seat: int, meta: dict[str, Any]) -> str:
        """The `match` object as text without its closing brace; re-encoded only when a field changed."""
        key = (
            meta["status"],
            meta["turn_deadline"],
            meta["commitment"],
            meta["room_code"],
            meta["rematch_id"],
            meta["abortable"],
            *(tuple(p.values()) for p in meta["players"]),
        )
        cached_key, text = self._meta_cache[seat]
        if cached_key != key:
            text = _dumps(meta)[:-1]
            self._meta_cache[seat] = (key, text)
        return text

    def state_text(self, seat: int) -> str:
        """`state(seat)` as JSON text, with the parts that rarely change encoded once."""
        if self.status == "waiting":
            return _dumps(self._waiting_state(seat))
        meta, view, last_number = self._parts(seat, full=False)
        meta_text = self._meta_text(seat, meta)
        history = self._history_text(seat, view)
        result = self.match.result
        rules = self._rules_text
        return "".join(
            (
                '{"type":"state","version":',
                str(self.version),
                ',"match":',
                meta_text,
                ',"rules":',
                rules,
                '},"view":',
                _dumps(view)[:-1],
                ',"rules":',
                rules,
                ',"history":',
                history,
                '},"last_hand":',
                self._last_hand(seat, last_number) if last_number >= 1 else "null",
                ',"result":',
                _dumps(result.to_json() if result is not None else self.ending),
                "}",
            )
        )

    def broadcast(self) -> None:
        """Queue a fresh state to every open socket, each seat its own view, spectators the public one."""
        for seat in (0, 1):
            conns = self.conns[seat]
            if conns:
                text = self.state_text(seat)
                for conn in list(conns):
                    conn.send_text(text)
        if self.watchers:
            text = self.spectator_text()
            for conn in list(self.watchers):
                conn.send_text(text)

    # -- actions ---------------------------------------------------------------

    async def act(self, seat: int, data: Any, version: Any) -> tuple[str, str] | None:
        """A player's action message; returns (code, message) when refused, None when accepted."""
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            return "bad_message", f"version must be a whole number, got {version!r}"
        try:
            action = action_from_json(data)
        except ActionError as exc:
            return "bad_message", f"bad action: {exc}"
        async with self.lock:
            if self.closed:
                return "server_error", "the server is shutting down; reconnect in a moment"
            if version is not None and version != self.version:
                return (
                    "stale",
                    f"your table is out of date (version {version}, now {self.version}); it is refreshed",
                )
            if self.status == "waiting":
                return "illegal_action", "waiting for an opponent to join"
            if self.status == "over":
                return "illegal_action", "the match is over"
            try:
                self.match.check(action, seat)
            except NotYourTurnError:
                return "not_your_turn", "it is not your turn"
            except IllegalActionError as exc:
                return "illegal_action", str(exc)
            try:
                await self._accept(seat, action, by_player=True)
            except LeaseLost:  # cluster hook: another process owns the match now
                return "unavailable", "the table moved to another server; it reconnects"
            except StoreBusy as exc:
                return (
                    "unavailable",
                    f"the server is busy; nothing changed, try again in {exc.retry_after:g} s",
                )
            except StoreError:
                log.exception("match %s: could not store an action", self.id)
                return "server_error", "the move could not be saved; nothing changed, try again"
        return None

    def back(self, seat: int) -> None:
        """The player says they are back after timing out: the stand-in robot stops playing for them."""
        if self.timeouts[seat] == 0:
            return
        self.timeouts[seat] = 0
        self.turn_started = max(self.turn_started, self.clock())  # a whole clock for the move at hand
        self.broadcast()
        self.reschedule()

    def react(self, seat: int, emote: Any) -> tuple[str, str] | None:
        """A quick reaction for the other player; returns (code, message) when refused."""
        if emote not in REACTIONS:
            return "bad_message", f"unknown reaction {emote!r}; send one of {', '.join(REACTIONS)}"
        if not self._reactions.take(seat, self.clock()):
            return "rate_limited", "too many reactions: wait a moment"
        text = _dumps({"type": "reaction", "seat": seat, "emote": emote})
        for conns in self.conns:
            for conn in list(conns):
                conn.send_text(text)
        return None

    async def hint(self, seat: int, version: Any) -> str | tuple[str, str]:
        """The expert's move for this seat's own turn with its reason, as a `hint` message; or
        (code, message) when refused. Built from `Match.view(seat)` alone, like everything a seat
        is sent, so it can tell nothing the seat could not see."""
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            return "bad_message", f"version must be a whole number, got {version!r}"
        if not self.hints:
            return "hints_off", "hints are given in casual matches only, never in rated or tournament matches"
        if self.status != "playing":
            return "illegal_action", "there is no move to give a hint for: the match is not being played"
        if version is not None and version != self.version:
            return (
                "stale",
                f"your table is out of date (version {version}, now {self.version}); it is refreshed",
            )
        view = self.match.view(seat)
        if not view.legal:
            return "not_your_turn", "a hint is for your own turn, and it is not your turn"
        asked_at = self.version
        cached = self._hint_cache.get(seat)
        if cached is not None and cached[0] == asked_at:
            return cached[1]
        if not self._hint_allowance.take(seat, self.clock()):
            return "rate_limited", "too many hints: wait a few seconds"
        hint = await asyncio.to_thread(suggest, view, HINT_LEVEL, seed=asked_at)
        text = _dumps({"type": "hint", "version": asked_at, **hint.to_json()})
        self._hint_cache[seat] = (asked_at, text)
        return text

    async def _accept(
        self, seat: int, action: Action, *, by_player: bool = False, timed_out: bool = False
    ) -> None:
        """Store, then apply and announce a checked action. Call with `lock` held."""
        seq = self.version + 1
        event = EventRow(seq, seat, action.to_json())
        try:
            # Cluster hook: fenced by this process's lease of the match (a single process has none).
            fence = self.service.fence(self.id)
            if fence is None:
                await self.service.store.append_event(self.id, event)
            else:
                await self.service.store.append_event(self.id, event, fence=fence)
        except LeaseLost:
            self.service.lease_lost(self)
            raise
        result = self.match.apply(action, seat)
        if by_player:
            self.timeouts[seat] = 0
        elif timed_out:
            self.timeouts[seat] += 1
        self.version = seq
        now = self.last_activity = self.clock()
        self.turn_started = now + (SHOWDOWN_PAUSE if result is not None else 0.0)
        if result is not None:
            self._robots_observe()
        if self.match.result is not None:
            self.status = "over"
            final = self.match.result.to_json()
            stored: dict[str, Any] | None = final
            try:
                await self.service.store.finish_match(
                    self.id,
                    final,
                    now,
                    self.service.outcome_of(self.match, self.seat_rows(), self.rated, now),
                )
            except StoreError:
                # The log holds the final action: the next start marks the match finished.
                log.exception("match %s: could not mark the match finished", self.id)
                stored = None
            self.service.finished(self, stored, now)
        self.broadcast()
        self.reschedule()

    def _robots_observe(self) -> None:
        match = self.match
        number = len(match.hands) if match.is_over else len(match.hands) - 1
        for seat, player in self._players.items():
            try:
                player.observe(match.hand_view(seat, number))
            except Exception:
                log.exception("match %s: robot in seat %d failed to observe a hand", self.id, seat)

    # -- robots, the turn clock and absent players -----------------------------

    def _move_at(self, seat: int) -> tuple[float, bool] | None:
        """When the server should move for `seat` (robot, stand-in or clock), or None to wait;
        with True when that move is the turn clock running out on a person at the table."""
        config = self.service.config
        now = self.clock()
        info = self.seats[seat]
        if info.kind == "robot":
            return now + config.robot_delay, False
        if self.kind == "robot" or not self.connected(1 - seat):
            return None  # nobody is kept waiting
        if self.timeouts[seat] >= TIMEOUTS_GONE:
            return now + config.robot_delay, False  # timed out again and again: treated as gone
        present = bool(self.conns[seat])
        times: list[tuple[float, bool]] = []
        since = self.disconnected_since[seat]
        if since is not None and not present and self.kind == "room":
            # Friends get a stand-in; strangers who leave lose the match instead (watch_absence).
            times.append((since + config.grace_seconds, False))
        if self.turn_seconds:
            # The clock running out counts against a person at the table, not one who left.
            times.append((self.turn_started + self.turn_seconds, present))
        if not times:
            return None
        at, timed_out = min(times)
        return max(at, now + config.robot_delay), timed_out

    def reschedule(self) -> None:
        """Arrange the next server-made move, if one is due; cancel a stale one."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.closed or self.status != "playing" or self.match.is_over:
            return
        seat = self.match.to_act
        assert seat is not None
        if self._thinking == (seat, self.version):
            return
        due = self._move_at(seat)
        if due is None:
            return
        at, timed_out = due
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(
            max(0.0, at - self.clock()), self._start_move, seat, self.version, timed_out
        )

    def _start_move(self, seat: int, version: int, timed_out: bool = False) -> None:
        self._timer = None
        if self.closed:
            return
        task = asyncio.get_running_loop().create_task(self._server_move(seat, version, timed_out))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _player(self, seat: int) -> Player:
        player = self._players.get(seat)
        if player is None:
            info = self.seats[seat]
            level = info.level if info.kind == "robot" and info.level else STANDIN_LEVEL
            player = robot_player(level, time_budget=self.service.config.robot_time_budget)
            self._players[seat] = player
            self._quick[seat] = resolve_level(level) in QUICK_LEVELS
        return player

    async def _server_move(self, seat: int, version: int, timed_out: bool = False) -> None:
        if self.version != version or self.match.to_act != seat or self.status != "playing":
            return
        player = self._player(seat)
        view = self.match.view(seat)  # the robot gets this seat's view and nothing else
        self._thinking = (seat, version)
        action: Action | None
        try:
            if self._quick[seat]:
                action = player.act(view)
            else:
                action = await asyncio.to_thread(player.act, view)
        except Exception:
            log.exception("match %s: robot in seat %d failed to choose", self.id, seat)
            action = None
        finally:
            self._thinking = None
        async with self.lock:
            if self.closed or self.version != version or self.status != "playing":
                return
            if action is None or action not in view.legal:
                log.error(
                    "match %s: robot in seat %d chose an illegal action; it plays a legal one", self.id, seat
                )
                action = view.legal[0]
            try:
                await self._accept(seat, action, timed_out=timed_out)
            except StoreError:
                log.exception("match %s: could not store a robot move; retrying", self.id)
                loop = asyncio.get_running_loop()
                self._timer = loop.call_later(1.0, self.reschedule)

    async def close(self) -> None:
        """Stop timers and robot moves (server shutdown)."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for timer in self._abandon.values():
            timer.cancel()
        self._abandon.clear()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- aborting, resigning and leaving a match with a stranger --------------------

    @property
    def forfeitable(self) -> bool:
        """Matches between strangers (quick pairing, tournaments) can be aborted, resigned and abandoned."""
        return self.kind in ("online", "tourney")

    def moved(self, seat: int) -> bool:
        """True once `seat` has made a move in this match."""
        return any(step.seat == seat for hand in self.match.hands for step in hand.steps)

    def watch_absence(self, seat: int) -> None:
        """A person of a match with a stranger who stays away `grace_seconds` leaves it (see `_left`)."""
        if not self.forfeitable or self.status != "playing" or self.seats[seat].kind != "human":
            return
        if self.conns[seat] or seat in self._abandon or self.closed:
            return
        loop = asyncio.get_running_loop()
        grace = self.service.config.grace_seconds
        self._abandon[seat] = loop.call_later(grace, self._start_leaving, seat)

    def _start_leaving(self, seat: int) -> None:
        task = asyncio.get_running_loop().create_task(self._left(seat))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _left(self, seat: int) -> None:
        self._abandon.pop(seat, None)
        async with self.lock:
            if self.closed or self.status != "playing" or self.conns[seat]:
                return
            await self._end_early(seat, "abandoned")

    async def abort(self, seat: int) -> tuple[str, str] | None:
        """End the match with no result, allowed until both players have moved."""
        async with self.lock:
            if not self.forfeitable or self.status != "playing":
                return "illegal_action", "only a match with a stranger that is being played can be aborted"
            if self.moved(0) and self.moved(1):
                return (
                    "illegal_action",
                    "both players have moved: the match can no longer be aborted (resign instead)",
                )
            await self._end_early(seat, "aborted")
        return None

    async def resign(self, seat: int) -> tuple[str, str] | None:
        """Give the match up: the opponent wins it (before both have moved, it is aborted instead)."""
        async with self.lock:
            if not self.forfeitable or self.status != "playing":
                return "illegal_action", "only a match with a stranger that is being played can be resigned"
            await self._end_early(seat, "resigned")
        return None

    async def _end_early(self, seat: int, reason: str) -> None:
        """Finish the match for a reason of its own. Call with `lock` held."""
        if reason != "aborted" and not (self.moved(0) and self.moved(1)):
            reason = "aborted"  # leaving before both have moved costs nothing
        match = self.match
        winner = None if reason == "aborted" else 1 - seat
        scores = list(match.scores)
        hands_won = [0, 0]
        for hand in match.hands:
            if hand.result is not None and hand.result.scorer is not None and hand.result.points:
                hands_won[hand.result.scorer] += 1
        self.ending = {
            "winner": winner,
            "scores": scores,
            "points": scores,
            "hands_won": hands_won,
            "game_bonus": [0, 0],
            "box_bonus": [0, 0],
            "shutout_bonus": [0, 0],
            "hands_played": len(match.hands),
            "ended": reason,
            "by": seat,
        }
        self.status = "over"
        now = self.last_activity = self.clock()
        outcome = self.service.ended_outcome(self, winner, now) if winner is not None else None
        stored: dict[str, Any] | None = self.ending
        try:
            await self.service.store.finish_match(self.id, self.ending, now, outcome)
        except StoreError:
            log.exception("match %s: could not store its early end", self.id)
            stored = None
        for timer in self._abandon.values():
            timer.cancel()
        self._abandon.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.service.finished(self, stored, now)
        self.broadcast()
