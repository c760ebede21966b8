"""``sternhalma puzzles make`` (build the shipped puzzle set) and ``puzzles check``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from sternhalma.cli.engine import fail
from sternhalma.cli.values import SEED, count
from sternhalma.errors import shown
from sternhalma.puzzles import GAMES, PER_VARIANT, PuzzleError, check_puzzle, make_puzzles

#: Where the set ships: package data the puzzle page loads.
SHIPPED = Path(__file__).resolve().parents[1] / "web" / "data" / "puzzles.json"


@click.group()
def puzzles() -> None:
    """Puzzles made from computer games and checked by the engine (docs/puzzles.md)."""


@puzzles.command()
@click.option("--seed", default=0, show_default=True, type=SEED, help="The games' seed.")
@click.option(
    "--per-variant",
    default=PER_VARIANT,
    show_default=True,
    type=count(1, 10_000),
    help="Puzzles per kind and variant.",
)
@click.option(
    "--games",
    default=GAMES,
    show_default=True,
    type=count(1, 100_000),
    help="Games played per variant.",
)
@click.option("--out", type=click.Path(dir_okay=False), default=str(SHIPPED), show_default=True)
def make(seed: int, per_variant: int, games: int, out: str) -> None:
    """Play seeded games, keep the positions that make puzzles, check every answer.

    The same options give the same file, byte for byte.
    """
    if per_variant < 1 or games < 1:
        fail("--per-variant and --games must be at least 1")
    started = time.perf_counter()

    def progress(kind: str, variant: str, found: int) -> None:
        click.echo(f"{kind:<7} {variant:<11} {found}", err=True)

    found = make_puzzles(seed, per_variant=per_variant, games_per_variant=games, progress=progress)
    data = {
        "command": f"sternhalma puzzles make --seed {seed} --per-variant {per_variant} --games {games}",
        "count": len(found),
        "puzzles": found,
    }
    try:
        Path(out).write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
    except OSError as error:
        fail(f"cannot write {shown(out)}: {error.strerror or error}; choose another --out")
    seconds = round(time.perf_counter() - started, 1)
    click.echo(f"{len(found)} puzzles, every answer checked, in {seconds} s: {out}", err=True)


@puzzles.command()
@click.argument("source", type=click.Path(exists=True, dir_okay=False), default=str(SHIPPED))
def check(source: str) -> None:
    """Re-check every puzzle's answer in SOURCE (the shipped set by default)."""
    data = json.loads(Path(source).read_text())
    try:
        for puzzle in data["puzzles"]:
            check_puzzle(puzzle)
    except (PuzzleError, KeyError, ValueError) as error:
        fail(str(error))
    click.echo(f"{len(data['puzzles'])} puzzles checked")
