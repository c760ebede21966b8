"""The computer's view of a race position and its review of a game.

One place for what the analysis board and ``sternhalma analyse`` show, so
the page and the command line agree:

- **moves to go** per seat, counted alone (the seat's own marbles only, as in
  the crossing puzzle; solo.py): a lower bound, exact when small, and Hard's
  estimate, the length of a real way home found by a narrow beam;
- the **best move**: Hard's choice, searched with a fixed node allowance so
  that the same position always gets the same answer;
- the **race** with two players: the second seat's estimate less the first's,
  so positive means the first seat (white) is ahead by that many moves;
- the **review**: each move's **loss**, the moves to go it cost its player
  against Hard's choice, and the verdict by the thresholds below.

Only the race games have moves to go; the capture game is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from sternhalma.boards.base import bits
from sternhalma.boards.star import STAR
from sternhalma.core import COMPILED
from sternhalma.errors import SternhalmaError
from sternhalma.game import Game
from sternhalma.players import Limit
from sternhalma.players.hard import HardPlayer
from sternhalma.position import Move, Position
from sternhalma.rules.race import RaceRules
from sternhalma.solo import SoloMoves, Solution, beam, lower_bound

#: The beam that estimates moves to go, by board kind: the compiled core's solo search
#: (solo.py, _core/solo.hpp). Wider is closer to the truth and slower: 256 is the narrowest
#: that crosses the empty star in 31 moves (27 proven; 16 wide: 44), some 0.05 s a seat;
#: Halma's square board is slower, 128 (73 moves, 16 wide: 87) some 0.2 s a seat
#: (docs/measurements.md, 2026-12-02).
ESTIMATE_WIDTHS: dict[str, int] = {"star": 256, "square": 128}
#: The width without the compiled core: the Python beam is some twenty times slower.
PYTHON_ESTIMATE_WIDTH = 16
#: The checked count's own error, in moves: how far above the true count the beam
#: ``CHECK_WIDTH`` wide was found (bench/estimate_error.py, docs/analysis.md), by the
#: size of the count: (counts up to, error), the last for every larger count. A loss
#: no larger than this may be the count's error, not the move's, and is judged good.
ESTIMATE_ERRORS: tuple[tuple[int, int], ...] = ((20, 1), (1_000, 7))
#: The error allowed far from the goal, where it is largest.
ESTIMATE_ERROR = ESTIMATE_ERRORS[-1][1]
#: A move that loses at least this many moves to go is an inaccuracy ...
INACCURACY = ESTIMATE_ERROR + 1
#: ... and at least this many a mistake.
MISTAKE = ESTIMATE_ERROR + 3
#: Hard's search for the best move, in nodes (a tenth of a second of play).
BEST_NODES = 1_500
#: The lower bound's node allowance, and the marbles outside the goal up to which it
#: is tried (further out it cannot finish, and the bound is that count).
BOUND_NODES = 1_000
EXACT_UP_TO = 5
#: The wider beam a move's count is checked with before the move is called a loss beyond
#: the estimate's error: the narrow beam errs by several moves (bench/estimate_error.py),
#: so a move that looks worse than the better one is counted again with this beam, and
#: only what is still lost then is judged. Its own error is ``ESTIMATE_ERROR``.
CHECK_WIDTH = 1_024
#: Ways home remembered per process (positions on a beam's path, with the moves left).
KNOWN_LIMIT = 200_000


class AnalysisError(SternhalmaError):
    """A position or game the analysis cannot judge (the capture game has no moves to go)."""


def verdict(loss: int, error: int = ESTIMATE_ERROR) -> str:
    """``good``, ``inaccuracy`` or ``mistake`` for a move that lost ``loss`` moves to go,
    when the counts compared may each be ``error`` moves too high (0: both exact)."""
    if loss >= error + MISTAKE - ESTIMATE_ERROR:
        return "mistake"
    if loss >= error + INACCURACY - ESTIMATE_ERROR:
        return "inaccuracy"
    return "good"


def estimate_error(estimate: int) -> int:
    """The error allowed for a count of ``estimate`` moves to go (``ESTIMATE_ERRORS``)."""
    return next((error for up_to, error in ESTIMATE_ERRORS if estimate <= up_to), ESTIMATE_ERROR)


def thresholds() -> dict[str, Any]:
    """The review's thresholds as the page and the JSON review give them (``inaccuracy``,
    ``mistake`` and ``error`` far from the goal; ``errors``: [counts up to, error] pairs)."""
    return {
        "inaccuracy": INACCURACY,
        "mistake": MISTAKE,
        "error": ESTIMATE_ERROR,
        "errors": [list(band) for band in ESTIMATE_ERRORS],
    }


@dataclass(frozen=True)
class ToGo:
    """One seat's moves to go alone: at least ``lower`` (``exact``: just that), about ``estimate``."""

    lower: int
    exact: bool
    estimate: int

    def as_dict(self) -> dict[str, Any]:
        return {"lower": self.lower, "exact": self.exact, "estimate": self.estimate}


def to_go(rules: RaceRules, seat: int, own: int) -> ToGo:
    """The moves ``seat`` needs alone from its marbles ``own``.

    Counted in the first seat's frame where the board can be turned so (the
    star), so that the same shape counts the same for every seat: a beam's
    ties would otherwise fall differently for a turned copy. The estimate is
    the shortest way home known: the beam's from here, or the rest of a way
    found from an earlier position that passes here (so that playing the
    beam's own move never makes the estimate go up); never below the bound.
    """
    frame = _frame(rules, seat)
    if frame is None:
        return _to_go(rules, seat, own)
    return _to_go(rules, 0, _turned(own, frame))


def _to_go(rules: RaceRules, seat: int, own: int) -> ToGo:
    lower, exact, found = _count(rules, seat, own)
    if exact:
        return ToGo(lower, True, lower)
    known = _known.get((rules, seat, own))
    estimate = found if known is None else min(found, known[0])
    return ToGo(lower, False, max(estimate, lower))


def estimate_width(rules: RaceRules) -> int:
    """The estimate's beam width for ``rules``' board (narrower without the compiled core)."""
    if not COMPILED:
        return PYTHON_ESTIMATE_WIDTH
    return ESTIMATE_WIDTHS.get(rules.board.kind, PYTHON_ESTIMATE_WIDTH)


#: (rules, seat, marbles) in the seat's frame -> (moves left, start and end hole of the
#: next move) of the shortest way home found through them.
_known: dict[tuple[RaceRules, int, int], tuple[int, int, int]] = {}


@lru_cache(maxsize=4096)
def _count(rules: RaceRules, seat: int, own: int) -> tuple[int, bool, int]:
    """(lower bound, whether it is exact, the beam's length) in the seat's own frame
    (cached: a seat's moves to go depend on its own marbles only, and a review meets
    them again and again). Every position on the beam's way home is remembered with
    the moves left from it."""
    outside = (own & ~rules.goals[seat]).bit_count()
    if outside <= EXACT_UP_TO:
        bound = lower_bound(rules, seat, own, BOUND_NODES)
        if bound.exact:
            return bound.moves, True, bound.moves
        lower = bound.moves
    else:
        lower = outside
    found = _way(rules, seat, own)
    if found is None:
        # A beam that dies out (never on a real board) leaves only the bound to go by.
        return lower, False, lower
    _remember(rules, seat, own, found)
    return lower, False, len(found)


def checked(rules: RaceRules, seat: int, own: int) -> ToGo:
    """``to_go`` with the estimate counted again by the beam ``CHECK_WIDTH`` wide (its way
    home remembered, so the moves after this one count no higher)."""
    frame = _frame(rules, seat)
    if frame is not None:
        seat, own = 0, _turned(own, frame)
    count = _to_go(rules, seat, own)
    if count.exact:
        return count
    found = _wide(rules, seat, own)
    if found is not None:
        _remember(rules, seat, own, found)
    return _to_go(rules, seat, own)


@lru_cache(maxsize=256)
def _wide(rules: RaceRules, seat: int, own: int) -> Solution | None:
    return beam(rules, seat, own, CHECK_WIDTH)


def _remember(rules: RaceRules, seat: int, own: int, found: Solution) -> None:
    """Every position on ``found``'s way home, with the moves left from it."""
    if len(_known) > KNOWN_LIMIT:
        _known.clear()
    marbles = own
    for left, move in zip(range(len(found), 0, -1), found.moves, strict=True):
        key = (rules, seat, marbles)
        known = _known.get(key)
        if known is None or left < known[0]:
            _known[key] = (left, move[0], move[-1])
        marbles ^= (1 << move[0]) | (1 << move[-1])


@lru_cache(maxsize=1024)
def _way(rules: RaceRules, seat: int, own: int) -> Solution | None:
    """The estimate's beam from ``own`` in the seat's own frame."""
    return beam(rules, seat, own, estimate_width(rules))


def plan_move(rules: RaceRules, seat: int, own: int) -> Move | None:
    """The first move of the way home the estimate counts for ``seat`` alone (in the real
    frame), or None when it is home or no way was found. Following it, the estimate
    goes down by at least one a move: the rest of that way is remembered.

    With the count exact, a move that leaves an exact count one lower (the beam's
    way may be longer than the count)."""
    frame = _frame(rules, seat)
    here, counted = (own, seat) if frame is None else (_turned(own, frame), 0)
    count = _to_go(rules, counted, here)
    move = _planned(rules, counted, here, count)
    if move is None or frame is None:
        return move
    back = {turned: hole for hole, turned in enumerate(frame)}
    return Move(back[hole] for hole in move)


def _planned(rules: RaceRules, seat: int, own: int, count: ToGo) -> Move | None:
    """``plan_move`` in the seat's own frame, where ``count`` is its moves to go."""
    solo = SoloMoves(rules, seat)
    if solo.finished(own):
        return None
    if count.exact:
        for start, end in solo.ends(own):
            after = _count(rules, seat, own ^ start ^ end)
            if after[1] and after[0] == count.lower - 1:
                return solo.path(own, start.bit_length() - 1, end.bit_length() - 1)
    known = _known.get((rules, seat, own))
    found = _way(rules, seat, own)
    if known is not None and (found is None or known[0] < len(found)):
        return solo.path(own, known[1], known[2])
    if found is None or not found.moves:
        return None
    return found.moves[0]


@cache
def _frame(rules: RaceRules, seat: int) -> tuple[int, ...] | None:
    """frame[hole]: the hole the star turned so that ``seat``'s home, goal and the holes
    it may end on become the first seat's; None when no turn does that."""
    board = rules.board
    if seat == 0 or board.kind != "star":
        return None
    turn = tuple(range(board.size))
    for _ in range(5):
        turn = tuple(STAR.rotate[hole] for hole in turn)
        if all(
            _turned(mask[seat], turn) == mask[0]
            for mask in (rules.homes, rules.goals, rules.may_end)
        ):
            return turn
    return None


def _turned(mask: int, turn: tuple[int, ...]) -> int:
    result = 0
    for hole in bits(mask):
        result |= 1 << turn[hole]
    return result


def race(rules: RaceRules, counts: list[ToGo]) -> int | None:
    """With two players, the second's estimate less the first's (positive: the first leads)."""
    if rules.players != 2:
        return None
    return counts[1].estimate - counts[0].estimate


@dataclass(frozen=True)
class PositionAnalysis:
    """What the analysis board shows for one position."""

    position: Position
    #: Hard's move for the seat to move (None when nobody can move).
    best: Move | None
    to_go: list[ToGo]
    race: int | None

    def as_dict(self) -> dict[str, Any]:
        rules = race_rules(self.position.rules)
        return {
            "turn": rules.seats[self.position.turn],
            "best": None if self.best is None else _move_dict(rules, self.best),
            "to_go": {rules.seats[s]: count.as_dict() for s, count in enumerate(self.to_go)},
            "race": self.race,
        }


def race_rules(rules: object) -> RaceRules:
    """``rules`` as race rules; AnalysisError for the capture game."""
    if not isinstance(rules, RaceRules):
        raise AnalysisError(
            "the analysis counts moves to go, which only the race games have "
            f"(Chinese checkers and Halma), not {getattr(rules, 'id', rules)}"
        )
    return rules


def analyse_position(game: Game) -> PositionAnalysis:
    """Moves to go for every seat, Hard's best move and the race, where ``game`` stands."""
    rules = race_rules(game.rules)
    position = game.position
    counts = [to_go(rules, s, own) for s, own in enumerate(position.marbles)]
    return PositionAnalysis(position, best_move(game), counts, race(rules, counts))


def best_move(game: Game) -> Move | None:
    """Hard's move where ``game`` stands, by node allowance (None when the game is over)."""
    if game.is_over or not game.legal_moves():
        return None
    return HardPlayer(seed=0).choose(game, Limit(nodes=BEST_NODES)).move


@dataclass(frozen=True)
class MoveReview:
    """One move of the game judged."""

    #: The move's number in the game, from 1.
    number: int
    seat: int
    played: Move
    best: Move
    #: Moves to go the mover lost against the better move (0 or more).
    loss: int
    #: good, inaccuracy or mistake: the loss judged against the estimate's error.
    verdict: str
    #: Every seat's moves to go after the move.
    to_go: list[ToGo]
    race: int | None

    def as_dict(self, rules: RaceRules) -> dict[str, Any]:
        return {
            "number": self.number,
            "seat": rules.seats[self.seat],
            "played": _move_dict(rules, self.played),
            "best": _move_dict(rules, self.best),
            "loss": self.loss,
            "verdict": self.verdict,
            "to_go": {rules.seats[s]: count.as_dict() for s, count in enumerate(self.to_go)},
            "race": self.race,
        }


@dataclass
class Review:
    """A whole game judged move by move."""

    rules: RaceRules
    #: Moves to go and race at the start.
    start: list[ToGo]
    start_race: int | None
    moves: list[MoveReview] = field(default_factory=list)

    def summary(self) -> dict[str, dict[str, int]]:
        """Per seat colour: how many good moves, inaccuracies and mistakes, and the moves
        those inaccuracies and mistakes lost (a loss within the estimate's error is not
        counted: it may be the estimate's, not the player's)."""
        table = {
            colour: {"good": 0, "inaccuracy": 0, "mistake": 0, "lost": 0}
            for colour in self.rules.seats
        }
        for move in self.moves:
            row = table[self.rules.seats[move.seat]]
            row[move.verdict] += 1
            if move.verdict != "good":
                row["lost"] += move.loss
        return table

    def as_dict(self) -> dict[str, Any]:
        rules = self.rules
        return {
            "variant": rules.id,
            "thresholds": thresholds(),
            "start": {
                "to_go": {rules.seats[s]: count.as_dict() for s, count in enumerate(self.start)},
                "race": self.start_race,
            },
            "moves": [move.as_dict(rules) for move in self.moves],
            "summary": self.summary(),
        }


def review_move(before: Game, move: Move) -> MoveReview:
    """Judge ``move`` played where ``before`` stands (``before`` is not changed).

    The better move is the one of two candidates that leaves the mover fewer moves
    to go: Hard's choice and the first move of the mover's own way home (the
    estimate's beam), when it is legal here. The loss is the mover's moves to go
    after the move played less after the better move; the verdict allows for the
    estimate's error (none when both counts are exact).
    """
    rules = race_rules(before.rules)
    position = before.position
    seat = position.turn
    own = position.marbles[seat]
    to_go(rules, seat, own)  # the mover's way home from here, remembered for the counts below
    legal = {(m[0], m[-1]): m for m in before.legal_moves()} if not before.is_over else {}
    candidates: list[Move] = []
    for candidate in (best_move(before), plan_move(rules, seat, own)):
        if candidate is not None and (candidate[0], candidate[-1]) in legal:
            candidates.append(legal[(candidate[0], candidate[-1])])
    after = rules.apply_unchecked(position, move)
    counts = [to_go(rules, s, marbles) for s, marbles in enumerate(after.marbles)]
    best, instead = move, counts[seat]
    for candidate in candidates:
        count = to_go(rules, seat, rules.apply_unchecked(position, candidate).marbles[seat])
        if best is move or count.estimate < instead.estimate:
            best, instead = candidate, count
    loss = 0 if _same(move, best) else max(0, counts[seat].estimate - instead.estimate)
    error = 0 if counts[seat].exact and instead.exact else estimate_error(counts[seat].estimate)
    if verdict(loss, error) != "good" and not counts[seat].exact:
        # The narrow beam may have missed a short way home after the move played: count
        # it again, wider, before calling it a loss (the better move's count is a real
        # way home, so a count too high there can only hide a loss, never make one).
        counts[seat] = checked(rules, seat, after.marbles[seat])
        loss = max(0, counts[seat].estimate - instead.estimate)
        error = estimate_error(counts[seat].estimate)
    number = len(before.moves) + 1
    return MoveReview(
        number, seat, move, best, loss, verdict(loss, error), counts, race(rules, counts)
    )


def review_game(game: Game, progress: Callable[[int, int], None] | None = None) -> Review:
    """Judge every move of ``game`` (its start and moves are replayed, ``game`` is not
    changed). ``progress(done, total)`` is told after each move."""
    rules = race_rules(game.rules)
    counts = [to_go(rules, s, own) for s, own in enumerate(game.start.marbles)]
    review = Review(rules, counts, race(rules, counts))
    total = len(game.moves)
    for done, (before, move) in enumerate(replay(game), start=1):
        review.moves.append(review_move(before, move))
        if progress is not None:
            progress(done, total)
    return review


def replay(game: Game) -> Iterator[tuple[Game, Move]]:
    """(the game before the move, the move) for every move of ``game``, from its start."""
    again = Game(
        game.rules,
        start=game.start,
        deadline_rule=game.deadline_rule,
        moves_made=game.start_moves_made,
        rounds_played=game.start_rounds,
        finish_rule=game.finish_rule,
    )
    for move in game.moves:
        yield again.copy(), move
        again.play(move)


def _same(a: Move, b: Move) -> bool:
    """The same move: the same start and end (the path between may differ)."""
    return a[0] == b[0] and a[-1] == b[-1]


def _move_dict(rules: RaceRules, move: Move) -> dict[str, Any]:
    names = rules.board.names
    return {"text": rules.format_move(move), "path": [names[h] for h in move]}
