"""The chance of winning a match from a score, for the expert's end-of-match decisions.

Points are not the goal; winning the match is. Near the target a small sure knock can
end the match, and against an opponent close to the target a hand it wins can end it.
The table comes from a Markov chain over scores, driven by the points one hand of the
expert against the baseline is worth (measured: it wins about 41% of hands, mostly by
25-35 points through undercuts and Gin, and loses the rest, mostly by a few points).
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["HAND_WINS", "HAND_LOSSES", "match_win_table", "match_win"]

# (points, probability) of one hand, measured over 3,000 hands against the baseline
# (voids and ties left out; grouped, each group at its mean).
HAND_WINS: tuple[tuple[int, float], ...] = (
    (5, 0.0037),
    (15, 0.0067),
    (23, 0.0043),
    (25, 0.0966),
    (27, 0.0839),
    (29, 0.0675),
    (31, 0.0445),
    (33, 0.0207),
    (37, 0.0318),
    (42, 0.0184),
    (48, 0.0184),
    (55, 0.0097),
    (71, 0.0084),
)
HAND_LOSSES: tuple[tuple[int, float], ...] = (
    (1, 0.0495),
    (2, 0.0481),
    (3, 0.0445),
    (4, 0.0371),
    (6, 0.0648),
    (7, 0.0458),
    (10, 0.0525),
    (13, 0.0448),
    (16, 0.0458),
    (21, 0.0411),
    (27, 0.0398),
    (33, 0.0348),
    (40, 0.0191),
    (53, 0.018),
)


@lru_cache(maxsize=8)
def match_win_table(target: int) -> tuple[tuple[float, ...], ...]:
    """W[a][b]: chance of winning the match from scores a (mine) and b (the opponent's),
    both below `target`, before a hand is dealt."""
    total = sum(p for _, p in HAND_WINS) + sum(p for _, p in HAND_LOSSES)
    wins = [(x, p / total) for x, p in HAND_WINS]
    losses = [(y, p / total) for y, p in HAND_LOSSES]
    table = [[0.0] * target for _ in range(target)]
    for a in range(target - 1, -1, -1):
        row = table[a]
        for b in range(target - 1, -1, -1):
            v = 0.0
            for x, p in wins:
                v += p if a + x >= target else p * table[a + x][b]
            for y, p in losses:
                if b + y < target:
                    v += p * row[b + y]
            row[b] = v
    return tuple(tuple(r) for r in table)


def match_win(mine: int, theirs: int, target: int) -> float:
    """Chance of winning the match from these scores (1 or 0 once a side has reached the target)."""
    if mine >= target:
        return 1.0 if theirs < target or mine > theirs else 0.0
    if theirs >= target:
        return 0.0
    if target > 400:
        # Very long matches: a score lead matters little per hand; stay neutral.
        return 0.5
    return match_win_table(target)[max(0, mine)][max(0, theirs)]
