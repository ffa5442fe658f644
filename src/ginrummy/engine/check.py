"""The conformance checker for engine authors: drive an engine through every phase, variant and edge case.

`check_engine(command)` starts the program, speaks PROTOCOL.md to it the way a host does and
then some: a real position of every phase and rules preset, a view without its optional
fields, a view with a field it does not know, junk, an unknown message, a line too long, blank
lines, a `result`, a whole match per preset against our baseline player, and `quit`. Each
check passes, fails or warns, and a failure keeps the exchange that shows it, so the author
can see what was sent, what came back, and what the protocol expected.
"""

from __future__ import annotations

import contextlib
import functools
import json
import queue
import shlex
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..bots import make_player
from ..rules import BigGin, Knock, Match, Rules, View, min_deadwood
from .protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    Act,
    ActionReply,
    EngineMessage,
    ErrorMessage,
    Hello,
    ProtocolError,
    Quit,
    Result,
    encode,
    parse_engine_message,
)

__all__ = ["Check", "CheckReport", "Exchange", "Scenario", "check_engine", "scenarios"]

Status = Literal["pass", "fail", "warn", "skip"]

_EOF = None


@dataclass(frozen=True, slots=True)
class Exchange:
    """One line of the conversation: who wrote it, when (seconds since the start), and the text."""

    direction: Literal["host", "engine", "stderr", "note"]
    at: float
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"direction": self.direction, "at": round(self.at, 4), "text": self.text}


@dataclass(slots=True)
class Check:
    """The outcome of one check: its status, what was found, and the exchange behind it."""

    name: str
    status: Status
    detail: str
    exchange: list[Exchange] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "detail": self.detail,
            "exchange": [e.to_json() for e in self.exchange],
        }


@dataclass(slots=True)
class CheckReport:
    """Every check run against one engine, with its answer times."""

    command: str
    engine_name: str | None = None
    checks: list[Check] = field(default_factory=list)
    answer_times: list[float] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no check failed (warnings allowed)."""
        return not any(c.status == "fail" for c in self.checks)

    def count(self, status: Status) -> int:
        return sum(1 for c in self.checks if c.status == status)

    def to_json(self) -> dict[str, Any]:
        times = sorted(self.answer_times)
        return {
            "command": self.command,
            "engine": self.engine_name,
            "ok": self.ok,
            "passed": self.count("pass"),
            "failed": self.count("fail"),
            "warnings": self.count("warn"),
            "skipped": self.count("skip"),
            "answers": len(times),
            "answer_ms_median": round(1000 * statistics.median(times), 3) if times else None,
            "answer_ms_max": round(1000 * times[-1], 3) if times else None,
            "checks": [c.to_json() for c in self.checks],
        }


class _Failure(Exception):
    """A check failed; the message says what the engine did and what was expected."""


class _Conversation:
    """A running engine with every line in and out recorded."""

    def __init__(self, argv: Sequence[str], start: float) -> None:
        self.start = start
        self.log: list[Exchange] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        try:
            self.process = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as exc:
            raise _Failure(f"could not start {shlex.join(argv)!r}: {exc}") from None
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _now(self) -> float:
        return time.monotonic() - self.start

    def note(self, text: str) -> None:
        self.log.append(Exchange("note", self._now(), text))

    def send_text(self, text: str, *, shown: str | None = None) -> None:
        """Write one line (a newline is added); `shown` replaces it in the log when it is huge."""
        self.log.append(Exchange("host", self._now(), shown if shown is not None else _shorten(text)))
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(text + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise _Failure(f"the engine stopped reading its input{self.exit_story()}") from None

    def send(self, message: Act | Hello | Result | Quit) -> None:
        self.send_text(encode(message).rstrip("\n"))

    def receive(self, timeout: float) -> str | None:
        """The next non-blank line within `timeout` seconds; None on silence; raise on a closed output."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                return None
            if line is _EOF:
                self._lines.put(_EOF)
                raise _Failure(f"the engine closed its output{self.exit_story()}")
            self.log.append(Exchange("engine", self._now(), _shorten(line.rstrip("\n"))))
            if line.strip():
                return line

    def exit_story(self) -> str:
        try:
            code = self.process.wait(timeout=0.3)
        except subprocess.TimeoutExpired:
            return ""
        return f" (it exited with status {code})"

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self, grace: float = 1.0) -> None:
        process = self.process
        if process.stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                process.stdin.close()  # an engine should exit when its input ends
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for thread, pipe in zip(self._threads, (process.stdout, process.stderr), strict=True):
            thread.join(timeout=1.0)
            # A pipe still held by a grandchild keeps its reader blocked: leave that one to the daemon.
            if pipe is not None and not thread.is_alive():
                with contextlib.suppress(OSError, ValueError):
                    pipe.close()

    def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                line = stdout.readline(MAX_LINE)
                if not line:
                    break
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(_EOF)

    def _read_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        try:
            for line in stderr:
                self.log.append(Exchange("stderr", self._now(), _shorten(line.rstrip("\n"))))
        except (OSError, ValueError):
            pass


def _shorten(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def engine_message_problems(data: Any) -> list[str]:
    """Every way a parsed engine line breaks the protocol's messages; [] when it is valid."""
    try:
        parse_engine_message(json.dumps(data))
    except ProtocolError as exc:
        return [str(exc)]
    return []


# -- positions -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scenario:
    """A real position for the engine's seat: what it shows, and the view to send."""

    name: str
    view: View


def _is_gin_chance(view: View) -> bool:
    return any(isinstance(a, Knock) and min_deadwood(view.hand - a.card) == 0 for a in view.legal)


# name, preset, test on the view of the seat to act
_WANTED: tuple[tuple[str, str, Callable[[View], bool]], ...] = (
    ("offer: the first upcard, first to decide", "classic", lambda v: v.phase == "offer" and not v.history),
    (
        "offer: the first upcard after the other player passed",
        "classic",
        lambda v: v.phase == "offer" and len(v.history) == 1,
    ),
    (
        "draw: stock only, both players passed the first upcard",
        "classic",
        lambda v: v.phase == "draw" and len(v.legal) == 1,
    ),
    ("draw: stock or upcard", "classic", lambda v: v.phase == "draw" and len(v.legal) == 2),
    (
        "discard after drawing from the stock",
        "classic",
        lambda v: (
            v.phase == "discard" and v.history[-1].to_json()["action"] == {"type": "draw", "source": "stock"}
        ),
    ),
    (
        "discard after taking the upcard (that card may not be discarded)",
        "classic",
        lambda v: (
            v.phase == "discard"
            and v.history[-1].to_json()["action"] == {"type": "draw", "source": "discard"}
        ),
    ),
    (
        "discard with a knock allowed",
        "classic",
        lambda v: any(isinstance(a, Knock) for a in v.legal) and not _is_gin_chance(v),
    ),
    ("discard with Gin possible", "classic", _is_gin_chance),
    ("a later hand, with scores", "classic", lambda v: v.hand_number > 1 and max(v.scores) > 0),
    ("three cards left in the stock", "classic", lambda v: v.phase == "draw" and v.stock_count == 3),
    (
        "Oklahoma: knock limit set by the first upcard",
        "oklahoma",
        lambda v: v.phase == "discard" and 0 < v.knock_limit < 10,
    ),
    ("Oklahoma: an ace upcard, only Gin ends the hand", "oklahoma", lambda v: v.knock_limit == 0),
    ("Hoyle rules (end-of-match bonuses)", "hoyle", lambda v: v.phase == "discard" and v.hand_number > 1),
    ("Big Gin: all eleven cards melded", "big_gin", lambda v: any(isinstance(a, BigGin) for a in v.legal)),
)


@functools.cache
def scenarios(*, seeds: int = 400) -> tuple[list[Scenario], list[str]]:
    """A real position for each kind the checker tries, found by our baseline players' seeded games.

    Returns the positions and the names of any kind no game reached within `seeds` matches.
    """
    found: dict[str, View] = {}
    for preset in dict.fromkeys(p for _, p, _ in _WANTED):
        wanted = [(name, test) for name, p, test in _WANTED if p == preset]
        for seed in range(seeds):
            if all(name in found for name, _ in wanted):
                break
            match = Match(Rules.preset(preset), seed=seed)
            players = [make_player("baseline", seed=seed * 2 + s) for s in (0, 1)]
            for _ in range(2000):
                if match.is_over:
                    break
                seat = match.to_act
                assert seat is not None
                view = match.view(seat)
                for name, test in wanted:
                    if name not in found and test(view):
                        found[name] = view
                match.apply(players[seat].act(view), seat)
    ordered = [Scenario(name, found[name]) for name, _, _ in _WANTED if name in found]
    missing = [name for name, _, _ in _WANTED if name not in found]
    return ordered, missing


# -- the checks ------------------------------------------------------------------------


class _Checker:
    def __init__(
        self,
        command: str | Sequence[str],
        *,
        time_limit: float,
        hello_timeout: float,
        matches: int,
        progress: Callable[[Check], None] | None,
    ) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("the engine command is empty")
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.time_limit = time_limit
        self.hello_timeout = hello_timeout
        self.matches = matches
        self.progress = progress
        self.report = CheckReport(self.command)
        self.start = time.monotonic()
        self.conversation: _Conversation | None = None
        self.next_id = 0

    # -- plumbing ------------------------------------------------------------------

    def record(self, name: str, status: Status, detail: str, exchange: list[Exchange] | None = None) -> Check:
        check = Check(name, status, detail, exchange if exchange is not None else [])
        self.report.checks.append(check)
        if self.progress is not None:
            self.progress(check)
        return check

    def engine(self) -> _Conversation:
        """The running engine, started (with its hello) when needed."""
        if self.conversation is not None and self.conversation.alive():
            return self.conversation
        if self.conversation is not None:
            self.conversation.close()
        conversation = _Conversation(self.argv, self.start)
        self.conversation = conversation
        conversation.note(f"started {self.command}")
        conversation.send(Hello(PROTOCOL_VERSION))
        line = conversation.receive(self.hello_timeout)
        if line is None:
            raise _Failure(f"no hello within {self.hello_timeout:g} s after the host's hello")
        message = self.read_engine_line(line, f"its hello (protocol {PROTOCOL_VERSION})")
        if not isinstance(message, Hello):
            raise _Failure(f"answered the hello with {message.to_json()['type']!r}; expected a hello")
        if message.protocol != PROTOCOL_VERSION:
            raise _Failure(f"answered protocol {message.protocol}; the host speaks {PROTOCOL_VERSION}")
        if self.report.engine_name is None:
            self.report.engine_name = message.name
        return conversation

    def read_engine_line(self, line: str, expected: str) -> EngineMessage:
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise _Failure(f"sent a line that is not JSON ({exc}) while {expected} was due") from None
        problems = engine_message_problems(data)
        if problems:
            raise _Failure(
                f"sent a message the protocol does not allow while {expected} was due: {'; '.join(problems)}"
            )
        try:
            return parse_engine_message(line)
        except ProtocolError as exc:
            raise _Failure(f"sent an unreadable message while {expected} was due: {exc}") from None

    def ask(self, view: View, *, send: Callable[[int], None] | None = None) -> None:
        """Send an act for `view` (or let `send` write it), and check the answer."""
        conversation = self.engine()
        self.next_id += 1
        message_id = self.next_id
        sent = time.monotonic()
        if send is None:
            conversation.send(Act(message_id, view))
        else:
            send(message_id)
        line = conversation.receive(self.time_limit)
        if line is None:
            raise _Failure(f"no answer to act {message_id} within the time limit of {self.time_limit:g} s")
        self.report.answer_times.append(time.monotonic() - sent)
        message = self.read_engine_line(line, f"the action for act {message_id}")
        if isinstance(message, ErrorMessage):
            raise _Failure(f"answered act {message_id} with an error: {message.message}")
        if not isinstance(message, ActionReply):
            raise _Failure(
                f"answered act {message_id} with {message.to_json()['type']!r}; expected an action"
            )
        if message.id != message_id:
            raise _Failure(f"answered act {message_id} with the id {message.id}")
        if message.action not in view.legal:
            allowed = ", ".join(str(a) for a in view.legal)
            raise _Failure(f"chose {message.action}, which is not legal here; legal: {allowed}")

    def silent(self, seconds: float, after: str) -> None:
        """The engine must say nothing for `seconds`."""
        line = self.engine().receive(seconds)
        if line is not None:
            raise _Failure(f"replied to {after}, which expects no reply: {line.strip()[:200]}")

    def run(self, name: str, body: Callable[[], None], *, warn_only: bool = False, ok: str = "") -> None:
        conversation = self.conversation
        mark = len(conversation.log) if conversation is not None else 0
        try:
            body()
        except _Failure as exc:
            exchange = self._exchange_since(conversation, mark)
            self.record(name, "warn" if warn_only else "fail", str(exc), exchange)
            if self.conversation is not None and not warn_only:
                # Start afresh after a failure: the engine's state is unknown.
                self.conversation.close(grace=0.2)
                self.conversation = None
            return
        self.record(name, "pass", ok)

    def _exchange_since(self, before: _Conversation | None, mark: int) -> list[Exchange]:
        now = self.conversation
        if now is None:
            return []
        log = now.log[mark:] if now is before else now.log
        return log[-12:]

    # -- the checks ----------------------------------------------------------------

    def check_all(self, found: list[Scenario], missing: list[str]) -> CheckReport:
        try:
            self.run("start and hello", self._hello, ok="")
            if self.report.checks[-1].status == "fail":
                return self.report
            for scenario in found:
                self.run(
                    f"act: {scenario.name}", functools.partial(self.ask, scenario.view), ok="a legal action"
                )
            for name in missing:
                self.record(f"act: {name}", "skip", "no seeded game reached this position")
            base = found[0].view if found else None
            if base is not None:
                self._edge_cases(base, found)
            self._matches()
            self.run("quit: the engine exits with status 0", self._quit)
            self.run("end of input: the engine exits", self._eof, warn_only=True)
        finally:
            if self.conversation is not None:
                self.conversation.close(grace=0.2)
        return self.report

    def _hello(self) -> None:
        self.engine()

    def _edge_cases(self, base: View, found: list[Scenario]) -> None:
        def minimal(message_id: int) -> None:
            data = Act(message_id, base).to_json()
            view = data["view"]
            view.pop("showdown", None)
            view["rules"] = {"preset": view["rules"]["preset"]}
            for entry in view["history"]:
                entry.pop("card", None)
            self.engine().send_text(json.dumps(data, separators=(",", ":")))

        self.run(
            "act: a view without its optional fields (no showdown, rules by preset, no drawn cards)",
            lambda: self.ask(base, send=minimal),
            ok="answered",
        )

        def unknown_field(message_id: int) -> None:
            data = Act(message_id, base).to_json()
            data["view"]["table_talk"] = "a field from a later protocol version"
            data["comment"] = "hosts may add fields"
            self.engine().send_text(json.dumps(data, separators=(",", ":")))

        self.run(
            "act: a message and a view with fields the engine does not know",
            lambda: self.ask(base, send=unknown_field),
            warn_only=True,
            ok="answered (unknown fields ignored)",
        )
        over = _finished_view()
        self.run(
            "result: a finished hand gets no reply, and play goes on",
            lambda: self._result_then_act(over, base),
            ok="no reply, then a legal action",
        )
        self.run("blank lines get no reply", lambda: self._blank_lines(base), ok="no reply")
        self.run(
            "junk: a line that is not JSON gets an error reply, and play goes on",
            lambda: self._junk('{"type": "act", "id": 5, "view": ', base),
            ok="an error reply, then a legal action",
        )
        self.run(
            "junk: an unknown message type gets an error reply",
            lambda: self._junk(json.dumps({"type": "ponder", "seconds": 3}), base),
            ok="an error reply, then a legal action",
        )
        self.run(
            "junk: an act whose view is broken gets an error reply",
            lambda: self._junk(json.dumps({"type": "act", "id": 10**6, "view": {"seat": 0}}), base),
            ok="an error reply, then a legal action",
        )
        self.run(
            f"a line longer than the protocol's limit ({MAX_LINE} characters) does not stop the engine",
            lambda: self._long_line(base),
            ok="survived, then a legal action",
        )
        self.run(
            "hello with another protocol version gets an error reply",
            self._other_version,
            warn_only=True,
            ok="an error reply",
        )
        del found

    def _result_then_act(self, over: View, base: View) -> None:
        self.engine().send(Result(over))
        self.silent(0.3, "a result")
        self.ask(base)

    def _blank_lines(self, base: View) -> None:
        conversation = self.engine()
        conversation.send_text("")
        conversation.send_text("   ")
        self.silent(0.3, "blank lines")
        self.ask(base)

    def _junk(self, line: str, base: View) -> None:
        conversation = self.engine()
        conversation.send_text(line)
        reply = conversation.receive(self.time_limit)
        if reply is None:
            raise _Failure(
                f"no error reply within {self.time_limit:g} s; PROTOCOL.md: a message the engine cannot read gets an error"
            )
        message = self.read_engine_line(reply, "an error reply")
        if not isinstance(message, ErrorMessage):
            raise _Failure(f"answered with {message.to_json()['type']!r}; expected an error")
        self.ask(base)

    def _long_line(self, base: View) -> None:
        conversation = self.engine()
        size = MAX_LINE + MAX_LINE // 2
        conversation.send_text("x" * size, shown=f"(a line of {size} x characters)")
        reply = conversation.receive(min(self.time_limit, 2.0))
        if reply is not None:
            message = self.read_engine_line(reply, "an error reply or nothing")
            if not isinstance(message, ErrorMessage):
                raise _Failure(f"answered a junk line with {message.to_json()['type']!r}")
        self.ask(base)

    def _other_version(self) -> None:
        conversation = self.engine()
        conversation.send(Hello(PROTOCOL_VERSION + 98))
        reply = conversation.receive(self.time_limit)
        if reply is None:
            raise _Failure("no reply to a hello of protocol 99; an error reply tells the host to stop")
        message = self.read_engine_line(reply, "an error reply")
        if not isinstance(message, ErrorMessage):
            raise _Failure(
                f"answered a hello of protocol 99 with {message.to_json()['type']!r}; expected an error"
            )

    def _matches(self) -> None:
        # Version 1 is two-player Gin: the presets of the table games are version 2's.
        for preset in (name for name in Rules.preset_names() if Rules.preset(name).game == "gin"):
            for number in range(self.matches):
                self.run(
                    f"a whole {preset} match against our baseline player (seed {number})",
                    functools.partial(self._match, preset, number),
                    ok="finished without a fault",
                )

    def _match(self, preset: str, seed: int) -> None:
        match = Match(Rules.preset(preset), seed=seed)
        opponent = make_player("baseline", seed=seed)
        engine_seat = seed % 2
        steps = 0
        while not match.is_over:
            steps += 1
            if steps > 5000:
                return  # two players taking each other's discards forever: not the engine's fault
            seat = match.to_act
            assert seat is not None
            view = match.view(seat)
            if seat == engine_seat:
                action = self._ask_and_get(view)
            else:
                action = opponent.act(view)
            result = match.apply(action, seat)
            if result is not None:
                number = len(match.hands) if match.is_over else len(match.hands) - 1
                self.engine().send(Result(match.hand_view(engine_seat, number)))
                opponent.observe(match.hand_view(1 - engine_seat, number))
        self.silent(0.05, "the last result")

    def _ask_and_get(self, view: View) -> Any:
        conversation = self.engine()
        self.next_id += 1
        message_id = self.next_id
        sent = time.monotonic()
        conversation.send(Act(message_id, view))
        # Skip nothing: the only lines allowed here are the action for this act.
        line = conversation.receive(self.time_limit)
        if line is None:
            raise _Failure(f"no answer to act {message_id} within {self.time_limit:g} s (phase {view.phase})")
        self.report.answer_times.append(time.monotonic() - sent)
        message = self.read_engine_line(line, f"the action for act {message_id}")
        if not isinstance(message, ActionReply) or message.id != message_id:
            raise _Failure(f"answered act {message_id} with {line.strip()[:200]}")
        if message.action not in view.legal:
            allowed = ", ".join(str(a) for a in view.legal)
            raise _Failure(
                f"chose {message.action}, which is not legal in phase {view.phase}; legal: {allowed}"
            )
        return message.action

    def _quit(self) -> None:
        conversation = self.engine()
        conversation.send(Quit())
        try:
            code = conversation.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            raise _Failure("still running 2 s after quit") from None
        if code != 0:
            raise _Failure(f"exited with status {code} after quit; expected 0")
        conversation.close()
        self.conversation = None

    def _eof(self) -> None:
        conversation = self.engine()
        assert conversation.process.stdin is not None
        conversation.note("(the host closes the engine's input)")
        conversation.process.stdin.close()
        try:
            conversation.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            raise _Failure(
                "still running 2 s after its input closed; an engine should exit when the host goes away"
            ) from None


def _finished_view() -> View:
    """A seat's view of a finished hand (phase `over`, with its showdown), from a seeded game."""
    match = Match(Rules.preset("classic"), seed=3)
    players = [make_player("baseline", seed=s) for s in (0, 1)]
    while True:
        seat = match.to_act
        assert seat is not None
        result = match.apply(players[seat].act(match.view(seat)), seat)
        if result is not None and result.outcome != "void":
            return match.hand_view(0, len(match.hands) if match.is_over else len(match.hands) - 1)


def check_engine(
    command: str | Sequence[str],
    *,
    time_limit: float = 10.0,
    hello_timeout: float = 10.0,
    matches: int = 1,
    progress: Callable[[Check], None] | None = None,
) -> CheckReport:
    """Run every check against the engine started by `command`; `progress` hears each result."""
    if time_limit <= 0 or hello_timeout <= 0:
        raise ValueError("time limits must be positive")
    if matches < 0:
        raise ValueError(f"matches must be 0 or more, got {matches}")
    found, missing = scenarios()
    checker = _Checker(
        command, time_limit=time_limit, hello_timeout=hello_timeout, matches=matches, progress=progress
    )
    return checker.check_all(found, missing)
