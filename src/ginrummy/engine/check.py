"""The conformance checker for engine authors: drive an engine through every phase, variant and edge case.

`check_engine(command)` starts the program and speaks docs/protocol.md to it the way a host does
and then some. In version 1: a real position of every phase and two-player preset, a view
without its optional fields, a view with a field it does not know, junk, an unknown message, a
line too long, blank lines, a `result`, a whole match per preset against our baseline player.
Then it offers version 2 and, if the engine takes it, does the same for every game: two-player
Gin as version 2 writes it, three-player Gin, team Gin and Rummy at several table sizes (every
phase: the upcard offer, draws, discards, knocks, melds, layoffs, going out, a stock turned
over), the version's edge cases, and a whole game of each. Last, `quit` and the end of input.
Every reply is checked against the message schemas (`schema.py`). Each check passes, fails,
warns or is skipped, and a failure keeps the exchange that shows it, so the author can see what
was sent, what came back, and what the protocol expected.
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
from ..bots.table_players import TablePlayer, make_game_player
from ..rules import (
    BigGin,
    Draw,
    GameAction,
    GameView,
    GinTableView,
    Knock,
    LayMeld,
    LayOff,
    Match,
    Rules,
    RummyView,
    View,
    min_deadwood,
    new_game,
)
from .protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    Act,
    ActionReply,
    AnyView,
    EngineMessage,
    ErrorMessage,
    Hello,
    ProtocolError,
    Quit,
    Result,
    encode,
    parse_engine_message,
)
from .schema import problems

__all__ = [
    "Check",
    "CheckReport",
    "Exchange",
    "Scenario",
    "TableScenario",
    "check_engine",
    "scenarios",
    "table_scenarios",
]

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
    #: The protocol versions the engine accepted in a hello.
    protocols: list[int] = field(default_factory=list)

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
            "protocols": list(self.protocols),
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
        """Write one message as its line."""
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
        """How the engine ended, with its last words on stderr (a traceback's last lines)."""
        try:
            code = self.process.wait(timeout=0.3)
        except subprocess.TimeoutExpired:
            return ""
        self._threads[1].join(timeout=0.3)
        said = [e.text for e in self.log if e.direction == "stderr" and e.text.strip()][-3:]
        last = f"; its last stderr lines: {' | '.join(said)}" if said else ""
        return f" (it exited with status {code}{last})"

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


# -- positions of the games for more than two (version 2) ------------------------------


@dataclass(frozen=True, slots=True)
class TableScenario:
    """A real position of a game of version 2 for the seat to act: what it shows, and the view."""

    name: str
    view: AnyView


def _own_table(view: GinTableView) -> Any:
    number = view.table
    return None if number is None else view.tables[number]


def _goes_out(view: RummyView) -> bool:
    """Whether some legal action empties the hand (a last discard, or laying the last cards)."""
    size = len(view.hand)
    for action in view.legal:
        if isinstance(action, LayMeld) and len(action.cards) == size:
            return True
        if size == 1 and not isinstance(action, Draw):
            return True
    return False


def _table_wanted() -> list[tuple[str, Rules, Callable[[Any], bool]]]:
    gin3, teams = Rules.preset("gin3"), Rules.preset("gin4_teams")
    wanted: list[tuple[str, Rules, Callable[[Any], bool]]] = [
        (
            "gin3: the first upcard, first to decide",
            gin3,
            lambda v: v.phase == "offer" and not _own_table(v).history,
        ),
        (
            "gin3: the first upcard after the other player passed",
            gin3,
            lambda v: v.phase == "offer" and len(_own_table(v).history) == 1,
        ),
        ("gin3: draw: stock or upcard", gin3, lambda v: v.phase == "draw" and len(v.legal) == 2),
        ("gin3: discard with a knock allowed", gin3, lambda v: any(isinstance(a, Knock) for a in v.legal)),
        ("gin3: a later hand, with three totals", gin3, lambda v: v.hand_number > 1 and sum(v.scores) > 0),
        ("gin4_teams: the first upcard", teams, lambda v: v.phase == "offer"),
        (
            "gin4_teams: both hands waiting for a move at once",
            teams,
            lambda v: v.phase == "discard" and all(t.to_act is not None for t in v.tables),
        ),
        (
            "gin4_teams: discard with a knock allowed",
            teams,
            lambda v: any(isinstance(a, Knock) for a in v.legal),
        ),
        (
            "gin4_teams: after a round, with team totals",
            teams,
            lambda v: v.hand_number > 1 and sum(v.scores) > 0,
        ),
    ]
    for players in (2, 3, 4, 6):
        rules = Rules.for_game("rummy", players)
        wanted += [
            (
                f"rummy for {players}: draw: stock or discard pile",
                rules,
                lambda v: v.phase == "draw" and len(v.legal) == 2,
            ),
            (
                f"rummy for {players}: a meld to lay",
                rules,
                lambda v: v.phase == "play" and any(isinstance(a, LayMeld) for a in v.legal),
            ),
            (
                f"rummy for {players}: a card to lay off",
                rules,
                lambda v: any(isinstance(a, LayOff) for a in v.legal),
            ),
            (f"rummy for {players}: going out", rules, _goes_out),
        ]
    wanted.append(
        (
            "rummy for 6: the stock is empty: draw turns the discard pile over",
            Rules.for_game("rummy", 6),
            lambda v: v.phase == "draw" and v.stock_count == 0,
        ),
    )
    return wanted


def _table_players(rules: Rules, seed: int) -> list[TablePlayer]:
    name = "novice" if rules.game == "rummy" else "baseline"
    return [make_game_player(name, rules, seed=seed * 8 + s) for s in range(rules.players)]


@functools.cache
def table_scenarios(*, seeds: int = 60) -> tuple[list[TableScenario], list[str]]:
    """A real position for each kind of version-2 check, found by our players' seeded games.

    Returns the positions and the names of any kind no game reached within `seeds` games.
    """
    wanted = _table_wanted()
    found: dict[str, AnyView] = {}
    for rules in dict.fromkeys(r for _, r, _ in wanted):
        tests = [(name, test) for name, r, test in wanted if r == rules]
        for seed in range(seeds):
            if all(name in found for name, _ in tests):
                break
            game = new_game(rules, seed=seed)
            players = _table_players(rules, seed)
            for _ in range(3000):
                if game.is_over:
                    break
                seat = game.seats_to_act[0]
                view = _protocol_view(game.view(seat))
                for name, test in tests:
                    if name not in found and test(view):
                        found[name] = view
                game.apply(players[seat].act(view), seat)
    ordered = [TableScenario(name, found[name]) for name, _, _ in wanted if name in found]
    missing = [name for name, _, _ in wanted if name not in found]
    return ordered, missing


# -- the checks ------------------------------------------------------------------------

#: A Rummy hand past this many actions is players taking each other's discards for ever (the
#: rules let them); the checker stops that game there, as the arena does: no fault of the engine.
_MAX_HAND_ACTIONS = 2000


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
        #: The version every conversation is started in (1, then 2 once the engine took it).
        self.version = PROTOCOL_VERSION
        #: Fields the engine's replies carried that the protocol does not define, this check.
        self.unknown: list[str] = []

    # -- plumbing ------------------------------------------------------------------

    def record(self, name: str, status: Status, detail: str, exchange: list[Exchange] | None = None) -> Check:
        check = Check(name, status, detail, exchange if exchange is not None else [])
        self.report.checks.append(check)
        if self.progress is not None:
            self.progress(check)
        return check

    def engine(self) -> _Conversation:
        """The running engine, started (with a hello of `version`) when needed."""
        if self.conversation is not None and self.conversation.alive():
            return self.conversation
        if self.conversation is not None:
            self.conversation.close()
        conversation = _Conversation(self.argv, self.start)
        self.conversation = conversation
        conversation.note(f"started {self.command}")
        message = self.hello(self.version)
        if isinstance(message, ErrorMessage):
            raise _Failure(f"refused a hello of protocol {self.version}: {message.message}")
        if message.protocol != self.version:
            raise _Failure(f"answered a hello of protocol {self.version} with protocol {message.protocol}")
        if self.report.engine_name is None:
            self.report.engine_name = message.name
        return conversation

    def hello(self, version: int) -> Hello | ErrorMessage:
        """Send a hello of `version` and read the answer: a hello (of any version) or an error."""
        assert self.conversation is not None
        self.conversation.send(Hello(version))
        line = self.conversation.receive(self.hello_timeout)
        if line is None:
            raise _Failure(f"no hello within {self.hello_timeout:g} s after the host's hello")
        message = self.read_engine_line(line, f"its hello (protocol {version})", version=None)
        if not isinstance(message, (Hello, ErrorMessage)):
            raise _Failure(f"answered the hello with {message.to_json()['type']!r}; expected a hello")
        return message

    def read_engine_line(self, line: str, expected: str, *, version: int | None = -1) -> EngineMessage:
        """The engine's message on `line`, checked against the schemas of `version` (the
        conversation's by default; a hello is checked against the version it names)."""
        version = self.version if version == -1 else version
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise _Failure(f"sent a line that is not JSON ({exc}) while {expected} was due") from None
        if version is None:
            protocol = data.get("protocol") if isinstance(data, dict) else None
            version = protocol if protocol in (1, 2) else PROTOCOL_VERSION
        found = problems(data, "engine-message", version)
        wrong = [p.text for p in found if not p.unknown_field]
        if wrong:
            raise _Failure(
                f"sent a message the protocol (version {version}) does not allow while {expected} was due: "
                + "; ".join(wrong)
            )
        self.unknown += [p.text for p in found]
        try:
            return parse_engine_message(line, version)
        except ProtocolError as exc:
            raise _Failure(f"sent an unreadable message while {expected} was due: {exc}") from None

    def ask(self, view: AnyView, *, send: Callable[[int], None] | None = None) -> GameAction:
        """Send an act for `view` (or let `send` write it), check the answer and return its action."""
        conversation = self.engine()
        self.next_id += 1
        message_id = self.next_id
        sent = time.monotonic()
        if send is None:
            conversation.send(Act(message_id, view, self.version))
        else:
            send(message_id)
        line = conversation.receive(self.time_limit)
        if line is None:
            raise _Failure(
                f"no answer to act {message_id} within the time limit of {self.time_limit:g} s (phase {view.phase})"
            )
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
        return message.action

    def silent(self, seconds: float, after: str) -> None:
        """The engine must say nothing for `seconds`."""
        line = self.engine().receive(seconds)
        if line is not None:
            raise _Failure(f"replied to {after}, which expects no reply: {line.strip()[:200]}")

    def run(self, name: str, body: Callable[[], object], *, warn_only: bool = False, ok: str = "") -> None:
        conversation = self.conversation
        mark = len(conversation.log) if conversation is not None else 0
        self.unknown = []
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
        if self.unknown:
            shown = "; ".join(dict.fromkeys(self.unknown))
            self.record(
                name,
                "warn",
                f"replies carry fields the protocol does not define (hosts ignore them): {shown}",
                self._exchange_since(conversation, mark),
            )
            return
        self.record(name, "pass", ok)

    def _exchange_since(self, before: _Conversation | None, mark: int) -> list[Exchange]:
        now = self.conversation
        if now is None:
            return []
        log = now.log[mark:] if now is before else now.log
        return log[-12:]

    # -- the checks ----------------------------------------------------------------

    def check_all(
        self,
        found: list[Scenario],
        missing: list[str],
        table_found: list[TableScenario],
        table_missing: list[str],
    ) -> CheckReport:
        try:
            self.run("start and hello", self._hello, ok="")
            if self.report.checks[-1].status == "fail":
                return self.report
            self.report.protocols.append(1)
            for scenario in found:
                self.run(
                    f"act: {scenario.name}", functools.partial(self.ask, scenario.view), ok="a legal action"
                )
            for name in missing:
                self.record(f"act: {name}", "skip", "no seeded game reached this position")
            base = found[0].view if found else None
            if base is not None:
                self._edge_cases(base)
            self._matches()
            self._version_2(found, table_found, table_missing)
            self.run("quit: the engine exits with status 0", self._quit)
            self.run("end of input: the engine exits", self._eof, warn_only=True)
        finally:
            if self.conversation is not None:
                self.conversation.close(grace=0.2)
        return self.report

    def _hello(self) -> None:
        self.engine()

    def _edge_cases(self, base: View) -> None:
        def minimal(message_id: int) -> None:
            data = Act(message_id, base).to_json()
            _drop_optional(data["view"])
            self.engine().send_text(json.dumps(data, separators=(",", ":")))

        self.run(
            "act: a view without its optional fields (no showdown, rules by preset, no drawn cards)",
            lambda: self._ask_only(base, minimal),
            ok="answered",
        )

        def unknown_field(message_id: int) -> None:
            data = Act(message_id, base).to_json()
            data["view"]["table_talk"] = "a field from a later protocol version"
            data["comment"] = "hosts may add fields"
            self.engine().send_text(json.dumps(data, separators=(",", ":")))

        self.run(
            "act: a message and a view with fields the engine does not know",
            lambda: self._ask_only(base, unknown_field),
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

    def _ask_only(self, view: AnyView, send: Callable[[int], None]) -> None:
        self.ask(view, send=send)

    def _result_then_act(self, over: AnyView, base: AnyView) -> None:
        self.engine().send(Result(over, self.version))
        self.silent(0.3, "a result")
        self.ask(base)

    def _blank_lines(self, base: View) -> None:
        conversation = self.engine()
        conversation.send_text("")
        conversation.send_text("   ")
        self.silent(0.3, "blank lines")
        self.ask(base)

    def _junk(self, line: str, base: AnyView) -> None:
        conversation = self.engine()
        conversation.send_text(line)
        reply = conversation.receive(self.time_limit)
        if reply is None:
            raise _Failure(
                f"no error reply within {self.time_limit:g} s; docs/protocol.md: a message the engine cannot read gets an error"
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
        self.engine()
        message = self.hello(99)
        if not isinstance(message, ErrorMessage):
            raise _Failure("answered a hello of protocol 99 with a hello; expected an error")

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
        while not match.is_over:
            seat = match.to_act
            assert seat is not None
            view = match.view(seat)
            action = self.ask(view) if seat == engine_seat else opponent.act(view)
            result = match.apply(action, seat)
            if result is not None:
                number = len(match.hands) if match.is_over else len(match.hands) - 1
                self.engine().send(Result(match.hand_view(engine_seat, number)))
                opponent.observe(match.hand_view(1 - engine_seat, number))
        self.silent(0.05, "the last result")

    # -- version 2 -----------------------------------------------------------------

    def _version_2(self, found: list[Scenario], table_found: list[TableScenario], missing: list[str]) -> None:
        """Offer version 2; if the engine takes it, every game's checks in version 2."""
        if self.conversation is not None:
            self.conversation.close(grace=0.2)
            self.conversation = None
        refused: list[str] = []

        def offer() -> None:
            conversation = _Conversation(self.argv, self.start)
            self.conversation = conversation
            conversation.note(f"started {self.command}")
            message = self.hello(2)
            if isinstance(message, ErrorMessage):
                refused.append(f"it refused a hello of protocol 2 ({message.message})")
            elif message.protocol != 2:
                refused.append(f"it answered a hello of protocol 2 with protocol {message.protocol}")

        self.run("version 2: hello", offer, ok="the engine speaks version 2")
        if self.report.checks[-1].status == "fail":
            return
        if refused:
            self.report.checks[-1].status = "skip"
            self.report.checks[-1].detail = (
                f"{refused[0]}: a host seats it at two-player Gin and, in version 1, at three- and "
                "four-player Gin; not at Rummy, which needs version 2. The version-2 checks are skipped."
            )
            if self.conversation is not None:
                self.conversation.close(grace=0.2)
                self.conversation = None
            return
        self.version = 2
        self.report.protocols.append(2)
        for scenario in found[:1] + [s for s in found if s.view.phase == "discard"][:1]:
            self.run(
                f"version 2: two-player Gin: {scenario.name}",
                functools.partial(self.ask, scenario.view),
                ok="a legal action",
            )
        for table in table_found:
            self.run(f"version 2: {table.name}", functools.partial(self.ask, table.view), ok="a legal action")
        for name in missing:
            self.record(f"version 2: {name}", "skip", "no seeded game reached this position")
        bases: dict[str, AnyView] = {}
        for table in table_found:
            # Rules "by preset" need rules that are a preset (Rummy for two, three or six is not).
            if table.view.rules.preset_name in Rules.preset_names():
                bases.setdefault(table.view.rules.game, table.view)
        self._edge_cases_2(bases)
        self._games_2()

    def _edge_cases_2(self, bases: dict[str, AnyView]) -> None:
        for game, view in bases.items():

            def minimal(message_id: int, view: AnyView = view) -> None:
                data = Act(message_id, view, 2).to_json()
                _drop_optional(data["view"])
                self.engine().send_text(json.dumps(data, separators=(",", ":")))

            self.run(
                f"version 2: a {game} view without its optional fields (rules by preset, no showdown, no drawn cards)",
                functools.partial(self._ask_only, view, minimal),
                ok="answered",
            )
        base = next(iter(bases.values()), None)
        if base is None:
            return
        broken = {"type": "act", "id": 10**6 + 1, "view": {"game": "rummy", "seat": 0}}
        self.run(
            "version 2: an act whose view is broken gets an error reply",
            lambda: self._junk(json.dumps(broken), base),
            ok="an error reply, then a legal action",
        )
        over = _finished_table_view()
        self.run(
            "version 2: a Rummy result gets no reply, and play goes on",
            lambda: self._result_then_act(over, base),
            ok="no reply, then a legal action",
        )

    def _games_2(self) -> None:
        games = [Rules.preset("gin3"), Rules.preset("gin4_teams")]
        games += [Rules.for_game("rummy", n) for n in (2, 3, 4, 6)]
        for rules in games:
            label = rules.game if rules.game != "rummy" else f"rummy for {rules.players}"
            for number in range(self.matches):
                self.run(
                    f"version 2: a whole {label} game against our players (seed {number})",
                    functools.partial(self._table_game, rules, number),
                    ok="finished without a fault",
                )

    def _table_game(self, rules: Rules, seed: int) -> None:
        game = new_game(rules, seed=seed)
        players = _table_players(rules, seed)
        engine_seat = seed % rules.players
        since_deal = 0
        while not game.is_over:
            acting = game.seats_to_act
            seat = engine_seat if engine_seat in acting else acting[0]
            number = game.hand_number
            view = _protocol_view(game.view(seat))
            action = self.ask(view) if seat == engine_seat else players[seat].act(view)
            ended = game.apply(action, seat)
            since_deal += 1
            if since_deal > _MAX_HAND_ACTIONS:
                self.engine().note(f"(deal {number} passed {_MAX_HAND_ACTIONS} actions: the game is stopped)")
                return
            if ended is None:
                continue
            if game.hand_number != number or game.is_over:
                since_deal = 0
            for other in range(rules.players):
                hand_view = _protocol_view(game.hand_view(other, number))
                if other == engine_seat:
                    self.engine().send(Result(hand_view, 2))
                else:
                    players[other].observe(hand_view)
        self.silent(0.05, "the last result")

    # -- the end -------------------------------------------------------------------

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


def _protocol_view(view: GameView) -> AnyView:
    """A game's view as the protocol's types (every game's view is one)."""
    assert isinstance(view, (View, GinTableView, RummyView))
    return view


def _drop_optional(view: dict[str, Any]) -> None:
    """Take out of a VIEW's JSON every field a host may leave out (docs/protocol.md, "optional"):
    showdowns, a team round, every rule but the preset's name, and the cards of stock draws."""
    for holder in (view, *view.get("tables", [])):
        holder.pop("showdown", None)
        for entry in holder.get("history", []):
            if entry["action"] == {"type": "draw", "source": "stock"}:
                entry.pop("card", None)
    view.pop("round", None)
    view["rules"] = {"preset": view["rules"]["preset"]}


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


def _finished_table_view() -> AnyView:
    """A seat's view of a finished Rummy hand (with its result), from a seeded game."""
    rules = Rules.preset("rummy")
    game = new_game(rules, seed=3)
    players = _table_players(rules, 3)
    while True:
        seat = game.seats_to_act[0]
        number = game.hand_number
        ended = game.apply(players[seat].act(game.view(seat)), seat)
        if ended is not None and ended.outcome != "void":
            return _protocol_view(game.hand_view(0, number))


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
    table_found, table_missing = table_scenarios()
    checker = _Checker(
        command, time_limit=time_limit, hello_timeout=hello_timeout, matches=matches, progress=progress
    )
    return checker.check_all(found, missing, table_found, table_missing)
