"""One table's state: seats, the referee, the clock, the history, the version, and what
viewers see of it.

A ``Table`` is what is stored and replayed, with the rules of who may do what. It
is plain data: no lock, no task, no database, no bus, no computer. What only runs
in this process (the lock, the clock's watcher, the computer's jobs, who is here)
is its ``LiveTable`` (tables/live.py).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sternhalma import table_rules
from sternhalma.clock import Clock, TimeControl, TimeSource, monotonic_ms
from sternhalma.errors import SternhalmaError
from sternhalma.game import ANYTIME, OWNER_LEAVING, Game
from sternhalma.notation import position_from_json, position_to_dict
from sternhalma.position import Move
from sternhalma.rating import is_rated
from sternhalma.records import write_record
from sternhalma.rules import find_variant
from sternhalma.rules.base import Ruleset
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.identities import share_an_address
from sternhalma.server.storage.stored import RatedGame, StoredClock, StoredTable, wall_ms
from sternhalma.server.storage.tokens import hash_secret
from sternhalma.server.tables.seats import Seat
from sternhalma.table_view import legal_paths, move_list, result_of, seat_progress


def parse_moves_made(rules: Ruleset, value: object) -> tuple[int, ...] | None:
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


#: Why a game was aborted: a player's button, or a first move that did not come in time.
ABORTS = ("button", "no-first-move")
#: What the others did with the seat of a player who left (tables/claims.py): counted
#: as resigned ("abandoned"), a draw called (two players), or handed to the computer.
CLAIMS = ("abandoned", "draw", "computer")


@dataclass
class Action:
    """One entry of a table's history: a move, a resignation, a flag or an abort (the
    seat that aborted, or whose first move did not come) of a seat."""

    seat: int
    move: str | None = None
    resign: bool = False
    flag: bool = False
    abort: str | None = None
    #: One of CLAIMS: ``seat`` is the seat of the player who left.
    claim: str | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.claim is not None:
            return {"seat": self.seat, "claim": self.claim}
        if self.resign:
            return {"seat": self.seat, "resign": True}
        if self.flag:
            return {"seat": self.seat, "flag": True}
        if self.abort is not None:
            return {"seat": self.seat, "abort": self.abort}
        return {"seat": self.seat, "move": self.move}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Action:
        abort = data.get("abort")
        claim = data.get("claim")
        return cls(
            int(data["seat"]),
            data.get("move"),
            bool(data.get("resign", False)),
            bool(data.get("flag", False)),
            abort if abort in ABORTS else None,
            claim if claim in CLAIMS else None,
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
    #: Seconds: a game between identities made from one address this close together is
    #: not rated (IdentityRules.same_address; 0: always rated).
    same_address: float = 0.0
    created: datetime = field(default_factory=lambda: datetime.now(UTC))
    game: Game = field(init=False)
    #: The finishing rule the game is refereed by (sternhalma.game.FINISH_RULES): today's,
    #: or the earlier one for a game stored before it (``replay``).
    finish_rule: str = OWNER_LEAVING

    def __post_init__(self) -> None:
        self.game = self.new_game()

    def new_game(self) -> Game:
        return Game(
            self.rules,
            start=position_from_json(self.start) if self.start else None,
            deadline_rule=self.deadline_rule,
            moves_made=self.moves_made,
            finish_rule=self.finish_rule,
        )

    # -- who may do what -----------------------------------------------------
    @property
    def online(self) -> bool:
        return any(seat.kind == "online" for seat in self.seats)

    @property
    def status(self) -> str:
        """``waiting`` (an online seat is free), ``playing``, ``over`` or ``aborted``."""
        if self.aborted is not None:
            return "aborted"
        if self.game.is_over:
            return "over"
        if not all(seat.taken for seat in self.seats):
            return "waiting"
        return "playing"

    @property
    def over(self) -> bool:
        """Whether the game ended, with a result or aborted."""
        return self.status in ("over", "aborted")

    @property
    def aborted(self) -> Action | None:
        """The abort that ended the game (always the last action), if it was aborted."""
        last = self.actions[-1] if self.actions else None
        return last if last is not None and last.abort is not None else None

    def first_move_pending(self, seat: int) -> bool:
        """Whether the online player at ``seat`` is yet to make a first move in a game
        that can be aborted (the computer is never timed out)."""
        return (
            self.seats[seat].kind == "online"
            and self.can_abort()
            and not any(a.seat == seat and a.move for a in self.actions)
        )

    def can_abort(self) -> bool:
        """A game of online players (two or more) can be aborted while some player has
        not made a first move."""
        moved = {a.seat for a in self.actions if a.move is not None}
        people = sum(1 for seat in self.seats if seat.kind == "online")
        return people >= 2 and self.status == "playing" and len(moved) < len(self.seats)

    @property
    def unrated(self) -> str | None:
        """Why a rated table's game will not be rated: ``same-address`` when two of its
        players' identities were made from one address within ``same_address`` seconds."""
        origins = [seat.origin for seat in self.seats if seat.origin is not None]
        if self.rated and share_an_address(origins, self.same_address):
            return "same-address"
        return None

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

    def check_creator(self, token: str | None) -> None:
        """Undo and hints: only the browser that holds the person seats may ask."""
        if not self.person_seats() or not self.seats_of(token):
            raise TableError("not-your-seat", "you do not hold a seat at this table")

    def check_turn(self, token: str | None, seat: int) -> None:
        """A move: ``token`` holds ``seat``, the game is being played and it is its turn."""
        if seat not in self.seats_of(token):
            raise TableError("not-your-seat", f"you do not hold seat {seat} at this table")
        if self.over:
            raise TableError("over", "the game is over")
        if self.status == "waiting":
            raise TableError("not-started", "the game starts when every seat is taken")
        if self.game.turn != seat:
            raise TableError("not-your-turn", f"it is not {self.rules.seats[seat]}'s turn")

    def acting_seat(self, token: str | None, seat: int | None) -> int:
        """The seat a resignation is for: the one named, the one to move, or the only one."""
        held = self.seats_of(token)
        if not held:
            raise TableError("not-your-seat", "you do not hold a seat at this table")
        if self.status == "waiting":
            raise TableError("not-started", "the game has not started: stand up instead")
        if self.over:
            raise TableError("over", "the game is over")
        if seat is None:
            turn = self.game.turn
            if turn is not None and turn in held:
                seat = turn
            elif len(held) == 1:
                seat = held[0]
            else:
                raise TableError("seat", "say which seat resigns")
        if seat not in held:
            raise TableError("not-your-seat", f"you do not hold seat {seat} at this table")
        if self.can_abort():
            raise TableError(
                "abort-instead",
                "not every player has made a first move, so nobody can lose yet: "
                "abort the game instead",
            )
        return seat

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
    def state(self, present: list[int] | None = None, watchers: int = 0) -> dict[str, Any]:
        """Everything a viewer may see; sent with every event. Who is at the table now
        (the seats ``present``, how many ``watchers``) is not stored: the caller knows."""
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
            legal = legal_paths(game)
        seats = [{**seat_progress(game, s), **seat.public()} for s, seat in enumerate(self.seats)]
        moves = move_list((a.seat, a.move) for a in self.actions if a.move is not None)
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
            "over": self.over,
            "result": self._result() if self.over else None,
            "ratings": self.ratings,
            "unrated": self.unrated,
            "can_undo": self.can_undo(),
            "can_hint": self.against_computer,
            "can_abort": self.can_abort(),
            "rematch": self.rematch,
            "rematch_offers": sorted(self.rematch_offers),
            "previous": self.previous,
            "present": list(present or ()),
            "watchers": watchers,
        }

    def _result(self) -> dict[str, Any]:
        aborted = self.aborted
        if aborted is not None:
            who = self.rules.seats[aborted.seat].capitalize()
            reason = (
                f"{who} aborted the game"
                if aborted.abort == "button"
                else f"{who} did not make a first move in time"
            )
            return {
                "places": [],
                "team_places": [],
                "ending": "aborted",
                "abort": aborted.abort,
                "reason": f"{reason}: nobody wins, and it is not rated.",
                "seat": aborted.seat,
            }
        return result_of(self.game)

    def rated_game(self) -> RatedGame | None:
        """The finished game for the ratings, when this table is rated and not yet rated."""
        if not self.rated or not self.game.is_over or self.ratings is not None or self.unrated:
            return None
        # A seat handed to the computer (its player left) still belongs to its player.
        computers = sum(1 for seat in self.seats if seat.kind == "computer" and not seat.player)
        if not is_rated(self.rules, rated_table=True, computer_seats=computers):
            return None
        players = tuple(seat.player for seat in self.seats if seat.player is not None)
        result = self.game.result
        if len(players) != len(self.seats) or result is None:
            return None
        # docs/ratings.md: a player who left and whose seat was handed to the computer is
        # rated last, as if resigned when it was handed; the others by their places.
        handed = {a.seat for a in self.actions if a.claim == "computer"}
        places = tuple(
            len(self.seats) if s in handed else place for s, place in enumerate(result.places)
        )
        return RatedGame(self.rules.id, players, places)

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
            result=self._result() if self.over else None,
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
            extra={"Table": self.id, **self._rated_tags()},
        )

    def _rated_tags(self) -> dict[str, str]:
        """What the record says of the ratings: ``Rated "yes"`` only when the ratings
        changed; a rated table's game that was not rated says why (``Unrated``)."""
        if self.ratings is not None:
            return {"Rated": "yes"}
        if not self.rated:
            return {"Rated": "no"}
        why = self.unrated or ("aborted" if self.aborted is not None else None)
        if why is None and not self.over:
            return {"Rated": "pending"}
        return {"Rated": "no", "Unrated": why or "not-rated"}

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

    def abort(self, seat: int, why: str) -> dict[str, Any]:
        """End the game without a result (``why`` in ABORTS); the event that says so."""
        self.actions.append(Action(seat, abort=why))
        self.generation += 1
        self.thinking = None
        if self.game.clock is not None:
            self.game.clock.stop()
        return {"kind": "abort", "seat": seat, "abort": why}

    def apply_claim(self, action: Action) -> None:
        """The others' claim on the seat of a player who left (tables/claims.py): the game
        ends by ``abandoned`` or ``draw-claimed``, or goes on with the computer in the
        seat (the seat itself is changed by the caller; it is stored as changed)."""
        if action.claim == "abandoned":
            self.game.abandon(action.seat)
        elif action.claim == "draw":
            self.game.call_draw(action.seat)
        self.actions.append(action)
        self.generation += 1

    def replay(self, actions: list[Action], result: dict[str, Any] | None = None) -> None:
        """Rebuild the game from stored actions (checked by the referee again); the
        clock is attached afterwards, so replaying charges nobody's time.

        A game stored before today's finishing rule (rules.md#finishing, issue 30)
        that this rule cannot replay, or would end otherwise than its stored ``result``,
        is replayed by the earlier rule it was played by, and so keeps its result.
        """
        for rule in (OWNER_LEAVING, ANYTIME):
            self.finish_rule = rule
            try:
                self._replay(actions)
            except SternhalmaError:
                continue
            if result is None or (self.over and _same_end(self._result(), result)):
                return
        self.finish_rule = OWNER_LEAVING
        self._replay(actions)  # today's rule, its error and its end, as before

    def _replay(self, actions: list[Action]) -> None:
        self.game = self.new_game()
        self.actions = []
        for action in actions:
            if action.resign:
                self.game.resign(action.seat)
                self.actions.append(action)
            elif action.flag:
                self.game.flag(action.seat)
                self.actions.append(action)
            elif action.abort is not None:
                self.actions.append(action)
            elif action.claim is not None:
                self.apply_claim(action)
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


def _same_end(result: dict[str, Any], stored: dict[str, Any]) -> bool:
    """Whether a replayed result is the stored one (the reason is for people only)."""
    return all(result.get(key) == stored.get(key) for key in ("places", "team_places", "ending"))


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
                "player": seat.get("player"),
                "taken": seat.get("kind") != "online" or bool(seat.get("token_hash")),
            }
            for colour, seat in zip(rules.seats, stored.seats, strict=False)
        ],
        "clock": stored.clock.control if stored.clock is not None else None,
        "rated": stored.rated,
    }
