"""What one seat of three-player or team Gin may know: its own two-player hand, the public side
of every other hand being played, and nothing hidden (a seat sitting out holds no card).

Seats here are the game's seats (0 to 2, or 0 to 3). `GinTableView.two_player()` turns the
seat's own hand into the two-player `View` of docs/protocol.md version 1, so every two-player
computer player can play it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .actions import Action, ActionError, action_from_json
from .cards import CARDS, Card, CardError, CardSet, parse_card, parse_cards
from .hand import Hand, Phase
from .steps import PublicStep
from .variants import Rules, RulesError
from .views import HandEnd, View, ViewError, build_view, hand_end, view_object

__all__ = ["GinTableView", "TableHandView", "TeamRoundResult", "table_hand_view"]


@dataclass(frozen=True, slots=True)
class TeamRoundResult:
    """Team Gin: a round's two hands added up per team; the team ahead scores the difference."""

    team_points: tuple[int, int]
    scorer: int | None  # the team that scored, None when the teams were level
    points: int

    def to_json(self) -> dict[str, Any]:
        return {"team_points": list(self.team_points), "scorer": self.scorer, "points": self.points}


@dataclass(frozen=True, slots=True)
class TableHandView:
    """One two-player hand of the game as a seat sees it.

    `players[0]` was offered the first upcard first; `dealer` is the one of `players` in the
    dealer's role (in three-player Gin always `players[1]`: the seat that dealt sits out). `hand` is this seat's cards when it plays the hand, else None. `known[i]` are
    the cards `players[i]` was seen taking from the discard pile and still holds. History
    entries and the showdown name the game's seats; the showdown's lists (`hands`, `melds`,
    `deadwood_cards`, `deadwood`) follow the order of `players`.
    """

    players: tuple[int, int]
    dealer: int
    phase: Phase
    to_act: int | None
    knock_limit: int
    discard_pile: tuple[Card, ...]
    stock_count: int
    known: tuple[CardSet, CardSet]
    history: tuple[dict[str, Any], ...]
    hand: CardSet | None
    showdown: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        data = self.to_json_parts()
        data["history"] = [dict(h) for h in self.history]
        data["hand"] = self.hand.to_json() if self.hand is not None else None
        data["showdown"] = self.showdown
        return data

    def to_json_parts(self) -> dict[str, Any]:
        """`to_json()` without its `history`, `hand` and `showdown`: the part of a hand every seat
        sees alike while it is played (a host adds the rest, the history as it grows)."""
        return {
            "players": list(self.players),
            "dealer": self.dealer,
            "phase": self.phase,
            "to_act": self.to_act,
            "knock_limit": self.knock_limit,
            "discard_pile": [str(c) for c in self.discard_pile],
            "stock_count": self.stock_count,
            "known": [self.known[0].to_json(), self.known[1].to_json()],
        }

    @classmethod
    def from_json(cls, data: Any, number: int = 0) -> TableHandView:
        """Parse table number `number` of a view; raise `ViewError` naming the table and what is wrong."""
        if not isinstance(data, dict):
            raise ViewError(f"table {number} must be an object, got {data!r}")
        try:
            return cls._parse(data)
        except KeyError as exc:
            raise ViewError(f"table {number} is missing the field {exc.args[0]!r}") from None
        except ViewError as exc:
            raise ViewError(f"table {number}: {exc}") from None

    @classmethod
    def _parse(cls, data: dict[str, Any]) -> TableHandView:
        players = data["players"]
        if not (isinstance(players, list) and len(players) == 2):
            raise ViewError("a table's players must be a list of two seats")
        phase = data["phase"]
        if phase not in ("offer", "draw", "discard", "over"):
            raise ViewError(f"unknown phase {phase!r}")
        known = data["known"]
        history = data["history"]
        if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
            raise ViewError("history must be a list of objects")
        hand = data["hand"]
        to_act = data["to_act"]
        showdown = data.get("showdown")
        if showdown is not None and not isinstance(showdown, dict):
            raise ViewError("showdown must be an object or null")
        seats = (int(players[0]), int(players[1]))
        _check_history(history, seats)
        if showdown is not None:
            # Kept as sent, so read it once here: a bad one is the host's fault, said now.
            HandEnd.from_json({**showdown, "scores": [0, 0]})
        return cls(
            players=seats,
            dealer=int(data["dealer"]),
            phase=phase,
            to_act=None if to_act is None else int(to_act),
            knock_limit=int(data["knock_limit"]),
            discard_pile=tuple(parse_card(c) for c in data["discard_pile"]),
            stock_count=int(data["stock_count"]),
            known=(parse_cards(known[0]), parse_cards(known[1])),
            history=tuple(dict(h) for h in history),
            hand=None if hand is None else parse_cards(hand),
            showdown=showdown,
        )


def _check_history(history: list[dict[str, Any]], players: tuple[int, int]) -> None:
    """Raise `ViewError` naming the first history entry that is not a step of the hand."""
    for number, entry in enumerate(history):
        seat = entry.get("seat")
        if type(seat) is not int or seat not in players:
            raise ViewError(
                f"history entry {number}: its seat must be one of the hand's players {list(players)}, got {seat!r}"
            )
        try:
            PublicStep.from_json({**entry, "seat": players.index(seat)})
        except ValueError as exc:
            raise ViewError(f"history entry {number}: {exc}") from None


#: Each history step as the game's seats name it, made once: steps are interned and a hand has
#: one of few seat pairs, so views share these objects (read them, do not change them).
_MAPPED: dict[tuple[PublicStep, tuple[int, ...]], dict[str, Any]] = {}


def _map_entry(step: PublicStep, seats: tuple[int, ...]) -> dict[str, Any]:
    key = (step, seats)
    mapped = _MAPPED.get(key)
    if mapped is None:
        mapped = step.to_json()
        mapped["seat"] = seats[step.seat]
        _MAPPED[key] = mapped
    return mapped


def _map_showdown(showdown: HandEnd | None, seats: tuple[int, ...]) -> dict[str, Any] | None:
    if showdown is None:
        return None
    mapped = showdown.to_json()
    mapped.pop("scores", None)  # the game's totals are in the game's view
    for key in ("scorer", "knocker"):
        if mapped.get(key) is not None:
            mapped[key] = seats[mapped[key]]
    return mapped


def table_hand_view(hand: Hand, players: tuple[int, int], seat: int, *, hand_number: int) -> TableHandView:
    """The view of one two-player hand of the game for the game's seat `seat` (playing or not)."""
    if seat in players:
        inner = players.index(seat)
        view = build_view(hand, inner, hand_number=hand_number, scores=(0, 0))
        history = tuple(_map_entry(h, players) for h in view.history)
        showdown = _map_showdown(view.showdown, players)
        own: CardSet | None = view.hand
    else:
        # A seat that sits the hand out sees each step as the player who did not make it does.
        history = tuple(_map_entry(hand.seen[1 - step.seat][i], players) for i, step in enumerate(hand.steps))
        over = hand.phase == "over"
        showdown = _map_showdown(hand_end(hand, (0, 0)), players) if over else None
        own = None
    return TableHandView(
        players=players,
        dealer=players[hand.dealer],
        phase=hand.phase,
        to_act=None if hand.phase == "over" else players[hand.to_act],
        knock_limit=hand.knock_limit,
        discard_pile=tuple(CARDS[i] for i in hand.discard_pile),
        stock_count=len(hand.stock),
        known=(CardSet.from_mask(hand.known[0]), CardSet.from_mask(hand.known[1])),
        history=history,
        hand=own,
        showdown=showdown,
    )


@dataclass(frozen=True, slots=True)
class GinTableView:
    """One seat's knowledge of a three-player or team Gin game (docs/protocol.md, version 2 VIEW).

    `dealer` is the seat that dealt and sits out (three players) or the dealing team (team
    Gin: team 0 is seats 0 and 2, team 1 seats 1 and 3). `scores` are the running totals
    per seat (three players) or per team. `table` is the index in `tables` of the hand this
    seat plays, None while it sits out. `legal` lists this seat's legal actions there.
    `round`, in team Gin once both hands are over, is the round's team result.
    """

    game: str
    seat: int
    players: int
    dealer: int
    hand_number: int
    scores: tuple[int, ...]
    rules: Rules
    tables: tuple[TableHandView, ...]
    legal: tuple[Action, ...]
    round: TeamRoundResult | None = None

    @property
    def table(self) -> int | None:
        """The index of the hand this seat plays, or None while it sits out."""
        for number, table in enumerate(self.tables):
            if self.seat in table.players:
                return number
        return None

    @property
    def phase(self) -> Phase:
        """The phase of this seat's hand (`over` while it sits out)."""
        number = self.table
        return "over" if number is None else self.tables[number].phase

    @property
    def my_turn(self) -> bool:
        """True when this seat has something to do."""
        return bool(self.legal)

    def pair_scores(self) -> tuple[int, int]:
        """This seat's total and its opponent's (three players), or its team's and the other's."""
        number = self.table
        if number is None:
            raise ValueError(f"seat {self.seat} sits out this hand")
        players = self.tables[number].players
        me, them = (players[0], players[1]) if self.seat == players[0] else (players[1], players[0])
        if self.game == "gin4_teams":
            return (self.scores[me % 2], self.scores[them % 2])
        return (self.scores[me], self.scores[them])

    def two_player(self) -> View:
        """This seat's own hand as the two-player VIEW of docs/protocol.md version 1.

        Its `scores` are `pair_scores()`; seats are 0 and 1 in the order of the table's players.
        """
        number = self.table
        if number is None:
            raise ValueError(f"seat {self.seat} sits out this hand: it has no two-player view")
        table = self.tables[number]
        assert table.hand is not None
        inner = table.players.index(self.seat)
        back = {table.players[0]: 0, table.players[1]: 1}
        scores = self.pair_scores()
        inner_scores = scores if inner == 0 else (scores[1], scores[0])
        showdown = None
        if table.showdown is not None:
            showdown = dict(table.showdown)
            for key in ("scorer", "knocker"):
                if showdown.get(key) is not None:
                    showdown[key] = back[showdown[key]]
            showdown["scores"] = list(inner_scores)
        return View(
            seat=inner,
            dealer=back[table.dealer],
            hand_number=self.hand_number,
            scores=inner_scores,
            rules=self.rules,
            knock_limit=table.knock_limit,
            phase=table.phase,
            hand=table.hand,
            discard_pile=table.discard_pile,
            stock_count=table.stock_count,
            opponent_known=table.known[1 - inner],
            history=tuple(PublicStep.from_json({**h, "seat": back[h["seat"]]}) for h in table.history),
            legal=self.legal,
            showdown=None if showdown is None else HandEnd.from_json(showdown),
        )

    def to_json(self) -> dict[str, Any]:
        """The VIEW object of protocol version 2 for `gin3` and `gin4_teams`."""
        return {
            "game": self.game,
            "seat": self.seat,
            "players": self.players,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "rules": self.rules.to_json(),
            "tables": [t.to_json() for t in self.tables],
            "legal": [a.to_json() for a in self.legal],
            "round": self.round.to_json() if self.round is not None else None,
        }

    def dumps(self) -> str:
        """The VIEW as one line of JSON."""
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> GinTableView:
        """Parse a `gin3` or `gin4_teams` VIEW (or its JSON text); raise `ViewError` naming what is wrong."""
        data = view_object(data)
        game = data.get("game")
        if game not in ("gin3", "gin4_teams"):
            raise ViewError(f"not a three- or four-player Gin view: game is {game!r}")
        try:
            round_data = data.get("round")
            round_result = None
            if round_data is not None:
                points = round_data["team_points"]
                scorer = round_data["scorer"]
                round_result = TeamRoundResult(
                    (int(points[0]), int(points[1])),
                    None if scorer is None else int(scorer),
                    int(round_data["points"]),
                )
            return cls(
                game=game,
                seat=int(data["seat"]),
                players=int(data["players"]),
                dealer=int(data["dealer"]),
                hand_number=int(data["hand_number"]),
                scores=tuple(int(s) for s in data["scores"]),
                rules=Rules.from_json(data["rules"]),
                tables=tuple(TableHandView.from_json(t, n) for n, t in enumerate(data["tables"])),
                legal=tuple(action_from_json(a) for a in data["legal"]),
                round=round_result,
            )
        except KeyError as exc:
            raise ViewError(f"view is missing the field {exc.args[0]!r}") from None
        except (TypeError, ValueError, IndexError, CardError, ActionError, RulesError) as exc:
            if isinstance(exc, ViewError):
                raise
            raise ViewError(f"bad Gin table view: {exc}") from None
