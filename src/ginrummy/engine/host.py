"""The host side of the protocol: run an outside program as a player, with time limits and clear failures.

The host offers the versions it was asked to (newest first) and settles on the newest the
engine accepts: an engine that answers a version-2 hello with an `error`, or with a hello of
version 1, is spoken to in version 1. Two-player Gin offers version 1 only, exactly as before.
"""

from __future__ import annotations

import collections
import contextlib
import os
import shlex
import subprocess
import time
from collections.abc import Sequence
from types import TracebackType

from ..rules import Action, GameAction, GameView, GinTableView, LayMeld, LayOff, RummyView, View
from .pipe import EngineProcess, InputClosed, OutputClosed
from .protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    Act,
    ActionReply,
    AnyView,
    EngineMessage,
    ErrorMessage,
    Hello,
    Message,
    ProtocolError,
    Quit,
    Result,
    encode,
    parse_engine_message,
)

__all__ = [
    "EngineFailure",
    "EngineTimeout",
    "EngineCrashed",
    "EngineIllegalAction",
    "EngineProtocolError",
    "EnginePlayer",
    "EngineSeat",
]


class EngineFailure(Exception):
    """An outside engine broke the protocol or the rules; the message says what happened.

    `engine` names the engine (its hello name, else its command).
    """

    def __init__(self, engine: str, message: str) -> None:
        super().__init__(f"engine {engine}: {message}")
        self.engine = engine
        self.detail = message


class EngineTimeout(EngineFailure):
    """No answer (hello or action) within the time limit."""


class EngineCrashed(EngineFailure):
    """The engine could not start, exited, or closed its pipes."""


class EngineIllegalAction(EngineFailure):
    """A well-formed action that the rules do not allow in the view it answered."""

    def __init__(self, engine: str, message: str, action: GameAction) -> None:
        super().__init__(engine, message)
        self.action = action


class EngineProtocolError(EngineFailure):
    """A line that is not the expected message (bad JSON, wrong type, an `error` reply, ...)."""


class EnginePlayer:
    """A player played by an outside program over the stdio protocol (docs/protocol.md).

    The program is started from `command` (a string split with `shlex`, or an
    argument list) and the hello handshake is done at once, within
    `hello_timeout` seconds. `act(view)` sends the seat's VIEW and waits at most
    `move_time` seconds for the matching action; `observe(view)` sends the
    hand's result. The player never sees more than the view it is given.

    Contract for hosts (the arena, the server): every way an engine can go wrong
    raises an `EngineFailure` subclass naming what happened — `EngineTimeout`
    (silent past its limit), `EngineCrashed` (could not start, exited, closed
    its pipes), `EngineIllegalAction` (a legal-looking message with an action
    not in `view.legal`) or `EngineProtocolError` (garbage or an `error`
    reply). No call ever blocks beyond its time limit. Catch `EngineFailure` to
    forfeit the match or hand the seat to a fallback player, then `close()` (or
    use the player as a context manager), which sends `quit` and kills the
    program if it has not exited after `grace` seconds.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        move_time: float = 10.0,
        hello_timeout: float = 10.0,
        grace: float = 1.0,
        name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
        stderr_lines: int = 50,
        protocols: Sequence[int] = (PROTOCOL_VERSION,),
        opponent: str | None = None,
    ) -> None:
        if not protocols or any(v not in (1, 2) for v in protocols):
            raise ValueError(f"protocols must name versions 1 and/or 2, got {list(protocols)!r}")
        self.protocols = tuple(sorted(set(protocols), reverse=True))
        self.protocol = self.protocols[0]  # settled by the handshake
        self._observed: set[int] = set()
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("the engine command is empty")
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.move_time = move_time
        self.hello_timeout = hello_timeout
        self.grace = grace
        #: Who the engine plays, sent with every `act` and `result` (docs/protocol.md): set it
        #: only when the same text means the same opponent in the next match too.
        self.opponent = opponent
        self._named = name is not None
        self.name = name or self.command
        self.engine_name: str | None = None  # what the engine called itself in hello
        self._next_id = 0
        self._sent_ids: set[int] = set()
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=stderr_lines)
        self._closed = False
        try:
            self._pipe = EngineProcess(self.argv, on_stderr=self._stderr_tail.append, cwd=cwd, env=env)
        except OSError as exc:
            self._closed = True
            raise EngineCrashed(self.name, f"could not start {self.command!r}: {exc}") from None
        try:
            self._handshake()
        except BaseException:
            self._kill()
            raise

    # -- the Player protocol ---------------------------------------------------

    def act(self, view: View) -> Action:
        """The engine's action for `view`, checked against `view.legal`; raise `EngineFailure` if none."""
        action = self.act_in(view)
        assert not isinstance(action, (LayMeld, LayOff))  # it is one of view.legal
        return action

    def observe(self, view: View) -> None:
        """Tell the engine a hand is over (`result`, no reply expected)."""
        self.observe_in(view)

    def act_in(self, view: AnyView) -> GameAction:
        """The engine's action for a view of any game; raise `EngineFailure` if none.

        In version 1 a three- or four-player Gin seat is sent its own hand's two-player VIEW;
        Rummy needs version 2.
        """
        sent = self._sendable(view)
        self._next_id += 1
        message_id = self._next_id
        self._sent_ids.add(message_id)
        self._send(Act(message_id, sent, self.protocol, self.opponent))
        deadline = time.monotonic() + self.move_time
        while True:
            message = self._receive(deadline, f"action for act {message_id}", self.move_time, EngineTimeout)
            if isinstance(message, ActionReply):
                if message.id == message_id:
                    break
                if message.id in self._sent_ids:
                    continue  # a late answer to an earlier request that already timed out
                raise EngineProtocolError(
                    self.name,
                    f"answered act {message.id}, which was never sent (waiting for act {message_id})",
                )
            if isinstance(message, ErrorMessage):
                raise EngineProtocolError(
                    self.name, f"replied with an error to act {message_id}: {message.message}"
                )
            raise EngineProtocolError(
                self.name, f"sent {message.to_json()['type']!r} while an action for act {message_id} was due"
            )
        action = message.action
        if action not in view.legal:
            allowed = ", ".join(str(a) for a in view.legal)
            phase = view.phase
            raise EngineIllegalAction(
                self.name,
                f"chose the illegal action {action} in phase {phase}; allowed: {allowed}",
                action,
            )
        return action

    def observe_in(self, view: AnyView) -> None:
        """Tell the engine one of its hands is over (`result`, no reply expected)."""
        if isinstance(view, GinTableView) and self.protocol < 2:
            if view.table is None or view.phase != "over" or view.hand_number in self._observed:
                return  # a hand it sat out, or already told
            self._observed.add(view.hand_number)
        if isinstance(view, RummyView) and self.protocol < 2:
            return
        self._send(Result(self._sendable(view), self.protocol, self.opponent))

    def _sendable(self, view: AnyView) -> AnyView:
        if self.protocol >= 2 or isinstance(view, View):
            return view
        if isinstance(view, RummyView):
            raise EngineProtocolError(self.name, "speaks protocol version 1 only, and Rummy needs version 2")
        return view.two_player()

    # -- lifecycle -------------------------------------------------------------

    @property
    def returncode(self) -> int | None:
        """The engine's exit status, or None while it runs."""
        return self._pipe.poll() if hasattr(self, "_pipe") else None

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines the engine wrote to its standard error."""
        return list(self._stderr_tail)

    def close(self) -> None:
        """Send `quit`, wait up to `grace` seconds for the engine to exit, then kill it."""
        if self._closed:
            return
        with contextlib.suppress(EngineFailure):
            self._send(Quit())
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._pipe.wait(self.grace)
        self._kill()

    def __enter__(self) -> EnginePlayer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"pid {self._pipe.pid}"
        return f"<EnginePlayer {self.name!r} {state}>"

    # -- internals -------------------------------------------------------------

    def _handshake(self) -> None:
        deadline = time.monotonic() + self.hello_timeout
        speaks = " and ".join(str(v) for v in self.protocols)
        hello: Hello | None = None
        for number, version in enumerate(self.protocols):
            self._send(Hello(version))
            message = self._receive(deadline, "hello", self.hello_timeout, EngineTimeout)
            if isinstance(message, ErrorMessage):
                if number + 1 < len(self.protocols):
                    continue  # it does not speak this version: offer the next
                raise EngineProtocolError(self.name, f"refused the hello: {message.message}")
            if not isinstance(message, Hello):
                raise EngineProtocolError(
                    self.name, f"answered the hello with {message.to_json()['type']!r} instead of hello"
                )
            if message.protocol not in self.protocols[number:]:
                raise EngineProtocolError(
                    self.name, f"speaks protocol {message.protocol}; this host speaks {speaks}"
                )
            self.protocol = message.protocol
            hello = message
            break
        assert hello is not None  # every way out of the loop without a hello raises
        message = hello
        self.engine_name = message.name
        if message.name and not self._named:
            self.name = message.name

    def _send(self, message: Message) -> None:
        if self._closed:
            raise EngineCrashed(self.name, "the engine has been closed")
        try:
            self._pipe.write(encode(message))
        except InputClosed:
            raise EngineCrashed(self.name, self._exit_story("stopped reading its input")) from None

    def _receive(
        self, deadline: float, expected: str, limit: float, timeout_error: type[EngineFailure]
    ) -> EngineMessage:
        """The next message from the engine, skipping blank lines, before `deadline`."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise timeout_error(self.name, f"sent no {expected} within {limit:g} s")
            try:
                line = self._pipe.next_line(remaining)
            except OutputClosed:
                raise EngineCrashed(
                    self.name, self._exit_story(f"closed its output before sending its {expected}")
                ) from None
            if line is None:
                raise timeout_error(self.name, f"sent no {expected} within {limit:g} s")
            if not line.strip():
                continue
            if not line.endswith("\n") and len(line) >= MAX_LINE:
                raise EngineProtocolError(self.name, f"sent a line longer than {MAX_LINE} characters")
            try:
                return parse_engine_message(line, self.protocol)
            except ProtocolError as exc:
                raise EngineProtocolError(
                    self.name, f"sent an unreadable line while its {expected} was due: {exc}"
                ) from None

    def _exit_story(self, what: str) -> str:
        """`what` plus the exit status and the engine's last stderr lines, when known."""
        try:
            code: int | None = self._pipe.wait(0.2)
        except subprocess.TimeoutExpired:
            code = None
        story = what if code is None else f"{what} (exit status {code})"
        # Give the stderr reader a moment to collect the engine's last words.
        self._pipe.join_stderr(0.2)
        tail = [line for line in self._stderr_tail if line.strip()]
        if tail:
            story += "; its last stderr lines: " + " | ".join(tail[-5:])
        return story

    def _kill(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._pipe.end()


class EngineSeat:
    """An outside engine seated at a table of any game (a `bots.table_players.TablePlayer`)."""

    def __init__(self, engine: EnginePlayer) -> None:
        self.engine = engine
        self.name = engine.name

    def act(self, view: GameView) -> GameAction:
        if not isinstance(view, (View, GinTableView, RummyView)):
            raise TypeError(f"an engine can only be sent the protocol's views, got {type(view).__name__}")
        return self.engine.act_in(view)

    def observe(self, view: GameView) -> None:
        if isinstance(view, (View, GinTableView, RummyView)):
            self.engine.observe_in(view)

    def close(self) -> None:
        self.engine.close()
