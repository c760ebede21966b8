"""Seats: who plays each colour of a table, and what a new table may ask for.

A seat is one of

- ``person``: a person at the browser that created the table (one screen);
- ``computer``: the computer at a level;
- ``online``: an online player, free until someone sits down with a nickname;
  the seat is then held by its own secret token and belongs to a player
  (a nickname plus a secret identity kept in that player's browser).

A table is either on one screen (person and computer seats) or online
(online and computer seats); it is never both, so each seat has one way of
being held.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sternhalma.clock import ClockError, TimeControl, parse_time_control
from sternhalma.rating import is_rated
from sternhalma.rules.base import Ruleset
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.identities import Origin
from sternhalma.table_rules import read_seats

SeatKind = Literal["person", "computer", "online"]
KINDS: tuple[SeatKind, ...] = ("person", "computer", "online")

#: The most time a clock may give (3 hours) and the largest increment (5 minutes).
MAX_BANK_MS = 3 * 3_600_000
MAX_INCREMENT_MS = 300_000
#: The least time a clock may give (1 second).
MIN_BANK_MS = 1000


@dataclass(frozen=True)
class Seat:
    kind: SeatKind
    level: str | None = None
    #: Online seats: the player sitting there (public id), their nickname, and the
    #: SHA-256 of the seat's token; all None while the seat is free.
    player: str | None = None
    nickname: str | None = None
    token_hash: str | None = None
    #: Where and when the player's identity was made (stored, never shown): games
    #: between identities made from one address within a day are not rated.
    origin: Origin | None = None

    @property
    def taken(self) -> bool:
        """Whether somebody (or the computer) plays this seat; only online seats can be free."""
        return self.kind != "online" or self.token_hash is not None

    def public(self) -> dict[str, Any]:
        """What every viewer may know about the seat (never the token)."""
        data: dict[str, Any] = {"kind": self.kind, "level": self.level}
        if self.kind == "online":
            data.update(taken=self.taken, nickname=self.nickname, player=self.player)
        elif self.player is not None:  # handed to the computer when its player left
            data.update(nickname=self.nickname, player=self.player, handed=True)
        return data

    def stored(self) -> dict[str, Any]:
        data = self.public()
        data.pop("taken", None)
        data.pop("handed", None)
        if self.token_hash is not None:
            data["token_hash"] = self.token_hash
        if self.origin is not None and self.origin.address_hash is not None:
            data["address_hash"] = self.origin.address_hash
            if self.origin.created_at is not None:
                data["identity_made"] = self.origin.created_at.isoformat()
            if self.origin.trusted:
                data["trusted"] = True
        return data

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> Seat:
        kind = data.get("kind")
        if kind not in KINDS:
            raise TableError("seats", f"a stored seat has an unknown kind {kind!r}")
        made = data.get("identity_made")
        origin = None
        if data.get("address_hash") is not None:
            origin = Origin(
                data["address_hash"],
                datetime.fromisoformat(made) if made is not None else None,
                data.get("trusted") is True,
            )
        return cls(
            kind,
            data.get("level"),
            data.get("player"),
            data.get("nickname"),
            data.get("token_hash"),
            origin,
        )


def parse_seats(rules: Ruleset, data: object) -> list[Seat]:
    """The seats of a new table from the lobby's JSON; TableError says what is wrong."""
    seats = [Seat(kind, level) for kind, level in read_seats(rules, data, KINDS)]
    if {"person", "online"} <= {seat.kind for seat in seats}:
        raise TableError(
            "seats",
            "a table is on one screen or online: make the other seats online players "
            "or the computer",
        )
    return seats


def parse_clock(value: object) -> TimeControl | None:
    """A table's time control from text like "5+3" (None: no clock)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise TableError("clock", 'the clock is minutes + seconds per move, like "5+3"')
    try:
        control = parse_time_control(value[:40])
    except ClockError as error:
        raise TableError("clock", str(error)) from None
    if not MIN_BANK_MS <= control.bank_ms <= MAX_BANK_MS:
        raise TableError("clock", "a clock gives between 1 second and 180 minutes")
    if control.increment_ms > MAX_INCREMENT_MS:
        raise TableError("clock", "the increment is at most 300 seconds")
    return control


def check_rated(rules: Ruleset, seats: list[Seat], rated: bool) -> None:
    """A rated table needs online players in every seat and no teams (rules.md#rated-games)."""
    if not rated:
        return
    if rules.teams:
        raise TableError("rated", f"{rules.id} is played in pairs, and pairs games are unrated")
    computers = sum(1 for seat in seats if seat.kind == "computer")
    if not is_rated(rules, rated_table=True, computer_seats=computers) or any(
        seat.kind != "online" for seat in seats
    ):
        raise TableError(
            "rated", "only a table with an online player in every seat (no computer) is rated"
        )
