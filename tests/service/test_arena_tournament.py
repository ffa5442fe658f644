"""Arena scoring and pairing (Lichess's arena rules): streaks, ties, no self-pairing, no immediate rematch."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ginrummy.service.ports import MatchRow, SeatRow, TournamentPlayer
from ginrummy.service.spectate import common
from ginrummy.service.tournaments import arena_pairs, arena_standings

PLAYERS = [TournamentPlayer("ann", 1.0), TournamentPlayer("bob", 2.0), TournamentPlayer("cy", 3.0)]


def finished(
    n: int, first: str, second: str | None, winner: int | None, *, ended: str | None = None
) -> MatchRow:
    seats = (SeatRow(0, first), SeatRow(1, second) if second else SeatRow(1, robot_level="casual"))
    result: dict[str, object] = {"winner": winner, "scores": [25, 0] if winner == 0 else [0, 25]}
    if ended:
        result["ended"] = ended
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
    )


def test_two_wins_in_a_row_set_a_player_on_fire_and_a_loss_puts_it_out() -> None:
    matches = [
        finished(1, "ann", "bob", 0),  # ann 2
        finished(2, "ann", "cy", 0),  # ann 2 -> on fire
        finished(3, "ann", None, 0),  # ann 4 (on fire), still on fire
        finished(4, "bob", "ann", 0),  # ann loses: 0, fire out
        finished(5, "ann", "cy", 0),  # ann 2
        finished(6, "cy", "bob", None),  # a draw: 1 each
        finished(7, "cy", "bob", None, ended="aborted"),  # aborted: nothing
    ]
    table = {s.guest_id: s for s in arena_standings(matches, PLAYERS, {}, until=100.0)}
    assert table["ann"].sheet == [2, 2, 4, 0, 2] and table["ann"].score == 10 and not table["ann"].fire
    assert table["bob"].sheet == [0, 2, 1] and table["cy"].sheet == [0, 0, 1]
    # After a win that follows two wins the player is still on fire.
    on = {s.guest_id: s for s in arena_standings(matches[:3], PLAYERS, {}, until=100.0)}
    assert on["ann"].fire and on["ann"].streak == 3
    # Matches that finish after the clock count for nothing.
    late = {s.guest_id: s for s in arena_standings(matches, PLAYERS, {}, until=3.0)}
    assert late["ann"].sheet == [2, 2]


def test_ties_are_broken_by_performance() -> None:
    matches = [finished(1, "ann", "bob", 0), finished(2, "cy", None, 0)]
    order = arena_standings(matches, PLAYERS, {"bob": 1900.0, "ann": 1500.0, "cy": 1500.0}, until=10.0)
    # Both won once; ann beat a 1900, cy beat a casual robot (1400): ann first.
    assert [s.guest_id for s in order] == ["ann", "cy", "bob"]
    assert order[0].performance == 2400 and order[1].performance == 1900


def test_the_last_opponent_is_avoided_when_someone_else_waits() -> None:
    pairs, odd = arena_pairs(["ann", "bob", "cy"], {"ann": "bob", "bob": "ann"})
    assert pairs == [("ann", "cy")] and odd == "bob"
    # Only the two of them waiting: they meet again rather than wait.
    assert arena_pairs(["ann", "bob"], {"ann": "bob", "bob": "ann"}) == ([("ann", "bob")], None)


@given(
    st.lists(st.sampled_from([f"p{i}" for i in range(12)]), max_size=20),
    st.dictionaries(
        st.sampled_from([f"p{i}" for i in range(12)]), st.sampled_from([f"p{i}" for i in range(12)])
    ),
)
def test_arena_pairing_properties(waiting: list[str], last: dict[str, str]) -> None:
    pairs, odd = arena_pairs(waiting, dict(last))
    players = [p for pair in pairs for p in pair] + ([odd] if odd else [])
    assert sorted(players) == sorted(set(waiting))  # everyone waiting once, nobody twice
    assert all(a != b for a, b in pairs)  # no self-pairing
    distinct = list(dict.fromkeys(waiting))
    earlier: set[str] = set()
    for a, b in pairs:
        free = [o for o in distinct if o != a and o not in earlier]
        if last.get(a) == b or last.get(b) == a:
            # An immediate rematch only when every player still free was a last opponent too.
            assert all(last.get(a) == o or last.get(o) == a for o in free)
        earlier |= {a, b}


def test_common_keeps_only_what_both_views_share() -> None:
    mine = {"history": [{"seat": 0, "action": {"type": "draw", "source": "stock"}, "card": "5H"}], "n": 1}
    theirs = {"history": [{"seat": 0, "action": {"type": "draw", "source": "stock"}}], "n": 1}
    assert common(mine, theirs) == {
        "history": [{"seat": 0, "action": {"type": "draw", "source": "stock"}}],
        "n": 1,
    }
    knock_mine = {"type": "knock", "card": "9S"}
    assert common(knock_mine, {"type": "knock"}) == {"type": "knock"}
