"""Engine commands: ``moves`` (legal moves of a position), ``start`` and ``bench``."""

from __future__ import annotations

import json
import sys
from typing import BinaryIO

import click

from sternhalma import benchmark, core
from sternhalma.cli.values import seconds as seconds_type
from sternhalma.errors import SternhalmaError
from sternhalma.notation import position_from_json, position_to_json
from sternhalma.position import Position
from sternhalma.rules import VARIANTS, find_variant


def fail(message: str) -> None:
    """A one-line message on standard error and exit status 2."""
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def read_argument(value: str) -> str:
    """``-`` reads standard input; anything else is the text itself."""
    return read_stdin() if value == "-" else value


#: The most text a command reads from a file or standard input (a long game's record
#: is a few KiB); more is refused rather than read into memory without end.
MAX_INPUT = 16 * 1024 * 1024


def read_stdin() -> str:
    """Standard input as UTF-8 text; a one-line error and status 2 when it is not."""
    return read_text(sys.stdin.buffer, "standard input")


def read_text(stream: BinaryIO, name: str) -> str:
    """At most MAX_INPUT bytes of UTF-8 text from ``stream``; else a one-line error."""
    data = stream.read(MAX_INPUT + 1)
    if len(data) > MAX_INPUT:
        fail(f"{name} is longer than {MAX_INPUT // 1024 // 1024} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        fail(f"{name} is not UTF-8 text")
    raise AssertionError("unreachable")  # pragma: no cover - fail() exits


VARIANT = click.Choice(list(VARIANTS))


def _position(position_text: str | None, variant: str | None) -> Position:
    """The position given as JSON, or the start of ``variant`` when no JSON is given."""
    if position_text is None:
        if variant is None:
            raise click.UsageError("give --position JSON or --variant (its starting position)")
        return find_variant(variant).initial()
    position = position_from_json(read_argument(position_text))
    if variant is not None and variant != position.rules.id:
        raise click.UsageError(f"--variant {variant} but the position is {position.rules.id}")
    return position


@click.command()
@click.option("--position", "position_text", help="Position JSON, or - for stdin.")
@click.option("--variant", type=VARIANT, help="Without --position: this variant's start.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of lines.")
def moves(position_text: str | None, variant: str | None, as_json: bool) -> None:
    """Every legal move of the side to move, sorted, one per line."""
    try:
        position = _position(position_text, variant)
        rules = position.rules
        # Capture chains can be too many to list: that is an error, not a hang.
        texts = sorted(rules.format_move(m) for m in rules.legal_moves(position))
    except SternhalmaError as error:
        fail(str(error))
        return
    if as_json:
        click.echo(json.dumps(texts))
    else:
        for text in texts:
            click.echo(text)


@click.command()
@click.option("--variant", type=VARIANT, default="classic-2", show_default=True)
def start(variant: str) -> None:
    """The starting position of a variant as JSON (for --position of other commands)."""
    click.echo(position_to_json(find_variant(variant).initial()))


@click.command()
@click.option(
    "--variant",
    "variants",
    multiple=True,
    type=click.Choice(list(VARIANTS)),
    help="Only these variants (repeatable); all by default.",
)
@click.option(
    "--seconds",
    default=1.0,
    show_default=True,
    type=seconds_type(0, 600, above=True),
    help="Time per measurement.",
)
def bench(variants: tuple[str, ...], seconds: float) -> None:
    """Legal-move generation and apply speed on seeded mid-game positions.

    positions/s is the Python engine's move lists a second; "core lists/s" the
    compiled core's on the same positions in the same run, and the ratio of the two.
    """
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"sternhalma engine speed (one process; core: {core.NAME})")
    for column in ("variant", "positions/s", "moves/s", "moves/position", "apply/s"):
        table.add_column(column, justify="right" if column != "variant" else "left")
    compiled = Table(title="compiled core: move lists a second on the same positions")
    for column in ("variant", "Python", "compiled", "ratio"):
        compiled.add_column(column, justify="right" if column != "variant" else "left")
    for figures in benchmark.run(variants, seconds):
        table.add_row(
            figures.variant,
            f"{figures.positions_per_second:,.0f}",
            f"{figures.moves_per_second:,.0f}",
            f"{figures.moves / figures.positions:.1f}",
            f"{figures.applies_per_second:,.0f}",
        )
        fast, ratio = figures.core_positions_per_second, figures.core_ratio
        if fast is not None and ratio is not None:
            compiled.add_row(
                figures.variant,
                f"{figures.positions_per_second:,.0f}",
                f"{fast:,.0f}",
                f"{ratio:.1f}×",
            )
    console = Console()
    console.print(table)
    if compiled.row_count:
        console.print(compiled)
