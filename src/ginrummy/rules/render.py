"""A readable text rendering of any game's record, replayed with every card face up, like a hand
history: two-player Gin hand by hand with its showdowns, three-player Gin deal by deal, team Gin
round by round (each of its two hands shown as a two-player hand is), and Rummy hand by hand."""

from __future__ import annotations

from .actions import Discard, Draw, GameAction, Knock, LayMeld, LayOff, Pass
from .cards import CardSet
from .gin_tables import TeamGin, ThreeGin
from .hand import Hand
from .match import Match
from .melds import best_arrangement
from .record import GameRecord
from .rummy import RummyHand
from .rummy_game import RummyGame

__all__ = ["render_game", "render_hand", "render_match"]

TITLES = {"gin3": "Three-player Gin", "gin4_teams": "Team Gin", "rummy": "Classic Rummy"}
TWO_SEATS = (0, 1)


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


def _gin_hand(hand: Hand, players: tuple[int, int] = TWO_SEATS) -> list[str]:
    """A two-player hand's lines after its heading, all cards face up, its seats named as the
    game's `players` name them."""

    def seat(s: int) -> str:
        return f"Seat {players[s]}"

    lines = []
    for s in (0, 1):
        cards = CardSet.from_mask(hand.initial_hands[s])
        lines.append(f"  {seat(s)} dealt: {cards}  ({best_arrangement(cards).deadwood} deadwood)")
    upcard = CardSet.from_mask(1 << hand.upcard)
    extra = ""
    if hand.rules.oklahoma:
        extra = f"; knock limit {hand.knock_limit}" + (", points doubled" if hand.multiplier > 1 else "")
    lines.append(f"  Upcard: {upcard}{extra}")
    lines += [f"  {seat(step.seat)} {_step_text(step.action, step.card)}" for step in hand.steps]
    result = hand.result
    if result is None:
        lines.append(f"  (in play: {seat(hand.to_act).lower()} to act, {len(hand.stock)} cards in the stock)")
    elif result.outcome == "void":
        lines.append(
            "  Void hand: the stock is down to two cards; nobody scores, the same dealer deals again"
        )
    else:
        sd = result.showdown
        assert sd is not None and result.knocker is not None
        knocker, defender = result.knocker, 1 - result.knocker
        melds = " ".join(f"[{m}]" for m in sd.knocker_melds)
        lines.append(
            f"  {seat(knocker)} shows {melds} deadwood {sd.knocker_deadwood_cards or '-'} = {sd.knocker_deadwood}"
        )
        melds = " ".join(f"[{m}]" for m in sd.defender_melds)
        lines.append(f"  {seat(defender)} shows {melds} deadwood {sd.defender_deadwood_cards or '-'}")
        if sd.layoffs:
            laid = ", ".join(f"{lay.card} on [{sd.knocker_melds[lay.meld]}]" for lay in sd.layoffs)
            lines.append(f"  {seat(defender)} lays off {laid}")
        lines.append(f"  {seat(defender)} deadwood after layoffs = {sd.defender_deadwood}")
        who = "nobody" if result.scorer is None else seat(result.scorer)
        lines.append(f"  {result.outcome.replace('_', ' ').title()}: {who} scores {result.points}")
    return lines


def render_hand(match: Match, number: int) -> str:
    """Hand `number` (1-based) of a two-player `Match`, all cards face up, as text lines."""
    hand = match.hands[number - 1]
    lines = [f"Hand {number} — seat {hand.dealer} deals (seed {hand.seed})", *_gin_hand(hand)]
    scores = match.scores_after[number - 1] if number <= len(match.scores_after) else tuple(match.scores)
    lines.append(f"  Scores: {scores[0]} – {scores[1]}")
    return "\n".join(lines)


def render_match(record: GameRecord) -> str:
    """A whole recorded two-player match, hand by hand, as text."""
    match = Match.from_record(record)
    rules = record.rules
    lines = [f"Gin Rummy match — rules {rules.preset_name}, target {rules.target}, seed {record.seed}"]
    for number in range(1, len(match.hands) + 1):
        lines.append("")
        lines.append(render_hand(match, number))
    lines.append("")
    if match.result is not None:
        r = match.result
        winner = "a draw" if r.winner is None else f"seat {r.winner} wins"
        lines.append(f"Final: {r.scores[0]} – {r.scores[1]}, {winner}")
        if any(r.game_bonus) or any(r.box_bonus) or any(r.shutout_bonus):
            lines.append(
                f"  (hand points {r.points[0]} – {r.points[1]}; game bonus {list(r.game_bonus)}, "
                f"box bonus {list(r.box_bonus)}, shutout bonus {list(r.shutout_bonus)})"
            )
    else:
        lines.append(f"Unfinished: {match.scores[0]} – {match.scores[1]}")
    return "\n".join(lines)


def render_game(record: GameRecord) -> str:
    """The whole game of `record`, deal by deal; raises `ValueError` if it does not replay."""
    if record.rules.game == "gin":
        return render_match(record)
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
