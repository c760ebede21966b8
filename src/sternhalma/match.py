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
from sternhalma.sprt import Rounds, Sprt


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
    #: Moves played from the start before the players take over (a round's opening).
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
    openings: bool = False,
) -> list[GameTask]:
    """The games of a match; MatchError when the players or counts do not fit the variant.

    ``levels`` name the participants; when there are fewer than seats, the
    last level fills the remaining seats (``hard,medium`` on ``classic-6``
    is Hard against five Medium players). In game n, participant p sits in
    seat (p + n) mod seats. Every game starts from the variant's start, where two
    players that search play nearly the same game each time; with ``openings`` each
    round of games (one a seat) begins with the random opening of the sequential test's
    round of that number instead.
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
    rounds = (games + seats - 1) // seats
    round_openings = [opening(rules.id, seed, r) if openings else () for r in range(1, rounds + 1)]
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
            opening=round_openings[n // seats],
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
#: Moves of each seat in a round's opening, played at random by Easy: the same in every
#: game of the round, different from round to round, so rounds start from many positions.
OPENING_MOVES = 2
#: Two-player capture: from most random openings the side to move then (white) wins
#: whoever plays it, so both games of a pair go to one colour and say nothing about the
#: players. A round's opening is instead the first random one that Hard, at this many
#: nodes a move on both sides, plays out to within one capture (docs/measurements.md).
EVEN_NODES = 2_000
#: Random openings tried for an even one before the last tried is taken as it is.
EVEN_TRIES = 40


def opening(variant: str, seed: int, round_: int) -> tuple[str, ...]:
    """The opening moves of round ``round_`` of a test with ``seed``: random, and in
    two-player capture also even (``EVEN_NODES``)."""
    rules = find_variant(variant)
    even_wanted = rules.game == "capture" and rules.players == 2
    moves: tuple[str, ...] = ()
    for attempt in range(EVEN_TRIES if even_wanted else 1):
        moves = random_opening(variant, f"{seed}:{round_}" + (f":{attempt}" if attempt else ""))
        if not even_wanted or _plays_out_even(variant, moves):
            break
    return moves


def random_opening(variant: str, key: str) -> tuple[str, ...]:
    """``OPENING_MOVES`` moves a seat of Easy's, its seeds drawn from ``key``."""
    game = Game(variant)
    moves: list[str] = []
    for ply in range(OPENING_MOVES * game.rules.players):
        if game.turn is None:
            break
        easy = make_player("easy", random.Random(f"opening:{key}:{ply}").getrandbits(31))
        move = easy.choose(game).move
        moves.append(game.rules.format_move(move))
        game.play(move)
    return tuple(moves)


def _plays_out_even(variant: str, moves: Sequence[str]) -> bool:
    """Whether Hard against itself, at ``EVEN_NODES`` a move, ends a capture game begun
    with ``moves`` at most one capture apart."""
    game = Game(variant)
    for text in moves:
        game.play(text)
    players = [make_player("hard", seat + 1) for seat in range(game.rules.players)]
    while game.turn is not None:
        seat = game.turn
        game.play(players[seat].choose(game, Limit(nodes=EVEN_NODES)).move, seat)
    captured = game.position.captured
    return max(captured) - min(captured) <= 1


def plan_sprt(
    variant: str,
    levels: Sequence[str],
    seed: int,
    budget: float | None = None,
    *,
    deadline_rule: bool = True,
    nodes: int | None = None,
) -> GameTask:
    """The game every round of a sequential test repeats (its first seating, no opening);
    MatchError unless two contestants are named, the tested one first (the other fills
    every other seat)."""
    if len(levels) != 2:
        raise MatchError("the sequential test needs two players, the first the one tested")
    (task,) = plan(variant, levels, 1, seed, budget, deadline_rule=deadline_rule, nodes=nodes)
    return task


def round_tasks(template: GameTask, round_: int) -> tuple[GameTask, ...]:
    """The games of round ``round_`` (from 1): one opening, the tested contestant in each
    seat in turn (with two players a pair, the seats swapped)."""
    start = opening(template.variant, template.seed, round_)
    seats = len(template.seating)
    return tuple(
        dataclasses.replace(
            template,
            number=seats * (round_ - 1) + game + 1,
            seating=tuple((seat - game) % seats for seat in range(seats)),
            opening=start,
        )
        for game in range(seats)
    )


def tested_score(report: GameReport) -> float:
    """The tested contestant's (participant 0's) score in a game: the share of the other
    seats it placed ahead of, a shared place counting half (two players: 1 first alone,
    1/2 first together, else 0)."""
    me = report.places[report.seat_of(0)]
    others = [place for seat, place in enumerate(report.places) if report.seating[seat] != 0]
    return sum(1.0 if me < place else 0.5 if me == place else 0.0 for place in others) / len(others)


@dataclass(frozen=True)
class SprtState:
    """Where a sequential test stands: its rounds, and the tested contestant's games
    (won: first alone; drawn: first with others; lost: not first)."""

    test: Sprt
    rounds: Rounds = dataclasses.field(default_factory=Rounds)
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def llr(self) -> float:
        return self.test.llr(self.rounds)

    @property
    def verdict(self) -> str | None:
        return self.test.verdict(self.rounds)

    def add(self, games: Sequence[GameReport]) -> SprtState:
        """With the games of one more round."""
        firsts = [len(r.winners) if 0 in r.winners else 0 for r in games]
        return dataclasses.replace(
            self,
            rounds=self.rounds.add(*(tested_score(r) for r in games)),
            wins=self.wins + firsts.count(1),
            draws=self.draws + sum(1 for n in firsts if n > 1),
            losses=self.losses + firsts.count(0),
        )


def most_rounds(template: GameTask, max_games: int) -> int:
    """How many whole rounds ``max_games`` games hold; MatchError if not one."""
    seats = len(template.seating)
    if max_games < seats:
        raise MatchError(f"a sequential test plays at least one round ({seats} games)")
    return max_games // seats


def run_sprt(
    template: GameTask,
    test: Sprt,
    max_games: int,
    jobs: int = 1,
    on_round: Callable[[SprtState], None] | None = None,
) -> SprtState:
    """Play rounds, ``jobs`` games at a time, until ``test`` decides or ``max_games`` are
    played; ``on_round`` hears the state after each round. Rounds count as they finish."""
    if jobs < 1:
        raise MatchError("--jobs must be at least 1")
    seats = len(template.seating)
    most = most_rounds(template, max_games)
    state = SprtState(test)
    parts: dict[int, list[GameReport]] = {}

    def record(report: GameReport) -> bool:
        """Count a finished game; whether the test has decided."""
        nonlocal state
        round_ = (report.number - 1) // seats + 1
        games = parts.setdefault(round_, [])
        games.append(report)
        if len(games) < seats:
            return False
        del parts[round_]
        state = state.add(sorted(games, key=lambda r: r.number))
        if on_round is not None:
            on_round(state)
        return state.verdict is not None

    if jobs == 1:
        for round_ in range(1, most + 1):
            for task in round_tasks(template, round_):
                if record(play_game(task)):  # only once the round is whole
                    return state
        return state
    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        running: set[Future[GameReport]] = set()
        waiting = list(round_tasks(template, 1))
        following = 2
        while running or waiting:
            while waiting and len(running) < jobs:
                running.add(pool.submit(play_game, waiting.pop(0)))
                if not waiting and following <= most:
                    # The next round's games at once, while these play: an even opening
                    # takes this process a second or two that a free worker would wait.
                    waiting = list(round_tasks(template, following))
                    following += 1
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: f.result().number):
                if record(future.result()):
                    return state  # the games still under way do not count
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return state
