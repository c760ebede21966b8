"""The computer's turns and hints: the jobs a table gives the thinking (server/thinking/).

When the turn passes to a computer seat, the table says "thinking", the job goes
to the thinking (this process's pool, or the queue of ``sternhalma worker``
processes), and the move is shown after a short ``pause`` so a person can follow
it. A hint asks the strongest level for the person to move and is not
broadcast; one at a time per table. Every job is cancelled when its table moves
on (an undo, a resignation, a flag or another move: ``LiveTable.cancel_stale_jobs``),
and a hint when its asker leaves (web/connection.py).

At a clocked table the job carries the computer's clock and increment, and the time
manager (players/timeman.py) decides what each move may take; this module does no
arithmetic of its own on the clock. A quick move of its own (``FALLBACK_LEVEL``, in
this process) is played when no answer has come by the time manager's ``answer_by``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from typing import Any

from sternhalma.game import GameError
from sternhalma.players import LEVELS, Limit, timeman
from sternhalma.server.protocol import TableError
from sternhalma.server.tables.clocks import Clocks
from sternhalma.server.tables.copies import Copies
from sternhalma.server.tables.live import LiveTable
from sternhalma.server.tables.table import Table
from sternhalma.server.thinking import Priority, Thinking, ThinkingFailed
from sternhalma.server.thinking.jobs import Job, choose, read_hint
from sternhalma.table_view import hint_reply

log = logging.getLogger(__name__)

#: The level that answers "hint": the strongest the players offer.
HINT_LEVEL = LEVELS[-1]
#: The quick move played when the thinking has not answered in time.
FALLBACK_LEVEL = "medium"
#: Seconds before a failed computer turn is tried again, doubled after each failure in
#: a row up to ``RETRY_MOST``: a thinking that keeps failing does not flood the table.
RETRY_WAIT = 1.0
RETRY_MOST = 60.0


def retry_wait(failures: int) -> float:
    """Seconds to wait before a computer turn after ``failures`` failed ones in a row."""
    return 0.0 if failures <= 0 else min(RETRY_WAIT * 2 ** (failures - 1), RETRY_MOST)


def job_for(table: Table, level: str, limit: Limit | None = None, *, hint: bool = False) -> Job:
    """What a thinking process needs to choose the next move at ``level`` (plain data)
    within ``limit`` (seconds, or the clock; None: the level's own); a ``hint`` answers
    with its foreseen line too."""
    limit = limit or Limit()
    return Job(
        table.rules.id,
        table.start,
        table.moves_made,
        tuple(table.moves_played()),
        table.deadline_rule,
        level,
        # Seeded by table and move number: a replayed game gets the same answers.
        table.seed + len(table.actions),
        limit.seconds,
        limit.clock,
        limit.increment,
        finish_rule=table.finish_rule,
        hint=hint,
    )


class ComputerTurns:
    """The computer's move when its seat is to move, and hints for a person."""

    def __init__(self, copies: Copies, thinking: Thinking, clocks: Clocks, *, pause: float) -> None:
        self.copies = copies
        self.thinking = thinking
        self.clocks = clocks
        #: Seconds between the turn passing to the computer and its move being shown.
        self.pause = pause
        #: Tables whose computer seat thinks in this process now.
        self.here: set[str] = set()

    def table_changed(self, live: LiveTable, *, loaded: bool) -> None:
        """In a cluster the computer's turn of a table read from the database belongs to
        the process that passed it the turn; the sweep takes it over only when nobody
        played it for a while (tables/following.py)."""
        if not (loaded and self.copies.cluster):
            self.turn_when_due(live)

    def turn_when_due(self, live: LiveTable) -> None:
        """Start the computer's turn when a computer seat is to move and nobody thinks yet."""
        table = live.table
        turn = table.game.turn
        if table.status != "playing" or turn is None or table.thinking is not None:
            return
        seat = table.seats[turn]
        if seat.kind != "computer" or seat.level is None:
            return
        table.thinking = turn
        self.here.add(table.id)
        task = self.copies.spawn(self._turn(live, turn, seat.level, table.generation))
        task.add_done_callback(lambda _: self.here.discard(table.id))

    def _think(self, live: LiveTable, job: Job, priority: Priority, key: str) -> asyncio.Task[str]:
        """Give ``job`` to the thinking, as a job of ``live`` (cancelled when it moves on)."""
        task = asyncio.get_running_loop().create_task(self.thinking.think(job, priority, key))
        live.jobs[task] = live.table.generation
        task.add_done_callback(lambda done: live.jobs.pop(done, None))
        return task

    async def hint(self, live: LiveTable, token: str | None) -> dict[str, Any]:
        """The move the strongest level would play for the person to move (not broadcast)."""
        table = live.table
        async with live.lock:
            table.check_creator(token)
            if not table.against_computer:
                raise TableError("no-hint", "hints are given only in games against the computer")
            turn = table.game.turn
            if table.game.is_over or turn is None or table.seats[turn].kind != "person":
                raise TableError("not-your-turn", "a hint is given when it is your turn")
            if live.hinting is not None:
                raise TableError("hint-busy", "a hint for this position is on its way")
            version = table.version
            key = f"hint:{table.id}:{version}:{secrets.token_hex(4)}"
            job = job_for(table, HINT_LEVEL, hint=True)
            thinking = live.hinting = self._think(live, job, Priority.HINT, key)
            thinking.add_done_callback(lambda _: setattr(live, "hinting", None))
        try:
            return hint_reply(table.rules, version, turn, *read_hint(await thinking))
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the asker left
            raise TableError("stale", "the game moved on; ask for a hint again") from None
        except (ThinkingFailed, ValueError) as error:
            if isinstance(error, ValueError):
                log.error("table %s: an unreadable hint from the thinking: %s", table.id, error)
            raise TableError(
                "computer-failed", "the computer could not find a hint just now; ask again"
            ) from None

    async def _turn(self, live: LiveTable, seat: int, level: str, generation: int) -> None:
        table = live.table
        loop = asyncio.get_running_loop()
        await asyncio.sleep(retry_wait(live.computer_failures))
        async with live.lock:
            if table.generation != generation or table.game.turn != seat or live.dropped:
                return
            clock = table.game.clock
            limit = (
                Limit(
                    clock=clock.remaining(seat) / 1000, increment=clock.control.increment_ms / 1000
                )
                if clock is not None
                else Limit()
            )
            job = job_for(table, level, limit)
            answer_by = timeman.answer_by(limit)
            try:
                await self.copies.commit(live, {"kind": "thinking", "seat": seat})
            except TableError:
                return
            key = f"move:{table.id}:{table.version}"
        started = loop.time()
        thinking = self._think(live, job, Priority.MOVE, key)
        try:
            if answer_by is None:
                text = await thinking
            else:
                text = await asyncio.wait_for(thinking, answer_by)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the server stops
            return  # the table moved on
        except Exception as error:  # TimeoutError (the clock), ThinkingFailed, ...
            if answer_by is None:
                await self._failed(live, seat, generation, error)
                return
            log.warning(
                "table %s: no answer from the workers in time (%s); playing a quick %s move",
                table.id,
                type(error).__name__,
                FALLBACK_LEVEL,
            )
            quick = dataclasses.replace(job, level=FALLBACK_LEVEL)
            text = await asyncio.to_thread(choose, quick)
        pause = timeman.pause(limit, self.pause)
        await asyncio.sleep(max(0.0, pause - (loop.time() - started)))
        async with live.lock:
            if table.generation != generation or table.game.turn != seat or live.dropped:
                return
            try:
                move = table.rules.parse_move(table.game.position, text)
            except ValueError as error:  # a broken answer: the computer failed, not the table
                unplayable: ValueError | None = error
            else:
                unplayable = None
                table.thinking = None
                live.computer_failures = 0
                try:
                    await self.clocks.flag_if_out(live)
                    await self.copies.commit(live, table.play(seat, move))
                except (TableError, GameError):
                    pass
        if unplayable is not None:
            await self._failed(live, seat, generation, unplayable)

    async def _failed(
        self, live: LiveTable, seat: int, generation: int, error: BaseException
    ) -> None:
        """Tell the table that the computer found no move (its viewers see an error)."""
        table = live.table
        log.error("the computer failed to choose a move at table %s: %s", table.id, error)
        live.computer_failures += 1
        async with live.lock:
            if table.generation == generation and not live.dropped:
                table.thinking = None
                with contextlib.suppress(TableError):
                    await self.copies.commit(
                        live, {"kind": "error", "seat": seat, "code": "computer-failed"}
                    )
