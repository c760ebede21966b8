"""Engine commands: ``moves`` (legal moves of a position) and ``bench``."""

from __future__ import annotations

import json
import sys

import click

from sternhalma import benchmark, core
from sternhalma.errors import SternhalmaError
from sternhalma.notation import position_from_json
from sternhalma.rules import VARIANTS


def fail(message: str) -> None:
    """A one-line message on standard error and exit status 2."""
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def read_argument(value: str) -> str:
    """``-`` reads standard input; anything else is the text itself."""
    return sys.stdin.read() if value == "-" else value


@click.command()
@click.option("--position", "position_text", required=True, help="Position JSON, or - for stdin.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of lines.")
def moves(position_text: str, as_json: bool) -> None:
    """Every legal move of the side to move, sorted, one per line."""
    try:
        position = position_from_json(read_argument(position_text))
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
@click.option(
    "--variant",
    "variants",
    multiple=True,
    type=click.Choice(list(VARIANTS)),
    help="Only these variants (repeatable); all by default.",
)
@click.option("--seconds", default=1.0, show_default=True, help="Time per measurement.")
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
