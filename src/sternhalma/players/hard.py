"""Hard: our strong level, a search under a time limit (default 1 second a move).

The race games go to race.py (solo, alpha-beta or best-reply search over
the evaluation in evaluate.py); the capture game to capture.py. The search
is bounded by a node allowance that the time manager (timeman.py) derives from
the limit's seconds at this game's nodes a second, which makes Hard
reproducible: the same game and seed give the same move on any machine. The
seconds themselves are a wall-clock cap on top, so a slow or busy machine still
gets its move in time (and only then may the move differ).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sternhalma import core
from sternhalma.boards.base import bits
from sternhalma.players.base import DEADLINE_MARGIN, Player, careful_moves, in_care
from sternhalma.players.capture import CaptureSearch
from sternhalma.players.choice import Choice, Info, Limit
from sternhalma.players.evaluate import CROWD_WEIGHTS, DEFAULT_WEIGHTS, RaceWeights
from sternhalma.players.history import last_move, lead, races, repetition_result
from sternhalma.players.race import RaceSearch
from sternhalma.players.rows import row_table
from sternhalma.players.search import Limits
from sternhalma.players.timeman import allowance
from sternhalma.position import Move, Position
from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules

if TYPE_CHECKING:
    from sternhalma.game import Game

#: What a marble shut in its home counts among the moves needed to leave (more than
#: any game's moves to the deadline: the care begins at once).
NEVER_OUT = 1000


#: The searches the settings may name, with two players and with three or more.
DUELS = ("alphabeta", "forecast", "solo")
MULTIS = ("playout", "brs", "forecast", "solo")


@dataclass(frozen=True)
class HardSettings:
    """How Hard searches; the defaults are what the benchmarks chose (bench/players.py)."""

    #: Search nodes per second of the time limit, by game: about what this machine searches
    #: in two thirds of that time (a capture node lists every chain, a Halma node
    #: moves 19 pieces in 8 directions, a star node 10 marbles in 6).
    nodes_per_second: int = 20_000
    #: Three or more players on the star: a reply node tries only the rivals' likely
    #: moves, so the same time searches more nodes.
    multi_nodes_per_second: int = 30_000
    halma_nodes_per_second: int = 9_000
    capture_nodes_per_second: int = 5_000
    #: Two-player star races on the compiled core: the same search runs 25-40 times as
    #: many nodes a second (bench/players.py nodes), so the allowance is this many times
    #: the rate, leaving room for a busy server. Not with three or more players (the
    #: deeper best-reply search lost places to Medium).
    compiled_scale: int = 12
    #: Two-player Halma on the compiled core: the allowance is this many times the rate
    #: (22,500 nodes won 15 of 20 Halma games against 9,000; a Halma node costs more).
    halma_compiled_scale: float = 2.5
    #: Own moves kept at inner nodes (race).
    breadth: int = 10
    #: A rival's replies kept at inner nodes (race, two players): enough to see it block
    #: us, not only race (10 won 27 of 30 games against 3 at equal nodes, docs/players.md).
    reply_breadth: int = 10
    #: Three or more: a rival's replies are only its this many biggest gains (what a
    #: racing player plays), of those beside our marbles (0: every move beside them).
    likely: int = 3
    #: Two players in contact: "alphabeta", "forecast" (our moves, the rival racing
    #: between them) or "solo" (own moves only).
    duel: str = "alphabeta"
    #: Two players, alpha-beta: the forecast search instead once the rival has this many
    #: rows more to go than we (0: never). Against Medium it finishes sooner (34.3 moves
    #: against 36.7 in 50 games); between equals the lead hardly ever comes (docs/players.md).
    race_lead: int = 10
    #: Two players: a rival each of whose last this many moves gained the most rows it
    #: could is racing (as Medium does), not blocking: Hard then plans on its racing moves
    #: (the forecast search) at any lead (0: never). With the beam, against Medium: 31.6
    #: moves to finish in 100 games; today's Hard blocks, and never looks like a racer.
    racer_moves: int = 8
    #: The searches over our own moves (solo, forecast) plan this many moves ahead with a
    #: beam as wide as the node allowance allows (0: depth-first). Racing alone from the
    #: start: 27 moves, the proven minimum, against depth-first search's 31-33.
    beam_depth: int = 24
    #: Three or more in contact: "brs" (best-reply search), "forecast" (our moves, the
    #: rivals' forecast between them), "playout" (our best options, each played out many
    #: times with the rivals racing) or "solo".
    multi: str = "playout"
    #: Playouts: how many moves of ours each lasts, and how many of our options (those of
    #: biggest gain) are played out.
    playout_moves: int = 8
    playout_options: int = 8
    #: Chains kept at inner nodes (capture).
    capture_breadth: int = 8
    #: The race evaluation's weights with two players, and with three or more.
    weights: RaceWeights = DEFAULT_WEIGHTS
    multi_weights: RaceWeights = CROWD_WEIGHTS
    #: The deepest search with three or more players.
    multi_depth: int = 16
    #: Best-reply search judges our lead over the best rival (True) or only our own
    #: distance (False: the best reply is then the one that hinders us most).
    rivalry: bool = False
    #: Two players: what the rival's way to go counts in the evaluation, in percent of
    #: ours (100: hindering the rival is worth as much as our own progress).
    rival_weight: int = 100
    #: Three or more, playouts: what the way to go of the rival nearest to the goal counts
    #: at the end of a playout, in percent of ours.
    multi_rival_weight: int = 25
    #: Read the game's history at the root (repetitions, marbles stepping straight back);
    #: False is Hard as it played before, to measure the difference.
    history: bool = True
    #: Plan the way out of home past rivals' marbles (False: only the simple levels' care, begun
    #: as early as the steps the marbles at home need, as Hard did before).
    way_out: bool = True

    def __post_init__(self) -> None:
        """A search that does not exist is a mistake, not a quiet fall back to another."""
        if self.duel not in DUELS:
            raise ValueError(f"duel is one of {', '.join(DUELS)}, not {self.duel!r}")
        if self.multi not in MULTIS:
            raise ValueError(f"multi is one of {', '.join(MULTIS)}, not {self.multi!r}")


#: The largest number a setting read from text may be (the compiled core's integers).
MOST_SETTING = 10**9


def changed_settings(changes: Sequence[tuple[str, str]]) -> HardSettings:
    """The default HardSettings with ``(key, value)`` changes read from text (the command
    line, benchmarks): ``breadth=8``, ``history=false``, ``duel=solo``, and
    ``weights.rows=10`` for a race weight (``multi_weights.group=0`` with three or more
    players). ValueError saying what is wrong."""
    settings = HardSettings()
    for key, text in changes:
        target, _, name = key.rpartition(".")
        if target not in ("", "weights", "multi_weights"):
            raise ValueError(f"no setting {key!r} (a race weight is weights.NAME)")
        holder = getattr(settings, target) if target else settings
        names = [f.name for f in dataclasses.fields(holder)]
        if name not in names:
            raise ValueError(f"no setting {key!r}; the settings: {', '.join(names)}")
        changed: Any = dataclasses.replace(
            holder, **{name: _setting_value(key, text, getattr(holder, name))}
        )
        settings = dataclasses.replace(settings, **{target: changed}) if target else changed
    return settings


def _setting_value(key: str, text: str, default: object) -> object:
    """``text`` as a value of the default's type: true/false, a number or a word."""
    if isinstance(default, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError(f"{key} is true or false, not {text!r}")
        return text.lower() == "true"
    if isinstance(default, (int, float)):
        try:
            number = type(default)(text)
        except ValueError:
            raise ValueError(f"{key} is a number, not {text!r}") from None
        if not math.isfinite(number) or abs(number) > MOST_SETTING:
            raise ValueError(f"{key} is at most {MOST_SETTING:,} either way, not {text!r}")
        return number
    if isinstance(default, str):
        return text
    raise ValueError(f"{key} cannot be set from text (its fields can: {key}.NAME)")


class HardPlayer(Player):
    level = "hard"

    def __init__(self, seed: int = 0, *, settings: HardSettings | None = None) -> None:
        super().__init__(seed)
        self.settings = settings or HardSettings()

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
        if self.settings.way_out:  # never later: a rival's rung for a jump may go away
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
        if not self.settings.way_out or not in_care(game, seat, margin):
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
        settings = self.settings
        allowed = allowance(limit, nodes_per_second(settings, game.rules))
        assert allowed.nodes is not None
        limits = Limits.of(allowed.nodes, allowed.search_seconds)
        # The seed decides the order among moves the search finds equal.
        options = _sensible(game, seat, options, history=settings.history)
        if len(options) == 1:  # e.g. the repetition that wins
            return Choice(options[0])
        rng.shuffle(options)
        rules = game.rules
        search: RaceSearch | CaptureSearch
        if isinstance(rules, RaceRules):
            rivals = [s for s in game.in_play if s != seat]
            if rules.players == 2 and rivals and races(game, rivals[0], settings.racer_moves):
                settings = dataclasses.replace(settings, duel="forecast")
            owner_counts = [game.owner_counts(s) for s in range(rules.players)]
            search = race_search(rules, seat, game.in_play, limits, settings, owner_counts)
        else:
            search = CaptureSearch(
                rules, seat, game.in_play, limits, breadth=settings.capture_breadth
            )
        move = search.choose(game.position, options)
        score = search.score if isinstance(search, CaptureSearch) else None
        return Choice(move, Info(search.mode, search.depth_reached, limits.used, score=score))


def nodes_per_second(settings: HardSettings, rules: Ruleset) -> int:
    """The nodes a second of time limit buys Hard in ``rules``' game, on this core."""
    rate = {
        "halma": settings.halma_nodes_per_second,
        "capture": settings.capture_nodes_per_second,
    }.get(
        rules.game,
        settings.multi_nodes_per_second if rules.players > 2 else settings.nodes_per_second,
    )
    if core.COMPILED and isinstance(rules, RaceRules) and rules.players == 2:
        if rules.game == "halma":
            return int(rate * settings.halma_compiled_scale)
        return rate * settings.compiled_scale
    return rate


def race_search(
    rules: RaceRules,
    seat: int,
    in_play: list[int],
    limits: Limits,
    settings: HardSettings,
    owner_counts: list[bool] | None = None,
) -> RaceSearch:
    """Hard's search for one decision in a race game, as ``settings`` say; ``owner_counts``
    per seat as ``Game.owner_counts`` says (None: every marble counts)."""
    many = rules.players > 2
    return RaceSearch(
        rules,
        seat,
        in_play,
        limits,
        breadth=settings.breadth,
        reply_breadth=settings.reply_breadth,
        max_depth=settings.multi_depth if many else 16,
        duel=settings.duel,
        multi=settings.multi,
        weights=settings.multi_weights if many else settings.weights,
        rivalry=settings.rivalry,
        likely=settings.likely,
        rival_weight=settings.multi_rival_weight if many else settings.rival_weight,
        race_lead=settings.race_lead,
        beam_depth=settings.beam_depth,
        playout_moves=settings.playout_moves,
        playout_options=settings.playout_options,
        owner_counts=owner_counts,
    )


def _sensible(game: Game, seat: int, options: list[Move], *, history: bool = True) -> list[Move]:
    """The options without those that throw away a good game (while others exist).

    Where nothing lets a rival leave our goal (Halma: no anti-blocking rule), a
    rival piece walled in there keeps us from ever finishing: never close its
    last way out. Then the game's history, which the search does not see
    (``history`` False: Hard as it was, for measurements).
    """
    rules = game.rules
    if not isinstance(rules, RaceRules):
        return list(options)
    kept = list(options)
    if not rules.anti_blocking:
        kept = [m for m in kept if not _walls_in(rules, game.position, seat, m)] or kept
    if not history and not rules.repetition_is_draw:
        return kept
    return _unrepeated(game, seat, kept, history)


def _unrepeated(game: Game, seat: int, options: list[Move], history: bool) -> list[Move]:
    """The options by what the game's history says about them.

    A move that makes a position stand the third time ends the game at once
    (rules.md#repetition): when that ranks us above every rival it is the move
    to play; when it ranks one above us it is never played; a draw by it
    (Halma) is not played while we stand ahead, as the round limit would rank
    us first. And a marble does not go straight back where our last move took
    it from while some move gains a row: shuffling gains nothing and invites
    the repetition. (Without ``history``, Hard as it was: only the Halma rule.)
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
    if history and last is not None:
        rows = row_table(rules)[seat]
        others = [m for m in kept if not (m[0] == last[-1] and m[-1] == last[0])]
        if any(rows[m[-1]] > rows[m[0]] for m in others):
            kept = others
    return kept


def _walls_in(rules: RaceRules, position: Position, seat: int, move: Move) -> bool:
    """Whether ``move`` closes the way out of our goal for a rival piece standing in it.

    Closed: the piece had a move forward (to a higher row of its own) and has
    none after ours, or it can no longer get out at all, however many moves it
    makes with everything else standing still.
    """
    after = rules.apply_unchecked(position, move)
    goal = rules.goals[seat]
    for rival, pieces in enumerate(after.marbles):
        if rival == seat:
            continue
        for hole in bits(pieces & goal):
            if _forward(rules, position, rival, hole) and not _forward(rules, after, rival, hole):
                return True
            if not _can_leave(rules, after, rival, hole, goal):
                return True
    return False


def _forward(rules: RaceRules, position: Position, seat: int, hole: int) -> bool:
    """Whether ``seat``'s piece on ``hole`` has a move to a higher row of its own."""
    rows = row_table(rules)[seat]
    return any(rows[m[-1]] > rows[hole] for m in rules.moves_of(position, seat, 1 << hole))


def _can_leave(rules: RaceRules, position: Position, seat: int, hole: int, area: int) -> bool:
    """Whether ``seat``'s piece on ``hole`` can reach a hole outside ``area`` in some moves."""
    return _moves_out(rules, position, seat, hole, area) is not None


def _moves_out(rules: RaceRules, position: Position, seat: int, hole: int, area: int) -> int | None:
    """The fewest moves that take ``seat``'s piece on ``hole`` outside ``area`` with
    everything else standing still; None when it cannot get out."""
    others = list(position.marbles)
    others[seat] &= ~(1 << hole)
    seen = 1 << hole
    frontier = [hole]
    moves = 1
    while frontier:
        following = []
        for here in frontier:
            marbles = list(others)
            marbles[seat] |= 1 << here
            moved = Position(rules, seat, tuple(marbles))
            for step in rules.moves_of(moved, seat, 1 << here):
                end = step[-1]
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
