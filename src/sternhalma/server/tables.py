"""Tables: every game is a table on the server, with seats, a clock and a versioned event log.

A seat is a person at the creating browser, the computer at a level, or an
online player holding the seat with its own secret token (server/seats.py).
Nobody can act for a seat they do not hold. One table's commands run one at
a time under its lock; every change bumps the version, is written to the
database with its event (an optimistic version check, server/store.py), and
only then broadcast with the whole public state through the bus.

Clocks run on the server (sternhalma.clock, integer ms): a watcher per
running table finds a flag even when nobody sends anything, and saves the
clock every few seconds. While no server runs, no clock runs (docs/deploy.md).
The computer thinks in a process pool and its move is shown after a short
pause, so a person can follow it.

Several processes (``cluster``: a Redis bus, docs/deploy.md) share every table.
Each keeps a copy in memory: another process's event is applied to it as it
arrives through the bus (a move or "thinking"; anything else, or a gap in the
versions, drops the copy, which is then rebuilt from the database). The
database's version check decides every race. A sweep every few seconds
compares the copies with the database and sends its clients a ``sync`` when
a message was lost, watches every running clock (so a flag falls when the
process that started the game is gone) and takes over a computer's turn that
nobody has played for ``takeover`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sternhalma.clock import Clock, TimeControl, TimeSource, monotonic_ms, parse_time_control
from sternhalma.errors import SternhalmaError
from sternhalma.game import Game, GameError
from sternhalma.notation import position_from_json, position_to_dict, position_to_json
from sternhalma.players import LEVELS
from sternhalma.position import Move
from sternhalma.rating import is_rated
from sternhalma.records import write_record
from sternhalma.rules import find_variant
from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules
from sternhalma.server import computer
from sternhalma.server.bus import Bus, MemoryBus, RedisBus
from sternhalma.server.protocol import TableError
from sternhalma.server.seats import Seat, check_rated, parse_clock, parse_seats
from sternhalma.server.store import (
    DatabaseUnavailable,
    Player,
    RatedGame,
    Store,
    StoredClock,
    StoredTable,
    VersionConflict,
    hash_secret,
    new_secret,
    wall_ms,
)

log = logging.getLogger(__name__)

#: The level that answers "hint": the strongest the players offer.
HINT_LEVEL = LEVELS[-1]
#: Seconds between repeats of a process's part of a table's presence (in a cluster).
PRESENCE_REPEAT = 10.0

# Kept for callers of part 1.
hash_token = hash_secret


def _moves_made(rules: Ruleset, value: object) -> tuple[int, ...] | None:
    """Own moves per seat before the start position; TableError unless one count per seat."""
    if value is None:
        return None
    if (
        not isinstance(value, list | tuple)
        or len(value) != rules.players
        or not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 1000 for n in value)
    ):
        raise TableError(
            "moves_made",
            f'"moves_made" needs one whole number of at least 0 per seat ({rules.players})',
        )
    return tuple(value)


@dataclass
class Action:
    """One entry of a table's history: a move, a resignation or a flag of a seat."""

    seat: int
    move: str | None = None
    resign: bool = False
    flag: bool = False

    def to_dict(self) -> dict[str, Any]:
        if self.resign:
            return {"seat": self.seat, "resign": True}
        if self.flag:
            return {"seat": self.seat, "flag": True}
        return {"seat": self.seat, "move": self.move}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Action:
        return cls(
            int(data["seat"]),
            data.get("move"),
            bool(data.get("resign", False)),
            bool(data.get("flag", False)),
        )


@dataclass
class Table:
    id: str
    rules: Ruleset
    seats: list[Seat]
    #: SHA-256 of the creating browser's secret (it holds the person seats).
    token_hash: str
    seed: int
    start: str | None = None
    #: Own moves per seat before ``start`` (a game set up mid-way; the deadline counts them).
    moves_made: tuple[int, ...] | None = None
    deadline_rule: bool = True
    rated: bool = False
    control: TimeControl | None = None
    #: The time source of the clock (milliseconds, monotonic).
    now: TimeSource = monotonic_ms
    version: int = 0
    actions: list[Action] = field(default_factory=list)
    #: The seat the computer is thinking for, if any.
    thinking: int | None = None
    #: Bumped by undo, resignation, flag and every move: a computer move computed for an
    #: older generation is dropped.
    generation: int = 0
    rematch: str | None = None
    rematch_offers: set[int] = field(default_factory=set)
    previous: str | None = None
    #: Rating changes by seat once a rated game is over.
    ratings: list[dict[str, Any]] | None = None
    created: datetime = field(default_factory=lambda: datetime.now(UTC))
    #: Seats with a connection here now, and how many others watch (not versioned).
    present: list[int] = field(default_factory=list)
    watchers: int = 0
    game: Game = field(init=False)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    #: Set when anything changes: the clock watcher looks again.
    changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    #: Set when this copy is dropped from memory (the database has a newer one).
    dropped: bool = False
    watcher: asyncio.Task[None] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.game = self.new_game()

    def new_game(self) -> Game:
        return Game(
            self.rules,
            start=position_from_json(self.start) if self.start else None,
            deadline_rule=self.deadline_rule,
            moves_made=self.moves_made,
        )

    # -- who may do what -----------------------------------------------------
    @property
    def online(self) -> bool:
        return any(seat.kind == "online" for seat in self.seats)

    @property
    def status(self) -> str:
        """``waiting`` (an online seat is free), ``playing`` or ``over``."""
        if self.game.is_over:
            return "over"
        if not all(seat.taken for seat in self.seats):
            return "waiting"
        return "playing"

    def holds(self, token: str | None) -> bool:
        """Whether ``token`` holds any seat here."""
        return bool(self.seats_of(token))

    def seats_of(self, token: str | None) -> list[int]:
        """The seats ``token`` holds: every person seat for the creating browser's
        secret, an online seat for that seat's token."""
        if not token:
            return []
        hashed = hash_secret(token)
        creator = hmac.compare_digest(hashed, self.token_hash)
        return [
            s
            for s, seat in enumerate(self.seats)
            if (seat.kind == "person" and creator)
            or (
                seat.kind == "online"
                and seat.token_hash is not None
                and hmac.compare_digest(hashed, seat.token_hash)
            )
        ]

    def person_seats(self) -> list[int]:
        return [s for s, seat in enumerate(self.seats) if seat.kind == "person"]

    @property
    def against_computer(self) -> bool:
        """Undo and hints are offered only to people on one screen against the computer."""
        return any(seat.kind == "computer" for seat in self.seats) and bool(self.person_seats())

    def can_undo(self) -> bool:
        return (
            self.against_computer
            and not self.game.is_over
            and any(self.seats[a.seat].kind == "person" and a.move for a in self.actions)
        )

    def job(self, level: str) -> computer.Job:
        """What a worker needs to choose the next move at ``level`` (plain, picklable data)."""
        return computer.Job(
            self.rules.id,
            self.start,
            self.moves_made,
            tuple(self.moves_played()),
            self.deadline_rule,
            level,
            # Seeded by table and move number: a replayed game gets the same answers.
            self.seed + len(self.actions),
        )

    def moves_played(self) -> list[str]:
        return [a.move for a in self.actions if a.move is not None]

    def names(self) -> list[str]:
        """Each seat's name for a game record, as the table shows it to people: the
        nickname, "Computer (Easy)" or "Person at this screen"."""
        names = []
        for seat in self.seats:
            if seat.kind == "computer":
                names.append(f"Computer ({str(seat.level).capitalize()})")
            elif seat.kind == "online":
                names.append(seat.nickname or "Free seat")
            else:
                names.append("Person at this screen")
        return names

    # -- the clock -------------------------------------------------------------------
    def start_clock(self, banks: list[int] | None = None) -> None:
        """Attach the clock (with ``banks`` when resuming after a restart) and run it for
        the seat to move once the game is being played."""
        if self.control is None:
            return
        if self.game.clock is None:
            self.game.clock = Clock(self.control, self.rules.players, now=self.now, banks=banks)
        clock = self.game.clock
        if clock.running is None and self.game.turn is not None and self.status == "playing":
            clock.start(self.game.turn)

    def clock_state(self) -> dict[str, Any] | None:
        if self.control is None:
            return None
        clock = self.game.clock
        remaining = (
            [clock.remaining(s) for s in range(clock.seats)]
            if clock is not None
            else [self.control.bank_ms] * self.rules.players
        )
        return {
            "control": str(self.control),
            "remaining": remaining,
            "running": clock.running if clock is not None else None,
        }

    def stored_clock(self) -> StoredClock | None:
        state = self.clock_state()
        if state is None:
            return None
        return StoredClock(state["control"], state["remaining"], state["running"], wall_ms())

    # -- the public state ----------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything a viewer may see; sent with every event."""
        game = self.game
        position = game.position
        rules = self.rules
        status = self.status
        turn = game.turn if status == "playing" else None
        legal: list[list[str]] = []
        if (
            turn is not None
            and self.seats[turn].kind in ("person", "online")
            and self.thinking is None
        ):
            names = rules.board.names
            legal = [[names[h] for h in move] for move in self._choices()]
        places = game.places
        seats = []
        for s, seat in enumerate(self.seats):
            entry: dict[str, Any] = {
                "colour": rules.seats[s],
                **seat.public(),
                "moves": game.moves_made(s),
                "status": game.status(s),
                "place": places.get(s),
            }
            if isinstance(rules, RaceRules):
                entry["home"] = rules.in_goal(position, s)
                entry["of"] = rules.marbles_per_seat
            if position.captured:
                entry["captured"] = position.captured[s]
            seats.append(entry)
        moves = []
        ply = 0
        for action in self.actions:
            if action.move is not None:
                ply += 1
                moves.append({"ply": ply, "seat": action.seat, "text": action.move})
        return {
            "id": self.id,
            "v": self.version,
            "variant": rules.id,
            "game": rules.game,
            "status": status,
            "online": self.online,
            "rated": self.rated,
            "deadline_rule": self.deadline_rule,
            "seats": seats,
            "position": position_to_dict(position),
            "turn": turn,
            "thinking": self.thinking,
            "legal": legal,
            "moves": moves,
            "clock": self.clock_state(),
            "over": game.is_over,
            "result": self._result() if game.is_over else None,
            "ratings": self.ratings,
            "can_undo": self.can_undo(),
            "can_hint": self.against_computer,
            "rematch": self.rematch,
            "rematch_offers": sorted(self.rematch_offers),
            "previous": self.previous,
            "present": list(self.present),
            "watchers": self.watchers,
        }

    def message(self, event: dict[str, Any]) -> dict[str, Any]:
        """The broadcast of ``event``: the version and the state after it."""
        return {"type": "event", "v": self.version, "event": event, "state": self.state()}

    def _choices(self) -> list[Move]:
        """The moves offered to a person: one per resulting position (capture has many
        paths to the same position; the player needs only one of them)."""
        return self.rules.distinct_moves(self.game.position)

    def _result(self) -> dict[str, Any]:
        result = self.game.result
        assert result is not None
        return {
            "places": list(result.places),
            "team_places": list(result.team_places),
            "ending": result.ending,
            "reason": result.reason,
            "seat": result.seat,
        }

    def rated_game(self) -> RatedGame | None:
        """The finished game for the ratings, when this table is rated and not yet rated."""
        if not self.rated or not self.game.is_over or self.ratings is not None:
            return None
        computers = sum(1 for seat in self.seats if seat.kind == "computer")
        if not is_rated(self.rules, rated_table=True, computer_seats=computers):
            return None
        players = tuple(seat.player for seat in self.seats if seat.player is not None)
        result = self.game.result
        if len(players) != len(self.seats) or result is None:
            return None
        return RatedGame(self.rules.id, players, result.places)

    def stored(self) -> StoredTable:
        return StoredTable(
            id=self.id,
            variant=self.rules.id,
            seats=[seat.stored() for seat in self.seats],
            start=self.start,
            moves_made=list(self.moves_made) if self.moves_made is not None else None,
            deadline_rule=self.deadline_rule,
            token_hash=self.token_hash,
            seed=self.seed,
            actions=[a.to_dict() for a in self.actions],
            version=self.version,
            status=self.status,
            rated=self.rated,
            clock=self.stored_clock(),
            result=self._result() if self.game.is_over else None,
            rematch=self.rematch,
            rematch_offers=sorted(self.rematch_offers),
            previous=self.previous,
        )

    def record(self) -> str:
        """The game record (docs/records.md) with the players' names."""
        return write_record(
            self.game,
            players=self.names(),
            date=self.created.date(),
            time_control=self.control,
            extra={"Table": self.id, "Rated": "yes" if self.rated else "no"},
        )

    # -- changes ---------------------------------------------------------------
    def play(self, seat: int, move: Move) -> dict[str, Any]:
        """Play a checked move for ``seat``; the event that tells viewers about it."""
        rules = self.rules
        before = self.game.position
        played = self.game.play(move, seat=seat)
        text = rules.format_move(played)
        self.actions.append(Action(seat, text))
        self.generation += 1
        event: dict[str, Any] = {
            "kind": "move",
            "seat": seat,
            "path": [rules.board.names[h] for h in played],
        }
        removed = before.occupied & ~self.game.position.occupied & ~(1 << played[0])
        if removed:
            event["removed"] = rules.board.names_of(removed)
        return event

    def replay(self, actions: list[Action]) -> None:
        """Rebuild the game from stored actions (checked by the referee again); the
        clock is attached afterwards, so replaying charges nobody's time."""
        self.game = self.new_game()
        self.actions = []
        for action in actions:
            if action.resign:
                self.game.resign(action.seat)
                self.actions.append(action)
            elif action.flag:
                self.game.flag(action.seat)
                self.actions.append(action)
            elif action.move is not None:
                self.play(action.seat, self.rules.parse_path(action.move))

    def position_after(self, ply: int) -> dict[str, Any]:
        """The position after the first ``ply`` moves (the move list's look-back)."""
        moves = self.moves_played()
        if ply > len(moves):
            raise TableError("ply", f"the game has only {len(moves)} moves")
        game = self.new_game()
        for text in moves[:ply]:
            game.play(text)
        return position_to_dict(game.position)


def summary(stored: StoredTable) -> dict[str, Any]:
    """An open table as the lobby lists it (from the database, without replaying)."""
    rules = find_variant(stored.variant)
    return {
        "id": stored.id,
        "variant": stored.variant,
        "game": rules.game,
        "seats": [
            {
                "colour": colour,
                "kind": seat.get("kind"),
                "level": seat.get("level"),
                "nickname": seat.get("nickname"),
                "taken": seat.get("kind") != "online" or bool(seat.get("token_hash")),
            }
            for colour, seat in zip(rules.seats, stored.seats, strict=False)
        ],
        "clock": stored.clock.control if stored.clock is not None else None,
        "rated": stored.rated,
    }


class Tables:
    """Every table of this server process: creation, loading, commands, clocks, the computer."""

    def __init__(
        self,
        store: Store,
        workers: computer.Workers,
        *,
        pause: float = 0.6,
        bus: Bus | None = None,
        now: TimeSource = monotonic_ms,
        checkpoint: float = 10.0,
        takeover: float = 10.0,
    ) -> None:
        self.store = store
        self.workers = workers
        #: Seconds between the turn passing to the computer and its move being shown.
        self.pause = pause
        self.bus: Bus = bus or MemoryBus()
        self.now = now
        #: Seconds between two saves of a running clock.
        self.checkpoint = checkpoint
        self.tables: dict[str, Table] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Connections here per table: connection key -> the seats it holds.
        self._viewers: dict[str, dict[int, list[int]]] = {}
        #: Presence: this process's part as last published (seats, watchers, when), and
        #: the other processes' parts by origin (seats, watchers, when heard).
        self._told: dict[str, tuple[list[int], int, float]] = {}
        self._elsewhere: dict[str, dict[str, tuple[list[int], int, float]]] = {}
        #: Other processes share the tables (their events arrive through the bus).
        self.cluster = isinstance(self.bus, RedisBus)
        #: Seconds after which a computer's turn nobody played is taken over.
        self.takeover = takeover
        #: Tables whose computer seat thinks in this process now.
        self._thinking: set[str] = set()
        self._sweeper: asyncio.Task[None] | None = None
        #: Tables being read from the database now (how many reads), and the newest
        #: version another process announced meanwhile: nothing is kept for the
        #: tables this process only hears about.
        self._loading: Counter[str] = Counter()
        self._heard: dict[str, int] = {}
        self._unavailable = False
        #: Copies found behind the database by the last sweep, and their versions then.
        self._behind: dict[str, int] = {}
        if isinstance(self.bus, RedisBus):
            self.bus.observer = self._observe
            self.bus.on_reconnect = self.sweep

    # -- creating and loading ------------------------------------------------------
    async def create(
        self,
        variant: str,
        seats: object,
        *,
        start: str | None = None,
        moves_made: object = None,
        deadline_rule: bool = True,
        clock: object = None,
        rated: bool = False,
        sit: int | None = None,
        nickname: str | None = None,
        identity: str | None = None,
        token: str | None = None,
    ) -> tuple[Table, str, dict[str, Any] | None]:
        """A new table, the token that holds the creator's seats, and (online tables)
        the creator as a player: ``{"id", "nickname", "secret"}``.

        ``start`` (position JSON) and ``moves_made`` (own moves per seat so far)
        set a game up mid-way, e.g. to practise an ending. At an online table the
        creator sits at seat ``sit`` (the first online seat by default).
        """
        rules = find_variant(variant)
        parsed = parse_seats(rules, seats)
        control = parse_clock(clock)
        check_rated(rules, parsed, rated)
        if rated and not deadline_rule and rules.deadline is not None:
            raise TableError("rated", "a rated game keeps the leaving-home rule")
        if start is not None:
            position = position_from_json(start)
            if position.rules is not rules:
                raise TableError(
                    "start", f"the start position is {position.rules.id}, not {rules.id}"
                )
            start = position_to_json(position)
        made = _moves_made(rules, moves_made)
        token = token or new_secret()
        player: dict[str, Any] | None = None
        online = [s for s, seat in enumerate(parsed) if seat.kind == "online"]
        if online:
            seat = online[0] if sit is None else sit
            if seat not in online:
                raise TableError("seat", f"seat {seat} is not an online seat of this table")
            if nickname is None:
                raise TableError("nickname", "type a nickname to sit down")
            who, secret = await self.store.identify(nickname, identity)
            parsed[seat] = Seat(
                "online", player=who.id, nickname=who.nickname, token_hash=hash_secret(token)
            )
            player = _player(who, secret)
        table = Table(
            id=secrets.token_urlsafe(9),
            rules=rules,
            seats=parsed,
            token_hash=hash_secret(token),
            seed=secrets.randbits(31),
            start=start,
            moves_made=made,
            deadline_rule=deadline_rule,
            rated=rated,
            control=control,
            now=self.now,
        )
        await self._insert(table)
        return table, token, player

    async def _insert(self, table: Table) -> None:
        table.start_clock()
        await self.store.create(table.stored())
        self.tables[table.id] = table
        self._after_change(table)

    async def get(self, table_id: str) -> Table:
        """The table ``table_id``, from memory or rebuilt from the database."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        self._loading[table_id] += 1
        try:
            stored = await self.store.load(table_id)
            # A read that began before another process's change arrived through the
            # bus is read again (the change is saved before it is published).
            for _ in range(25):
                if stored is None or stored.version >= self._heard.get(table_id, 0):
                    break
                await asyncio.sleep(0.02)
                stored = await self.store.load(table_id)
        finally:
            self._loading[table_id] -= 1
            if not self._loading[table_id]:
                del self._loading[table_id]
                self._heard.pop(table_id, None)
        if stored is None:
            raise TableError("no-table", f"there is no table {table_id[:40]!r}")
        table = self.tables.get(table_id)  # loaded by another command meanwhile
        if table is not None:
            return table
        table = self._rebuild(stored)
        table.present, table.watchers = self._everyone(table.id)  # a copy loaded again
        self.tables[table.id] = table
        # In a cluster the computer's turn belongs to the process that passed it the
        # turn; the sweep takes it over only when nobody played it for a while.
        self._after_change(table, computer=not self.cluster)
        return table

    def _rebuild(self, stored: StoredTable) -> Table:
        rules = find_variant(stored.variant)
        try:
            table = Table(
                id=stored.id,
                rules=rules,
                seats=[Seat.from_stored(seat) for seat in stored.seats],
                token_hash=stored.token_hash,
                seed=stored.seed,
                start=stored.start,
                moves_made=_moves_made(rules, stored.moves_made),
                deadline_rule=stored.deadline_rule,
                rated=stored.rated,
                control=parse_time_control(stored.clock.control) if stored.clock else None,
                now=self.now,
                rematch=stored.rematch,
                rematch_offers=set(stored.rematch_offers),
                previous=stored.previous,
                ratings=stored.ratings,
            )
            if stored.created_at is not None:
                table.created = stored.created_at
            table.replay([Action.from_dict(a) for a in stored.actions])
            # The clock resumes with the time each seat had when it was last saved:
            # the time no server ran is charged to nobody (docs/deploy.md).
            table.start_clock(self._banks(stored))
        except SternhalmaError as error:
            raise TableError(
                "broken-table", f"table {stored.id} cannot be restored: {error}"
            ) from None
        table.version = stored.version
        return table

    def _banks(self, stored: StoredTable) -> list[int] | None:
        """The clock's banks to resume with. In a cluster another process may have run
        the clock until just now (it saves at least every ``checkpoint`` seconds): a
        save younger than three checkpoints charges the seat to move the time since."""
        clock = stored.clock
        if clock is None:
            return None
        banks = list(clock.banks)
        running = clock.running
        if self.cluster and running is not None and stored.status == "playing":
            elapsed = wall_ms() - clock.at
            if 0 < elapsed <= 3 * self.checkpoint * 1000 and 0 <= running < len(banks):
                banks[running] = max(0, banks[running] - elapsed)
        return banks

    async def resume(self) -> None:
        """At start: load the tables whose clocks run, so flags fall without a visitor."""
        for table_id in await self.store.running_with_clock():
            try:
                await self.get(table_id)
            except TableError:
                log.exception("table %s could not be resumed", table_id)

    async def open_tables(self) -> list[dict[str, Any]]:
        """Online tables waiting for players where somebody already sits (a table whose
        players all stood up is not offered)."""
        return [
            summary(stored)
            for stored in await self.store.open_tables()
            if any(seat.get("kind") == "online" and seat.get("token_hash") for seat in stored.seats)
        ]

    # -- connections ---------------------------------------------------------------------
    async def join(self, table: Table, key: int, seats: list[int]) -> None:
        """A connection watches ``table`` holding ``seats`` (or moved to other seats)."""
        self._viewers.setdefault(table.id, {})[key] = seats
        await self._presence(table)

    async def part(self, table: Table, key: int) -> None:
        viewers = self._viewers.get(table.id, {})
        viewers.pop(key, None)
        if not viewers:
            self._viewers.pop(table.id, None)
        await self._presence(table)
        if table.id not in self._viewers:
            self._told.pop(table.id, None)

    def _here(self, table_id: str) -> tuple[list[int], int]:
        """The seats held and the watchers among this process's connections to a table."""
        viewers = self._viewers.get(table_id, {})
        seats = sorted({s for held in viewers.values() for s in held})
        return seats, sum(1 for held in viewers.values() if not held)

    def _everyone(self, table_id: str) -> tuple[list[int], int]:
        """Seats held and watchers over every process (ours and what the others told)."""
        seats, watchers = self._here(table_id)
        present = set(seats)
        for theirs, their_watchers, _ in self._elsewhere.get(table_id, {}).values():
            present.update(theirs)
            watchers += their_watchers
        return sorted(present), watchers

    async def _presence(self, table: Table, *, again: bool = False) -> None:
        """Tell the viewers who is here. In a cluster each process also publishes its own
        part (``here``), from which the others add up everyone (``again``: repeat it,
        so a process that went away is forgotten when its part stops coming)."""
        here = self._here(table.id)
        everyone = self._everyone(table.id)
        told = self._told.get(table.id)
        last = ([], 0) if told is None else told[:2]
        if not again and everyone == (table.present, table.watchers) and last == here:
            return
        table.present, table.watchers = everyone
        self._told[table.id] = (*here, time.monotonic())
        await self.bus.publish(
            table.id,
            {
                "type": "presence",
                "v": table.version,
                "present": everyone[0],
                "watchers": everyone[1],
                "here": {"present": here[0], "watchers": here[1]},
            },
        )

    def _presence_from(
        self, table_id: str, message: dict[str, Any], origin: str
    ) -> dict[str, Any] | None:
        """Another process's part of a table's presence: remember it, and give this
        process's viewers everyone's."""
        part = message.get("here")
        try:
            assert isinstance(part, dict)
            seats = sorted({int(s) for s in part["present"]})
            watchers = int(part["watchers"])
        except (AssertionError, KeyError, TypeError, ValueError):
            return None
        parts = self._elsewhere.setdefault(table_id, {})
        parts[origin] = (seats, watchers, time.monotonic())
        if not seats and not watchers:
            del parts[origin]
            if not parts:
                del self._elsewhere[table_id]
        present, everyone_watching = self._everyone(table_id)
        table = self.tables.get(table_id)
        if table is not None:
            table.present, table.watchers = present, everyone_watching
        return {
            "type": "presence",
            "v": message.get("v"),
            "present": present,
            "watchers": everyone_watching,
        }

    async def _refresh_presence(self) -> None:
        """Sweep: repeat this process's part of each watched table's presence now and
        then, and forget the parts of processes that stopped repeating theirs."""
        now = time.monotonic()
        for table_id in list(self._viewers):
            table = self.tables.get(table_id)
            told = self._told.get(table_id)
            if table is not None and (told is None or now - told[2] > PRESENCE_REPEAT):
                await self._presence(table, again=True)
        for table_id, parts in list(self._elsewhere.items()):
            for origin, (_, _, heard) in list(parts.items()):
                if now - heard > 3 * PRESENCE_REPEAT:
                    del parts[origin]
            if parts:
                continue
            del self._elsewhere[table_id]
            table = self.tables.get(table_id)
            here = self._here(table_id)
            if table is not None and (table.present, table.watchers) != here:
                table.present, table.watchers = here
                self.bus.deliver(
                    table_id,
                    {
                        "type": "presence",
                        "v": table.version,
                        "present": table.present,
                        "watchers": table.watchers,
                    },
                )

    # -- commands (each under the table's lock) ----------------------------------
    async def move(
        self,
        table: Table,
        token: str | None,
        seat: int,
        path: tuple[str, ...],
        *,
        confirm: bool,
        version: int | None,
    ) -> dict[str, Any] | None:
        """Play a move for a seat the token holds. Returns a "confirm" question instead
        when the move would put the player out and was not confirmed."""
        async with table.lock:
            self._check_turn(table, token, seat)
            if version is not None and version != table.version:
                raise TableError("stale", "the game moved on; look at the board again")
            await self._flag_if_out(table)
            rules = table.rules
            try:
                move = rules.check_path(
                    table.game.position, [rules.board.index(name) for name in path]
                )
            except KeyError as error:
                raise TableError("hole", f"unknown hole {str(error.args[0])[:20]!r}") from None
            if not confirm and table.game.would_put_out(move):
                return {"type": "confirm", "seat": seat, "path": list(path)}
            try:
                event = table.play(seat, move)
            except GameError:
                await self._flag_if_out(table)
                raise
            await self._commit(table, event)
        return None

    async def undo(self, table: Table, token: str | None) -> None:
        """Take back the last person's move and the computer's answers to it."""
        async with table.lock:
            self._check_creator(table, token)
            if not table.can_undo():
                raise TableError("no-undo", "there is no move of yours to take back")
            undone = []
            while table.actions:
                action = table.actions.pop()
                table.game.undo()
                undone.append(action.move)
                if table.seats[action.seat].kind == "person":
                    break
            table.generation += 1
            table.thinking = None
            await self._commit(table, {"kind": "undo", "moves": undone})

    async def resign(self, table: Table, token: str | None, seat: int | None) -> None:
        async with table.lock:
            seat = self._acting_seat(table, token, seat)
            table.game.resign(seat)
            table.actions.append(Action(seat, resign=True))
            table.generation += 1
            table.thinking = None
            await self._commit(table, {"kind": "resign", "seat": seat})

    async def hint(self, table: Table, token: str | None) -> dict[str, Any]:
        """The move the strongest level would play for the person to move (not broadcast)."""
        async with table.lock:
            self._check_creator(table, token)
            if not table.against_computer:
                raise TableError("no-hint", "hints are given only in games against the computer")
            turn = table.game.turn
            if table.game.is_over or turn is None or table.seats[turn].kind != "person":
                raise TableError("not-your-turn", "a hint is given when it is your turn")
            job = table.job(HINT_LEVEL)
            version = table.version
        text = await self.workers.choose(job)
        path = [table.rules.board.names[h] for h in table.rules.parse_path(text)]
        return {"type": "hint", "v": version, "seat": turn, "path": path}

    async def sit(
        self,
        table: Table,
        token: str | None,
        seat: int,
        nickname: str,
        identity: str | None,
    ) -> dict[str, Any]:
        """Take a free online seat; the reply carries the seat's token and the player."""
        async with table.lock:
            if table.status != "waiting":
                raise TableError("not-waiting", "every seat is taken; you can watch the game")
            if not 0 <= seat < len(table.seats) or table.seats[seat].kind != "online":
                raise TableError("seat", f"seat {seat} is not an online seat of this table")
            if table.seats[seat].taken:
                raise TableError("seat-taken", "somebody sits there already; pick a free seat")
            if table.seats_of(token):
                raise TableError("seated", "you already sit at this table")
            player, secret = await self.store.identify(nickname, identity)
            if any(other.player == player.id for other in table.seats):
                raise TableError("seated", "you already sit at this table (in another window?)")
            # Players tell each other apart by nickname at a table.
            wanted = player.nickname.casefold()
            for other in table.seats:
                if other.nickname is not None and other.nickname.casefold() == wanted:
                    raise TableError(
                        "nickname-taken",
                        f"somebody at this table is called {other.nickname} already; "
                        "pick another nickname",
                    )
            seat_token = new_secret()
            table.seats[seat] = Seat(
                "online",
                player=player.id,
                nickname=player.nickname,
                token_hash=hash_secret(seat_token),
            )
            await self._commit(table, {"kind": "sit", "seat": seat, "nickname": player.nickname})
            if table.status == "playing":
                table.start_clock()
                await self._commit(table, {"kind": "start"})
        return {
            "type": "seated",
            "seat": seat,
            "token": seat_token,
            "player": _player(player, secret),
        }

    async def leave(self, table: Table, token: str | None) -> None:
        """Stand up from an online seat before the game starts."""
        async with table.lock:
            seats = [s for s in table.seats_of(token) if table.seats[s].kind == "online"]
            if not seats:
                raise TableError("not-your-seat", "you do not hold a seat at this table")
            if table.status != "waiting":
                raise TableError("started", "the game has started: resign instead")
            for seat in seats:
                table.seats[seat] = Seat("online")
            await self._commit(table, {"kind": "leave", "seat": seats[0]})

    async def rematch(self, table: Table, token: str | None) -> Table | None:
        """A new table with the same variant, clock and people (online: seats rotate, once
        every online player asked); None while others have not asked yet."""
        async with table.lock:
            seats = table.seats_of(token)
            if not seats:
                raise TableError("not-your-seat", "you do not hold a seat at this table")
            if table.rematch is not None:
                return await self.get(table.rematch)
            if not table.game.is_over:
                raise TableError("not-over", "a rematch is offered once the game is over")
            if table.online:
                table.rematch_offers |= set(seats)
                wanted = {s for s, seat in enumerate(table.seats) if seat.kind == "online"}
                if not wanted <= table.rematch_offers:
                    await self._commit(table, {"kind": "rematch-offer", "seat": seats[0]})
                    return None
            new = self._rematch_of(table)
            await self._insert(new)
            table.rematch = new.id
            await self._commit(table, {"kind": "rematch", "table": new.id})
            return new

    def _rematch_of(self, table: Table) -> Table:
        """The rematch: online players move one seat on (white plays black next time in
        a 2-player game); people on one screen keep their seats. Each keeps their token."""
        seats = list(table.seats)
        if table.online:
            seats = seats[-1:] + seats[:-1]
        return Table(
            id=secrets.token_urlsafe(9),
            rules=table.rules,
            seats=seats,
            token_hash=table.token_hash,
            seed=secrets.randbits(31),
            start=table.start,
            moves_made=table.moves_made,
            deadline_rule=table.deadline_rule,
            rated=table.rated,
            control=table.control,
            now=self.now,
            previous=table.id,
        )

    # -- helpers -------------------------------------------------------------
    def _check_creator(self, table: Table, token: str | None) -> None:
        if not table.person_seats() or not table.seats_of(token):
            raise TableError("not-your-seat", "you do not hold a seat at this table")

    def _check_turn(self, table: Table, token: str | None, seat: int) -> None:
        if seat not in table.seats_of(token):
            raise TableError("not-your-seat", f"you do not hold seat {seat} at this table")
        if table.game.is_over:
            raise TableError("over", "the game is over")
        if table.status == "waiting":
            raise TableError("not-started", "the game starts when every seat is taken")
        if table.game.turn != seat:
            raise TableError("not-your-turn", f"it is not {table.rules.seats[seat]}'s turn")

    def _acting_seat(self, table: Table, token: str | None, seat: int | None) -> int:
        """The seat a resignation is for: the one named, the one to move, or the only one."""
        held = table.seats_of(token)
        if not held:
            raise TableError("not-your-seat", "you do not hold a seat at this table")
        if table.status == "waiting":
            raise TableError("not-started", "the game has not started: stand up instead")
        if seat is None:
            turn = table.game.turn
            if turn is not None and turn in held:
                seat = turn
            elif len(held) == 1:
                seat = held[0]
            else:
                raise TableError("seat", "say which seat resigns")
        if seat not in held:
            raise TableError("not-your-seat", f"you do not hold seat {seat} at this table")
        return seat

    async def _flag_if_out(self, table: Table) -> None:
        """Record a flag the referee found (the seat to move is out of time)."""
        game = table.game
        if not game.is_over:
            game.check_time()
        result = game.result
        if result is None or result.ending != "flag" or result.seat is None:
            return
        if any(a.flag for a in table.actions):
            return
        table.actions.append(Action(result.seat, flag=True))
        table.generation += 1
        table.thinking = None
        await self._commit(table, {"kind": "flag", "seat": result.seat})
        raise TableError("flag", f"{table.rules.seats[result.seat]}'s time ran out")

    async def _commit(self, table: Table, event: dict[str, Any]) -> None:
        """Save the change and its event under the next version, then tell every viewer
        (nothing announced is ever lost on a restart), and let the computer or the clock
        act. A failed save drops this copy: the next command reloads the database's."""
        expected = table.version
        table.version += 1
        try:
            changes = await self.store.commit(
                table.stored(), event, expected=expected, rated=table.rated_game()
            )
        except VersionConflict:
            await self._forget(table)
            raise TableError("stale", "the game moved on; look at the board again") from None
        except DatabaseUnavailable:
            log.warning("table %s could not be saved: the database is unreachable", table.id)
            await self._forget(table)
            raise
        except Exception:
            log.exception("table %s could not be saved", table.id)
            await self._forget(table)
            raise TableError(
                "unsaved", "the server could not save that; nothing changed, try again"
            ) from None
        if changes is not None:
            table.ratings = changes
        await self.bus.publish(table.id, table.message(event))
        table.changed.set()
        self._after_change(table)

    async def _forget(self, table: Table) -> None:
        """Drop a copy that is ahead of (or behind) the database and show viewers the
        database's state."""
        table.dropped = True
        table.changed.set()
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        try:
            fresh = await self.get(table.id)
        except SternhalmaError:
            return
        await self.bus.publish(
            table.id, {"type": "sync", "v": fresh.version, "state": fresh.state()}
        )

    def _spawn(self, coroutine: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _after_change(self, table: Table, *, computer: bool = True) -> None:
        """Start the clock's watcher and (``computer``) the computer's turn when they are due."""
        if table.dropped:
            return
        running = table.game.clock is not None and table.status == "playing"
        if running and (table.watcher is None or table.watcher.done()):
            table.watcher = self._spawn(self._watch_clock(table))
        game = table.game
        turn = game.turn
        if not computer or table.status != "playing" or turn is None or table.thinking is not None:
            return
        seat = table.seats[turn]
        if seat.kind != "computer" or seat.level is None:
            return
        table.thinking = turn
        self._thinking.add(table.id)
        task = self._spawn(self._computer_turn(table, turn, seat.level, table.generation))
        task.add_done_callback(lambda _: self._thinking.discard(table.id))

    async def _computer_turn(self, table: Table, seat: int, level: str, generation: int) -> None:
        loop = asyncio.get_running_loop()
        async with table.lock:
            if table.generation != generation or table.game.turn != seat or table.dropped:
                return
            job = table.job(level)
            try:
                await self._commit(table, {"kind": "thinking", "seat": seat})
            except TableError:
                return
        started = loop.time()
        try:
            text = await self.workers.choose(job)
        except Exception:
            log.exception("the computer failed to choose a move at table %s", table.id)
            async with table.lock:
                if table.generation == generation and not table.dropped:
                    table.thinking = None
                    with contextlib.suppress(TableError):
                        await self._commit(
                            table, {"kind": "error", "seat": seat, "code": "computer-failed"}
                        )
            return
        await asyncio.sleep(max(0.0, self.pause - (loop.time() - started)))
        async with table.lock:
            if table.generation != generation or table.game.turn != seat or table.dropped:
                return
            table.thinking = None
            try:
                await self._flag_if_out(table)
                event = table.play(seat, table.rules.parse_move(table.game.position, text))
                await self._commit(table, event)
            except (TableError, GameError):
                return

    async def _watch_clock(self, table: Table) -> None:
        """While the table's clock runs: flag the seat to move when its time is gone, and
        save the clock every ``checkpoint`` seconds."""
        saved = self.now()
        while not table.dropped and table.status == "playing" and table.game.clock is not None:
            table.changed.clear()  # before looking: a change from now on wakes us
            clock = table.game.clock
            turn = table.game.turn
            if turn is None:
                return
            left = clock.remaining(turn)
            due = max(0, self.checkpoint * 1000 - (self.now() - saved))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(table.changed.wait(), (min(left, due) + 5) / 1000)
                continue  # something changed: look again
            async with table.lock:
                if table.dropped or table.status != "playing":
                    return
                if table.game.check_time():
                    with contextlib.suppress(TableError):
                        await self._flag_if_out(table)
                    return
                if self.now() - saved >= self.checkpoint * 1000:
                    saved = self.now()
                    await self._save_clock(table)

    async def _save_clock(self, table: Table) -> None:
        clock = table.stored_clock()
        if clock is None:
            return
        try:
            await self.store.checkpoint(table.id, table.version, clock)
        except Exception:
            log.exception("the clock of table %s could not be saved", table.id)

    def record(self, table: Table) -> str:
        return table.record()

    # -- several processes ------------------------------------------------------------
    def _observe(
        self, table_id: str, message: dict[str, Any], origin: str
    ) -> dict[str, Any] | None:
        """Another process's message for a table; what this process's viewers get."""
        if message.get("type") == "presence":
            return self._presence_from(table_id, message, origin)
        self._follow(table_id, message)
        return message

    def _follow(self, table_id: str, message: dict[str, Any]) -> None:
        """Bring this process's copy up to date with another process's change.

        The next move or "thinking" is applied to the copy (the referee checks the move
        again); anything else, a gap, or a copy busy with a command of its own drops
        the copy, and the database's copy replaces it."""
        table = self.tables.get(table_id)
        version = message.get("v")
        if not isinstance(version, int):
            return
        if table_id in self._loading and version > self._heard.get(table_id, 0):
            self._heard[table_id] = version
        if table is None or version <= table.version:
            return
        if table.lock.locked():
            # A command of this process is under way: apply after it (in arrival order).
            self._spawn(self._observe_later(table, message))
            return
        self._apply(table, message, version)

    async def _observe_later(self, table: Table, message: dict[str, Any]) -> None:
        async with table.lock:
            version = message["v"]
            if not table.dropped and version > table.version:
                self._apply(table, message, version)

    def _apply(self, table: Table, message: dict[str, Any], version: int) -> None:
        """Apply the next move or "thinking" to the copy; drop it for anything else."""
        event = message.get("event")
        if (
            message.get("type") == "event"
            and isinstance(event, dict)
            and version == table.version + 1
        ):
            try:
                if event.get("kind") == "move":
                    rules = table.rules
                    path = [rules.board.index(name) for name in event["path"]]
                    table.thinking = None
                    table.play(int(event["seat"]), rules.check_path(table.game.position, path))
                elif event.get("kind") == "thinking":
                    table.thinking = int(event["seat"])
                else:
                    raise LookupError(event.get("kind"))
            except (SternhalmaError, GameError, LookupError, TypeError, ValueError):
                pass
            else:
                table.version = version
                table.changed.set()
                return
        self._drop(table)
        self._spawn(self._reload(table.id))

    def _drop(self, table: Table) -> None:
        """Forget this process's copy (without telling anybody)."""
        table.dropped = True
        table.changed.set()
        if self.tables.get(table.id) is table:
            del self.tables[table.id]

    async def _reload(self, table_id: str) -> None:
        """Rebuild a dropped copy from the database (its clock is watched again)."""
        with contextlib.suppress(SternhalmaError):
            await self.get(table_id)

    def start(self, interval: float) -> None:
        """Sweep every ``interval`` seconds until ``close``."""

        async def sweeping() -> None:
            while True:
                await asyncio.sleep(interval)
                try:
                    await self.sweep()
                except Exception:
                    log.exception("the sweep failed")

        self._sweeper = asyncio.get_running_loop().create_task(sweeping())

    async def sweep(self) -> None:
        """Make good what another process or a lost message left undone: copies behind
        the database are rebuilt and their viewers sent a ``sync`` with the events they
        missed; every running clock is watched here too; a computer's turn nobody has
        played for ``takeover`` seconds is played here (the version check decides if
        two processes try)."""
        try:
            ids = sorted(set(self.tables) | set(self.bus.watched()))
            stored = await self.store.versions(ids)
            behind: dict[str, int] = {}
            for table_id in ids:
                table = self.tables.get(table_id)
                version = stored.get(table_id)
                if version is None or (
                    table is not None and (table.version == version or table.lock.locked())
                ):
                    continue
                # Under load many copies are a message behind for a few milliseconds: a
                # copy has missed one only if it is still behind at the next sweep.
                if table is not None and self._behind.get(table_id) != table.version:
                    behind[table_id] = table.version
                    continue
                await self._resync(table_id, table)
            self._behind = behind
            await self._refresh_presence()
            for table_id in await self.store.running_with_clock():
                if table_id not in self.tables:
                    await self._reload(table_id)
            for table_id in await self.store.stalled_computer_tables(self.takeover):
                if table_id in self._thinking:
                    continue
                table = await self.get(table_id)
                if not table.lock.locked() and not table.dropped:
                    table.thinking = None
                    self._after_change(table)
        except DatabaseUnavailable:
            if not self._unavailable:
                log.warning("the database is unreachable; the sweep waits for it")
            self._unavailable = True
            return
        self._unavailable = False

    async def _resync(self, table_id: str, table: Table | None) -> None:
        """Rebuild the table from the database and send this process's viewers a sync
        with the events after the version they were last sent."""
        since = None
        if table is not None:
            since = table.version
            self._drop(table)
        try:
            fresh = await self.get(table_id)
        except TableError:
            return
        missed = None
        if since is not None and since < fresh.version:
            missed = await self.store.events_since(table_id, since)
        self.bus.deliver(
            table_id,
            {"type": "sync", "v": fresh.version, "state": fresh.state(), "missed": missed},
        )

    async def close(self) -> None:
        """Stop: every running clock is saved as it is now and so paused until the next
        start (docs/deploy.md "Time while the server is down")."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for table in list(self.tables.values()):
            if table.status == "playing" and table.game.clock is not None:
                await self._save_clock(table)


def _player(player: Player, secret: str) -> dict[str, Any]:
    """The identity a browser keeps: public id, nickname and the secret that proves it."""
    return {"id": player.id, "nickname": player.nickname, "secret": secret}
