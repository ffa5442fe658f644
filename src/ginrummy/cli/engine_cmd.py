"""The `engine` subcommand: one of our players speaking the engine protocol on stdin/stdout."""

from __future__ import annotations

import itertools
import logging
import sys

import typer

from .root import app


@app.command()
def engine(
    bot: str = typer.Option("random", "--bot", help="Which computer player answers (see ginrummy.bots)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the player's own randomness."),
    time_budget: float | None = typer.Option(
        None, "--time-budget", help="Most seconds the player may think per move."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log each step to stderr."),
) -> None:
    """Serve a computer player over stdin/stdout, one JSON message per line (docs/protocol.md).

    It speaks version 1 (two-player Gin) and version 2 (every game). At a Rummy table a Gin-only
    player name (expert, baseline, ...) is played by Rummy's strongest level.
    """
    from ..bots import Player, make_player
    from ..bots.rummy_players import RUMMY_LEVELS
    from ..bots.table_players import TablePlayer, game_player_names, make_game_player
    from ..engine.engine_side import serve
    from ..rules import Rules

    # Logs go to stderr only: stdout carries protocol messages and nothing else.
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s engine %(levelname)s %(message)s",
    )
    try:
        make_player(bot, seed=seed, time_budget=time_budget)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    matches = itertools.count()

    def new_player() -> Player:
        # A player for each match (docs/protocol.md); with --seed, match k plays from seed+k.
        k = next(matches)
        return make_player(bot, seed=None if seed is None else seed + k, time_budget=time_budget)

    def seat_for(rules: Rules) -> TablePlayer:
        name = bot
        if name not in game_player_names(rules.game):
            name = RUMMY_LEVELS[-1]
            logging.getLogger("ginrummy.engine").warning(
                "%s plays no %s: %s plays instead", bot, rules.game, name
            )
        return make_game_player(name, rules, seed=seed, time_budget=time_budget)

    protocol_out = sys.stdout
    # A stray print() in a player would corrupt the protocol stream; send it to stderr instead.
    sys.stdout = sys.stderr
    try:
        code = serve(new_player, sys.stdin, protocol_out, seat_for=seat_for)
    finally:
        sys.stdout = protocol_out
    raise typer.Exit(code)
