"""The computer's turns and hints: what runs the players of server/computer.py for a table.

When the turn passes to a computer seat, the table says "thinking", a worker of
the process pool (``computer.Workers``) chooses the move, and the move is shown
after a short ``pause`` so a person can follow it. A move chosen for an older
generation of the table (after an undo, a resignation, a flag or another move)
is dropped. A hint asks the strongest level for the person to move and is not
broadcast. Everything that hands work to the computer is in this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from sternhalma.game import GameError
from sternhalma.players import LEVELS
from sternhalma.server.copies import Copies
from sternhalma.server.protocol import TableError
from sternhalma.server.table import Table

log = logging.getLogger(__name__)

#: The level that answers "hint": the strongest the players offer.
HINT_LEVEL = LEVELS[-1]


class ComputerTurns(Copies):
    """The computer's move when its seat is to move, and hints for a person."""

    def _computer_turn_when_due(self, table: Table) -> None:
        """Start the computer's turn when a computer seat is to move and nobody thinks yet."""
        game = table.game
        turn = game.turn
        if table.status != "playing" or turn is None or table.thinking is not None:
            return
        seat = table.seats[turn]
        if seat.kind != "computer" or seat.level is None:
            return
        table.thinking = turn
        self._thinking.add(table.id)
        task = self._spawn(self._computer_turn(table, turn, seat.level, table.generation))
        task.add_done_callback(lambda _: self._thinking.discard(table.id))

    async def hint(self, table: Table, token: str | None) -> dict[str, Any]:
        """The move the strongest level would play for the person to move (not broadcast)."""
        async with table.lock:
            table.check_creator(token)
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
