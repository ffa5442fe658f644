"""Swiss pairing by the FIDE Dutch system (py4swiss) on known examples, whole simulated tournaments,
byes, and the Buchholz / Sonneborn-Berger tie-breaks."""

from __future__ import annotations

import random

import pytest

from ginrummy.service.ports import MatchRow, SeatRow, TournamentPlayer
from ginrummy.service.swiss import Cell, swiss_cells, swiss_pairing, swiss_standings


def match(
    n: int, round_number: int, first: str, second: str | None, winner: int | None, **extra: object
) -> MatchRow:
    seats = (SeatRow(0, first), SeatRow(1, second) if second else SeatRow(1, robot_level="casual"))
    result: dict[str, object] = {"winner": winner, **extra}
    return MatchRow(
        id=f"m{n}",
        kind="tourney",
        status="over",
        rules={"preset": "classic"},
        seed="0",
        seats=seats,
        created_at=float(n),
        finished_at=float(n) + 0.5,
        result=result,
        tournament_id="t",
        round=round_number,
    )


PLAYERS = [f"p{i}" for i in range(1, 8)]
RATINGS = {g: 2000.0 - 10 * i for i, g in enumerate(PLAYERS)}


def test_round_one_of_seven_players_pairs_top_half_against_bottom_half_and_gives_the_last_a_bye() -> None:
    cells = swiss_cells([], [], PLAYERS, 0)
    found = swiss_pairing(cells, PLAYERS, set(PLAYERS), RATINGS, 5)
    assert found is not None
    pairs, bye = found
    # FIDE Dutch, round 1: S1 = 1..3 against S2 = 4..6 with colours alternating by board; 7 sits out.
    assert pairs == [("p1", "p4"), ("p5", "p2"), ("p3", "p6")] and bye == "p7"


def test_round_two_pairs_within_score_groups_and_the_bye_goes_to_another_player() -> None:
    played = [match(1, 1, "p1", "p4", 0), match(2, 1, "p5", "p2", 0), match(3, 1, "p3", "p6", 0)]
    cells = swiss_cells(played, [(1, "p7")], PLAYERS, 1)
    assert [c.mark for c in cells["p7"]] == ["B"] and cells["p7"][0].points == 1.0
    found = swiss_pairing(cells, PLAYERS, set(PLAYERS), RATINGS, 5)
    assert found is not None
    pairs, bye = found
    score = {g: sum(c.points for c in cells[g]) for g in PLAYERS}
    assert all(score[a] == score[b] for a, b in pairs)  # 1, 3, 5, 7 meet; two of 2, 4, 6 meet
    assert bye in ("p2", "p4", "p6")  # the lowest group's odd one out; p7 has had its bye
    met = {frozenset(("p1", "p4")), frozenset(("p5", "p2")), frozenset(("p3", "p6"))}
    assert not {frozenset(p) for p in pairs} & met


def test_absent_players_are_not_paired_and_late_rounds_count_nothing() -> None:
    cells = swiss_cells([match(1, 1, "p1", "p2", 1)], [], ["p1", "p2", "p3", "p4"], 1)
    assert [c.kind for c in cells["p3"]] == ["absent"] and cells["p3"][0].mark == "-"
    found = swiss_pairing(cells, ["p1", "p2", "p3", "p4"], {"p1", "p2", "p3"}, {}, 3)
    assert found is not None
    pairs, bye = found
    assert "p4" not in {g for pair in pairs for g in pair} and bye is not None and bye != "p4"


def test_a_round_that_cannot_be_paired_without_a_rematch_is_refused() -> None:
    three = ["a", "b", "c"]
    played = [match(1, 1, "a", "b", 0), match(2, 2, "a", "c", 0), match(3, 3, "b", "c", 0)]
    cells = swiss_cells(played, [(1, "c"), (2, "b"), (3, "a")], three, 3)
    assert swiss_pairing(cells, three, set(three), {}, 5) is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_tournaments_never_pair_twice_never_rematch_and_give_at_most_one_bye(seed: int) -> None:
    rng = random.Random(seed)
    players = [f"g{i}" for i in range(rng.choice([9, 10, 11]))]
    ratings = {g: rng.uniform(1200, 2200) for g in players}
    order = sorted(players, key=lambda g: -ratings[g])
    matches: list[MatchRow] = []
    byes: list[tuple[int, str]] = []
    met: set[frozenset[str]] = set()
    for number in range(1, 6):
        cells = swiss_cells(matches, byes, players, number - 1)
        found = swiss_pairing(cells, order, set(players), ratings, 5)
        assert found is not None, f"round {number}"
        pairs, bye = found
        seen = [g for pair in pairs for g in pair] + ([bye] if bye else [])
        assert sorted(seen) == sorted(players)  # everyone once, nobody against itself
        assert (bye is None) == (len(players) % 2 == 0)
        for a, b in pairs:
            assert frozenset((a, b)) not in met
            met.add(frozenset((a, b)))
            matches.append(match(len(matches), number, a, b, rng.choice([0, 1, None])))
        if bye:
            assert bye not in {g for _, g in byes}
            byes.append((number, bye))
    standings = swiss_standings(swiss_cells(matches, byes, players, 5), [], ratings)
    assert sum(s.score for s in standings) == len(matches) + len(byes)
    assert [s.score for s in standings] == sorted((s.score for s in standings), reverse=True)


def test_tie_breaks_buchholz_then_sonneborn_berger() -> None:
    four = [TournamentPlayer(g, float(i)) for i, g in enumerate(["ann", "bob", "cy", "dee"])]
    played = [
        match(1, 1, "ann", "bob", 0),  # ann 1
        match(2, 1, "cy", "dee", 0),  # cy 1
        match(3, 2, "ann", "cy", None),  # ann 1.5, cy 1.5
        match(4, 2, "bob", "dee", 0),  # bob 1
        match(5, 3, "dee", None, 0),  # dee beats a robot: 1
    ]
    cells = swiss_cells(played, [(3, "bob")], [p.guest_id for p in four], 3)
    assert [c.mark for c in cells["dee"]] == ["0", "0", "R1"]
    assert [c.mark for c in cells["ann"]] == ["1", "½", "-"]
    table = {s.guest_id: s for s in swiss_standings(cells, four, {})}
    assert table["ann"].score == table["cy"].score == 1.5
    # ann: bob 2 + cy 1.5 + herself 1.5 (absent); cy: dee 1 + ann 1.5 + herself 1.5.
    assert table["ann"].buchholz == 5.0 and table["cy"].buchholz == 4.0
    # S-B: ann beat bob (2) and drew cy (0.75); cy beat dee (1) and drew ann (0.75).
    assert table["ann"].sonneborn_berger == 2.75 and table["cy"].sonneborn_berger == 1.75
    order = [s.guest_id for s in swiss_standings(cells, four, {})]
    assert order == ["bob", "ann", "cy", "dee"]  # bob: 2 points (a loss, a win, a bye)


def test_aborted_matches_count_nothing_and_are_no_meeting() -> None:
    cells = swiss_cells([match(1, 1, "a", "b", None, ended="aborted")], [], ["a", "b"], 1)
    assert cells["a"][0] == Cell("aborted", 0.0, "b", 0, "m1") and not cells["a"][0].played
    found = swiss_pairing(cells, ["a", "b"], {"a", "b"}, {}, 3)
    assert found is not None and {frozenset(p) for p in found[0]} == {frozenset(("a", "b"))}
