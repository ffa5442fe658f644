"""Profile statistics on a scripted set of matches whose every hand is known: matches, win %,
Gin %, undercut %, knocks and the average deadwood at a knock, for both players."""

from __future__ import annotations

import pytest
from compete_helpers import greedy_match
from test_leaderboards import MIDNIGHT, Clock, db_url, people, run  # noqa: F401  (db_url: a fixture)

from ginrummy.service import GameService
from ginrummy.service.ports import MatchRow, SeatRow

# Ann sits in seat 0, Bob in seat 1; each seed's hands (outcome, scorer, knocker, knocker's
# deadwood), as greedy_match plays them:
SCRIPT = {
    17: [("gin", 0, 0, 0)],  # Ann gins at once and wins
    16: [("undercut", 0, 1, 10)],  # Bob knocks with 10, Ann undercuts him and wins
    22: [("knock", 1, 1, 10), ("knock", 0, 0, 9), ("gin", 1, 1, 0)],  # Bob wins with a gin
    36: [("knock", 1, 1, 6), ("knock", 0, 0, 8), ("knock", 1, 1, 9), ("undercut", 1, 0, 8)],  # Bob
}


def test_gin_undercut_and_knock_figures_of_a_scripted_set_of_matches(db_url: str) -> None:  # noqa: F811
    clock = Clock(MIDNIGHT + 3600)

    async def body(service: GameService) -> None:
        ann, bob = await people(service, "Ann", "Bob")
        for seed, hands in SCRIPT.items():
            match = greedy_match(seed)
            played = [
                (h.result.outcome, h.result.scorer, h.result.knocker, h.result.showdown.knocker_deadwood)
                for h in match.hands
                if h.result is not None and h.result.showdown is not None
            ]
            assert played == hands  # the script still plays as written
            assert match.result is not None
            row = MatchRow(
                id=f"scripted-{seed}",
                kind="online",
                status="playing",
                rules=match.rules.to_json(),
                seed=str(match.seed),
                seats=(SeatRow(0, ann.id), SeatRow(1, bob.id)),
                created_at=clock.now - 600,
                deal_bits=match.deal_bits,
                rated=True,
            )
            await service.store.create_match(row)
            outcome = service.outcome_of(match, row.seats, True, clock.now)
            await service.store.finish_match(row.id, match.result.to_json(), clock.now, outcome)
            clock.now += 60

        stats = (await service.history.profile(ann.id))["stats"]
        # 9 hands: one Gin (17), one undercut (16); four knocks (17's Gin with 0, 22's with 9,
        # 36's two with 8): 25 / 4.
        assert (stats["matches"], stats["won"], stats["lost"], stats["drawn"]) == (4, 2, 2, 0)
        assert stats["win_rate"] == 0.5 and stats["hands"] == 9
        assert stats["gin_rate"] == pytest.approx(1 / 9) and stats["undercut_rate"] == pytest.approx(1 / 9)
        assert stats["knocks"] == 4 and stats["knock_deadwood"] == pytest.approx(6.25)

        stats = (await service.history.profile(bob.id))["stats"]
        # 9 hands: one Gin (22), one undercut (36); five knocks (10, 10, 0, 6, 9): 35 / 5.
        assert (stats["matches"], stats["won"], stats["lost"]) == (4, 2, 2)
        assert stats["gin_rate"] == pytest.approx(1 / 9) and stats["undercut_rate"] == pytest.approx(1 / 9)
        assert stats["knocks"] == 5 and stats["knock_deadwood"] == pytest.approx(7.0)

        # Somebody who has not played: no rates at all rather than zeros.
        (cy,) = await people(service, "Cy")
        empty = (await service.history.profile(cy.id))["stats"]
        assert empty["matches"] == 0 and empty["win_rate"] is None
        assert empty["gin_rate"] is None and empty["knock_deadwood"] is None

    run(db_url, clock, body)
