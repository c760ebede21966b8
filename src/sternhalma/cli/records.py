"""``sternhalma replay``: check a game record and show how it ends."""

from __future__ import annotations

import json
from typing import Any

import click

from sternhalma.cli.engine import fail, read_stdin, read_text
from sternhalma.errors import SternhalmaError
from sternhalma.notation import position_to_dict, position_to_json
from sternhalma.records import Record, earlier_rule_note, read_record, result_text


def counted(n: int, noun: str) -> str:
    """An English count with its noun: 1 round, 2 rounds."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def read_source(source: str) -> str:
    """The record's text from a file, or standard input for ``-``."""
    if source == "-":
        return read_stdin()
    try:
        with open(source, "rb") as handle:
            return read_text(handle, source)
    except OSError as error:
        fail(f"cannot read {source}: {error.strerror or error}")
    raise AssertionError("unreachable")  # pragma: no cover - fail() exits


def _summary(record: Record) -> dict[str, Any]:
    game = record.game
    rules = game.rules
    result = game.result
    return {
        "variant": rules.id,
        "players": record.players,
        "date": record.date,
        "clock": str(record.time_control) if record.time_control else None,
        "moves": [rules.format_move(move) for move in game.moves],
        "rounds": game.rounds_played,
        "finish_rule": game.finish_rule,
        "result": None
        if result is None
        else {
            "places": dict(zip(rules.seats, result.places, strict=True)),
            "team_places": list(result.team_places),
            "ending": result.ending,
            "reason": result.reason,
        },
        "position": position_to_dict(game.position),
    }


@click.command()
@click.argument("source", metavar="FILE")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def replay(source: str, as_json: bool) -> None:
    """Replay and check the game record in FILE (- for standard input).

    Prints the result and the final position; a record that breaks a rule
    fails with the move number and the reason (exit status 2). A record made
    before today's finishing rule that only replays by the earlier one is read
    by it, and the output says so.
    """
    try:
        record = read_record(read_source(source))
    except SternhalmaError as error:
        fail(str(error))
        return
    if as_json:
        click.echo(json.dumps(_summary(record), ensure_ascii=False))
        return
    game = record.game
    rules = game.rules
    names = ", ".join(f"{colour}: {name}" for colour, name in record.players.items())
    click.echo(f"{rules.id} ({rules.title})" + (f", {names}" if names else ""))
    click.echo(f"{counted(len(game.moves), 'move')}, {counted(game.rounds_played, 'round')}")
    if game.result is None:
        click.echo(f"Not over: {rules.seats[game.position.turn]} to move")
    else:
        click.echo(f"Result: {result_text(rules, game.result)} ({game.result.ending})")
        click.echo(game.result.reason)
    note = earlier_rule_note(game)
    if note is not None:
        click.echo(note)
    click.echo(f"Position: {position_to_json(game.position)}")
