"""Fair play: the addresses guests were seen at, head-to-head results, and the flags raised."""

from __future__ import annotations

import json

import sqlalchemy as sa

from ...service.ports import FlagRow
from ..schema import fair_play_flags, guest_addresses, matches, player_matches
from .common import insert_for
from .writer import StoreBase


class FairPlayQueries(StoreBase):
    """The fair-play records of `SqlStore`."""

    async def note_address(self, guest_id: str, address: str, at: float) -> None:
        def job(conn: sa.Connection) -> None:
            insert = insert_for(conn, guest_addresses)
            conn.execute(
                insert.values(
                    guest_id=guest_id, address=address, first_at=at, last_at=at
                ).on_conflict_do_update(
                    index_elements=["guest_id", "address"], set_={"last_at": insert.excluded.last_at}
                )
            )

        await self._run(job)

    async def guests_seen_at(self, address: str, since: float) -> list[str]:
        ga = guest_addresses.c

        def job(conn: sa.Connection) -> list[str]:
            rows = conn.execute(sa.select(ga.guest_id).where(ga.address == address, ga.last_at >= since))
            return sorted(r.guest_id for r in rows)

        return await self._run(job, read=True)

    async def shared_addresses(self, first: str, second: str) -> list[str]:
        one, two = guest_addresses.alias("one"), guest_addresses.alias("two")

        def job(conn: sa.Connection) -> list[str]:
            rows = conn.execute(
                sa.select(one.c.address)
                .join(two, two.c.address == one.c.address)
                .where(one.c.guest_id == first, two.c.guest_id == second)
                .order_by(one.c.address)
            )
            return [r.address for r in rows]

        return await self._run(job, read=True)

    async def head_to_head(self, first: str, second: str, game: str, since: float) -> list[tuple[str, float]]:
        pm = player_matches.c

        def job(conn: sa.Connection) -> list[tuple[str, float]]:
            rows = conn.execute(
                sa.select(pm.match_id, pm.score)
                .join(matches, matches.c.id == pm.match_id)
                .where(
                    pm.guest_id == first,
                    pm.opponent_id == second,
                    pm.game == game,
                    pm.finished_at >= since,
                    matches.c.rated.is_(True),
                )
                .order_by(pm.finished_at, pm.match_id)
            )
            return [(r.match_id, float(r.score)) for r in rows]

        return await self._run(job, read=True)

    async def add_flag(self, flag: FlagRow) -> None:
        def job(conn: sa.Connection) -> None:
            insert = insert_for(conn, fair_play_flags)
            conn.execute(
                insert.values(
                    match_id=flag.match_id,
                    kind=flag.kind,
                    winner_id=flag.winner_id,
                    loser_id=flag.loser_id,
                    at=flag.at,
                    evidence=json.dumps(flag.evidence, separators=(",", ":"), sort_keys=True),
                ).on_conflict_do_nothing(index_elements=["match_id", "kind"])
            )

        await self._run(job)

    async def flags(self, limit: int) -> list[FlagRow]:
        f = fair_play_flags.c

        def job(conn: sa.Connection) -> list[FlagRow]:
            rows = conn.execute(sa.select(fair_play_flags).order_by(f.at.desc(), f.match_id).limit(limit))
            return [
                FlagRow(r.match_id, r.kind, r.winner_id, r.loser_id, r.at, json.loads(r.evidence))
                for r in rows
            ]

        return await self._run(job, read=True)
