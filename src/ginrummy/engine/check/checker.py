"""The checks themselves: each one sends the engine what it tests and judges what comes back."""

from __future__ import annotations

import functools
import json
import shlex
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import Any

from ...bots import make_player
from ...rules import GameAction, Match, Rules, View, new_game
from ..protocol import (
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
    parse_engine_message,
)
from ..schema import problems
from .conversation import CheckFailure, Conversation
from .report import Check, CheckReport, Exchange, Status
from .scenarios import (
    Scenario,
    TableScenario,
    finished_table_view,
    finished_view,
    protocol_view,
    scenarios,
    table_players,
    table_scenarios,
)

__all__ = ["check_engine"]

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
        self.conversation: Conversation | None = None
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

    def engine(self) -> Conversation:
        """The running engine, started (with a hello of `version`) when needed."""
        if self.conversation is not None and self.conversation.alive():
            return self.conversation
        if self.conversation is not None:
            self.conversation.close()
        conversation = Conversation(self.argv, self.start)
        self.conversation = conversation
        conversation.note(f"started {self.command}")
        message = self.hello(self.version)
        if isinstance(message, ErrorMessage):
            raise CheckFailure(f"refused a hello of protocol {self.version}: {message.message}")
        if message.protocol != self.version:
            raise CheckFailure(
                f"answered a hello of protocol {self.version} with protocol {message.protocol}"
            )
        if self.report.engine_name is None:
            self.report.engine_name = message.name
        return conversation

    def hello(self, version: int) -> Hello | ErrorMessage:
        """Send a hello of `version` and read the answer: a hello (of any version) or an error."""
        assert self.conversation is not None
        self.conversation.send(Hello(version))
        line = self.conversation.receive(self.hello_timeout)
        if line is None:
            raise CheckFailure(f"no hello within {self.hello_timeout:g} s after the host's hello")
        message = self.read_engine_line(line, f"its hello (protocol {version})", version=None)
        if not isinstance(message, (Hello, ErrorMessage)):
            raise CheckFailure(f"answered the hello with {message.to_json()['type']!r}; expected a hello")
        return message

    def read_engine_line(self, line: str, expected: str, *, version: int | None = -1) -> EngineMessage:
        """The engine's message on `line`, checked against the schemas of `version` (the
        conversation's by default; a hello is checked against the version it names)."""
        version = self.version if version == -1 else version
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise CheckFailure(f"sent a line that is not JSON ({exc}) while {expected} was due") from None
        if version is None:
            protocol = data.get("protocol") if isinstance(data, dict) else None
            version = protocol if protocol in (1, 2) else PROTOCOL_VERSION
        found = problems(data, "engine-message", version)
        wrong = [p.text for p in found if not p.unknown_field]
        if wrong:
            raise CheckFailure(
                f"sent a message the protocol (version {version}) does not allow while {expected} was due: "
                + "; ".join(wrong)
            )
        self.unknown += [p.text for p in found]
        try:
            return parse_engine_message(line, version)
        except ProtocolError as exc:
            raise CheckFailure(f"sent an unreadable message while {expected} was due: {exc}") from None

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
            raise CheckFailure(
                f"no answer to act {message_id} within the time limit of {self.time_limit:g} s (phase {view.phase})"
            )
        self.report.answer_times.append(time.monotonic() - sent)
        message = self.read_engine_line(line, f"the action for act {message_id}")
        if isinstance(message, ErrorMessage):
            raise CheckFailure(f"answered act {message_id} with an error: {message.message}")
        if not isinstance(message, ActionReply):
            raise CheckFailure(
                f"answered act {message_id} with {message.to_json()['type']!r}; expected an action"
            )
        if message.id != message_id:
            raise CheckFailure(f"answered act {message_id} with the id {message.id}")
        if message.action not in view.legal:
            allowed = ", ".join(str(a) for a in view.legal)
            raise CheckFailure(f"chose {message.action}, which is not legal here; legal: {allowed}")
        return message.action

    def silent(self, seconds: float, after: str) -> None:
        """The engine must say nothing for `seconds`."""
        line = self.engine().receive(seconds)
        if line is not None:
            raise CheckFailure(f"replied to {after}, which expects no reply: {line.strip()[:200]}")

    def run(self, name: str, body: Callable[[], object], *, warn_only: bool = False, ok: str = "") -> None:
        conversation = self.conversation
        mark = len(conversation.log) if conversation is not None else 0
        self.unknown = []
        try:
            body()
        except CheckFailure as exc:
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

    def _exchange_since(self, before: Conversation | None, mark: int) -> list[Exchange]:
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
        over = finished_view()
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
            raise CheckFailure(
                f"no error reply within {self.time_limit:g} s; docs/protocol.md: a message the engine cannot read gets an error"
            )
        message = self.read_engine_line(reply, "an error reply")
        if not isinstance(message, ErrorMessage):
            raise CheckFailure(f"answered with {message.to_json()['type']!r}; expected an error")
        self.ask(base)

    def _long_line(self, base: View) -> None:
        conversation = self.engine()
        size = MAX_LINE + MAX_LINE // 2
        conversation.send_text("x" * size, shown=f"(a line of {size} x characters)")
        reply = conversation.receive(min(self.time_limit, 2.0))
        if reply is not None:
            message = self.read_engine_line(reply, "an error reply or nothing")
            if not isinstance(message, ErrorMessage):
                raise CheckFailure(f"answered a junk line with {message.to_json()['type']!r}")
        self.ask(base)

    def _other_version(self) -> None:
        self.engine()
        message = self.hello(99)
        if not isinstance(message, ErrorMessage):
            raise CheckFailure("answered a hello of protocol 99 with a hello; expected an error")

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
            conversation = Conversation(self.argv, self.start)
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
        over = finished_table_view()
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
        players = table_players(rules, seed)
        engine_seat = seed % rules.players
        since_deal = 0
        while not game.is_over:
            acting = game.seats_to_act
            seat = engine_seat if engine_seat in acting else acting[0]
            number = game.hand_number
            view = protocol_view(game.view(seat))
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
                hand_view = protocol_view(game.hand_view(other, number))
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
            code = conversation.pipe.wait(2.0)
        except subprocess.TimeoutExpired:
            raise CheckFailure("still running 2 s after quit") from None
        if code != 0:
            raise CheckFailure(f"exited with status {code} after quit; expected 0")
        conversation.close()
        self.conversation = None

    def _eof(self) -> None:
        conversation = self.engine()
        conversation.note("(the host closes the engine's input)")
        conversation.pipe.close_input()
        try:
            conversation.pipe.wait(2.0)
        except subprocess.TimeoutExpired:
            raise CheckFailure(
                "still running 2 s after its input closed; an engine should exit when the host goes away"
            ) from None


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
