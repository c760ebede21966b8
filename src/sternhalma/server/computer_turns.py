"""The computer's turns and hints: the jobs a table gives the thinking (server/thinking.py).

When the turn passes to a computer seat, the table says "thinking", the job goes
to the thinking (this process's pool, or the queue of ``sternhalma worker``
processes), and the move is shown after a short ``pause`` so a person can follow
it. A hint asks the strongest level for the person to move and is not
broadcast; one at a time per table. Every job is cancelled when its table moves
on (an undo, a resignation, a flag or another move: ``Table.cancel_stale_jobs``),
and a hint when its asker leaves (server/connection.py).

At a clocked table the computer thinks within a share of its remaining time, and
plays a quick move of its own (``FALLBACK_LEVEL``, in this process) when no answer
has come ``FALLBACK_MARGIN`` seconds before its flag would fall.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from typing import Any

from sternhalma.game import GameError
from sternhalma.players import LEVELS
from sternhalma.players.hard import DEFAULT_BUDGET
from sternhalma.server import computer
from sternhalma.server.copies import Copies
from sternhalma.server.protocol import TableError
from sternhalma.server.table import Table
from sternhalma.server.thinking import Priority, ThinkingFailed

log = logging.getLogger(__name__)

#: The level that answers "hint": the strongest the players offer.
HINT_LEVEL = LEVELS[-1]
#: At a clocked table the computer plans for this many more moves: each may think
#: for this share of the time left (at most the level's own budget).
MOVES_AHEAD = 40
#: The quick move played when the thinking has not answered in time, and how many
#: seconds before the flag it is played.
FALLBACK_LEVEL = "medium"
FALLBACK_MARGIN = 1.5


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

    def _think(
        self, table: Table, job: computer.Job, priority: Priority, key: str
    ) -> asyncio.Task[str]:
        """Give ``job`` to the thinking, as a job of ``table`` (cancelled when it moves on)."""
        task = asyncio.get_running_loop().create_task(self.thinking.think(job, priority, key))
        table.jobs[task] = table.generation
        task.add_done_callback(lambda done: table.jobs.pop(done, None))
        return task

    async def hint(self, table: Table, token: str | None) -> dict[str, Any]:
        """The move the strongest level would play for the person to move (not broadcast)."""
        async with table.lock:
            table.check_creator(token)
            if not table.against_computer:
                raise TableError("no-hint", "hints are given only in games against the computer")
            turn = table.game.turn
            if table.game.is_over or turn is None or table.seats[turn].kind != "person":
                raise TableError("not-your-turn", "a hint is given when it is your turn")
            if table.hinting is not None:
                raise TableError("hint-busy", "a hint for this position is on its way")
            version = table.version
            key = f"hint:{table.id}:{version}:{secrets.token_hex(4)}"
            thinking = table.hinting = self._think(table, table.job(HINT_LEVEL), Priority.HINT, key)
            thinking.add_done_callback(lambda _: setattr(table, "hinting", None))
        try:
            text = await thinking
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the asker left
            raise TableError("stale", "the game moved on; ask for a hint again") from None
        except ThinkingFailed:
            raise TableError(
                "computer-failed", "the computer could not find a hint just now; ask again"
            ) from None
        path = [table.rules.board.names[h] for h in table.rules.parse_path(text)]
        return {"type": "hint", "v": version, "seat": turn, "path": path}

    async def _computer_turn(self, table: Table, seat: int, level: str, generation: int) -> None:
        loop = asyncio.get_running_loop()
        async with table.lock:
            if table.generation != generation or table.game.turn != seat or table.dropped:
                return
            clock = table.game.clock
            left = clock.remaining(seat) / 1000 if clock is not None else None
            share = None if left is None else left / MOVES_AHEAD
            job = table.job(level, None if share is None else min(DEFAULT_BUDGET, share))
            try:
                await self._commit(table, {"kind": "thinking", "seat": seat})
            except TableError:
                return
            key = f"move:{table.id}:{table.version}"
        started = loop.time()
        thinking = self._think(table, job, Priority.MOVE, key)
        try:
            if left is None:
                text = await thinking
            else:
                text = await asyncio.wait_for(thinking, left - FALLBACK_MARGIN)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the server stops
            return  # the table moved on
        except Exception as error:  # TimeoutError (the clock), ThinkingFailed, ...
            if left is None:
                await self._computer_failed(table, seat, generation, error)
                return
            log.warning(
                "table %s: no answer from the workers in time (%s); playing a quick %s move",
                table.id,
                type(error).__name__,
                FALLBACK_LEVEL,
            )
            quick = dataclasses.replace(job, level=FALLBACK_LEVEL, budget=None)
            text = await asyncio.to_thread(computer.choose, quick)
        pause = self.pause if share is None else min(self.pause, share / 2)
        await asyncio.sleep(max(0.0, pause - (loop.time() - started)))
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

    async def _computer_failed(
        self, table: Table, seat: int, generation: int, error: BaseException
    ) -> None:
        """Tell the table that the computer found no move (its viewers see an error)."""
        log.error("the computer failed to choose a move at table %s: %s", table.id, error)
        async with table.lock:
            if table.generation == generation and not table.dropped:
                table.thinking = None
                with contextlib.suppress(TableError):
                    await self._commit(
                        table, {"kind": "error", "seat": seat, "code": "computer-failed"}
                    )
