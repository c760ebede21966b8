"""The commands a table takes: create, move, undo, resign, abort, sit, leave and rematch.

Each runs under the table's lock, checks who may act (tables/table.py), changes
the table and commits the change (tables/copies.py) before anybody hears of it.
A refused command changes nothing: every check comes before the first change, and
a player who sits down is written to the database with the sit, or not at all.
The computer's turn and hints are in tables/computer_turns.py.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from sternhalma.game import GameError
from sternhalma.notation import position_from_json, position_to_json
from sternhalma.rules import find_variant
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.identities import Identity
from sternhalma.server.storage.nicknames import nickname_key
from sternhalma.server.storage.tokens import hash_secret, new_secret
from sternhalma.server.tables.clocks import Clocks
from sternhalma.server.tables.copies import Copies
from sternhalma.server.tables.live import LiveTable
from sternhalma.server.tables.seats import Seat, check_rated, parse_clock, parse_seats
from sternhalma.server.tables.table import Action, Table, parse_moves_made
from sternhalma.table_rules import take_back


class Commands:
    """What players ask of a table (the websocket's commands and table creation)."""

    def __init__(self, copies: Copies, clocks: Clocks) -> None:
        self.copies = copies
        self.clocks = clocks

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
        address: str = "unknown",
    ) -> tuple[LiveTable, str, dict[str, Any] | None]:
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
        made = parse_moves_made(rules, moves_made)
        token = token or new_secret()
        creator: Identity | None = None
        online = [s for s, seat in enumerate(parsed) if seat.kind == "online"]
        if online:
            seat = online[0] if sit is None else sit
            if seat not in online:
                raise TableError("seat", f"seat {seat} is not an online seat of this table")
            if nickname is None:
                raise TableError("nickname", "type a nickname to sit down")
            creator = await self.copies.store.identity(nickname, identity, address)
            parsed[seat] = _seat(creator, token)
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
            now=self.copies.now,
            same_address=self.copies.same_address,
        )
        live = await self.copies.insert(table, creator)
        return live, token, None if creator is None else _player(creator)

    async def move(
        self,
        live: LiveTable,
        token: str | None,
        seat: int,
        path: tuple[str, ...],
        *,
        confirm: bool,
        version: int | None,
    ) -> dict[str, Any] | None:
        """Play a move for a seat the token holds. Returns a "confirm" question instead
        when the move would put the player out and was not confirmed."""
        async with live.lock:
            table = live.table
            table.check_turn(token, seat)
            if version is not None and version != table.version:
                raise TableError("stale", "the game moved on; look at the board again")
            await self.clocks.flag_if_out(live)
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
                await self.clocks.flag_if_out(live)
                raise
            await self.copies.commit(live, event)
        return None

    async def undo(self, live: LiveTable, token: str | None) -> None:
        """Take back the last person's move and the computer's answers to it."""
        async with live.lock:
            table = live.table
            table.check_creator(token)
            undone = take_back(table.kinds, table.game, table.actions)
            table.generation += 1
            table.thinking = None
            await self.copies.commit(live, {"kind": "undo", "moves": undone})

    async def resign(self, live: LiveTable, token: str | None, seat: int | None) -> None:
        async with live.lock:
            table = live.table
            seat = table.acting_seat(token, seat)
            table.game.resign(seat)
            table.actions.append(Action(seat, resign=True))
            table.generation += 1
            table.thinking = None
            await self.copies.commit(live, {"kind": "resign", "seat": seat})

    async def abort(self, live: LiveTable, token: str | None) -> None:
        """Call the game off before every player has made a first move (never rated)."""
        async with live.lock:
            table = live.table
            held = table.seats_of(token)
            if not held:
                raise TableError("not-your-seat", "you do not hold a seat at this table")
            if not table.can_abort():
                raise TableError(
                    "no-abort",
                    "an online game can be aborted only before every player has made a first move",
                )
            turn = table.game.turn
            seat = turn if turn in held else held[0]
            await self.copies.commit(live, table.abort(seat, "button"))

    async def sit(
        self,
        live: LiveTable,
        token: str | None,
        seat: int,
        nickname: str,
        identity: str | None,
        *,
        address: str = "unknown",
    ) -> dict[str, Any]:
        """Take a free online seat; the reply carries the seat's token and the player.
        The player is made (or renamed) in the same commit as the sit."""
        async with live.lock:
            table = live.table
            if table.status != "waiting":
                raise TableError("not-waiting", "every seat is taken; you can watch the game")
            if not 0 <= seat < len(table.seats) or table.seats[seat].kind != "online":
                raise TableError("seat", f"seat {seat} is not an online seat of this table")
            if table.seats[seat].taken:
                raise TableError("seat-taken", "somebody sits there already; pick a free seat")
            if table.seats_of(token):
                raise TableError("seated", "you already sit at this table")
            # Players tell each other apart by nickname at a table.
            wanted = nickname_key(nickname)
            for other in table.seats:
                if other.nickname is not None and nickname_key(other.nickname) == wanted:
                    raise TableError(
                        "nickname-taken",
                        f"somebody at this table is called {other.nickname} already; "
                        "pick another nickname",
                    )
            player = await self.copies.store.identity(nickname, identity, address)
            if any(other.player == player.id for other in table.seats):
                raise TableError("seated", "you already sit at this table (in another window?)")
            seat_token = new_secret()
            table.seats[seat] = _seat(player, seat_token)
            await self.copies.commit(
                live, {"kind": "sit", "seat": seat, "nickname": player.nickname}, identity=player
            )
            if table.status == "playing":
                table.start_clock()
                await self.copies.commit(live, {"kind": "start"})
        return {"type": "seated", "seat": seat, "token": seat_token, "player": _player(player)}

    async def leave(self, live: LiveTable, token: str | None) -> None:
        """Stand up from an online seat before the game starts."""
        async with live.lock:
            table = live.table
            seats = [s for s in table.seats_of(token) if table.seats[s].kind == "online"]
            if not seats:
                raise TableError("not-your-seat", "you do not hold a seat at this table")
            if table.status != "waiting":
                raise TableError("started", "the game has started: resign instead")
            for seat in seats:
                table.seats[seat] = Seat("online")
            await self.copies.commit(live, {"kind": "leave", "seat": seats[0]})

    async def rematch(
        self,
        live: LiveTable,
        token: str | None,
        *,
        count_new: Callable[[], Awaitable[None]] | None = None,
    ) -> LiveTable | None:
        """A new table with the same variant, clock and people (online: seats rotate, once
        every online player asked); None while others have not asked yet.

        ``count_new`` is called just before the new table is made: a rematch is a new
        table, held to the same limit (it raises to refuse), so resigning and rematching
        in a loop makes no more tables than creating them."""
        async with live.lock:
            table = live.table
            seats = table.seats_of(token)
            if not seats:
                raise TableError("not-your-seat", "you do not hold a seat at this table")
            if table.rematch is not None:
                return await self.copies.get(table.rematch)
            if not table.over:
                raise TableError("not-over", "a rematch is offered once the game is over")
            if table.online:
                wanted = {s for s, seat in enumerate(table.seats) if seat.kind == "online"}
                if not wanted <= table.rematch_offers | set(seats):
                    table.rematch_offers |= set(seats)
                    await self.copies.commit(live, {"kind": "rematch-offer", "seat": seats[0]})
                    return None
            if count_new is not None:
                await count_new()  # before any change: a refused rematch changes nothing
            table.rematch_offers |= set(seats)
            new = await self.copies.insert(self._rematch_of(table))
            table.rematch = new.id
            await self.copies.commit(live, {"kind": "rematch", "table": new.id})
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
            now=self.copies.now,
            previous=table.id,
            same_address=table.same_address,
        )


def _player(player: Identity) -> dict[str, Any]:
    """The identity a browser keeps: public id, nickname and the secret that proves it."""
    return {"id": player.id, "nickname": player.nickname, "secret": player.secret}


def _seat(player: Identity, token: str) -> Seat:
    """The online seat ``player`` takes, held by ``token``."""
    return Seat(
        "online",
        player=player.id,
        nickname=player.nickname,
        token_hash=hash_secret(token),
        origin=player.origin,
    )
