"""A readable text rendering of a table game's record (three-player Gin, team Gin, Rummy), replayed
with every card face up, like a hand history."""

from __future__ import annotations

from .actions import Discard, Draw, GameAction, Knock, LayMeld, LayOff, Pass
from .gin_tables import TeamGin, ThreeGin
from .hand import Hand
from .record import GameRecord
from .rummy import RummyHand
from .rummy_game import RummyGame

__all__ = ["render_game"]

TITLES = {"gin3": "Three-player Gin", "gin4_teams": "Team Gin", "rummy": "Classic Rummy"}


def render_game(record: GameRecord) -> str:
    """The whole game of `record`, deal by deal; raises `ValueError` if it does not replay."""
    if record.rules.game == "gin3":
        game: ThreeGin | TeamGin | RummyGame = ThreeGin.from_record(record)
    elif record.rules.game == "gin4_teams":
        game = TeamGin.from_record(record)
    else:
        game = RummyGame.from_record(record)
    rules = record.rules
    lines = [
        f"{TITLES[rules.game]}, {rules.players} players — rules {rules.preset_name}, "
        f"target {rules.target}, seed {record.seed}"
    ]
    for number in range(1, game.hand_number + 1):
        lines.append("")
        if isinstance(game, ThreeGin):
            lines += _gin3_deal(game, number)
        elif isinstance(game, TeamGin):
            lines += _team_round(game, number)
        else:
            lines += _rummy_hand(game.hands[number - 1], number, game.scores_at(number))
    lines.append("")
    result = game.result
    if result is None:
        lines.append(f"In play: scores {list(game.scores)}")
    else:
        winners = ", ".join(f"seat {s}" for s in result.winners) or "nobody (a draw)"
        lines.append(f"Final scores {list(result.scores)}; won by {winners}")
    return "\n".join(lines)


def _step_text(action: GameAction, card: object) -> str:
    if isinstance(action, Pass):
        return "passes the upcard"
    if isinstance(action, Draw):
        return f"draws {card} from the {'stock' if action.source == 'stock' else 'discard pile'}"
    if isinstance(action, Discard):
        return f"discards {action.card}"
    if isinstance(action, Knock):
        return f"knocks, discarding {action.card} face down"
    if isinstance(action, LayMeld):
        return f"lays {action.cards}"
    if isinstance(action, LayOff):
        return f"lays off {action.card} on meld {action.meld}"
    return "declares Big Gin"


def _gin_hand(hand: Hand, players: tuple[int, int]) -> list[str]:
    from .cards import CardSet

    lines = [f"  seat {players[s]} dealt {CardSet.from_mask(hand.initial_hands[s])}" for s in (0, 1)]
    lines.append(f"  upcard {CardSet.from_mask(1 << hand.upcard)}")
    lines += [f"  seat {players[step.seat]} {_step_text(step.action, step.card)}" for step in hand.steps]
    result = hand.result
    if result is None:
        lines.append("  (in play)")
    elif result.scorer is None:
        lines.append(f"  {result.outcome}: nobody scores")
    else:
        lines.append(f"  {result.outcome}: seat {players[result.scorer]} scores {result.points}")
    return lines


def _gin3_deal(game: ThreeGin, number: int) -> list[str]:
    hand = game.hands[number - 1]
    lines = [f"Hand {number} — seat {game.dealers[number - 1]} deals and sits out (seed {hand.seed})"]
    lines += _gin_hand(hand, game.players_of(number))
    lines.append(f"  scores {list(game.scores_at(number))}")
    return lines


def _team_round(game: TeamGin, number: int) -> list[str]:
    lines = [f"Round {number} — team {game.dealers[number - 1]} deals"]
    for hand, players in zip(game.rounds[number - 1], game.pairing(number), strict=True):
        lines.append(f" Hand seat {players[0]} v seat {players[1]} (seed {hand.seed})")
        lines += _gin_hand(hand, players)
    if number <= len(game.round_results):
        result = game.round_results[number - 1]
        scorer = "nobody" if result.scorer is None else f"team {result.scorer}"
        lines.append(f"  teams made {list(result.team_points)}: {scorer} scores {result.points}")
    lines.append(f"  team scores {list(game.scores_at(number))}")
    return lines


def _rummy_hand(hand: RummyHand, number: int, scores: tuple[int, ...]) -> list[str]:
    from .cards import CardSet

    lines = [f"Hand {number} — seat {hand.dealer} deals (seed {hand.seed})"]
    lines += [f"  seat {s} dealt {CardSet.from_mask(cards)}" for s, cards in enumerate(hand.initial_hands)]
    lines.append(f"  upcard {CardSet.from_mask(1 << hand.upcard)}")
    for step in hand.steps:
        text = _step_text(step.action, step.card)
        if step.turnover:
            text = "turns the discard pile over and " + text
        lines.append(f"  seat {step.seat} {text}")
    result = hand.result
    if result is None:
        lines.append("  (in play)")
    elif result.winner is None:
        lines.append("  void: the stock ran out with no turnover left; nobody pays")
    else:
        paid = ", ".join(f"seat {s} {-p}" for s, p in enumerate(result.payments) if s != result.winner)
        lines.append(f"  seat {result.winner} goes out ({result.outcome}): paid {paid}")
    lines.append(f"  scores {list(scores)}")
    return lines
