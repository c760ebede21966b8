"""``sternhalma match`` (computer against computer) and ``sternhalma play`` (you against it)."""

from __future__ import annotations

import os
import statistics
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from sternhalma import match as matches
from sternhalma.cli.engine import fail
from sternhalma.errors import SternhalmaError
from sternhalma.players import LEVELS
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.rules.race import RaceRules


@click.command()
@click.option(
    "--variant", default="classic-2", show_default=True, type=click.Choice(list(VARIANTS))
)
@click.option(
    "--players",
    "players_text",
    default="medium,easy",
    show_default=True,
    help="Levels by participant, comma-separated; the last fills any remaining seats.",
)
@click.option("--games", default=20, show_default=True, help="How many games.")
@click.option("--seed", default=1, show_default=True, help="Seed of the whole match.")
@click.option(
    "--jobs", default=1, show_default=True, help="Games played at once (0: one per core)."
)
@click.option(
    "--budget",
    type=float,
    default=None,
    help="Seconds a move for the searching level (Hard's default: 1).",
)
@click.option(
    "--record",
    "record_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write each game's record to this directory.",
)
@click.option("--no-deadline", is_flag=True, help="Switch the leaving-home deadline off.")
def match(
    variant: str,
    players_text: str,
    games: int,
    seed: int,
    jobs: int,
    budget: float | None,
    record_dir: Path | None,
    no_deadline: bool,
) -> None:
    """Computer-against-computer games: a table per game and a summary.

    Participants rotate through the seats from game to game, so each moves
    first equally often. Example: --variant classic-2 --players medium,easy.
    """
    levels = [level for level in players_text.split(",") if level.strip()]
    try:
        tasks = matches.plan(
            variant,
            levels,
            games,
            seed,
            budget,
            deadline_rule=not no_deadline,
            record=record_dir is not None,
        )
        if jobs < 0:
            raise matches.MatchError("--jobs must be 0 (every core) or more")
        if record_dir is not None:
            record_dir.mkdir(parents=True, exist_ok=True)
    except (SternhalmaError, OSError) as error:
        fail(str(error))
        return
    workers = jobs or os.cpu_count() or 1
    levels = list(tasks[0].levels)
    console = Console()
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        bar = progress.add_task(f"{variant}: {', '.join(levels)}", total=len(tasks))

        def done(report: matches.GameReport) -> None:
            progress.advance(bar)
            if record_dir is not None and report.record is not None:
                path = record_dir / f"game-{report.number:03d}.txt"
                path.write_text(report.record, encoding="utf-8")

        reports = matches.run(tasks, workers, done)
    console.print(_games_table(reports, levels))
    console.print(_summary_table(reports, levels, budget))
    if record_dir is not None:
        console.print(f"Records written to {record_dir}/game-NNN.txt")


def _label(levels: list[str], participant: int) -> str:
    return f"{participant + 1} {levels[participant]}"


def _games_table(reports: list[matches.GameReport], levels: list[str]) -> Table:
    rules = find_variant(reports[0].variant)
    table = Table(title=f"{rules.id}: games (player number and level)")
    table.add_column("game", justify="right")
    table.add_column("moved first")
    table.add_column("winner")
    table.add_column("winner's moves", justify="right")
    table.add_column("others' marbles home" if isinstance(rules, RaceRules) else "captures")
    table.add_column("ending")
    for report in reports:
        winners = report.winners
        first = report.seating[0]
        if len(winners) == 1:
            winner = _label(levels, winners[0])
            seat = report.seat_of(winners[0])
            moves = str(report.moves[seat])
        else:
            winner = "draw: " + ", ".join(_label(levels, p) for p in winners)
            moves = "–"
        if isinstance(rules, RaceRules):
            others = [p for p in range(len(levels)) if len(winners) != 1 or p != winners[0]]
            of = f" of {rules.marbles_per_seat}"
        else:  # everyone's captures
            others, of = list(range(len(levels))), ""
        home = ", ".join(
            f"{_label(levels, p)}: {report.score[report.seat_of(p)]}{of}" for p in others
        )
        table.add_row(
            str(report.number),
            f"{_label(levels, first)} ({rules.seats[0]})",
            winner,
            moves,
            home,
            report.ending,
        )
    return table


def _summary_table(
    reports: list[matches.GameReport], levels: list[str], budget: float | None
) -> Table:
    games = len(reports)
    title = f"summary: {games} games" + (f", budget {budget:g} s a move" if budget else "")
    table = Table(title=title)
    for column in (
        "player",
        "wins",
        "draws",
        "first %",
        "moves to finish (min–max, mean)",
        "think s/move (mean, median, max)",
    ):
        table.add_column(column, justify="left" if column == "player" else "right")
    for standing in matches.standings(reports, levels):
        moves = standing.finish_moves
        finish = (
            f"{min(moves)}–{max(moves)}, {statistics.fmean(moves):.1f} ({len(moves)} finished)"
            if moves
            else "–"
        )
        table.add_row(
            _label(levels, standing.participant),
            str(standing.wins),
            str(standing.draws),
            f"{100 * standing.first_rate:.0f}",
            finish,
            f"{standing.mean_think:.3f}, {standing.median_think:.3f}, {standing.longest_think:.3f}",
        )
    return table


__all__ = ["LEVELS", "match"]
