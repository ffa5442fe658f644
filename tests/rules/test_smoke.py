"""The worked example of RULES.md §2 and a seeded match played to the end."""

import random

from ginrummy import min_deadwood, new_match


def test_rules_md_2_best_arrangement_example() -> None:
    assert min_deadwood("3S 4S 5S 6S 9C 9D 9H 9S AD KC") == 11


def test_random_match_reaches_target() -> None:
    rng = random.Random(5)
    match = new_match(seed=5)
    while not match.is_over:
        match.apply(rng.choice(match.legal_actions()))
    assert match.result is not None and max(match.result.points) >= 100
