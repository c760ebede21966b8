"""The time manager: how long a move may take, decided in one place from the ``Limit``.

Every caller (the server's computer turns and hints, matches, the command line,
benchmarks) hands the player a ``Limit`` and nothing else; the player asks
``allowance`` what that means for this move:

- seconds: the limit's own; else, with a fixed node count, a far cap
  (``NODES_SECONDS``: the nodes bound the search, the clock only guards a
  stalled machine); else the level's default, 1 s;
- on a clock, at most the time left over ``MOVES_AHEAD`` more moves plus the
  increment (it comes back after the move), but never so much that the
  clock would fall under ``FALLBACK_MARGIN``, where the server stops waiting;
- nodes: the limit's own, else the seconds at the searcher's nodes a second;
- the search itself stops at ``SEARCH_SHARE`` of the seconds: choosing the
  options, setting up and answering take time too.

The allowance is what a move may use, not what it uses: Hard plays its book's move
from a start at once, without the clock, so a move stays the same on any machine.

``answer_by`` and ``pause`` are the server's side of the same clock: when a
quick move must be played instead of waiting longer for the thinking, and how
long a computer's move waits to be shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from sternhalma.players.choice import Limit

#: Seconds a move when the limit says nothing (Hard's 1 s a move).
DEFAULT_SECONDS = 1.0
#: Seconds a move with a fixed node count and no time given: a far cap.
NODES_SECONDS = 60.0
#: On a clock, each move may take the time left over this many more moves.
MOVES_AHEAD = 40
#: The part of a move's seconds the search itself may use.
SEARCH_SHARE = 0.9
#: Seconds before the flag falls at which the server stops waiting for the thinking.
FALLBACK_MARGIN = 1.5


@dataclass(frozen=True)
class Allowance:
    """What one move may use: ``seconds`` in all, ``nodes`` of search (None for a level
    that does not search), and ``search_seconds`` for the search itself."""

    seconds: float
    nodes: int | None
    search_seconds: float


def allowance(limit: Limit, nodes_per_second: int | float | None = None) -> Allowance:
    """The allowance of one move under ``limit`` for a player searching
    ``nodes_per_second`` (None: a level that does not search)."""
    if limit.seconds is not None:
        seconds = limit.seconds
    elif limit.nodes is not None and limit.clock is None:
        seconds = NODES_SECONDS
    else:
        seconds = DEFAULT_SECONDS
    if limit.clock is not None:
        left = max(limit.clock, 0.0)
        increment = min(limit.increment, left - FALLBACK_MARGIN - left / MOVES_AHEAD)
        seconds = min(seconds, left / MOVES_AHEAD + max(increment, 0.0))
    nodes = limit.nodes
    if nodes is None and nodes_per_second is not None:
        nodes = max(1, int(seconds * nodes_per_second))
    return Allowance(seconds, nodes, SEARCH_SHARE * seconds)


def pause(limit: Limit, wanted: float) -> float:
    """Seconds a computer's move is shown after its turn began: ``wanted``, but on a
    clock (which the pause is charged to) at most half of what the move may take."""
    if limit.clock is None:
        return wanted
    return min(wanted, allowance(limit).seconds / 2)


def answer_by(limit: Limit) -> float | None:
    """Seconds after which a move on ``limit``'s clock must come from a quick player
    instead (None: no clock, wait for the thinking)."""
    if limit.clock is None:
        return None
    return limit.clock - FALLBACK_MARGIN
