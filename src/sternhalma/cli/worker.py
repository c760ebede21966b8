"""``sternhalma worker``: the computer's thinking for servers that share a Redis."""

from __future__ import annotations

import asyncio
import logging
import os

import click

from sternhalma.cli.serve import check_redis_url, setting
from sternhalma.cli.values import count


@click.command()
@setting(
    "--redis-url",
    default="redis://127.0.0.1:6379/0",
    show_default=True,
    help="The Redis the servers send computer moves, hints and analyses to.",
)
@click.option(
    "--processes",
    default=None,
    type=click.IntRange(1, 256),
    help="Thinking processes, one job each at a time (default: the machine's cores).",
)
@click.option(
    "--nodes",
    default=None,
    type=count(1),
    help="Fix Hard's search at this many nodes a move (benchmarks: the same work on any machine).",
)
def worker(redis_url: str, processes: int | None, nodes: int | None) -> None:
    """Think for the computer seats, hints and analyses of every server on this Redis.

    Start as many as the load needs, on any machines (docs/deploy.md); Ctrl+C or
    SIGTERM stops one, and the jobs it had are sent to another.
    """
    from sternhalma.server.thinking.worker import run_worker

    check_redis_url(redis_url)
    count = processes or os.cpu_count() or 1
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    click.echo(f"sternhalma worker: {count} thinking processes on {redis_url}; Ctrl+C stops it.")
    asyncio.run(run_worker(redis_url, count, nodes=nodes))
