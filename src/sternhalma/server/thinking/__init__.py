"""Where the computer thinks: one interface, two places (docs/deploy.md "Thinking").

``Thinking.think(job, priority, key)`` returns a job's answer: the move text of a
computer move or hint, the JSON text of an analysis (server/web/review.py). Cancelling
the call cancels the job: dropped before it starts, given up if it has started.
The server cancels a job when its table moves on, a hint's asker leaves, or an
analysis's page moves on or closes.

- ``pool.py``: ``Pool``, thinking processes of this process (``make run``, and
  inside ``sternhalma worker``);
- ``queue.py``: ``Queue``, the arq job queue on Redis (``sternhalma serve
  --redis-url``), served by ``worker.py`` (``sternhalma worker``) on any machine;
- ``heartbeat.py``: ``Heartbeat``, a worker's sign of life in Redis and the jobs it runs;
- ``jobs.py``: ``Job``, a computer move or hint, as plain data;
- ``codec.py``: work and answers as JSON, the only form they take on Redis and on
  the pipe to a thinking process (never a pickle);
- ``slot.py``: ``Slot``, one thinking process, reused job after job.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import IntEnum
from typing import Protocol

#: How often a job is tried before the computer gives up.
TRIES = 2


class Work(Protocol):
    """What a thinking process runs: plain data that computes its answer as text
    (``Job`` in jobs.py, ``AnalysisJob`` in server/web/review.py; codec.py writes
    and reads each as JSON)."""

    def answer(self, nodes: int | None) -> str: ...


class Priority(IntEnum):
    """Lower first: the computer's move for the seat to move before any hint, and a
    hint (a player waits for it) before any analysis."""

    MOVE = 0
    HINT = 1
    ANALYSIS = 2


#: How many times the think timeout an analysis may run: a review's step on a long
#: Halma game counts a way home 1,024 wide, some 10 s of CPU alone, and analyses run at
#: the lower CPU priority (pool.py). A move or hint that long is a stuck process.
ANALYSIS_SLACK = 6


def time_limit(timeout: float | None, priority: Priority) -> float | None:
    """Seconds a job of ``priority`` may run before its process counts as stuck and
    the job is tried again (``timeout``: the server's ``--think-timeout``)."""
    if timeout is None or priority != Priority.ANALYSIS:
        return timeout
    return timeout * ANALYSIS_SLACK


class ThinkingFailed(Exception):
    """The computer found no move for a job (every try failed)."""


class Thinking(ABC):
    """The computer's thinking, wherever it runs."""

    @abstractmethod
    async def start(self) -> None:
        """Get ready (start processes, connect)."""

    @abstractmethod
    async def close(self) -> None:
        """Stop; jobs still waiting are cancelled."""

    @abstractmethod
    async def think(self, job: Work, priority: Priority, key: str) -> str:
        """The answer to ``job``. ``key`` names the job (table, version, kind) so
        that processes asking for the same job share it."""
