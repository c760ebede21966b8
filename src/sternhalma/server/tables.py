"""Tables: every game is a table on the server, with seats and a versioned event stream.

A seat is "a person at this browser" or "the computer at level X" (part 2
adds online seats with their own tokens). The browser that creates a table
gets a secret token that holds its person seats; nobody can act for a seat
they do not hold. One table's commands run one at a time under its lock;
every change bumps the version and is broadcast with the whole public state.
The computer thinks in a process pool and its move is shown after a short
pause, so a person can follow it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Literal

from sternhalma.errors import SternhalmaError
from sternhalma.game import Game
from sternhalma.notation import position_from_json, position_to_dict, position_to_json
from sternhalma.players import LEVELS
from sternhalma.position import Move
from sternhalma.rules import find_variant
from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules
from sternhalma.server import computer
from sternhalma.server.protocol import TableError
from sternhalma.server.store import Store, StoredTable

log = logging.getLogger(__name__)

#: The level that answers "hint": the strongest the players offer.
HINT_LEVEL = LEVELS[-1]


@dataclass(frozen=True)
class Seat:
    kind: Literal["person", "computer"]
    level: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "level": self.level}


def parse_seats(rules: Ruleset, data: object) -> list[Seat]:
    """The seats of a new table from the lobby's JSON; TableError says what is wrong."""
    if not isinstance(data, list) or len(data) != rules.players:
        raise TableError(
            "seats", f"{rules.id} needs exactly {rules.players} seats ({', '.join(rules.seats)})"
        )
    seats = []
    for colour, item in zip(rules.seats, data, strict=True):
        kind = item.get("kind") if isinstance(item, dict) else None
        if kind == "person":
            seats.append(Seat("person"))
        elif kind == "computer":
            level = item.get("level", "easy") if isinstance(item, dict) else None
            if level not in LEVELS:
                raise TableError(
                    "level",
                    f"{colour}: unknown computer level {level!r}; known: {', '.join(LEVELS)}",
                )
            seats.append(Seat("computer", level))
        else:
            raise TableError("seats", f'{colour}: a seat is {{"kind": "person"}} or "computer"')
    return seats


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


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Action:
    """One entry of a table's history: a move or a resignation by a seat."""

    seat: int
    move: str | None = None
    resign: bool = False

    def to_dict(self) -> dict[str, Any]:
        return (
            {"seat": self.seat, "resign": True}
            if self.resign
            else {"seat": self.seat, "move": self.move}
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Action:
        return cls(int(data["seat"]), data.get("move"), bool(data.get("resign", False)))


Listener = Callable[[dict[str, Any]], None]


@dataclass
class Table:
    id: str
    rules: Ruleset
    seats: list[Seat]
    token_hash: str
    seed: int
    start: str | None = None
    #: Own moves per seat before ``start`` (a game set up mid-way; the deadline counts them).
    moves_made: tuple[int, ...] | None = None
    deadline_rule: bool = True
    version: int = 0
    actions: list[Action] = field(default_factory=list)
    #: The seat the computer is thinking for, if any.
    thinking: int | None = None
    #: Bumped by undo, resignation and every move: a computer move computed for an
    #: older generation is dropped.
    generation: int = 0
    rematch: str | None = None
    game: Game = field(init=False)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    listeners: dict[int, Listener] = field(default_factory=dict, repr=False)

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
    def holds(self, token: str | None) -> bool:
        """Whether ``token`` is this table's secret (it holds every person seat)."""
        return token is not None and hmac.compare_digest(hash_token(token), self.token_hash)

    def person_seats(self) -> list[int]:
        return [s for s, seat in enumerate(self.seats) if seat.kind == "person"]

    @property
    def against_computer(self) -> bool:
        """Undo and hints are offered only when the computer plays (PRODUCT.md)."""
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

    # -- the public state ----------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything a viewer may see; sent with every event."""
        game = self.game
        position = game.position
        rules = self.rules
        turn = None if game.is_over else game.turn
        legal: list[list[str]] = []
        if turn is not None and self.seats[turn].kind == "person" and self.thinking is None:
            legal = [[rules.board.names[h] for h in move] for move in self._choices()]
        places = game.places
        seats = []
        for s, seat in enumerate(self.seats):
            entry: dict[str, Any] = {
                "colour": rules.seats[s],
                **seat.to_dict(),
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
            "seats": seats,
            "position": position_to_dict(position),
            "turn": turn,
            "thinking": self.thinking,
            "legal": legal,
            "moves": moves,
            "over": game.is_over,
            "result": self._result() if game.is_over else None,
            "can_undo": self.can_undo(),
            "can_hint": self.against_computer,
            "rematch": self.rematch,
        }

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

    def stored(self) -> StoredTable:
        return StoredTable(
            id=self.id,
            variant=self.rules.id,
            seats=[seat.to_dict() for seat in self.seats],
            start=self.start,
            moves_made=list(self.moves_made) if self.moves_made is not None else None,
            deadline_rule=self.deadline_rule,
            token_hash=self.token_hash,
            seed=self.seed,
            actions=[a.to_dict() for a in self.actions],
            version=self.version,
            over=self.game.is_over,
        )

    # -- changes ---------------------------------------------------------------
    def publish(self, event: dict[str, Any]) -> None:
        """Bump the version and send the event with the new state to every viewer."""
        self.version += 1
        self.broadcast(event)

    def broadcast(self, event: dict[str, Any]) -> None:
        """Send ``event`` with the current state (and version) to every viewer."""
        message = {"type": "event", "v": self.version, "event": event, "state": self.state()}
        for listener in list(self.listeners.values()):
            listener(message)

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
        """Rebuild the game from stored actions (checked by the referee again)."""
        self.game = self.new_game()
        self.actions = []
        for action in actions:
            if action.resign:
                self.game.resign(action.seat)
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


class Tables:
    """Every table of this server process: creation, loading, commands, the computer."""

    def __init__(self, store: Store, pool: Executor, *, pause: float = 0.6) -> None:
        self.store = store
        self.pool = pool
        #: Seconds between the turn passing to the computer and its move being shown.
        self.pause = pause
        self.tables: dict[str, Table] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def create(
        self,
        variant: str,
        seats: object,
        *,
        start: str | None = None,
        moves_made: object = None,
        deadline_rule: bool = True,
        token: str | None = None,
    ) -> tuple[Table, str]:
        """A new table and the token that holds its person seats.

        ``start`` (position JSON) and ``moves_made`` (own moves per seat so far)
        set a game up mid-way, e.g. to practise an ending.
        """
        rules = find_variant(variant)
        parsed = parse_seats(rules, seats)
        if start is not None:
            position = position_from_json(start)
            if position.rules is not rules:
                raise TableError(
                    "start", f"the start position is {position.rules.id}, not {rules.id}"
                )
            start = position_to_json(position)
        made = _moves_made(rules, moves_made)
        token = token or secrets.token_urlsafe(24)
        table = Table(
            id=secrets.token_urlsafe(9),
            rules=rules,
            seats=parsed,
            token_hash=hash_token(token),
            seed=secrets.randbits(31),
            start=start,
            moves_made=made,
            deadline_rule=deadline_rule,
        )
        self.tables[table.id] = table
        await self.store.save(table.stored())
        self._after_change(table)
        return table, token

    async def get(self, table_id: str) -> Table:
        """The table ``table_id``, from memory or rebuilt from the database."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        stored = await self.store.load(table_id)
        if stored is None:
            raise TableError("no-table", f"there is no table {table_id!r}")
        rules = find_variant(stored.variant)
        table = Table(
            id=stored.id,
            rules=rules,
            seats=parse_seats(rules, stored.seats),
            token_hash=stored.token_hash,
            seed=stored.seed,
            start=stored.start,
            moves_made=_moves_made(rules, stored.moves_made),
            deadline_rule=stored.deadline_rule,
        )
        try:
            table.replay([Action.from_dict(a) for a in stored.actions])
        except SternhalmaError as error:
            raise TableError(
                "broken-table", f"table {table_id} cannot be restored: {error}"
            ) from None
        table.version = stored.version
        self.tables.setdefault(table.id, table)
        self._after_change(self.tables[table.id])
        return self.tables[table.id]

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
        """Play a person's move. Returns a "confirm" question instead when the move
        would put the player out and was not confirmed."""
        async with table.lock:
            self._check_person_turn(table, token, seat)
            if version is not None and version != table.version:
                raise TableError("stale", "the game moved on; look at the board again")
            rules = table.rules
            try:
                move = rules.check_path(
                    table.game.position, [rules.board.index(name) for name in path]
                )
            except KeyError as error:
                raise TableError("hole", f"unknown hole {error.args[0]!r}") from None
            if not confirm and table.game.would_put_out(move):
                return {"type": "confirm", "seat": seat, "path": list(path)}
            event = table.play(seat, move)
            await self._changed(table, event)
        return None

    async def undo(self, table: Table, token: str | None) -> None:
        """Take back the last person's move and the computer's answers to it."""
        async with table.lock:
            self._check_holder(table, token)
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
            await self._changed(table, {"kind": "undo", "moves": undone})

    async def resign(self, table: Table, token: str | None, seat: int | None) -> None:
        async with table.lock:
            self._check_holder(table, token)
            seat = self._acting_seat(table, seat)
            table.game.resign(seat)
            table.actions.append(Action(seat, resign=True))
            table.generation += 1
            table.thinking = None
            await self._changed(table, {"kind": "resign", "seat": seat})

    async def hint(self, table: Table, token: str | None) -> dict[str, Any]:
        """The move the strongest level would play for the person to move (not broadcast)."""
        async with table.lock:
            self._check_holder(table, token)
            if not table.against_computer:
                raise TableError("no-hint", "hints are given only in games against the computer")
            turn = table.game.turn
            if table.game.is_over or turn is None or table.seats[turn].kind != "person":
                raise TableError("not-your-turn", "a hint is given when it is your turn")
            job = table.job(HINT_LEVEL)
            version = table.version
        text = await asyncio.get_running_loop().run_in_executor(self.pool, computer.choose, job)
        path = [table.rules.board.names[h] for h in table.rules.parse_path(text)]
        return {"type": "hint", "v": version, "seat": turn, "path": path}

    async def rematch(self, table: Table, token: str | None) -> Table:
        """A new table with the same variant and seats, announced to every viewer."""
        async with table.lock:
            self._check_holder(table, token)
            if table.rematch is not None:
                return await self.get(table.rematch)
            assert token is not None
            new, _ = await self.create(
                table.rules.id,
                [seat.to_dict() for seat in table.seats],
                start=table.start,
                moves_made=table.moves_made,
                deadline_rule=table.deadline_rule,
                token=token,
            )
            table.rematch = new.id
            await self._changed(table, {"kind": "rematch", "table": new.id})
            return new

    # -- helpers -------------------------------------------------------------
    def _check_holder(self, table: Table, token: str | None) -> None:
        if not table.holds(token):
            raise TableError("not-your-seat", "you do not hold a seat at this table")

    def _check_person_turn(self, table: Table, token: str | None, seat: int) -> None:
        self._check_holder(table, token)
        if not 0 <= seat < len(table.seats) or table.seats[seat].kind != "person":
            raise TableError("not-your-seat", f"seat {seat} is not a person's seat at this table")
        if table.game.is_over:
            raise TableError("over", "the game is over")
        if table.game.turn != seat:
            raise TableError("not-your-turn", f"it is not {table.rules.seats[seat]}'s turn")

    def _acting_seat(self, table: Table, seat: int | None) -> int:
        """The person seat a resignation is for: the one named, the one to move, or the only one."""
        persons = table.person_seats()
        if seat is None:
            turn = table.game.turn
            if turn is not None and turn in persons:
                seat = turn
            elif len(persons) == 1:
                seat = persons[0]
            else:
                raise TableError("seat", "say which seat resigns")
        if seat not in persons:
            raise TableError("not-your-seat", f"seat {seat} is not a person's seat at this table")
        return seat

    async def _changed(self, table: Table, event: dict[str, Any]) -> None:
        """Save, then tell every viewer (nothing announced is lost on a restart),
        and let the computer move if it is its turn."""
        table.version += 1
        await self.store.save(table.stored())
        table.broadcast(event)
        self._after_change(table)

    def _after_change(self, table: Table) -> None:
        game = table.game
        turn = game.turn
        if game.is_over or turn is None or table.thinking is not None:
            return
        seat = table.seats[turn]
        if seat.kind != "computer" or seat.level is None:
            return
        table.thinking = turn
        table.publish({"kind": "thinking", "seat": turn})
        job = table.job(seat.level)
        task = asyncio.get_running_loop().create_task(
            self._computer_move(table, turn, job, table.generation)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _computer_move(
        self, table: Table, seat: int, job: computer.Job, generation: int
    ) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            text = await loop.run_in_executor(self.pool, computer.choose, job)
        except Exception:
            log.exception("the computer failed to choose a move at table %s", table.id)
            async with table.lock:
                if table.generation == generation:
                    table.thinking = None
                    table.publish({"kind": "error", "seat": seat, "code": "computer-failed"})
            return
        await asyncio.sleep(max(0.0, self.pause - (loop.time() - started)))
        async with table.lock:
            if table.generation != generation or table.game.turn != seat:
                return
            table.thinking = None
            event = table.play(seat, table.rules.parse_move(table.game.position, text))
            await self._changed(table, event)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
