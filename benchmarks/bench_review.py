"""Replay analysis: seconds to analyse a match, and the knock estimate against what really happens.

Run: python benchmarks/bench_review.py [--matches 6] [--player casual] [--opponent expert] [--fork 0]
                                       [--target 100]

Prints, for `--matches` whole matches (classic rules, to `--target`) of `--player` (seat 0, the seat
analysed, as a person's) against `--opponent`:
- the decisions analysed per match and the CPU seconds the analysis took per match (median,
  max), with the marks it gave;
- with `--fork N` (N matches), at every chance seat 0 had to knock (not Gin): the expert's
  estimate of knocking (with the card leaving least deadwood) minus playing on (throwing the
  highest card of those leaving least deadwood), `appraise`'s points, against the truth of the
  same match forked at that moment, once knocked and once played on by the same players to the
  end of the hand. The means should agree; each true difference is one deal, so single positions
  scatter widely.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from ginrummy.bots import make_player
from ginrummy.bots.expert.appraise import expected_points
from ginrummy.bots.review import MARKS, positions, review
from ginrummy.rules import Action, Discard, Knock, Match, Rules, loads, new_match
from ginrummy.rules.cards import CARDS
from ginrummy.rules.masks import best_discards, bits, least_deadwood


def play(player: str, opponent: str, seed: int, rules: Rules) -> tuple[Match, list[tuple[int, Action]]]:
    """A whole match and its actions in order."""
    match = new_match(rules, seed=seed)
    players = [make_player(player, seed=seed), make_player(opponent, seed=seed + 1000)]
    actions: list[tuple[int, Action]] = []
    while not match.is_over:
        seat = match.to_act
        assert seat is not None
        action = players[seat].act(match.view(seat))
        actions.append((seat, action))
        if match.apply(action, seat) is not None:
            number = len(match.hands) if match.is_over else len(match.hands) - 1
            for s, p in enumerate(players):
                p.observe(match.hand_view(s, number))
    return match, actions


def analysis_speed(player: str, opponent: str, matches: int, rules: Rules) -> dict[str, object]:
    seconds: list[float] = []
    counts: list[int] = []
    marks: Counter[str] = Counter()
    for seed in range(matches):
        _, actions = play(player, opponent, seed, rules)
        start = time.process_time()
        reviews = [review(p) for p in positions(new_match(rules, seed=seed), actions, [0])]
        seconds.append(time.process_time() - start)
        counts.append(len(reviews))
        marks.update(r.mark for r in reviews if r.mark)
    return {
        "decisions": statistics.median(counts),
        "median": statistics.median(seconds),
        "max": max(seconds),
        "marks": {m: marks[m] / matches for m in MARKS},
    }


def _hand_points(match: Match, index: int) -> int:
    result = match.hands[index].result
    assert result is not None
    return 0 if result.scorer is None else (result.points if result.scorer == 0 else -result.points)


def knock_calibration(player: str, opponent: str, matches: int, rules: Rules) -> list[tuple[float, int, int]]:
    """(estimated knock minus play on, true knock minus play on, draws so far) at each knock chance."""
    rows: list[tuple[float, int, int]] = []
    for seed in range(matches):
        match = new_match(rules, seed=seed)
        players = [make_player(player, seed=seed), make_player(opponent, seed=seed + 1000)]
        while not match.is_over:
            seat = match.to_act
            assert seat is not None
            view = match.view(seat)
            knocks = [a for a in view.legal if isinstance(a, Knock)]
            if seat == 0 and knocks:
                left = {a: least_deadwood(view.hand.mask & ~(1 << a.card.index)) for a in knocks}
                if min(left.values()) > 0:
                    knock = min(knocks, key=left.__getitem__)
                    taken = view.history[-1].card if view.history[-1].source == "discard" else None
                    _, ties = best_discards(view.hand.mask, taken.index if taken is not None else -1)
                    play_on = Discard(CARDS[max(bits(ties), key=lambda c: (c % 13, c))])
                    estimate = expected_points(view, (knock, play_on), seed=seed)
                    index = len(match.hands) - 1
                    text = match.record().dumps()
                    knocked = Match.from_record(loads(text))
                    knocked.apply(knock)
                    played = Match.from_record(loads(text))
                    played.apply(play_on)
                    fork = [make_player(player, seed=seed + 7), make_player(opponent, seed=seed + 1007)]
                    while len(played.hands) - 1 == index and played.hands[index].result is None:
                        mover = played.to_act
                        assert mover is not None
                        played.apply(fork[mover].act(played.view(mover)))
                    rows.append(
                        (
                            estimate[knock] - estimate[play_on],
                            _hand_points(knocked, index) - _hand_points(played, index),
                            sum(1 for step in view.history if step.seat == 0 and step.kind == "draw"),
                        )
                    )
            action = players[seat].act(view)
            if match.apply(action, seat) is not None:
                number = len(match.hands) if match.is_over else len(match.hands) - 1
                for s, p in enumerate(players):
                    p.observe(match.hand_view(s, number))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--player", default="casual")
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--fork", type=int, default=0, metavar="N")
    parser.add_argument("--target", type=int, default=100)
    args = parser.parse_args(argv)
    rules = Rules.preset("classic").replace(target=args.target)
    speed = analysis_speed(args.player, args.opponent, args.matches, rules)
    marks = ", ".join(f"{n:.1f} {m}" for m, n in speed["marks"].items())  # type: ignore[attr-defined]
    print(
        f"{args.player} against {args.opponent}, {args.matches} matches: {speed['decisions']} decisions "
        f"analysed per match in {speed['median']:.2f} s of CPU (median; max {speed['max']:.2f} s); "
        f"marks per match: {marks}"
    )
    if args.fork:
        rows = knock_calibration(args.player, args.opponent, args.fork, rules)
        print(f"knock chances of {args.player} against {args.opponent} ({args.fork} matches): {len(rows)}")
        for label, low, high in (
            ("all", 0, 99),
            ("draws 1-4", 0, 4),
            ("draws 5-6", 5, 6),
            ("draws 7+", 7, 99),
        ):
            part = [r for r in rows if low <= r[2] <= high]
            if part:
                print(
                    f"  {label}: n={len(part)}  knock minus play on, estimated {statistics.mean(r[0] for r in part):+.1f}"
                    f"  true {statistics.mean(r[1] for r in part):+.1f}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
