"""What a seat's state costs to encode on the tables of three and more (`service/wire.py`).

Plays seeded random games of three-player Gin, team Gin and Rummy for four; after every action
it encodes each seat's state text as the server sends it (`TableWire.state_text`: each hand's
history encoded as it grows, the rules once, a Rummy view's shared part once a version) and,
in the same run, each seat's view encoded whole (`json` of `view.to_json()`, as every state was
made before the caches). Prints microseconds per seat's state for both and their ratio.

    python benchmarks/bench_wire.py [--actions 1500] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from ginrummy.rules import Rules, new_game
from ginrummy.service.wire import wire_for

PRESETS = ("gin3", "gin4_teams", "rummy")


def _run(preset: str, actions: int, seed: int, whole: bool) -> tuple[float, int]:
    """Seconds spent encoding and the number of seat states encoded."""
    rng = random.Random(seed)
    # The highest target: the game goes on through many deals, every state of a deal in play.
    game = new_game(Rules.preset(preset).replace(target=1000), seed=seed)
    wire = wire_for(game)
    spent, count = 0.0, 0
    for version in range(1, actions + 1):
        if game.is_over:
            break
        seat = rng.choice(game.seats_to_act)
        game.apply(rng.choice(game.legal_actions(seat)), seat)
        start = time.process_time()
        for asked in range(game.seat_count):
            if whole:
                json.dumps(game.view(asked).to_json(), separators=(",", ":"), ensure_ascii=False)
            else:
                wire.state_text(asked, {"id": "m"}, version, None)
        spent += time.process_time() - start
        count += game.seat_count
    return spent, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=1500, help="actions of each game")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median printed)")
    args = parser.parse_args()
    print(
        f"{args.actions} random actions a game, every seat's state after each; median of {args.rounds} rounds, CPU time of this process"
    )
    for preset in PRESETS:
        figures: dict[bool, list[float]] = {True: [], False: []}
        for round_ in range(args.rounds):
            for whole in (False, True):
                spent, count = _run(preset, args.actions, round_, whole)
                figures[whole].append(spent / count * 1e6)
        wire, whole = statistics.median(figures[False]), statistics.median(figures[True])
        print(
            f"{preset:>10}: state text {wire:7.1f} µs a seat; view encoded whole {whole:7.1f} µs a seat "
            f"(state text includes the match's rules and metadata); {whole / wire:.2f}× less"
        )


if __name__ == "__main__":
    main()
