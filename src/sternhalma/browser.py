"""The local game in the player's browser: a table on one screen that runs in a Web
Worker on Pyodide (docs/browser.md), with nobody but the browser involved.

The worker (web/js/engine-worker.js) hands every message of the table page to
``LocalTables.receive`` and posts the answers back. The messages are those of the
server's table socket (docs/protocol.md: ``hello``, ``move``, ``undo``, ``hint``,
``resign``, ``look``, ``rematch``, ``ping`` in; ``welcome``, ``event``, ``confirm``,
``hint``, ``look``, ``pong``, ``error`` out), so one table page serves both. Three
more belong to the browser alone: ``open`` (the table as the browser keeps it, the
first message), ``record`` (the game record as text) and, out, ``saved`` (the table
to keep in localStorage after every change).

The computer's turn is three calls, so the worker can show its move after a pause
and hear the page meanwhile: ``computer_turn`` (the "thinking" event), ``think``
(the chosen move; Hard searches with the pure-Python fallback here, players/fallback.py,
limited by time) and ``computer_plays`` (the move, unless the table moved on meanwhile).

Only the standard library and the engine: this module is part of the engine's wheel.
"""

from __future__ import annotations

import json
import random
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sternhalma import table_rules
from sternhalma.errors import SternhalmaError, TableError
from sternhalma.game import Game
from sternhalma.jsontext import JsonTextError, read_json
from sternhalma.notation import position_from_json, position_to_dict, position_to_json
from sternhalma.players import LEVELS, Choice, Limit, make_player
from sternhalma.players.timeman import DEFAULT_SECONDS
from sternhalma.position import Move
from sternhalma.records import write_record
from sternhalma.rules import find_variant
from sternhalma.rules.base import Ruleset
from sternhalma.table_view import (
    hint_line,
    hint_reply,
    legal_paths,
    move_list,
    result_of,
    seat_progress,
)

#: The protocol version the server's welcome carries (server/protocol.py).
PROTOCOL = 2
#: The most characters a message may have, as on the server's socket; ``open`` carries
#: a whole game and may be longer.
MAX_MESSAGE = 4096
MAX_OPEN = 1_000_000
#: The computer's limit in the browser: Hard searches until its time is up (the
#: pure-Python search runs fewer nodes a second than the server's compiled core,
#: docs/browser.md, so an allowance in nodes would make it slower, not stronger: this
#: many nodes never end it).
UNBOUNDED_NODES = 10**9
BROWSER_LIMIT = Limit(seconds=DEFAULT_SECONDS, nodes=UNBOUNDED_NODES)
#: The level a hint is the move of: the strongest.
HINT_LEVEL = LEVELS[-1]
#: The table kinds of seat on one screen.
SEAT_KINDS = ("person", "computer")


def error(code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message}


@dataclass
class Seat:
    kind: str
    level: str | None = None

    def public(self) -> dict[str, Any]:
        return {"kind": self.kind, "level": self.level}


@dataclass
class Action:
    """A move (its text) or a resignation of a seat."""

    seat: int
    move: str | None = None
    resign: bool = False

    def to_dict(self) -> dict[str, Any]:
        if self.resign:
            return {"seat": self.seat, "resign": True}
        return {"seat": self.seat, "move": self.move}


def _new_id() -> str:
    return "local-" + secrets.token_urlsafe(9).replace("_", "-")


@dataclass
class LocalTable:
    """One game on one screen: person and computer seats, no clock, no online seat."""

    id: str
    rules: Ruleset
    seats: list[Seat]
    seed: int
    start: str | None = None
    moves_made: tuple[int, ...] | None = None
    deadline_rule: bool = True
    created: str = field(default_factory=lambda: datetime.now(UTC).date().isoformat())
    previous: str | None = None
    rematch: str | None = None
    version: int = 0
    actions: list[Action] = field(default_factory=list)
    thinking: int | None = None
    #: Bumped by every change: a computer move chosen for an older one is dropped.
    generation: int = 0
    game: Game = field(init=False)

    def __post_init__(self) -> None:
        self.game = self.new_game()

    def new_game(self) -> Game:
        return Game(
            self.rules,
            start=position_from_json(self.start) if self.start else None,
            deadline_rule=self.deadline_rule,
            moves_made=self.moves_made,
        )

    # -- reading and keeping -------------------------------------------------------
    @classmethod
    def read(cls, data: object) -> LocalTable:
        """A table from what the lobby asked for or the browser kept (``saved``);
        TableError says what is wrong."""
        if not isinstance(data, dict):
            raise TableError("ProtocolError", '"open" needs the table as an object')
        table_id = data.get("id")
        if table_id is None:
            table_id = _new_id()
        if not isinstance(table_id, str) or not table_id.startswith("local-") or len(table_id) > 40:
            raise TableError("ProtocolError", 'a local table\'s "id" starts with "local-"')
        variant = data.get("variant")
        if not isinstance(variant, str):
            raise TableError("ProtocolError", 'a local table needs "variant" and "seats"')
        rules = find_variant(variant[:40])
        seats = _read_seats(rules, data.get("seats"))
        start = data.get("start")
        if start is not None:
            if not isinstance(start, str | dict):
                raise TableError("start", '"start" is a position (docs/rules.md)')
            position = position_from_json(start if isinstance(start, str) else json.dumps(start))
            if position.rules is not rules:
                raise TableError(
                    "start", f"the start position is {position.rules.id}, not {rules.id}"
                )
            start = position_to_json(position)
        made = data.get("moves_made")
        if made is not None and (
            not isinstance(made, list)
            or len(made) != rules.players
            or not all(
                isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 1000 for n in made
            )
        ):
            raise TableError(
                "moves_made",
                f'"moves_made" needs one whole number of at least 0 per seat ({rules.players})',
            )
        seed = data.get("seed")
        table = cls(
            id=table_id,
            rules=rules,
            seats=seats,
            seed=seed
            if isinstance(seed, int) and not isinstance(seed, bool)
            else secrets.randbits(31),
            start=start,
            moves_made=tuple(made) if made is not None else None,
            deadline_rule=data.get("deadline_rule") is not False,
            previous=_text_or_none(data.get("previous")),
            rematch=_text_or_none(data.get("rematch")),
        )
        if isinstance(data.get("created"), str):
            table.created = data["created"][:10]
        table.replay(data.get("actions", []))
        return table

    def replay(self, actions: object) -> None:
        """Play the kept actions again (the referee checks them again)."""
        if not isinstance(actions, list):
            raise TableError("ProtocolError", '"actions" is a list')
        for item in actions:
            if not isinstance(item, dict) or not isinstance(item.get("seat"), int):
                raise TableError(
                    "ProtocolError", 'an action is {"seat", "move"} or {"seat", "resign"}'
                )
            seat = item["seat"]
            if item.get("resign") is True:
                self.game.resign(seat)
                self.actions.append(Action(seat, resign=True))
            elif isinstance(item.get("move"), str):
                self.play(seat, item["move"])
            else:
                raise TableError(
                    "ProtocolError", 'an action is {"seat", "move"} or {"seat", "resign"}'
                )
        self.version = len(self.actions)

    def saved(self) -> dict[str, Any]:
        """What the browser keeps to open the table again (localStorage)."""
        return {
            "id": self.id,
            "variant": self.rules.id,
            "seats": [seat.public() for seat in self.seats],
            "seed": self.seed,
            "start": self.start,
            "moves_made": list(self.moves_made) if self.moves_made is not None else None,
            "deadline_rule": self.deadline_rule,
            "created": self.created,
            "previous": self.previous,
            "rematch": self.rematch,
            "actions": [action.to_dict() for action in self.actions],
        }

    # -- who may do what -----------------------------------------------------------
    @property
    def kinds(self) -> list[str]:
        return [seat.kind for seat in self.seats]

    def person_seats(self) -> list[int]:
        return table_rules.person_seats(self.kinds)

    @property
    def against_computer(self) -> bool:
        return table_rules.against_computer(self.kinds)

    def can_undo(self) -> bool:
        return table_rules.can_undo(self.kinds, self.game, self.actions)

    # -- the public state ----------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The state as the server's table sends it (docs/protocol.md): no clock, no
        online seat, nobody else present."""
        game = self.game
        over = game.is_over
        turn = None if over else game.turn
        legal: list[list[str]] = []
        if turn is not None and self.seats[turn].kind == "person" and self.thinking is None:
            legal = legal_paths(game)
        return {
            "id": self.id,
            "v": self.version,
            "variant": self.rules.id,
            "game": self.rules.game,
            "status": "over" if over else "playing",
            "online": False,
            "rated": False,
            "deadline_rule": self.deadline_rule,
            "seats": [
                {**seat_progress(game, s), **seat.public()} for s, seat in enumerate(self.seats)
            ],
            "position": position_to_dict(game.position),
            "turn": turn,
            "thinking": self.thinking,
            "legal": legal,
            "moves": move_list((a.seat, a.move) for a in self.actions if a.move is not None),
            "clock": None,
            "over": over,
            "result": result_of(game) if over else None,
            "ratings": None,
            "unrated": None,
            "can_undo": self.can_undo(),
            "can_hint": self.against_computer,
            "can_abort": False,
            "rematch": self.rematch,
            "rematch_offers": [],
            "previous": self.previous,
            "present": self.person_seats(),
            "watchers": 0,
            "countdowns": [],
            "engine": "browser",
        }

    def record(self) -> str:
        names = [
            f"Computer ({str(seat.level).capitalize()})"
            if seat.kind == "computer"
            else "Person at this screen"
            for seat in self.seats
        ]
        return write_record(
            self.game, players=names, date=self.created, extra={"Table": self.id, "Rated": "no"}
        )

    # -- changes -------------------------------------------------------------------
    def play(self, seat: int, move: Move | str) -> dict[str, Any]:
        rules = self.rules
        before = self.game.position
        played = self.game.play(move, seat=seat)
        self.actions.append(Action(seat, rules.format_move(played)))
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

    def choose(self, level: str) -> Choice:
        """What ``level`` chooses for the seat to move (``BROWSER_LIMIT``); Hard's from a
        start position is its book's (players/hard.py)."""
        player = make_player(level, self.seed + len(self.actions))
        return player.choose(self.game.copy(), BROWSER_LIMIT)


def _text_or_none(value: object) -> str | None:
    return value[:40] if isinstance(value, str) else None


def _read_seats(rules: Ruleset, data: object) -> list[Seat]:
    seats = [Seat(kind, level) for kind, level in table_rules.read_seats(rules, data, SEAT_KINDS)]
    if not any(seat.kind == "person" for seat in seats):
        raise TableError("seats", "a local game needs a person in at least one seat")
    return seats


def _path(data: dict[str, Any]) -> list[str]:
    path = data.get("path")
    if (
        not isinstance(path, list)
        or not 2 <= len(path) <= 200
        or not all(isinstance(h, str) for h in path)
    ):
        raise TableError("ProtocolError", '"path" is a list of hole names, like ["m1", "m3"]')
    return path


def _seat_field(data: dict[str, Any], name: str = "seat") -> int | None:
    seat = data.get(name)
    if seat is None:
        return None
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise TableError("ProtocolError", f'"{name}" is a whole number')
    return seat


class LocalTables:
    """The tables of this browser tab's worker, answering the table page's messages.

    Every method takes and gives JSON text (a message, or a list of them), so the
    worker passes strings and no Python object crosses into JavaScript.
    """

    def __init__(self) -> None:
        self.tables: dict[str, LocalTable] = {}
        self.current: LocalTable | None = None

    def receive(self, text: str) -> str:
        """The answers to one message of the page, as a JSON list."""
        try:
            replies = self._handle(_read_message(text))
        except TableError as refused:
            replies = [error(refused.code, str(refused))]
        except SternhalmaError as refused:
            replies = [error(type(refused).__name__, str(refused))]
        if any(r.get("type") == "error" for r in replies) and self.current is not None:
            replies[-1]["state"] = self.current.state()
        return json.dumps(replies)

    def _handle(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        kind = data.get("type")
        if kind == "open":
            opened = LocalTable.read(data.get("table"))
            self.tables[opened.id] = self.current = opened
            return [{"type": "saved", "table": opened.saved()}]
        if kind == "ping":
            return [{"type": "pong", "v": self.current.version if self.current else 0}]
        table = self.current
        if table is None:
            raise TableError("no-table", 'no table is open here: send "open" first')
        if kind == "hello":
            return [
                {
                    "type": "welcome",
                    "protocol": PROTOCOL,
                    "v": table.version,
                    "seats": table.person_seats(),
                    "missed": None,
                    "state": table.state(),
                    "chat": [],
                }
            ]
        if kind == "move":
            return self._move(table, data)
        if kind == "undo":
            return self._undo(table)
        if kind == "resign":
            return self._resign(table, _seat_field(data))
        if kind == "hint":
            return self._hint(table)
        if kind == "look":
            return self._look(table, data.get("ply"))
        if kind == "rematch":
            return self._rematch(table)
        if kind == "record":
            return [{"type": "record", "text": table.record()}]
        if kind in ("sit", "leave", "abort", "claim", "chat"):
            raise TableError(
                "ProtocolError", f'"{kind}" is for online tables; this game is on this screen'
            )
        raise TableError("ProtocolError", f"unknown message type {str(kind)[:30]!r}")

    def _changed(self, table: LocalTable, event: dict[str, Any]) -> list[dict[str, Any]]:
        table.version += 1
        return [
            {"type": "event", "v": table.version, "event": event, "state": table.state()},
            {"type": "saved", "table": table.saved()},
        ]

    def _move(self, table: LocalTable, data: dict[str, Any]) -> list[dict[str, Any]]:
        seat = _seat_field(data)
        path = _path(data)
        version = data.get("v")
        if seat is None or not 0 <= seat < len(table.seats) or table.seats[seat].kind != "person":
            raise TableError("not-your-seat", f"you do not hold seat {seat} at this table")
        if table.game.is_over:
            raise TableError("over", "the game is over")
        if table.game.turn != seat or table.thinking is not None:
            raise TableError("not-your-turn", f"it is not {table.rules.seats[seat]}'s turn")
        if version is not None and version != table.version:
            raise TableError("stale", "the game moved on; look at the board again")
        rules = table.rules
        try:
            holes = [rules.board.index(name) for name in path]
        except KeyError as unknown:
            raise TableError("hole", f"unknown hole {str(unknown.args[0])[:20]!r}") from None
        move = rules.check_path(table.game.position, holes)
        if data.get("confirm") is not True and table.game.would_put_out(move):
            return [{"type": "confirm", "seat": seat, "path": path}]
        return self._changed(table, table.play(seat, move))

    def _undo(self, table: LocalTable) -> list[dict[str, Any]]:
        undone = table_rules.take_back(table.kinds, table.game, table.actions)
        table.generation += 1
        table.thinking = None
        return self._changed(table, {"kind": "undo", "moves": undone})

    def _resign(self, table: LocalTable, seat: int | None) -> list[dict[str, Any]]:
        if table.game.is_over:
            raise TableError("over", "the game is over")
        people = table.person_seats()
        if seat is None:
            turn = table.game.turn
            if turn in people:
                seat = turn
            elif len(people) == 1:
                seat = people[0]
            else:
                raise TableError("seat", "say which seat resigns")
        if seat not in people:
            raise TableError("not-your-seat", f"you do not hold seat {seat} at this table")
        table.game.resign(seat)
        table.actions.append(Action(seat, resign=True))
        table.generation += 1
        table.thinking = None
        return self._changed(table, {"kind": "resign", "seat": seat})

    def _hint(self, table: LocalTable) -> list[dict[str, Any]]:
        if not table.against_computer:
            raise TableError("no-hint", "hints are given only in games against the computer")
        turn = table.game.turn
        if table.game.is_over or turn is None or table.seats[turn].kind != "person":
            raise TableError("not-your-turn", "a hint is given when it is your turn")
        choice = table.choose(HINT_LEVEL)
        move = table.rules.format_move(choice.move)
        line = hint_line(table.game, choice)
        return [hint_reply(table.rules, table.version, turn, move, line)]

    def _look(self, table: LocalTable, ply: object) -> list[dict[str, Any]]:
        moves = [a.move for a in table.actions if a.move is not None]
        if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= len(moves):
            raise TableError("ply", f"the game has only {len(moves)} moves")
        game = table.new_game()
        for text in moves[:ply]:
            game.play(text)
        return [{"type": "look", "ply": ply, "position": position_to_dict(game.position)}]

    def _rematch(self, table: LocalTable) -> list[dict[str, Any]]:
        if not table.game.is_over:
            raise TableError("not-over", "a rematch is offered once the game is over")
        if table.rematch is None:
            new = LocalTable(
                id=_new_id(),
                rules=table.rules,
                seats=list(table.seats),
                seed=random.getrandbits(31),
                start=table.start,
                moves_made=table.moves_made,
                deadline_rule=table.deadline_rule,
                previous=table.id,
            )
            self.tables[new.id] = new
            table.rematch = new.id
        replies = [{"type": "saved", "table": self.tables[table.rematch].saved()}]
        return replies + self._changed(table, {"kind": "rematch", "table": table.rematch})

    # -- the computer's turn -------------------------------------------------------
    def computer_turn(self) -> str:
        """The "thinking" event when a computer seat is to move and nobody thinks yet
        (a JSON list, empty otherwise)."""
        table = self.current
        if table is None or table.game.is_over or table.thinking is not None:
            return "[]"
        turn = table.game.turn
        if turn is None or table.seats[turn].kind != "computer":
            return "[]"
        table.thinking = turn
        return json.dumps(self._changed(table, {"kind": "thinking", "seat": turn})[:1])

    def think(self) -> str:
        """The thinking seat's move: ``{"table", "generation", "move"}`` (JSON)."""
        table = self.current
        if table is None or table.thinking is None:
            return "null"
        level = table.seats[table.thinking].level or "easy"
        return json.dumps(
            {
                "table": table.id,
                "generation": table.generation,
                "move": table.rules.format_move(table.choose(level).move),
            }
        )

    def computer_plays(self, choice: str) -> str:
        """The computer's move as events, unless its table moved on since ``think``."""
        data = json.loads(choice)
        table = self.tables.get(data["table"]) if isinstance(data, dict) else None
        if table is None or table.generation != data["generation"] or table.thinking is None:
            return "[]"
        seat = table.thinking
        table.thinking = None
        event = table.play(seat, table.rules.parse_move(table.game.position, data["move"]))
        return json.dumps(self._changed(table, event))


def _read_message(text: str) -> dict[str, Any]:
    """One message of the page: a JSON object with a "type", at most MAX_MESSAGE long
    (``open``: MAX_OPEN), read by the project's one JSON reader."""
    too_long = f"a message is JSON text of at most {MAX_MESSAGE} characters"
    if not isinstance(text, str) or len(text) > MAX_OPEN:
        raise TableError("ProtocolError", too_long)
    try:
        data = read_json(text)
    except JsonTextError as bad:
        raise TableError("ProtocolError", f"a message must be JSON: {bad}") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise TableError("ProtocolError", 'a message is a JSON object with a "type"')
    if data["type"] != "open" and len(text) > MAX_MESSAGE:
        raise TableError("ProtocolError", too_long)
    return data
