"""Reviewing a played match: the positions are each seat's own views, marks follow the thresholds, counts add up."""

from __future__ import annotations

from ginrummy.bots import make_player
from ginrummy.bots.review import MARKS, THRESHOLDS, Position, mark, positions, review, summary
from ginrummy.rules import Action, Rules, new_match


def _played(seed: int) -> tuple[list[tuple[int, Action]], list[tuple[int, object]]]:
    """A short match of two casual robots: its actions and each seat's view before each action."""
    match = new_match(Rules.preset("classic").replace(target=20), seed=seed)
    players = [make_player("casual", seed=1), make_player("novice", seed=2)]
    actions: list[tuple[int, Action]] = []
    views: list[tuple[int, object]] = []
    while not match.is_over:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        action = players[seat].act(view)
        actions.append((seat, action))
        views.append((seat, view))
        match.apply(action, seat)
    return actions, views


def test_marks_start_at_each_threshold() -> None:
    inaccuracy, mistake, blunder = THRESHOLDS
    assert [mark(x) for x in (0.0, inaccuracy - 0.01, inaccuracy, mistake, blunder, 60.0, None)] == [
        None,
        None,
        "inaccuracy",
        "mistake",
        "blunder",
        "blunder",
        None,
    ]
    assert MARKS == ("inaccuracy", "mistake", "blunder") and tuple(sorted(THRESHOLDS)) == THRESHOLDS


def test_positions_are_the_chosen_seats_own_views_where_they_had_a_choice() -> None:
    actions, views = _played(seed=4)
    found = list(positions(new_match(Rules.preset("classic").replace(target=20), seed=4), actions, [1]))
    wanted = [v for seat, v in views if seat == 1 and len(v.legal) > 1]  # type: ignore[attr-defined]
    assert [p.view for p in found] == wanted and found
    assert all(p.seat == 1 and p.action in p.view.legal for p in found)
    # Each position says where it was: hand number and the index of its step in that hand.
    replay = new_match(Rules.preset("classic").replace(target=20), seed=4)
    for seat, action in actions:
        for p in found:
            if (p.hand, p.step) == (len(replay.hands), len(replay.hand.steps)):
                assert p.action == action and replay.view(seat) == p.view
        replay.apply(action, seat)


def _some(seed: int, actions: list[tuple[int, Action]]) -> list[Position]:
    """The first ten decisions of seat 0 and its first chance to knock (a knock is weighed slowly)."""
    found = list(positions(new_match(Rules.preset("classic").replace(target=20), seed=seed), actions, [0]))
    knock = next((p for p in found if p.measure == "points"), None)
    return found[:10] + ([knock] if knock is not None and knock not in found[:10] else [])


def test_a_summary_counts_agreements_marks_and_average_costs_per_measure() -> None:
    actions, _ = _played(seed=9)
    chosen = _some(9, actions)
    assert any(p.measure == "points" for p in chosen)
    reviews = [review(p) for p in chosen]
    assert reviews and all(r.mark == mark(r.appraisal.cost) for r in reviews)
    again = [review(p) for p in _some(9, actions)]
    assert [r.to_json() for r in again] == [r.to_json() for r in reviews]  # seeded: the same every time
    seat = summary(reviews, [0])["0"]
    assert seat["decisions"] == len(reviews)
    assert seat["agreed"] == sum(1 for r in reviews if r.appraisal.action == r.appraisal.choice)
    assert sum(seat[m] for m in MARKS) == sum(1 for r in reviews if r.mark)  # type: ignore[misc]
    average = seat["average"]
    for unit in ("deadwood", "points"):
        mine = [r.appraisal.cost or 0.0 for r in reviews if r.unit == unit]
        assert average[unit]["decisions"] == len(mine)  # type: ignore[index]
        assert average[unit]["cost"] == (round(sum(mine) / len(mine), 2) if mine else 0.0)  # type: ignore[index]
    assert summary([], [0, 1]) == {
        str(s): {
            "decisions": 0,
            "agreed": 0,
            "inaccuracy": 0,
            "mistake": 0,
            "blunder": 0,
            "average": {"deadwood": {"decisions": 0, "cost": 0.0}, "points": {"decisions": 0, "cost": 0.0}},
        }
        for s in (0, 1)
    }
    assert isinstance(reviews[0].position, Position)
