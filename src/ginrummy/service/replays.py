"""Replays of finished games: every deal move by move, all cards face up, with seeds and commitments.

A replay opens only once the game is over, when nothing in it is secret any more; the replay
page hides what a chosen seat could not see. Two-player Gin keeps its shape (`hands[i]` with
`initial_hands`, `steps` and `showdown`). The other games give each deal as its `tables` (one
two-player hand in three-player Gin, two in team Gin, one Rummy table of every seat), the steps of
the deal in the order they were played (each naming its table), and how the deal ended (`ends`:
each table's showdown or Rummy's payments; `round`: team Gin's round).
"""

from __future__ import annotations

from typing import Any

from ..rules import (
    Card,
    CardSet,
    Game,
    GinTableView,
    Hand,
    Match,
    RummyGame,
    RummyView,
    TeamGin,
    ThreeGin,
    seed_commitment,
)

__all__ = ["replay_hands"]


def _cards(mask: int) -> list[str]:
    return CardSet.from_mask(mask).to_json()


def _step(seat: int, action: Any, card: Card | None, **extra: Any) -> dict[str, Any]:
    return {
        "seat": seat,
        "action": action.to_json(),
        "card": str(card) if card is not None else None,
        **extra,
    }


def _gin_hands(match: Match) -> list[dict[str, Any]]:
    hands = []
    for number, hand in enumerate(match.hands, start=1):
        showdown = match.hand_view(0, number).showdown
        hands.append(
            {
                "number": number,
                "dealer": hand.dealer,
                "seed": str(hand.seed),
                "commitment": seed_commitment(hand.seed),
                "initial_hands": [_cards(mask) for mask in hand.initial_hands],
                "upcard": str(Card(hand.upcard)),
                "knock_limit": hand.knock_limit,
                "steps": [_step(step.seat, step.action, step.card) for step in hand.steps],
                "showdown": None if showdown is None else showdown.to_json(),
                "scores_after": list(match.scores_after[number - 1])
                if number <= len(match.scores_after)
                else None,
            }
        )
    return hands


def _gin_table(hand: Hand, players: tuple[int, int]) -> dict[str, Any]:
    return {
        "players": list(players),
        "dealer": players[hand.dealer],
        "initial_hands": [_cards(mask) for mask in hand.initial_hands],
        "upcard": str(Card(hand.upcard)),
        "knock_limit": hand.knock_limit,
    }


def _deal(game: Game, number: int) -> dict[str, Any]:
    seeds, dealer, _result = game.deal_summary(number)
    scores_after: list[int] | None = None
    if isinstance(game, (ThreeGin, TeamGin, RummyGame)) and number <= len(game.scores_after):
        scores_after = list(game.scores_after[number - 1])
    return {
        "number": number,
        "dealer": dealer,
        "seeds": [str(seed) for seed in seeds],
        "commitments": [seed_commitment(seed) for seed in seeds],
        "scores_after": scores_after,
    }


def _table_hands(game: Game) -> list[dict[str, Any]]:
    deals = []
    for number in range(1, game.hand_number + 1):
        deal = _deal(game, number)
        view = game.hand_view(0, number)
        if isinstance(game, RummyGame):
            assert isinstance(view, RummyView)
            hand = game.hands[number - 1]
            seats = tuple(range(game.seat_count))
            deal["tables"] = [
                {
                    "players": list(seats),
                    "dealer": hand.dealer,
                    "initial_hands": [_cards(mask) for mask in hand.initial_hands],
                    "upcard": str(Card(hand.upcard)),
                }
            ]
            deal["steps"] = [
                _step(step.seat, step.action, step.card, table=0, turnover=step.turnover)
                for step in hand.steps
            ]
            deal["ends"] = [view.to_json()["result"]]
        else:
            assert isinstance(game, (ThreeGin, TeamGin)) and isinstance(view, GinTableView)
            if isinstance(game, ThreeGin):
                hands: tuple[Hand, ...] = (game.hands[number - 1],)
                pairing: tuple[tuple[int, int], ...] = (game.players_of(number),)
                order = [0] * len(hands[0].steps)
            else:
                hands = game.rounds[number - 1]
                pairing = game.pairing(number)
                order = game.round_order[number - 1]
            deal["tables"] = [_gin_table(h, p) for h, p in zip(hands, pairing, strict=True)]
            steps = [iter(h.steps) for h in hands]
            played = []
            for table in order:
                step = next(steps[table])
                played.append(_step(pairing[table][step.seat], step.action, step.card, table=table))
            deal["steps"] = played
            deal["ends"] = [t.showdown for t in view.tables]
            deal["round"] = view.round.to_json() if view.round is not None else None
        deals.append(deal)
    return deals


def replay_hands(game: Game) -> list[dict[str, Any]]:
    """Every deal of a finished game, as the replay page plays it back."""
    if isinstance(game, Match):
        return _gin_hands(game)
    return _table_hands(game)
