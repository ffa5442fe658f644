"""Helpers of the competition tests: finished matches made by the real rules engine."""

from __future__ import annotations

import random

from ginrummy.rules import Match, Rules


def finished_match(seed: int, *, target: int = 25, winner: int | None = None) -> Match:
    """A whole match played at random (knocking whenever allowed); with `winner`, one that seat won."""
    for attempt in range(200):
        rng = random.Random(seed * 1000 + attempt)
        match = Match(Rules.preset("classic").replace(target=target), seed=seed * 1000 + attempt)
        while not match.is_over:
            legal = match.legal_actions()
            enders = [a for a in legal if type(a).__name__ in ("Knock", "BigGin")]
            match.apply(rng.choice(enders) if enders else rng.choice(legal))
        assert match.result is not None
        if winner is None or match.result.winner == winner:
            return match
    raise AssertionError("no random match with that winner")
