"""Swiss tournaments: each round paired by the FIDE Dutch system (through py4swiss), byes, tie-breaks.

Scoring: a match won is worth 1, drawn 1/2, lost 0. A player left over by the pairing gets a
pairing-allocated bye worth 1 (at most one per player while the pairing can avoid it) or, when the
tournament allows robots, plays a robot instead (the match scores as any other, is never rated,
and counts as the player's bye for the pairing). An aborted match is worth 0 to both and does not
count as a meeting (they may be paired again). Rounds a player missed (joined late, paused,
withdrawn) are worth 0.

Ties: Buchholz (the sum of the opponents' scores), then Sonneborn-Berger (the scores of the
opponents beaten plus half those drawn). A round without a person opposite (a bye, a robot, an
absence, an abort) counts as if against a virtual opponent with the player's own score (FIDE's
tie-break regulations for unplayed rounds).

Colours: the Dutch system balances colours; Gin Rummy has none worth balancing (the first
dealer is drawn), so seat 0 is written as white and seat 1 as black only to feed the pairing.
"""

from __future__ import annotations

from dataclasses import dataclass

from py4swiss.engines import DutchEngine
from py4swiss.engines.common.exceptions import PairingError
from py4swiss.trf.codes import PlayerCode
from py4swiss.trf.parsed_trf import ParsedTrf
from py4swiss.trf.results import RoundResult
from py4swiss.trf.results.color_token import ColorToken
from py4swiss.trf.results.result_token import ResultToken
from py4swiss.trf.sections import PlayerSection, XSection

from .ports import MatchRow, TournamentPlayer

__all__ = ["Cell", "SwissStanding", "swiss_cells", "swiss_pairing", "swiss_standings"]


@dataclass(frozen=True, slots=True)
class Cell:
    """One player's round: what happened and what it is worth."""

    kind: str  # "win", "draw", "loss" (against a person), "aborted", "bye", "robot", "absent", "playing"
    points: float = 0.0
    opponent: str | None = None  # the person opposite, if any
    seat: int | None = None
    match_id: str | None = None

    @property
    def played(self) -> bool:
        """Against a person, to the end (a meeting the pairing must not repeat)."""
        return self.kind in ("win", "draw", "loss")

    @property
    def mark(self) -> str:
        """The score sheet's mark: 1, ½, 0, B (bye), R1/R½/R0 (against a robot), - (absent), * (playing)."""
        number = {1.0: "1", 0.5: "½", 0.0: "0"}[self.points]
        return {
            "bye": "B",
            "robot": "R" + number,
            "absent": "-",
            "aborted": "0",
            "playing": "*",
        }.get(self.kind, number)


@dataclass(slots=True)
class SwissStanding:
    guest_id: str
    cells: list[Cell]
    joined_at: float = 0.0
    score: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0

    @property
    def played(self) -> int:
        return sum(1 for c in self.cells if c.kind not in ("absent", "playing"))

    @property
    def won(self) -> int:
        return sum(1 for c in self.cells if c.points == 1.0 and c.kind in ("win", "robot"))


def _result_points(match: MatchRow, seat: int) -> tuple[str, float]:
    result = match.result or {}
    if result.get("ended") == "aborted":
        return "aborted", 0.0
    winner = result.get("winner")
    if winner is None:
        return "draw", 0.5
    return ("win", 1.0) if winner == seat else ("loss", 0.0)


def swiss_cells(
    matches: list[MatchRow], byes: list[tuple[int, str]], players: list[str], rounds: int
) -> dict[str, list[Cell]]:
    """Every player's cells for rounds 1..`rounds`, from the tournament's matches and byes."""
    cells: dict[str, dict[int, Cell]] = {g: {} for g in players}
    for round_number, guest in byes:
        if guest in cells:
            cells[guest][round_number] = Cell("bye", 1.0)
    for match in matches:
        if match.round is None:
            continue
        for seat in match.seats:
            line = cells.get(seat.guest_id or "")
            if line is None:
                continue
            other = match.seats[1 - seat.seat]
            if match.status != "over":
                line[match.round] = Cell("playing", 0.0, other.guest_id, seat.seat, match.id)
                continue
            kind, points = _result_points(match, seat.seat)
            if other.guest_id is None and kind != "aborted":
                kind = "robot"
            line[match.round] = Cell(kind, points, other.guest_id, seat.seat, match.id)
    return {g: [line.get(r, Cell("absent")) for r in range(1, rounds + 1)] for g, line in cells.items()}


def swiss_standings(
    cells: dict[str, list[Cell]], players: list[TournamentPlayer], ratings: dict[str, float]
) -> list[SwissStanding]:
    """The standings: score, then Buchholz, then Sonneborn-Berger, then rating, then who joined first."""
    joined = {p.guest_id: p.joined_at for p in players}
    table = {g: SwissStanding(g, list(c), joined.get(g, 0.0)) for g, c in cells.items()}
    for line in table.values():
        line.score = sum(c.points for c in line.cells)
    for line in table.values():
        for cell in line.cells:
            if cell.kind == "playing":
                continue
            if cell.played and cell.opponent in table:
                opponent = table[cell.opponent].score
            else:
                opponent = line.score  # a virtual opponent with the player's own score
            line.buchholz += opponent
            line.sonneborn_berger += opponent * cell.points
    return sorted(
        table.values(),
        key=lambda s: (
            -s.score,
            -s.buchholz,
            -s.sonneborn_berger,
            -ratings.get(s.guest_id, 1500.0),
            s.joined_at,
            s.guest_id,
        ),
    )


_PLAYED = {"win": ResultToken.WIN, "draw": ResultToken.DRAW, "loss": ResultToken.LOSS}
_COLOURS = (ColorToken.WHITE, ColorToken.BLACK)


def _round_result(cell: Cell, numbers: dict[str, int]) -> RoundResult:
    if cell.played and cell.opponent in numbers and cell.seat is not None:
        return RoundResult(id=numbers[cell.opponent], color=_COLOURS[cell.seat], result=_PLAYED[cell.kind])
    none = ColorToken.BYE_OR_NOT_PAIRED
    if cell.kind == "bye":
        return RoundResult(id=0, color=none, result=ResultToken.PAIRING_ALLOCATED_BYE)
    if cell.kind == "robot":
        # The robot stood in for the bye: a win is a forfeit win (which the pairing counts as a
        # bye received), a draw a half-point bye, a loss a zero-point bye.
        token = {1.0: ResultToken.FORFEIT_WIN, 0.5: ResultToken.HALF_POINT_BYE}.get(
            cell.points, ResultToken.ZERO_POINT_BYE
        )
        return RoundResult(id=0, color=none, result=token)
    return RoundResult(id=0, color=none, result=ResultToken.ZERO_POINT_BYE)


def swiss_pairing(
    cells: dict[str, list[Cell]],
    order: list[str],
    present: set[str],
    ratings: dict[str, float],
    total_rounds: int,
) -> tuple[list[tuple[str, str]], str | None] | None:
    """The next round's pairs (seat 0 first) and the player left over, or None when the round
    cannot be paired without a rematch.

    `order` gives the starting ranks (strongest first); `present` who is to be paired; every
    player's cells cover the rounds played so far, all finished.
    """
    numbers = {g: i for i, g in enumerate(order, start=1)}
    sections = []
    for guest in order:
        results = [_round_result(c, numbers) for c in cells[guest]]
        sections.append(
            PlayerSection(
                code=PlayerCode.PLAYER,
                starting_number=numbers[guest],
                name=None,
                fide_rating=max(0, min(9999, round(ratings.get(guest, 1500.0)))),
                points_times_ten=round(10 * sum(c.points for c in cells[guest])),
                rank=numbers[guest],
                results=results,
            )
        )
    absent = {numbers[g] for g in order if g not in present}
    trf = ParsedTrf(
        player_sections=sections,
        x_section=XSection(number_of_rounds=total_rounds, zeroed_ids=absent),
    )
    try:
        pairings = DutchEngine.generate_pairings(trf)
    except PairingError:
        return None
    pairs: list[tuple[str, str]] = []
    left: list[str] = []
    for pairing in pairings:
        if pairing.black == 0 or pairing.white == 0:
            left.append(order[max(pairing.white, pairing.black) - 1])
        else:
            pairs.append((order[pairing.white - 1], order[pairing.black - 1]))
    if len(left) > 1:
        return None
    return pairs, (left[0] if left else None)
