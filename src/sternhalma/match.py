"""Computer-against-computer matches: the games, in parallel, and their figures.

A match is a list of participants (computer levels) playing a number of
games of one variant. Participants rotate through the seats from game to
game, so each one moves first equally often. Every game is a plain-data
``GameTask`` that a worker process runs from scratch and answers with a
plain-data ``GameReport``: the match runs the same in one process or many,
and its figures depend only on the seed (and, for Hard, on the think budget
when the machine is too slow for the node allowance).
"""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, as_completed, wait
from dataclasses import dataclass

from sternhalma.errors import SternhalmaError
from sternhalma.game import FINISHED, Game
from sternhalma.players import LEVELS, Info, Limit, Player, level_name, make_player
from sternhalma.players.hard import HardPlayer, HardSettings, changed_settings
from sternhalma.records import write_record
from sternhalma.rules import find_variant
from sternhalma.rules.race import RaceRules
from sternhalma.sprt import Pentanomial, Sprt


class MatchError(SternhalmaError):
    """A match that cannot be set up (players, games, jobs)."""


#: The largest node allowance a contestant may name (the compiled core counts in 64 bits,
#: Hard's beam width in 32).
MOST_NODES = 10**9
#: The most seconds a move a contestant may name.
MOST_SECONDS = 3600.0


@dataclass(frozen=True)
class Contestant:
    """A participant: its level and, for Hard, its own think limit and settings.

    Written ``level[:key=value]...``: ``hard:nodes=20000``, ``hard:seconds=0.5``,
    ``hard:nodes=5000:breadth=8`` (any setting ``hard.changed_settings`` reads, a
    race weight too: ``weights.rows=10``), so a changed Hard can meet the Hard
    before the change.
    """

    level: str
    seconds: float | None = None
    nodes: int | None = None
    settings: HardSettings | None = None
    #: The text it was read from (the level alone when that is all).
    text: str = ""

    def __str__(self) -> str:
        return self.text or self.level


def contestant(text: str) -> Contestant:
    """The contestant ``text`` names; MatchError saying what is wrong otherwise."""
    level, *options = text.strip().split(":")
    name = level_name(level)
    seconds: float | None = None
    nodes: int | None = None
    changes: list[tuple[str, str]] = []
    for option in options:
        key, equals, value = option.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not key:
            raise MatchError(f"{text!r}: write each option as key=value, not {option!r}")
        if name != "hard":
            raise MatchError(f"{text!r}: only hard takes options")
        if key == "nodes":
            nodes = int(_number(text, key, value, int, 0, MOST_NODES))
        elif key == "seconds":
            seconds = _number(text, key, value, float, 0.0, MOST_SECONDS)
        else:
            changes.append((key, value))
    try:
        settings = changed_settings(changes) if changes else None
    except ValueError as error:
        raise MatchError(f"{text!r}: {error}") from None
    plain = name if not options else f"{name}:{':'.join(o.strip() for o in options)}"
    return Contestant(name, seconds, nodes, settings, plain)


def _number(
    text: str, key: str, value: str, kind: type[int] | type[float], low: float, high: float
) -> float:
    try:
        number = kind(value)
    except ValueError:
        raise MatchError(f"{text!r}: {key} is a number, not {value!r}") from None
    if not math.isfinite(number) or not low < number <= high:
        raise MatchError(f"{text!r}: {key} is more than {low:g} and at most {high:g}")
    return number


@dataclass(frozen=True)
class GameTask:
    """Everything one game needs, picklable for a worker process."""

    number: int
    variant: str
    #: seating[seat] = the participant (0-based) in that seat.
    seating: tuple[int, ...]
    #: levels[participant].
    levels: tuple[str, ...]
    seed: int
    budget: float | None
    deadline_rule: bool = True
    record: bool = False
    #: Hard's settings by participant (None or missing: the defaults), for benchmarks.
    settings: tuple[HardSettings | None, ...] = ()
    #: A fixed node allowance for Hard (reproducible on any machine), else from the budget.
    nodes: int | None = None
    #: Contestants by participant, when they have their own limits or settings.
    contestants: tuple[Contestant, ...] = ()
    #: Moves played from the start before the players take over (a pair's opening).
    opening: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameReport:
    """How one game went, per seat."""

    number: int
    variant: str
    seating: tuple[int, ...]
    places: tuple[int, ...]
    ending: str
    reason: str
    #: Own moves per seat.
    moves: tuple[int, ...]
    #: Per seat: own marbles in the goal (race) or captured pieces (capture).
    score: tuple[int, ...]
    #: Whether the seat finished (race games).
    finished: tuple[bool, ...]
    #: Per seat: total seconds of thinking and the longest single move.
    think: tuple[float, ...]
    longest: tuple[float, ...]
    #: Every move's think time in seconds, per seat.
    times: tuple[tuple[float, ...], ...]
    #: Every move's CPU seconds (this process's time), per seat: what the thinking
    #: costs a machine, whatever else runs on it.
    cpu: tuple[tuple[float, ...], ...]
    #: Every search Hard made (kind, depth, nodes), per seat; empty for the other levels.
    searches: tuple[tuple[Info, ...], ...] = ()
    record: str | None = None
    #: Ending "repetition": the seat whose move made the third repetition, else None.
    repeated_by: int | None = None
    #: Whether that seat was ranked below someone still in play (it ended the game behind).
    repeated_behind: bool = False

    def seat_of(self, participant: int) -> int:
        return self.seating.index(participant)

    @property
    def winners(self) -> tuple[int, ...]:
        """Participants in first place (several when it is shared)."""
        return tuple(self.seating[s] for s, place in enumerate(self.places) if place == 1)


def player_seed(seed: int, number: int, seat: int) -> int:
    """The seed of the player in ``seat`` of game ``number`` of a match with ``seed``."""
    return random.Random(f"match:{seed}:{number}:{seat}").getrandbits(31)


def play_game(task: GameTask) -> GameReport:
    """Play one game to its end (runs in a worker process with ``--jobs``)."""
    rules = find_variant(task.variant)
    game = Game(rules, deadline_rule=task.deadline_rule)
    for text in task.opening:
        game.play(text)
    players = [_player(task, seat) for seat in range(rules.players)]
    limits = [_limit(task, seat) for seat in range(rules.players)]
    times: list[list[float]] = [[] for _ in range(rules.players)]
    cpu: list[list[float]] = [[] for _ in range(rules.players)]
    searches: list[list[Info]] = [[] for _ in range(rules.players)]
    while game.turn is not None:
        seat = game.turn
        player = players[seat]
        began = time.process_time()
        choice = player.choose(game, limits[seat])
        cpu[seat].append(time.process_time() - began)
        times[seat].append(choice.info.seconds)
        if isinstance(player, HardPlayer) and choice.info.search:
            searches[seat].append(choice.info)
        game.play(choice.move, seat)
    result = game.result
    assert result is not None
    position = game.position
    if isinstance(rules, RaceRules):
        score = tuple(rules.in_goal(position, s) for s in range(rules.players))
    else:
        score = tuple(position.captured)
    repeated_by, behind = repetition_made(game)
    names = [
        f"{task.levels[task.seating[s]]} (player {task.seating[s] + 1})"
        for s in range(rules.players)
    ]
    return GameReport(
        number=task.number,
        variant=rules.id,
        seating=task.seating,
        places=result.places,
        ending=result.ending,
        reason=result.reason,
        moves=tuple(game.moves_made(s) for s in range(rules.players)),
        score=score,
        finished=tuple(game.status(s) == FINISHED for s in range(rules.players)),
        think=tuple(sum(t) for t in times),
        longest=tuple(max(t, default=0.0) for t in times),
        times=tuple(tuple(t) for t in times),
        cpu=tuple(tuple(c) for c in cpu),
        searches=tuple(tuple(s) for s in searches),
        record=write_record(game, players=names) if task.record else None,
        repeated_by=repeated_by,
        repeated_behind=behind,
    )


def repetition_made(game: Game) -> tuple[int | None, bool]:
    """Who ended ``game`` with a third repetition (the last mover), and whether it was
    behind: someone still in play ranked above it. (None, False) for other endings."""
    result = game.result
    if result is None or result.ending != "repetition":
        return None, False
    seat = next(turn.seat for turn in reversed(game.turns) if turn.move is not None)
    return seat, any(result.places[s] < result.places[seat] for s in game.in_play)


def _player(task: GameTask, seat: int) -> Player:
    participant = task.seating[seat]
    player = make_player(task.levels[participant], player_seed(task.seed, task.number, seat))
    if isinstance(player, HardPlayer):
        if participant < len(task.settings) and task.settings[participant] is not None:
            player.settings = task.settings[participant] or player.settings
        if participant < len(task.contestants):
            player.settings = task.contestants[participant].settings or player.settings
    return player


def _limit(task: GameTask, seat: int) -> Limit:
    """The limit of the player in ``seat``: its own seconds and nodes, else the match's."""
    participant = task.seating[seat]
    if participant < len(task.contestants):
        own = task.contestants[participant]
        return Limit(own.seconds or task.budget, own.nodes or task.nodes)
    return Limit(task.budget, task.nodes)


def plan(
    variant: str,
    levels: Sequence[str],
    games: int,
    seed: int,
    budget: float | None = None,
    *,
    deadline_rule: bool = True,
    record: bool = False,
    settings: Sequence[HardSettings | None] = (),
    nodes: int | None = None,
) -> list[GameTask]:
    """The games of a match; MatchError when the players or counts do not fit the variant.

    ``levels`` name the participants; when there are fewer than seats, the
    last level fills the remaining seats (``hard,medium`` on ``classic-6``
    is Hard against five Medium players). In game n, participant p sits in
    seat (p + n) mod seats.
    """
    rules = find_variant(variant)
    if not levels:
        raise MatchError(f"name at least one player level: {', '.join(LEVELS)}")
    contestants = [contestant(level) for level in levels]
    seats = rules.players
    if len(contestants) > seats:
        raise MatchError(f"{rules.id} has {seats} seats; {len(contestants)} players were named")
    contestants += [contestants[-1]] * (seats - len(contestants))
    names = [c.level for c in contestants]
    if games < 1:
        raise MatchError("a match needs at least one game")
    if budget is not None and budget <= 0:
        raise MatchError("the think budget must be more than 0 seconds")
    return [
        GameTask(
            number=n + 1,
            variant=rules.id,
            seating=tuple((seat - n) % seats for seat in range(seats)),
            levels=tuple(names),
            seed=seed,
            budget=budget,
            deadline_rule=deadline_rule,
            record=record,
            settings=tuple(settings),
            nodes=nodes,
            contestants=tuple(contestants),
        )
        for n in range(games)
    ]


def run(
    tasks: Sequence[GameTask],
    jobs: int = 1,
    on_done: Callable[[GameReport], None] | None = None,
) -> list[GameReport]:
    """Play every task, ``jobs`` at a time in worker processes; reports in game order."""
    if jobs < 1:
        raise MatchError("--jobs must be at least 1")
    reports: list[GameReport] = []
    for report in _play_all(tasks, jobs):
        reports.append(report)
        if on_done is not None:
            on_done(report)
    return sorted(reports, key=lambda r: r.number)


def _play_all(tasks: Sequence[GameTask], jobs: int) -> Iterator[GameReport]:
    if jobs == 1 or len(tasks) == 1:
        yield from map(play_game, tasks)
        return
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
        for future in as_completed([pool.submit(play_game, task) for task in tasks]):
            yield future.result()


@dataclass(frozen=True)
class Standing:
    """One participant's figures over a match."""

    participant: int
    level: str
    games: int
    #: First place alone.
    wins: int
    #: First place shared.
    draws: int
    #: Own moves in the games the participant finished.
    finish_moves: tuple[int, ...]
    #: Seconds per move.
    mean_think: float
    median_think: float
    longest_think: float
    #: Games the participant ended with a third repetition, and of those the ones it lost by
    #: (someone still in play ranked above it).
    repeated: int = 0
    repeated_behind: int = 0

    @property
    def first_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def standings(reports: Sequence[GameReport], levels: Sequence[str]) -> list[Standing]:
    """Each participant's wins, draws, moves to finish and think times."""
    result = []
    for participant, level in enumerate(levels):
        wins = draws = repeated = repeated_behind = 0
        finish_moves: list[int] = []
        times: list[float] = []
        for report in reports:
            seat = report.seat_of(participant)
            winners = report.winners
            if participant in winners:
                if len(winners) == 1:
                    wins += 1
                else:
                    draws += 1
            if report.finished[seat]:
                finish_moves.append(report.moves[seat])
            if report.repeated_by == seat:
                repeated += 1
                repeated_behind += report.repeated_behind
            times.extend(report.times[seat])
        result.append(
            Standing(
                participant=participant,
                level=level,
                games=len(reports),
                wins=wins,
                draws=draws,
                finish_moves=tuple(finish_moves),
                mean_think=statistics.fmean(times) if times else 0.0,
                median_think=statistics.median(times) if times else 0.0,
                longest_think=max(times, default=0.0),
                repeated=repeated,
                repeated_behind=repeated_behind,
            )
        )
    return result


# -- the sequential test ---------------------------------------------------------------
#: Moves of a pair's opening, played at random by Easy: the same in both games of the pair,
#: different from pair to pair, so pairs start from many positions.
OPENING_PLIES = 4


def opening(variant: str, seed: int, pair: int) -> tuple[str, ...]:
    """The opening moves of pair ``pair`` of a test with ``seed``."""
    game = Game(variant)
    moves: list[str] = []
    for ply in range(OPENING_PLIES):
        if game.turn is None:
            break
        easy = make_player("easy", random.Random(f"opening:{seed}:{pair}:{ply}").getrandbits(31))
        move = easy.choose(game).move
        moves.append(game.rules.format_move(move))
        game.play(move)
    return tuple(moves)


def plan_sprt(
    variant: str,
    levels: Sequence[str],
    seed: int,
    budget: float | None = None,
    *,
    deadline_rule: bool = True,
    nodes: int | None = None,
) -> GameTask:
    """The game every pair of a sequential test repeats (its first seating, no opening);
    MatchError unless two contestants meet in a two-player variant."""
    rules = find_variant(variant)
    if rules.players != 2:
        raise MatchError(
            f"the sequential test plays two-player variants; {rules.id} has {rules.players} seats"
        )
    if len(levels) != 2:
        raise MatchError("the sequential test needs two players, the first the one tested")
    (task,) = plan(variant, levels, 1, seed, budget, deadline_rule=deadline_rule, nodes=nodes)
    return task


def pair_tasks(template: GameTask, pair: int) -> tuple[GameTask, GameTask]:
    """The two games of pair ``pair`` (from 1): the same opening, the seats swapped."""
    start = opening(template.variant, template.seed, pair)
    return (
        dataclasses.replace(template, number=2 * pair - 1, seating=(0, 1), opening=start),
        dataclasses.replace(template, number=2 * pair, seating=(1, 0), opening=start),
    )


def first_score(report: GameReport) -> float:
    """The first contestant's score in a game: 1 first alone, 1/2 first together, else 0."""
    winners = report.winners
    if 0 not in winners:
        return 0.0
    return 1.0 if len(winners) == 1 else 0.5


@dataclass(frozen=True)
class SprtState:
    """Where a sequential test stands: its pairs, and the first contestant's games."""

    test: Sprt
    pairs: Pentanomial = dataclasses.field(default_factory=Pentanomial)
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def llr(self) -> float:
        return self.test.llr(self.pairs)

    @property
    def verdict(self) -> str | None:
        return self.test.verdict(self.pairs)

    def add(self, first: GameReport, second: GameReport) -> SprtState:
        """With the two games of one more pair."""
        scores = (first_score(first), first_score(second))
        return dataclasses.replace(
            self,
            pairs=self.pairs.add(*scores),
            wins=self.wins + scores.count(1.0),
            draws=self.draws + scores.count(0.5),
            losses=self.losses + scores.count(0.0),
        )


def run_sprt(
    template: GameTask,
    test: Sprt,
    max_games: int,
    jobs: int = 1,
    on_pair: Callable[[SprtState], None] | None = None,
) -> SprtState:
    """Play pairs, ``jobs`` games at a time, until ``test`` decides or ``max_games`` are
    played; ``on_pair`` hears the state after each pair. Pairs count as they finish."""
    if jobs < 1:
        raise MatchError("--jobs must be at least 1")
    if max_games < 2:
        raise MatchError("a sequential test plays at least one pair (2 games)")
    most = max_games // 2
    state = SprtState(test)
    halves: dict[int, GameReport] = {}

    def record(report: GameReport) -> bool:
        """Count a finished game; whether the test has decided."""
        nonlocal state
        pair = (report.number + 1) // 2
        other = halves.pop(pair, None)
        if other is None:
            halves[pair] = report
            return False
        first, second = sorted((other, report), key=lambda r: r.number)
        state = state.add(first, second)
        if on_pair is not None:
            on_pair(state)
        return state.verdict is not None

    if jobs == 1:
        for pair in range(1, most + 1):
            first, second = pair_tasks(template, pair)
            record(play_game(first))
            if record(play_game(second)):
                break
        return state
    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        running: set[Future[GameReport]] = set()
        following = 1
        decided = False
        while True:
            while not decided and following <= most and len(running) < jobs:
                running.update(pool.submit(play_game, t) for t in pair_tasks(template, following))
                following += 1
            if not running:
                break
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: f.result().number):
                if record(future.result()):
                    decided = True
                    break  # the games still under way do not count
            if decided:
                break
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return state
