"""A relayed table never hands its sockets a state older than one it already handed them: a process
that lost the match (and has not heard yet) may still publish on the match's channel."""

from __future__ import annotations

import asyncio
from typing import Any

from ginrummy.service.cluster.tables import RemoteTable, state_version
from ginrummy.service.errors import Refusal
from ginrummy.service.ports import MatchRow, SeatRow


class Host:
    def __init__(self) -> None:
        self.dropped: list[str] = []

    async def call_owner(self, table: RemoteTable, op: str, args: dict[str, Any]) -> Refusal | None:
        return None

    def drop_table(self, table: RemoteTable, reason: str) -> None:
        self.dropped.append(reason)

    def forget_table(self, table: RemoteTable) -> None:
        pass

    def error_text(self, code: str, message: str) -> str:
        return f'{{"type":"error","code":"{code}"}}'


class Socket:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def send_text(self, text: str) -> None:
        self.texts.append(text)


def state(version: int, seat: int = 0) -> str:
    return f'{{"type":"state","version":{version},"match":{{"seat":{seat}}}}}'


def test_state_version_reads_the_version_of_states_and_spectator_states_only() -> None:
    assert state_version(state(17)) == 17
    assert state_version('{"type":"spectate","version":3,"match":{}}') == 3
    assert state_version('{"type":"error","code":"stale","version":3}') is None
    assert state_version('{"type":"reaction","seat":1}') is None


def test_a_relay_drops_a_state_older_than_one_it_sent_and_keeps_the_newest_for_a_second_socket() -> None:
    async def body() -> None:
        row = MatchRow(
            id="m1",
            kind="robot",
            status="playing",
            rules={"preset": "classic"},
            seed="s",
            seats=(SeatRow(0, guest_id="g0"), SeatRow(1, robot_level="novice")),
            created_at=0.0,
        )
        host = Host()
        table = RemoteTable(host, row, "owner-a")
        first = Socket()
        table.connect(0, first)
        table.on_message("S0|" + state(5))
        table.on_message("S0|" + state(3))  # an older copy: never shown
        table.on_message("S0|" + '{"type":"reaction","seat":1,"emote":"gg"}')
        table.on_message("S0|" + state(5))  # the same version again (a seat came back, say): shown
        table.on_message("S1|" + state(2, seat=1))  # another seat's versions are its own
        assert first.texts == [state(5), '{"type":"reaction","seat":1,"emote":"gg"}', state(5)]
        second = Socket()
        table.connect(0, second)
        assert second.texts == [state(5)]
        table.on_message("S0|" + state(4))
        table.on_message("S0|" + state(6))
        assert first.texts[-1] == state(6) and second.texts == [state(5), state(6)]
        assert host.dropped == []
        await asyncio.sleep(0)

    asyncio.run(body())
