"""The ``sternhalma`` command: one entry point, one sub-command per job."""

from __future__ import annotations

import click

from sternhalma import core
from sternhalma.cli.analyse import analyse, solve
from sternhalma.cli.engine import bench, moves, start
from sternhalma.cli.play import match, play
from sternhalma.cli.puzzles import puzzles
from sternhalma.cli.records import replay
from sternhalma.cli.serve import serve
from sternhalma.cli.worker import worker


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    package_name="sternhalma", message=f"%(prog)s %(version)s (core: {core.NAME})"
)
def main() -> None:
    """Chinese checkers (Stern-Halma), capture Chinese checkers and Halma."""


main.add_command(moves)
main.add_command(start)
main.add_command(bench)
main.add_command(replay)
main.add_command(serve)
main.add_command(match)
main.add_command(play)
main.add_command(analyse)
main.add_command(solve)
main.add_command(worker)
main.add_command(puzzles)
