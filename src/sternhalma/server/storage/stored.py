"""What the store hands out and takes in: plain records (``StoredTable``, ``StoredClock``,
``RatedGame``) and their conversion to and from the rows of storage/schema.py.

The server's tables (tables/table.py) save themselves as these records, so
nothing outside the store touches a database row.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sternhalma.errors import UnknownVariantError
from sternhalma.jsontext import JsonTextError, read_json
from sternhalma.rating import is_provisional
from sternhalma.rules import find_variant
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.schema import RatingChangeRow, TableRow


def wall_ms() -> int:
    """Milliseconds since the epoch: when something was saved (clock checkpoints)."""
    return time.time_ns() // 1_000_000


@dataclass
class StoredClock:
    """A clock as saved: each seat's time left at ``at`` and whose time was running."""

    control: str
    banks: list[int]
    running: int | None
    at: int


@dataclass
class StoredTable:
    """A table as saved: everything needed to rebuild it."""

    id: str
    variant: str
    seats: list[dict[str, Any]]
    start: str | None
    moves_made: list[int] | None
    deadline_rule: bool
    token_hash: str
    seed: int
    actions: list[dict[str, Any]]
    version: int
    status: str = "playing"
    rated: bool = False
    clock: StoredClock | None = None
    result: dict[str, Any] | None = None
    rematch: str | None = None
    rematch_offers: list[int] = field(default_factory=list)
    previous: str | None = None
    #: The rating changes of a finished rated game, by seat (loaded, never written here).
    ratings: list[dict[str, Any]] | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass(frozen=True)
class RatedGame:
    """A finished rated game: the category and, by seat, the player and the place."""

    category: str
    players: tuple[str, ...]
    places: tuple[int, ...]


def rating_change(row: RatingChangeRow) -> dict[str, Any]:
    """A rating change as the table's state shows it (rounded for people)."""
    return {
        "seat": row.seat,
        "player": row.player_id,
        "before": round(row.before),
        "after": round(row.after),
        "change": round(row.after - row.before, 1),
        "before_provisional": is_provisional(row.games),
        "after_provisional": is_provisional(row.games + 1),
    }


def clock_columns(clock: StoredClock | None) -> dict[str, Any]:
    if clock is None:
        return {"clock_control": None, "clock_banks": None, "clock_running": None, "clock_at": None}
    return {
        "clock_control": clock.control,
        "clock_banks": json.dumps(clock.banks),
        "clock_running": clock.running,
        "clock_at": clock.at,
    }


def columns(table: StoredTable) -> dict[str, Any]:
    return {
        "variant": table.variant,
        "seats": json.dumps(table.seats),
        "start": table.start,
        "moves_made": None if table.moves_made is None else json.dumps(table.moves_made),
        "deadline_rule": table.deadline_rule,
        "token_hash": table.token_hash,
        "seed": table.seed,
        "actions": json.dumps(table.actions),
        "version": table.version,
        "over": table.status == "over",
        "status": table.status,
        "rated": table.rated,
        "result": None if table.result is None else json.dumps(table.result),
        "rematch": table.rematch,
        "rematch_offers": json.dumps(table.rematch_offers),
        "previous": table.previous,
        **clock_columns(table.clock),
    }


def stored_table(row: TableRow) -> StoredTable:
    """The table in ``row``; TableError("broken-table") when its JSON cannot be read or
    does not have the shape written here (what lists tables trusts it)."""
    try:
        find_variant(row.variant)
        return _stored_table(row)
    except (JsonTextError, UnknownVariantError) as error:
        raise TableError("broken-table", f"table {row.id} cannot be restored: {error}") from None


def _stored_table(row: TableRow) -> StoredTable:
    clock = None
    if row.clock_control is not None and row.clock_banks is not None:
        banks = _list_of(row.clock_banks, int, "clock_banks")
        clock = StoredClock(row.clock_control, banks, row.clock_running, row.clock_at or 0)
    return StoredTable(
        id=row.id,
        variant=row.variant,
        seats=_list_of(row.seats, dict, "seats"),
        start=row.start,
        moves_made=None if row.moves_made is None else _list_of(row.moves_made, int, "moves_made"),
        deadline_rule=row.deadline_rule,
        token_hash=row.token_hash,
        seed=row.seed,
        actions=_list_of(row.actions, dict, "actions"),
        version=row.version,
        status=row.status,
        rated=row.rated,
        clock=clock,
        result=None if row.result is None else _dict(row.result, "result"),
        rematch=row.rematch,
        rematch_offers=_list_of(row.rematch_offers or "[]", int, "rematch_offers"),
        previous=row.previous,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _list_of(text: str, kind: type, column: str) -> list[Any]:
    """The JSON list in ``column``; JsonTextError when it holds anything but ``kind``."""
    value = read_json(text)
    if not isinstance(value, list) or not all(
        isinstance(item, kind) and not isinstance(item, bool) for item in value
    ):
        raise JsonTextError(f"{column} is not a list of {kind.__name__}")
    return value


def _dict(text: str, column: str) -> dict[str, Any]:
    """The JSON object in ``column``; JsonTextError when it is something else."""
    value = read_json(text)
    if not isinstance(value, dict):
        raise JsonTextError(f"{column} is not an object")
    return value
