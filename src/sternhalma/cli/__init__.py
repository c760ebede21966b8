"""The ``sternhalma`` command: one entry point, one sub-command per job."""

from __future__ import annotations

import click

from sternhalma.cli.engine import bench, moves, start
from sternhalma.cli.play import match, play
from sternhalma.cli.records import replay
from sternhalma.cli.serve import serve


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sternhalma")
def main() -> None:
    """Chinese checkers (Stern-Halma), capture Chinese checkers and Halma."""


main.add_command(moves)
main.add_command(start)
main.add_command(bench)
main.add_command(replay)
main.add_command(serve)
main.add_command(match)
main.add_command(play)
