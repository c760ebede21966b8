"""Claims: what the others may do with the seat of an online player who left.

A seat whose player has had no connection to the table on any process for
``absence`` seconds during a game everyone has begun (``LiveTable.note_presence``,
fed by tables/presence.py) can be claimed by a player still at the table:

- two players: ``win`` (the one who left counts as resigned: ``abandoned``) or
  ``draw`` (the game is called a draw: ``draw-claimed``);
- three or more: ``computer`` (the computer, Medium, plays the seat on; the game
  goes on) or ``out`` (the one who left counts as resigned, which with three or
  more ends the game for everyone: rules.md#clocks-and-resigning).

Waiting is doing nothing. Each claim is an action of the table, committed
through ``Copies.commit`` like every change; docs/ratings.md says how each is rated.
"""

from __future__ import annotations

from sternhalma.server.protocol import TableError
from sternhalma.server.tables.copies import Copies
from sternhalma.server.tables.live import LiveTable
from sternhalma.server.tables.seats import Seat
from sternhalma.server.tables.table import Action

#: The claims by number of players, and the action each records (tables/table.py CLAIMS).
TWO_PLAYERS = {"win": "abandoned", "draw": "draw"}
MORE_PLAYERS = {"computer": "computer", "out": "abandoned"}
#: The computer's level in a seat handed to it.
HANDED_LEVEL = "medium"


class Claims:
    """The claim on an absent seat (the ``claim`` command)."""

    def __init__(self, copies: Copies) -> None:
        self.copies = copies

    async def claim(self, live: LiveTable, token: str | None, seat: int, kind: str) -> None:
        """``token``'s player claims ``seat`` (whose player left) by ``kind``."""
        async with live.lock:
            table = live.table
            held = table.seats_of(token)
            if not held or not table.online:
                raise TableError("not-your-seat", "only a player at this table can claim a seat")
            if table.status != "playing":
                raise TableError("over", "the game is not being played")
            if table.can_abort():
                raise TableError(
                    "abort-instead",
                    "not every player has made a first move: abort the game instead",
                )
            if not 0 <= seat < len(table.seats) or seat in held:
                raise TableError("seat", "claim the seat of a player who left, not your own")
            if not any(table.game.status(s) == "playing" for s in held):
                raise TableError("not-in-play", "only a player still in the game can claim")
            choices = TWO_PLAYERS if table.rules.players == 2 else MORE_PLAYERS
            if kind not in choices:
                raise TableError(
                    "claim", f"with {table.rules.players} players claim {' or '.join(choices)}"
                )
            live.note_presence()
            since = live.absent.get(seat)
            if since is None:
                raise TableError("not-absent", "that player is at the table")
            if table.now() - since < live.absence_ms:
                wait = (live.absence_ms - (table.now() - since) + 999) // 1000
                raise TableError("too-soon", f"that player may come back: wait {wait} seconds more")
            action = Action(seat, claim=choices[kind])
            if action.claim == "computer":
                gone = table.seats[seat]
                table.seats[seat] = Seat(
                    "computer",
                    HANDED_LEVEL,
                    player=gone.player,
                    nickname=gone.nickname,
                    origin=gone.origin,
                )
                live.absent.pop(seat, None)
            table.apply_claim(action)
            table.thinking = None
            await self.copies.commit(
                live, {"kind": "claim", "seat": seat, "claim": kind, "by": held[0]}
            )
