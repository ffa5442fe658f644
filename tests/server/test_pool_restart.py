"""Quick pairing across a restart: the pool lives in memory, but a pairing is stored before anyone
is told of it, so a page that had not heard of its pairing when the server stopped is sent to its
match when it joins again; nobody else is."""

from __future__ import annotations

from pathlib import Path

from test_service_clock import with_service

from ginrummy.service import GameService
from ginrummy.service.ports import GuestRow

POOL = {"preset": "classic", "target": 100, "rated": False}


def test_a_pairing_the_last_process_made_is_told_when_the_page_joins_again(tmp_path: Path) -> None:
    made: dict[str, GuestRow] = {}
    match: list[str] = []

    async def paired_now(service: GameService, first: GuestRow, second: GuestRow) -> str:
        for guest in (first, second):
            assert (await service.seeking.seek(guest, POOL))["state"] == "waiting"
        assert await service.pool.wave() == 1
        found = service.pool.by_guest[first.id].match_id
        assert found is not None
        return found

    async def before(service: GameService) -> None:
        ann, bob, cid, dan = [await service.guests.new_guest() for _ in range(4)]
        made.update(ann=ann, bob=bob)
        # cid and dan are paired and told; cid leaves its match and seeks again: it just waits.
        await paired_now(service, cid, dan)
        assert (await service.seeking.wait_for_pairing(cid, 0.1))["state"] == "paired"
        for _ in range(2):  # the second time nothing of its pairing is left in the pool
            assert (await service.seeking.seek(cid, POOL))["state"] == "waiting"
            assert await service.seeking.stop_seeking(cid)
        # ann and bob are paired (stored); the server stops before either page asks again.
        match.append(await paired_now(service, ann, bob))

    async def after(service: GameService) -> None:
        for guest in (made["ann"], made["bob"]):
            news = await service.seeking.seek(guest, POOL)
            assert news["state"] == "paired" and news["match_id"] == match[0], news
            assert (await service.seeking.wait_for_pairing(guest, 0.1))["url"] == f"/m/{match[0]}"
        newcomer = await service.guests.new_guest()
        assert (await service.seeking.seek(newcomer, POOL))["state"] == "waiting"

    with_service(tmp_path, before)
    with_service(tmp_path, after)
