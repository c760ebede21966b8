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

import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from sternhalma.errors import SternhalmaError
from sternhalma.game import FINISHED, Game
from sternhalma.players import LEVELS, Player, level_name, make_player
from sternhalma.players.hard import HardPlayer, HardSettings, SearchInfo
from sternhalma.records import write_record
from sternhalma.rules import find_variant
from sternhalma.rules.race import RaceRules


class MatchError(SternhalmaError):
    """A match that cannot be set up (players, games, jobs)."""


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
    #: Every search Hard made (kind, depth, nodes), per seat; empty for the other levels.
    searches: tuple[tuple[SearchInfo, ...], ...] = ()
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
    players = [_player(task, seat) for seat in range(rules.players)]
    times: list[list[float]] = [[] for _ in range(rules.players)]
    searches: list[list[SearchInfo]] = [[] for _ in range(rules.players)]
    while game.turn is not None:
        seat = game.turn
        player = players[seat]
        started = time.perf_counter()
        move = player.choose(game, task.budget)
        times[seat].append(time.perf_counter() - started)
        if isinstance(player, HardPlayer) and player.last is not None:
            searches[seat].append(player.last)
            player.last = None
        game.play(move, seat)
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
        player.nodes = task.nodes
        if participant < len(task.settings) and task.settings[participant] is not None:
            player.settings = task.settings[participant] or player.settings
    return player


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
    names = [level_name(level) for level in levels]
    seats = rules.players
    if len(names) > seats:
        raise MatchError(f"{rules.id} has {seats} seats; {len(names)} players were named")
    names += [names[-1]] * (seats - len(names))
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
