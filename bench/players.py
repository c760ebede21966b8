"""Strength and think-time figures of the computer players (printed, never asserted).

Each scenario is a match of issue 5's targets, played with the same runner
as ``sternhalma match``; the figures are printed per scenario:

    .venv/bin/python bench/players.py                      # every scenario, 100 games each
    .venv/bin/python bench/players.py hard-medium-2 --games 20 --budget 0.3 --jobs 2
    .venv/bin/python bench/players.py hard-medium-2 --set duel.racer_moves=0 --set duel.breadth=8
    .venv/bin/python bench/players.py hard-hard-2 --budget 60 --set nodes_per_second=20 \
        --set2 nodes_per_second=80                          # 1,200 nodes a move against 4,800
    .venv/bin/python bench/players.py think --positions 10  # Hard's CPU time a move, every variant
    .venv/bin/python bench/players.py think --variant classic-2 --set2 duel.breadth=8
    .venv/bin/python bench/players.py think-games --games 10 --jobs 2  # the same over whole games
    .venv/bin/python bench/players.py nodes --nodes 20000   # Hard's nodes a second, both cores
    .venv/bin/python bench/players.py alone --positions 7 --seed 5  # racing alone, moves to finish

``--budget`` is Hard's think budget (seconds a move; its default is 1 s);
``--nodes`` fixes Hard's node allowance instead (reproducible on any
machine); ``--set key=value`` changes one of Hard's settings (HardSettings)
for the first participant, ``--set2`` for the second, to compare choices by
measurement.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass

from sternhalma import core, match
from sternhalma.players.hard import HardSettings, changed_settings
from sternhalma.rules import VARIANTS


@dataclass(frozen=True)
class Scenario:
    variant: str
    levels: tuple[str, ...]
    target: str


SCENARIOS: dict[str, Scenario] = {
    "medium-easy-2": Scenario(
        "classic-2",
        ("medium", "easy"),
        "Medium wins >= 95 of 100 (source report: 20 of 20, 45-75 moves, mean 53.5)",
    ),
    "hard-medium-2": Scenario(
        "classic-2", ("hard", "medium"), "Hard wins >= 95%, <= 40 moves on average"
    ),
    "hard-medium-3": Scenario("classic-3", ("hard", "medium"), "Hard first in >= 70%"),
    "hard-medium-4": Scenario("classic-4", ("hard", "medium"), "Hard first in >= 70%"),
    "hard-medium-6": Scenario("classic-6", ("hard", "medium"), "Hard first in >= 70%"),
    "hard-medium-capture": Scenario("capture-2", ("hard", "medium"), "Hard wins >= 80%"),
    "hard-medium-halma": Scenario("halma-2", ("hard", "medium"), "Hard wins >= 95%"),
    "hard-hard-2": Scenario(
        "classic-2", ("hard", "hard"), "settings changed by --set (player 1) and --set2 (player 2)"
    ),
    "hard-hard-halma": Scenario(
        "halma-2", ("hard", "hard"), "settings changed by --set (player 1) and --set2 (player 2)"
    ),
}


def settings_from(pairs: list[str]) -> HardSettings | None:
    """HardSettings with ``key=value`` changes; ``duel.weights.rows=10`` changes a race
    weight (``crowd.weights.group=0`` one for three or more players)."""
    if not pairs:
        return None
    try:
        return changed_settings([pair.partition("=")[::2] for pair in pairs])
    except ValueError as error:
        raise SystemExit(str(error)) from None


def run(name: str, args: argparse.Namespace) -> None:
    scenario = SCENARIOS[name]
    settings = settings_from(args.set)
    second = settings_from(args.set2)
    tasks = match.plan(
        scenario.variant,
        scenario.levels,
        args.games,
        args.seed,
        args.budget,
        settings=[settings, second],
        nodes=args.nodes,
    )
    started = time.perf_counter()
    done = 0

    def progress(report: match.GameReport) -> None:
        nonlocal done
        done += 1
        print(f"\r  {name}: {done}/{len(tasks)} games", end="", file=sys.stderr, flush=True)

    reports = match.run(tasks, args.jobs, progress)
    print(file=sys.stderr)
    elapsed = time.perf_counter() - started
    levels = list(tasks[0].levels)
    budget = f"budget {args.budget:g} s" if args.budget else "default budget (1 s)"
    if args.nodes:
        budget = f"{args.nodes} nodes a move"
    print(f"== {name}: {scenario.variant}, {' vs '.join(scenario.levels)}, {len(reports)} games")
    print(f"   target: {scenario.target}")
    if "hard" in scenario.levels:
        print(f"   Hard: {budget}; settings {settings or HardSettings()}")
        if second:
            print(f"   player 2's settings {second}")
    print(f"   {elapsed:.0f} s wall, --jobs {args.jobs}, --seed {args.seed}")
    for standing in match.standings(reports, levels)[:2]:
        moves = standing.finish_moves
        finish = (
            f"moves to finish {min(moves)}-{max(moves)} mean {statistics.fmean(moves):.1f} "
            f"({len(moves)} finished)"
            if moves
            else "never finished"
        )
        print(
            f"   player {standing.participant + 1} {standing.level}: wins {standing.wins}, "
            f"draws {standing.draws}, first {100 * standing.first_rate:.0f}%; {finish}; "
            f"think median {standing.median_think:.3f} s, mean {standing.mean_think:.3f} s, "
            f"max {standing.longest_think:.3f} s; third repetitions made {standing.repeated} "
            f"({standing.repeated_behind} behind)"
        )
    if len(levels) == 2:
        for seat, name_ in ((0, "first"), (1, "second")):
            played = [r for r in reports if r.seating[seat] == 0]
            won = sum(r.winners == (0,) for r in played)
            drawn = sum(len(r.winners) == 2 for r in played)
            print(f"   player 1 moving {name_}: {won} wins, {drawn} draws of {len(played)}")
    endings = Counter(report.ending for report in reports)
    print(f"   endings: {dict(endings)}")
    if scenario.variant in ("classic-2", "halma-2"):
        others = [
            report.score[s]
            for report in reports
            for s in range(len(report.seating))
            if report.seating[s] != 0 and report.winners == (0,)
        ]
        if others:
            print(f"   when player 1 won, the others had {max(others)} marbles home at most")
    depths: dict[str, list[int]] = defaultdict(list)
    nodes: dict[str, list[int]] = defaultdict(list)
    for report in reports:
        seat = report.seat_of(0)
        for info in report.searches[seat] if report.searches else ():
            depths[info.search].append(info.depth)
            nodes[info.search].append(info.nodes)
    for mode in sorted(depths):
        print(
            f"   player 1 {mode}: {len(depths[mode])} searches, "
            f"{'rounds' if mode == 'playout' else 'depth'} mean "
            f"{statistics.fmean(depths[mode]):.1f}, nodes median {statistics.median(nodes[mode]):.0f}"
        )


def think(args: argparse.Namespace) -> None:
    """Hard's CPU time a move (``time.process_time``: a shared machine's load does not
    count) at its default budget on seeded mid-game positions of every variant (or
    ``--variant``'s); with ``--set2``, Hard so changed on the same positions in the same
    run, and the ratio of the two means. Each search runs on the node allowance the
    budget gives it (or ``--nodes``), the clock only a far cap: what it does on a quiet
    machine, where the nodes bind; on a busy one the budget's clock would cut it short."""
    from sternhalma.benchmark import sample_positions
    from sternhalma.game import Game
    from sternhalma.players import Limit
    from sternhalma.players.hard import HardPlayer
    from sternhalma.players.hard import nodes_per_second as rate
    from sternhalma.players.timeman import allowance

    sides = {"hard": settings_from(args.set) or HardSettings()}
    if args.set2:
        sides[f"hard {' '.join(args.set2)}"] = settings_from(args.set2) or HardSettings()
    print(
        f"== think: Hard's CPU time a move, budget {args.budget or 1:g} s, nodes {args.nodes or 'its'}, "
        f"seeded mid-game positions, core: {core.NAME}"
    )
    every: dict[str, list[float]] = defaultdict(list)
    for variant in args.variant or VARIANTS:
        rules = VARIANTS[variant]
        times: dict[str, list[float]] = defaultdict(list)
        depths: dict[str, list[int]] = defaultdict(list)
        for start in sample_positions(rules, args.positions, seed=args.seed):
            game = Game(rules, start=start)
            if game.is_over:
                continue
            for name, settings in sides.items():
                player = HardPlayer(args.seed, settings=settings)
                began = time.process_time()
                nodes = args.nodes or allowance(Limit(args.budget), rate(settings, rules)).nodes
                info = player.choose(game, Limit(nodes=nodes)).info
                times[name].append(time.process_time() - began)
                if info.search:
                    depths[name].append(info.depth)
        for name in sides:
            every[name].extend(times[name])
            print(
                f"   {variant:20} {name:24} mean {statistics.fmean(times[name]):.3f} s, "
                f"max {max(times[name]):.3f} s, depth mean "
                f"{statistics.fmean(depths[name]) if depths[name] else 0:.1f} "
                f"({len(times[name])} positions)",
                flush=True,
            )
    means = {name: statistics.fmean(times) for name, times in every.items()}
    for name, mean in means.items():
        print(f"   all {name:24} mean {mean:.3f} s, max {max(every[name]):.3f} s")
    if len(means) == 2:
        first, second = means.values()
        print(f"   ratio of the means, first / second: {first / second:.2f}")


#: The variants ``think-games`` plays by default: the issue 26 figures' own.
THINK_GAMES = ("classic-2", "fifteen-2", "longjump-2", "halma-2", "classic-3", "classic-6")


def think_games(args: argparse.Namespace) -> None:
    """Hard's CPU time a move over whole games, Hard (``--set``) in every seat, at its
    default budget (or ``--budget``, ``--nodes``): what the computer's seats cost a
    worker, book moves, forecasts and the solo end game included, where ``think``'s
    mid-game positions show only the dearest moves. CPU time is the process's own, so
    ``--jobs`` and a busy machine do not count."""
    print(f"== think-games: Hard against Hard, whole games, core: {core.NAME}")
    for variant in args.variant or THINK_GAMES:
        tasks = match.plan(
            variant,
            ("hard",),
            args.games,
            args.seed,
            args.budget,
            settings=[settings_from(args.set)],
            nodes=args.nodes,
        )
        reports = match.run(tasks, args.jobs)
        cpu = [t for report in reports for seat_cpu in report.cpu for t in seat_cpu]
        modes = Counter(info.search for report in reports for s in report.searches for info in s)
        shares = ", ".join(
            f"{mode} {100 * count / len(cpu):.0f}%" for mode, count in modes.most_common()
        )
        print(
            f"   {variant:12} mean {statistics.fmean(cpu):.3f} s, median "
            f"{statistics.median(cpu):.3f} s, max {max(cpu):.3f} s over {len(cpu)} moves of "
            f"{len(reports)} games; moves by search: {shares}",
            flush=True,
        )


def nodes(args: argparse.Namespace) -> None:
    """Hard's search nodes a second: the pure-Python fallback's (players/fallback.py) and
    the compiled core's, on the same seeded mid-game positions and node allowance, in one
    run (not the same search: the fallback's is plainer)."""
    from sternhalma.benchmark import sample_positions
    from sternhalma.players.race import RaceSearch
    from sternhalma.players.search import Limits
    from sternhalma.rules import VARIANTS
    from sternhalma.rules.race import RaceRules

    allowance = args.nodes or 20_000
    print(f"== nodes: Hard's search, {allowance} nodes a position, core: {core.NAME}")
    for variant in ("classic-2", "classic-3", "classic-6", "halma-2"):
        rules = VARIANTS[variant]
        assert isinstance(rules, RaceRules)
        positions = sample_positions(rules, args.positions, seed=args.seed)
        rates = []
        for compiled in (False, True) if core.COMPILED else (False,):
            used, began = 0, time.perf_counter()
            for position in positions:
                limits = Limits.of(allowance, None)
                search = RaceSearch(
                    rules, position.turn, range(rules.players), limits, compiled=compiled
                )
                search.choose(position, rules.legal_moves(position))
                used += limits.used
            rates.append(used / (time.perf_counter() - began))
        ratio = f", ratio {rates[1] / rates[0]:.1f}×" if len(rates) == 2 else ""
        shown = " / ".join(f"{rate:,.0f}" for rate in rates)
        print(f"   {variant:10} nodes/s python / compiled: {shown}{ratio}", flush=True)


def alone(args: argparse.Namespace) -> None:
    """Hard's racing alone: the moves it needs to bring one seat home with nobody else on
    the board, from the start and from seeded classic-2 mid-game positions (each seat's
    marbles on their own); the crossing puzzle's proven minimum from the start is 27."""
    from sternhalma.benchmark import sample_positions
    from sternhalma.players.hard import race_search
    from sternhalma.players.search import Limits
    from sternhalma.position import Position
    from sternhalma.rules import VARIANTS
    from sternhalma.rules.race import RaceRules

    rules = VARIANTS["classic-2"]
    assert isinstance(rules, RaceRules)
    settings = settings_from(args.set) or HardSettings()
    allowance = args.nodes or 20_000
    taken = []
    began = time.perf_counter()
    for start in [rules.initial(), *sample_positions(rules, args.positions, seed=args.seed)]:
        for seat in (0, 1):
            marbles = tuple(start.marbles[s] if s == seat else 0 for s in (0, 1))
            position, moves = Position(rules, seat, marbles), 0
            while not rules.has_finished(position, seat) and moves < 100:
                search = race_search(rules, seat, [seat], Limits.of(allowance, None), settings)
                after = rules.apply(position, search.choose(position, rules.legal_moves(position)))
                position, moves = Position(rules, seat, after.marbles), moves + 1
            taken.append(moves)
    print(f"== alone: {allowance} nodes a move, {len(taken)} races, classic-2 {args.set or ''}")
    print(f"   moves in all {sum(taken)}; from the start {taken[0]} and {taken[1]}; each {taken}")
    print(f"   {(time.perf_counter() - began) / sum(taken):.3f} s a move (core: {core.NAME})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "scenarios",
        nargs="*",
        choices=[*SCENARIOS, "think", "think-games", "nodes", "alone", []],
        default=[],
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--budget", type=float, default=None)
    parser.add_argument("--nodes", type=int, default=None)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--set2", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--positions", type=int, default=10, help="Positions a variant (think).")
    parser.add_argument(
        "--variant", action="append", default=[], choices=VARIANTS, help="Only these (think)."
    )
    args = parser.parse_args()
    for name in args.scenarios or [*SCENARIOS, "think"]:
        if name == "think":
            think(args)
        elif name == "think-games":
            think_games(args)
        elif name == "nodes":
            nodes(args)
        elif name == "alone":
            alone(args)
        else:
            run(name, args)


if __name__ == "__main__":
    main()
