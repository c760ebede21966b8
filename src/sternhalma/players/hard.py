"""Hard: our strong level, a search under a time limit (default 1 second a move).

The race games go to race.py (alpha-beta, forecast, playouts or solo over
the evaluation in evaluate.py, in the compiled core; fallback.py without it);
the capture game to capture.py. The search
is bounded by a node allowance that the time manager (timeman.py) derives from
the limit's seconds at this game's nodes a second, which makes Hard
reproducible: the same game and seed give the same move on any machine. The
seconds themselves are a wall-clock cap on top, so a slow or busy machine still
gets its move in time (and only then may the move differ).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sternhalma import core
from sternhalma.boards.base import bits
from sternhalma.notation import position_to_json
from sternhalma.players.base import DEADLINE_MARGIN, Player, careful_moves, in_care
from sternhalma.players.capture import CaptureSearch, CaptureSettings
from sternhalma.players.choice import Choice, Info, Limit
from sternhalma.players.history import last_move, lead, races, repetition_result
from sternhalma.players.race import (
    CrowdSettings,
    DuelSettings,
    RaceSearch,
    SoloSettings,
    crowd_meets_head_on,
)
from sternhalma.players.rows import row_table
from sternhalma.players.search import Limits
from sternhalma.players.timeman import allowance
from sternhalma.position import Move, Position
from sternhalma.rules.base import Ruleset
from sternhalma.rules.capture import CaptureRules
from sternhalma.rules.race import RaceRules

if TYPE_CHECKING:
    from sternhalma.game import Game

#: Hard's first move from each variant's start (its position's JSON -> the move's text):
#: the compiled Hard's at four times its default think (tools/make_book.py). A move
#: whose best is settled before the game begins, so Hard plays it at once on either core
#: (the browser's pure-Python Hard would find a weaker one in its second).
BOOK: dict[str, str] = json.loads(
    (Path(__file__).parents[1] / "opening_book.json").read_text(encoding="utf-8")
)

#: What a marble shut in its home counts among the moves needed to leave (more than
#: any game's moves to the deadline: the care begins at once).
NEVER_OUT = 1000


@dataclass(frozen=True)
class HardSettings:
    """How Hard searches: the node allowance's rates, and one frozen settings object per
    search family (players/race.py and players/capture.py, where their defaults are); the
    defaults are what the benchmarks chose (docs/measurements.md)."""

    #: Search nodes per second of the time limit, by game: about what this machine searches
    #: in two thirds of that time (a Halma node moves 19 pieces in 8 directions, a star
    #: node 10 marbles in 6; capture's rates are its family's).
    nodes_per_second: int = 20_000
    #: Three or more players on the star: the playouts' rate (set when the crowd's search
    #: was the best-reply search, whose reply nodes tried only the rivals' likely moves;
    #: kept so the playouts play as measured, docs/players.md).
    multi_nodes_per_second: int = 30_000
    halma_nodes_per_second: int = 9_000
    #: Two-player star races on the compiled core: its search runs 35-100 times as many
    #: nodes a second as the fallback's (bench/players.py nodes), so the allowance is this
    #: many times the rate, leaving room for a busy server. Not with the playouts of three
    #: or more meeting head on (a deeper search there, the best-reply search of the time,
    #: lost places to Medium; more playouts placed no better); classic-3's solo beam has
    #: its own rate (``solo.crowd_nodes_per_second``).
    compiled_scale: int = 12
    #: Two-player Halma on the compiled core: the allowance is this many times the rate
    #: (22,500 nodes won 15 of 20 Halma games against 9,000; a Halma node costs more).
    halma_compiled_scale: float = 2.5
    #: Two players in contact (alpha-beta, forecast).
    duel: DuelSettings = field(default_factory=DuelSettings)
    #: Three or more in contact (playouts).
    crowd: CrowdSettings = field(default_factory=CrowdSettings)
    #: The searches over our own moves (solo, forecast).
    solo: SoloSettings = field(default_factory=SoloSettings)
    #: Capture Chinese checkers (players/capture.py).
    capture: CaptureSettings = field(default_factory=CaptureSettings)


#: The largest number a setting read from text may be (the compiled core's integers).
MOST_SETTING = 10**9


def changed_settings(changes: Sequence[tuple[str, str]]) -> HardSettings:
    """The default HardSettings with ``(key, value)`` changes read from text (the command
    line, benchmarks): ``compiled_scale=6``, a family's ``duel.reply_breadth=3``, and
    ``duel.weights.rows=10`` for a race weight (``crowd.weights.group=0`` with three or
    more players). ValueError saying what is wrong."""
    settings = HardSettings()
    for key, text in changes:
        settings = _changed(settings, key, key.split("."), text)
    return settings


def _changed(holder: Any, key: str, path: list[str], text: str) -> Any:
    """``holder`` (frozen settings) with the field at ``path`` read from ``text``."""
    name = path[0]
    names = [f.name for f in dataclasses.fields(holder)]
    if name not in names:
        raise ValueError(f"no setting {key!r}; the settings there: {', '.join(names)}")
    value = getattr(holder, name)
    if len(path) > 1:
        if not dataclasses.is_dataclass(value):
            raise ValueError(f"no setting {key!r} ({name} has no fields)")
        changed = _changed(value, key, path[1:], text)
    else:
        changed = _setting_value(key, text, value)
    return dataclasses.replace(holder, **{name: changed})


def _setting_value(key: str, text: str, default: object) -> object:
    """``text`` as a number of the default's type (every setting is one, or holds some)."""
    if isinstance(default, (int, float)):
        try:
            number = type(default)(text)
        except ValueError:
            raise ValueError(f"{key} is a number, not {text!r}") from None
        if not math.isfinite(number) or abs(number) > MOST_SETTING:
            raise ValueError(f"{key} is at most {MOST_SETTING:,} either way, not {text!r}")
        return number
    raise ValueError(f"{key} cannot be set from text (its fields can: {key}.NAME)")


class HardPlayer(Player):
    level = "hard"

    def __init__(
        self, seed: int = 0, *, settings: HardSettings | None = None, book: bool = True
    ) -> None:
        """``book``: play the opening book's move from a start position (False: search
        there too, as tools/make_book.py does to write the book)."""
        super().__init__(seed)
        self.settings = settings or HardSettings()
        self.book = book

    def deadline_margin(self, game: Game, seat: int) -> int:
        """Begin the deadline care early enough to walk every marble out of home.

        The simple levels' fixed 5 moves (docs/players.md#easy-and-medium) are too late when
        a marble sits deep in the home behind others, or when rivals' marbles
        stand in its way: Hard counts the moves the marbles at home need (on an
        empty board, and past the marbles standing there if that takes more),
        and begins at once when one cannot get out as things stand.
        """
        rules = game.rules
        if not isinstance(rules, RaceRules):
            return DEADLINE_MARGIN
        needed = _moves_to_leave(rules, game.position, seat, rivals=False)
        # Never later than on an empty board: a rival's rung for a jump may go away.
        needed = max(needed, _moves_to_leave(rules, game.position, seat))
        return max(DEADLINE_MARGIN, needed + 1)

    def careful(self, game: Game, seat: int, moves: list[Move]) -> list[Move]:
        """The simple levels' care, and a way out when it would only shuffle inside the home.

        When no marble at home can leave in one move, the care keeps the moves
        of marbles at home, and a marble whose way out is closed (own marbles
        just outside it, rivals' behind them) shuffles there until the
        deadline puts the player out. Hard keeps instead the moves, of any
        marble, after which the marbles at home need the fewest moves to leave:
        an own marble steps out of the way, or the marble walks toward an exit.
        """
        rules = game.rules
        if not isinstance(rules, RaceRules) or game.deadline is None:
            return moves
        margin = self.deadline_margin(game, seat)
        options = careful_moves(game, seat, moves, margin)
        if not in_care(game, seat, margin):
            return options
        home = rules.homes[seat]
        if not game.position.marbles[seat] & home or any(
            home >> m[0] & 1 and not home >> m[-1] & 1 for m in options
        ):
            return options  # nothing at home, or the care's moves leave it
        safe = [m for m in moves if not game.would_put_out(m)] or moves
        needs = [
            _moves_to_leave(rules, rules.apply_unchecked(game.position, m), seat) for m in safe
        ]
        fewest = min(needs)
        return [m for m, need in zip(safe, needs, strict=True) if need == fewest]

    def pick(
        self,
        game: Game,
        seat: int,
        options: list[Move],
        rng: random.Random,
        limit: Limit,
    ) -> Choice:
        booked = _booked(game, options) if self.book else None
        if booked is not None:
            return Choice(booked, Info("book"))
        settings = self.settings
        allowed = allowance(limit, nodes_per_second(settings, game.rules))
        assert allowed.nodes is not None
        limits = Limits.of(allowed.nodes, allowed.search_seconds)
        # The seed decides the order among moves the search finds equal.
        options = _sensible(game, seat, options)
        if len(options) == 1:  # e.g. the repetition that wins
            return Choice(options[0])
        rng.shuffle(options)
        rules = game.rules
        search: RaceSearch | CaptureSearch
        if isinstance(rules, RaceRules):
            rivals = [s for s in game.in_play if s != seat]
            racing = (
                rules.players == 2
                and bool(rivals)
                and races(game, rivals[0], settings.duel.racer_moves)
            )
            owner_counts = [game.owner_counts(s) for s in range(rules.players)]
            search = race_search(
                rules, seat, game.in_play, limits, settings, owner_counts, racing=racing
            )
        else:
            assert isinstance(rules, CaptureRules)
            search = CaptureSearch(
                rules, seat, game.in_play, limits, breadth=settings.capture.breadth
            )
        move = search.choose(game.position, options)
        return Choice(
            move,
            Info(
                search.mode,
                search.depth_reached,
                limits.used,
                score=search.score,
                line=search.line,
            ),
        )


def nodes_per_second(settings: HardSettings, rules: Ruleset) -> int:
    """The nodes a second of time limit buys Hard in ``rules``' game, on this core."""
    if core.COMPILED and isinstance(rules, RaceRules) and not crowd_meets_head_on(rules):
        if rules.players > 2:  # classic-3: the solo beam
            return settings.solo.crowd_nodes_per_second
        if rules.game == "halma":
            return int(settings.halma_nodes_per_second * settings.halma_compiled_scale)
        return settings.nodes_per_second * settings.compiled_scale
    if rules.game == "capture":
        capture = settings.capture
        return capture.nodes_per_second if rules.players == 2 else capture.crowd_nodes_per_second
    if rules.game == "halma":
        return settings.halma_nodes_per_second
    return settings.multi_nodes_per_second if rules.players > 2 else settings.nodes_per_second


def race_search(
    rules: RaceRules,
    seat: int,
    in_play: list[int],
    limits: Limits,
    settings: HardSettings,
    owner_counts: list[bool] | None = None,
    *,
    racing: bool = False,
) -> RaceSearch:
    """Hard's search for one decision in a race game, as ``settings`` say; ``owner_counts``
    per seat as ``Game.owner_counts`` says (None: every marble counts); ``racing``: the
    one rival races (``history.races``)."""
    return RaceSearch(
        rules,
        seat,
        in_play,
        limits,
        duel=settings.duel,
        crowd=settings.crowd,
        solo=settings.solo,
        racing=racing,
        owner_counts=owner_counts,
    )


def _booked(game: Game, options: list[Move]) -> Move | None:
    """The book's move when ``game`` stands at its variant's start (and it is an option)."""
    position = game.position
    if position != game.rules.initial():
        return None
    text = BOOK.get(position_to_json(position))
    if text is None:
        return None
    move = game.rules.parse_move(position, text)
    return move if move in options else None


def _sensible(game: Game, seat: int, options: list[Move]) -> list[Move]:
    """The options without those that throw away a good game (while others exist).

    Where nothing lets a rival leave our goal (Halma: no anti-blocking rule), a
    rival piece walled in there keeps us from ever finishing: never close its
    last way out. Then the game's history, which the search does not see.
    """
    rules = game.rules
    if not isinstance(rules, RaceRules):
        return list(options)
    kept = list(options)
    if not rules.anti_blocking:
        kept = _leaving_a_way_out(rules, game.position, seat, kept) or kept
    return _unrepeated(game, seat, kept)


def _unrepeated(game: Game, seat: int, options: list[Move]) -> list[Move]:
    """The options by what the game's history says about them.

    A move that makes a position stand the third time ends the game at once
    (rules.md#repetition): when that ranks us above every rival it is the move
    to play; when it ranks one above us it is never played; a draw by it
    (Halma) is not played while we stand ahead, as the round limit would rank
    us first. And a marble does not go straight back where our last move took
    it from while some move gains a row: shuffling gains nothing and invites
    the repetition.
    """
    rules = game.rules
    assert isinstance(rules, RaceRules)
    rivals = [s for s in game.in_play if s != seat]
    ahead = _ahead(rules, game.position, seat, game.in_play)
    kept = []
    for move in options:
        result = repetition_result(game, move)
        if result is None:
            kept.append(move)
            continue
        outcome = lead(result, seat, rivals)
        if outcome > 0:
            return [move]
        if outcome == 0 and not ahead:
            kept.append(move)
    kept = kept or list(options)
    last = last_move(game, seat)
    if last is not None:
        rows = row_table(rules)[seat]
        others = [m for m in kept if not (m[0] == last[-1] and m[-1] == last[0])]
        if any(rows[m[-1]] > rows[m[0]] for m in others):
            kept = others
    return kept


def _leaving_a_way_out(
    rules: RaceRules, position: Position, seat: int, options: list[Move]
) -> list[Move]:
    """The options that close no way out of our goal for a rival piece standing in it.

    Closed: the piece had a move forward (to a higher row of its own) and has
    none after ours, or it can no longer get out at all, however many moves it
    makes with everything else standing still. Our move brings no rival piece
    into our goal, so with none there every option leaves the way out open.
    """
    goal = rules.goals[seat]
    pieces = [
        (rival, hole)
        for rival, marbles in enumerate(position.marbles)
        if rival != seat
        for hole in bits(marbles & goal)
    ]
    if not pieces:
        return list(options)
    had_forward = {piece: _forward(rules, position, *piece) for piece in pieces}

    def closes(move: Move) -> bool:
        after = rules.apply_unchecked(position, move)
        return any(
            (had_forward[(rival, hole)] and not _forward(rules, after, rival, hole))
            or not _can_leave(rules, after, rival, hole, goal)
            for rival, hole in pieces
        )

    return [move for move in options if not closes(move)]


def _forward(rules: RaceRules, position: Position, seat: int, hole: int) -> bool:
    """Whether ``seat``'s piece on ``hole`` has a move to a higher row of its own."""
    rows = row_table(rules)[seat]
    ends = rules.move_ends(position.occupied, seat, 1 << hole)
    return any(rows[end] > rows[hole] for _, end in ends)


def _can_leave(rules: RaceRules, position: Position, seat: int, hole: int, area: int) -> bool:
    """Whether ``seat``'s piece on ``hole`` can reach a hole outside ``area`` in some moves."""
    return _moves_out(rules, position, seat, hole, area) is not None


def _moves_out(rules: RaceRules, position: Position, seat: int, hole: int, area: int) -> int | None:
    """The fewest moves that take ``seat``'s piece on ``hole`` outside ``area`` with
    everything else standing still; None when it cannot get out."""
    others = position.occupied & ~(1 << hole)
    seen = 1 << hole
    frontier = [hole]
    moves = 1
    while frontier:
        following = []
        for here in frontier:
            for _, end in rules.move_ends(others | 1 << here, seat, 1 << here):
                if not area >> end & 1:
                    return moves
                if not seen >> end & 1:
                    seen |= 1 << end
                    following.append(end)
        frontier = following
        moves += 1
    return None


def _moves_to_leave(rules: RaceRules, position: Position, seat: int, rivals: bool = True) -> int:
    """How many moves ``seat``'s marbles at home need to leave it, each walking alone
    (the others at home lifted, as they will be moving too) past everything else;
    NEVER_OUT when one of them cannot get out. Without ``rivals``, on an empty board."""
    home = rules.homes[seat]
    at_home = position.marbles[seat] & home
    marbles = list(position.marbles) if rivals else [0] * len(position.marbles)
    marbles[seat] &= ~home
    total = 0
    for hole in bits(at_home):
        alone = list(marbles)
        alone[seat] |= 1 << hole
        moves = _moves_out(rules, Position(rules, seat, tuple(alone)), seat, hole, home)
        if moves is None:
            return NEVER_OUT
        total += moves
    return total


def _ahead(rules: RaceRules, position: Position, seat: int, in_play: list[int]) -> bool:
    ours = rules.standing(position, seat)
    return all(ours > rules.standing(position, s) for s in in_play if s != seat)
