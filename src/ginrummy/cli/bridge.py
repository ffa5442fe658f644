"""The bridge of `ginrummy connect`: a stdio engine (docs/protocol.md version 1) plays as a bot account.

It keeps the bot's event stream open (docs/bots-online.md), answers challenges by its filter,
and plays each accepted game through its own engine process: every `state` the site sends for
the bot's seat carries the seat's VIEW, which goes to the engine as `act` when the seat has
something to do and as `result` once a hand is over. A dropped connection is opened again after
a growing, jittered wait (1 s doubling to 60 s); a refused token stops the bridge, since retrying
cannot help. The first Ctrl+C takes no new challenge and lets the games in progress finish; a
second quits at once (the site's stand-in then plays for the bot, as for a person who left).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

import websockets

from ..engine import EngineFailure, EnginePlayer
from ..rules import View

__all__ = ["Bridge", "ChallengeFilter", "TokenRefused", "socket_url"]

BACKOFF_MIN, BACKOFF_MAX = 1.0, 60.0
TOKEN_ERRORS = ("invalid_token", "token_revoked")
CLOSE_UNAUTHORIZED = 4401


class TokenRefused(Exception):
    """The site refused the bot's token (never issued, revoked or replaced)."""


def socket_url(server: str, path: str) -> str:
    """The WebSocket address of `path` on the site at `server` (http → ws, https → wss).

    >>> socket_url("https://cards.example/", "/api/bot/stream")
    'wss://cards.example/api/bot/stream'
    >>> socket_url("127.0.0.1:8000", "/api/bot/game/x")
    'ws://127.0.0.1:8000/api/bot/game/x'
    """
    if "://" not in server:
        server = f"http://{server}"
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https", "ws", "wss"):
        raise ValueError(f"the server must be an http:// or https:// address, got {server!r}")
    scheme = "wss" if parts.scheme in ("https", "wss") else "ws"
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + path, "", ""))


@dataclass(frozen=True, slots=True)
class ChallengeFilter:
    """Which challenges the bridge accepts; `decline_reason` says why one is declined (or None)."""

    presets: frozenset[str] | None = None  # None: every preset
    min_target: int = 1
    max_target: int = 500
    rated: bool | None = None  # None: rated and casual; True: rated only; False: casual only
    min_clock: float = 0.0  # seconds per move, at least
    max_games: int = 1  # games at once

    def decline_reason(self, challenge: dict[str, Any], playing: int) -> str | None:
        if playing >= self.max_games:
            return "later"
        if self.presets is not None and challenge.get("preset") not in self.presets:
            return "rules"
        if not self.min_target <= int(challenge.get("target", 0)) <= self.max_target:
            return "target"
        if self.rated is True and not challenge.get("rated"):
            return "rated"  # "send me a rated challenge instead"
        if self.rated is False and challenge.get("rated"):
            return "casual"
        if float(challenge.get("turn_seconds") or 0) < self.min_clock:
            return "clock"
        return None


class Bridge:
    """One bot account on one site, its games played by `engine` processes (one per game)."""

    def __init__(
        self,
        server: str,
        token: str,
        engine: str,
        *,
        accept: ChallengeFilter | None = None,
        move_time: float | None = None,
        frames: IO[str] | None = None,
        say: Callable[[str], None] = print,
    ) -> None:
        self.server = server
        self.headers = {"Authorization": f"Bearer {token}"}
        self.engine = engine
        self.accept = accept or ChallengeFilter()
        self.move_time = move_time
        self.frames = frames
        self.say = say
        self.name = "the bot"
        self.games: dict[str, asyncio.Task[None]] = {}
        self.draining = False  # after the first Ctrl+C: no new challenge, the games finish
        self.refused: str | None = None  # why the site refused the token
        self._keep: set[asyncio.Task[None]] = set()
        socket_url(server, "/")  # a bad address fails here, before anything runs

    # -- running ---------------------------------------------------------------

    def _probe(self) -> str:
        """Start the engine once and say hello, so a broken command fails before any challenge."""
        with EnginePlayer(self.engine, name=self.engine) as engine:
            return engine.engine_name or self.engine

    async def run(self, interrupts: asyncio.Queue[None]) -> int:
        """Play until interrupted (0), the token is refused (1) or the engine cannot start (2).
        Each item of `interrupts` is one Ctrl+C: the first drains, the second (or the first with
        no game going) stops at once."""
        try:
            self.say(f"engine ready: {await asyncio.to_thread(self._probe)}")
        except EngineFailure as exc:
            self.say(f"the engine cannot play: {exc}")
            return 2
        events = asyncio.create_task(self._events())
        waiter: asyncio.Task[None] | None = None
        try:
            while True:
                waiter = asyncio.create_task(interrupts.get())
                done, _ = await asyncio.wait({events, waiter}, return_when=asyncio.FIRST_COMPLETED)
                if events in done:
                    break
                if self.draining or not self.games:
                    self.say("stopping now")
                    break
                self.draining = True
                self.say(
                    f"stopping: no new challenges; {len(self.games)} game(s) will finish "
                    "(press Ctrl+C again to quit now)"
                )
                drain = asyncio.create_task(self._drained(interrupts))
                self._keep.add(drain)
                drain.add_done_callback(self._keep.discard)
        finally:
            if waiter is not None:
                waiter.cancel()
            for task in [events, *self.games.values()]:
                task.cancel()
            for task in [events, *self.games.values()]:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self.refused is not None:
            self.say(f"the site refused the bot's token: {self.refused}")
            return 1
        self.say("stopped")
        return 0

    async def _drained(self, interrupts: asyncio.Queue[None]) -> None:
        while self.games:
            await asyncio.wait(list(self.games.values()))
        interrupts.put_nowait(None)

    def _frame(self, where: str, text: str) -> None:
        if self.frames is not None:
            self.frames.write(json.dumps({"at": time.time(), "socket": where, "text": text}) + "\n")
            self.frames.flush()

    async def _connect(self, path: str) -> Any:
        return await websockets.connect(
            socket_url(self.server, path),
            additional_headers=self.headers,
            open_timeout=15,
            ping_interval=20,
            ping_timeout=20,
            max_size=2**22,
        )

    async def _backoff(self, delay: float, what: str, exc: BaseException) -> float:
        wait = delay * random.uniform(0.8, 1.2)
        self.say(f"{what}: connection lost ({_story(exc)}); reconnecting in {wait:.1f} s")
        await asyncio.sleep(wait)
        return min(BACKOFF_MAX, delay * 2)

    def _token_refused(self, message: str) -> TokenRefused:
        self.refused = message
        return TokenRefused(message)

    # -- the event stream ------------------------------------------------------

    async def _events(self) -> None:
        delay = BACKOFF_MIN
        while True:
            try:
                async with await self._connect("/api/bot/stream") as ws:
                    async for text in ws:
                        assert isinstance(text, str)
                        self._frame("stream", text)
                        if await self._event(ws, json.loads(text)):
                            delay = BACKOFF_MIN
            except TokenRefused:
                return
            except (OSError, TimeoutError, websockets.WebSocketException, ValueError) as exc:
                if _unauthorized(exc):
                    self.refused = self.refused or "closed with 4401 (unauthorized)"
                    return
                delay = await self._backoff(delay, "event stream", exc)
                continue
            delay = await self._backoff(delay, "event stream", ConnectionError("closed by the site"))

    async def _event(self, ws: Any, message: dict[str, Any]) -> bool:
        """Handle one event; True once the stream is known to work (its hello)."""
        kind = message.get("type")
        if kind == "hello":
            self.name = message["bot"]["name"]
            self.say(f"connected to {self.server} as {self.name}")
            return True
        if kind == "challenge":
            challenge = message["challenge"]
            who = challenge["challenger"]["name"]
            reason = "later" if self.draining else self.accept.decline_reason(challenge, len(self.games))
            if reason is None:
                self.say(f"accepting the challenge of {who} ({_terms(challenge)})")
                await ws.send(json.dumps({"type": "accept", "challenge": challenge["id"]}))
            else:
                self.say(f"declining the challenge of {who} ({_terms(challenge)}): {reason}")
                await ws.send(json.dumps({"type": "decline", "challenge": challenge["id"], "reason": reason}))
        elif kind == "challenge_canceled":
            self.say(f"the challenge of {message['challenge']['challenger']['name']} was withdrawn")
        elif kind == "game_start":
            game = message["game"]
            if game["id"] not in self.games:
                self.say(f"game {game['id']} starts: seat {game['seat']}")
                task = asyncio.create_task(self._game(game))
                self.games[game["id"]] = task
                task.add_done_callback(self._forget(game["id"]))
        elif kind == "game_finish":
            pass  # the game's own socket says how it ended
        elif kind == "error":
            if message.get("code") in TOKEN_ERRORS:
                raise self._token_refused(message.get("message", ""))
            self.say(f"the site says: {message.get('message')}")
        return False

    # -- one game --------------------------------------------------------------

    def _forget(self, match_id: str) -> Callable[[asyncio.Task[None]], None]:
        def forget(_task: asyncio.Task[None]) -> None:
            self.games.pop(match_id, None)

        return forget

    def _start_engine(self, game: dict[str, Any]) -> EnginePlayer:
        clock = float(game.get("turn_seconds") or 0)
        limit = max(1.0, clock - 2.0) if clock else 30.0
        if self.move_time is not None:
            limit = min(limit, self.move_time)
        return EnginePlayer(self.engine, move_time=limit, name=self.engine, opponent=game.get("opponent_id"))

    async def _game(self, game: dict[str, Any]) -> None:
        match_id = game["id"]
        engine: EnginePlayer | None = None
        observed: set[int] = set()
        delay = BACKOFF_MIN
        try:
            while True:
                try:
                    async with await self._connect(game["socket"]) as ws:
                        acted = -1  # an action sent just before a drop may never have arrived
                        async for text in ws:
                            assert isinstance(text, str)
                            self._frame(f"game:{match_id}", text)
                            message = json.loads(text)
                            kind = message.get("type")
                            if kind == "error":
                                code = message.get("code")
                                if code in TOKEN_ERRORS:
                                    raise self._token_refused(message.get("message", ""))
                                if code in ("not_found", "not_seated"):
                                    self.say(f"game {match_id}: {message.get('message')}")
                                    return
                                if code != "stale":
                                    self.say(f"game {match_id}: the site says {message.get('message')}")
                                continue
                            if kind != "state" or message.get("view") is None:
                                continue
                            delay = BACKOFF_MIN
                            if engine is None:
                                try:
                                    engine = await asyncio.to_thread(self._start_engine, game)
                                except EngineFailure as exc:
                                    self.say(f"game {match_id}: {exc}; the site's stand-in plays for the bot")
                                    return
                            for data in (message.get("last_hand"), message["view"]):
                                if data is None or data["phase"] != "over":
                                    continue
                                if data["hand_number"] not in observed:
                                    observed.add(data["hand_number"])
                                    await asyncio.to_thread(engine.observe, View.from_json(data))
                            if message.get("result") is not None:
                                self.say(f"game {match_id} is over: {_outcome(message)}")
                                return
                            view = message["view"]
                            if not view["legal"] or message["version"] <= acted:
                                continue
                            acted = message["version"]
                            engine, action = await self._decide(engine, game, View.from_json(view))
                            if action is None:
                                self.say(f"game {match_id}: giving the seat up to the site's stand-in")
                                return
                            await ws.send(json.dumps({"type": "action", "action": action, "version": acted}))
                except TokenRefused:
                    return
                except (OSError, TimeoutError, websockets.WebSocketException) as exc:
                    if _unauthorized(exc):
                        self.refused = self.refused or "closed with 4401 (unauthorized)"
                        return
                    delay = await self._backoff(delay, f"game {match_id}", exc)
                    continue
                delay = await self._backoff(delay, f"game {match_id}", ConnectionError("closed by the site"))
        finally:
            if engine is not None:
                await asyncio.to_thread(engine.close)

    async def _decide(
        self, engine: EnginePlayer, game: dict[str, Any], view: View
    ) -> tuple[EnginePlayer, dict[str, Any] | None]:
        """The engine's action; an engine that fails is restarted once for the same view."""
        for attempt in (1, 2):
            try:
                action = await asyncio.to_thread(engine.act, view)
                return engine, action.to_json()
            except EngineFailure as exc:
                tail = "; ".join(engine.stderr_tail[-3:])
                self.say(f"game {game['id']}: {exc}" + (f" (stderr: {tail})" if tail else ""))
                await asyncio.to_thread(engine.close)
                if attempt == 2:
                    break
                self.say(f"game {game['id']}: starting the engine again")
                try:
                    engine = await asyncio.to_thread(self._start_engine, game)
                except EngineFailure as again:
                    self.say(f"game {game['id']}: {again}")
                    break
        return engine, None


def _unauthorized(exc: BaseException) -> bool:
    received = getattr(exc, "rcvd", None)
    return received is not None and received.code == CLOSE_UNAUTHORIZED


def _story(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text[:200]


def _terms(challenge: dict[str, Any]) -> str:
    rated = "rated" if challenge.get("rated") else "casual"
    return f"{challenge.get('preset')} to {challenge.get('target')}, {challenge.get('turn_seconds'):g} s a move, {rated}"


def _outcome(message: dict[str, Any]) -> str:
    result = message["result"]
    seat = message["match"]["seat"]
    scores = result.get("scores", [0, 0])
    winner = result.get("winner")
    verdict = "a draw" if winner is None else ("won" if winner == seat else "lost")
    return f"{verdict} {scores[seat]}-{scores[1 - seat]}"
