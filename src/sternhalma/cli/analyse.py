"""``sternhalma analyse`` (the review of a game record) and ``sternhalma solve crossing``."""

from __future__ import annotations

import json
import sys
import time

import click

from sternhalma.analysis import INACCURACY, MISTAKE, Review, ToGo, review_game
from sternhalma.cli.engine import fail
from sternhalma.cli.records import read_source
from sternhalma.cli.values import count
from sternhalma.errors import SternhalmaError
from sternhalma.records import read_record
from sternhalma.solo import crossing_rules, solve_crossing

#: The beam the crossing solver keeps by default: finds 27 moves in about a minute here.
CROSSING_WIDTH = 3000
#: The widest search ``solve crossing`` takes: minutes and a few GiB (the memory grows
#: with the width).
MAX_WIDTH = 100_000


@click.command()
@click.argument("source", metavar="FILE")
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON.")
def analyse(source: str, as_json: bool) -> None:
    """Review the game record in FILE (- for standard input) move by move.

    For each move: the moves it lost against the computer's choice (good,
    inaccuracy from 2, mistake from 4), the computer's move, and every
    seat's moves to go alone (at least / about). Race games only.
    """
    try:
        record = read_record(read_source(source))
        review = review_game(
            record.game,
            progress=_progress if not as_json and sys.stderr.isatty() else None,
        )
    except SternhalmaError as error:
        fail(str(error))
        return
    if as_json:
        click.echo(json.dumps(review.as_dict(), ensure_ascii=False))
        return
    _print_review(review)


def _progress(done: int, total: int) -> None:
    click.echo(f"\rreviewed {done} of {total} moves", nl=done == total, err=True)


def _count(count: ToGo) -> str:
    return f"{count.lower}" if count.exact else f"≥{count.lower} ~{count.estimate}"


def _print_review(review: Review) -> None:
    rules = review.rules
    seats = rules.seats
    click.echo(f"{rules.id}: {len(review.moves)} moves reviewed")
    click.echo(f"good: lost under {INACCURACY}; inaccuracy: under {MISTAKE}; mistake: {MISTAKE}+")
    click.echo("moves to go alone: exact, or ≥ lower bound ~ Hard's estimate")
    for move in review.moves:
        played = rules.format_move(move.played)
        line = f"{move.number:>3}. {seats[move.seat]:<6} {played:<14} {move.verdict:<10}"
        if move.loss:
            line += f" lost {move.loss}, best {rules.format_move(move.best)}"
        counts = ", ".join(f"{seats[s]} {_count(c)}" for s, c in enumerate(move.to_go))
        click.echo(f"{line}  | {counts}" + _race(seats, move.race))
    click.echo("summary:")
    for colour, row in review.summary().items():
        click.echo(
            f"  {colour}: {row['good']} good, {row['inaccuracy']} inaccuracies, "
            f"{row['mistake']} mistakes, {row['lost']} moves lost"
        )


def _race(seats: tuple[str, ...], lead: int | None) -> str:
    if lead is None:
        return ""
    if lead == 0:
        return " | level"
    return f" | {seats[0] if lead > 0 else seats[1]} +{abs(lead)}"


@click.group()
def solve() -> None:
    """Solo puzzles solved by the computer."""


@solve.command()
@click.option(
    "--width",
    default=CROSSING_WIDTH,
    show_default=True,
    type=count(1, MAX_WIDTH),
    help="Positions kept per move.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the solution as JSON.")
def crossing(width: int, as_json: bool) -> None:
    """The shortest crossing it finds: ten marbles across an empty star (minimum 27)."""
    if width < 1:
        fail("--width must be at least 1")
    started = time.perf_counter()
    solution = solve_crossing(width)
    seconds = round(time.perf_counter() - started, 1)
    if solution is None:
        fail(f"no crossing found with width {width} ({seconds} s)")
        return
    rules = crossing_rules()
    texts = [rules.format_move(move) for move in solution.moves]
    if as_json:
        data = {
            "puzzle": "crossing",
            "length": len(texts),
            "moves": texts,
            "width": width,
            "positions": solution.positions,
            "seconds": seconds,
            "command": f"sternhalma solve crossing --width {width} --json",
        }
        click.echo(json.dumps(data))
        return
    click.echo(f"{len(texts)} moves in {seconds} s (width {width}, {solution.positions} positions)")
    for number, text in enumerate(texts, start=1):
        click.echo(f"{number}. {text}")
