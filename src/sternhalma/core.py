"""The engine's speed-critical part, compiled or pure Python, chosen once at import.

The compiled core (C++17, ``src/sternhalma/_core/``, the module ``sternhalma._native``)
does what the search spends its time on: for the race games, and capture's chains;
the pure-Python engine (``rules/``) stays the definition of the rules and the
fallback where no C++ compiler built the core. ``STERNHALMA_PURE=1`` forces pure Python;
``STERNHALMA_CORE_FILE`` loads the core from a given file (the sanitizer build
``make test`` runs the differential tests on).

The interface is narrow: positions (a bitboard per seat) in, moves and
bitboards out. A list of moves is ``bytes``, two a move (start, end; boards
have at most 256 holes): one object however many moves, read with ``pairs``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Protocol

from sternhalma.position import Move, Position
from sternhalma.rules.capture import CaptureRules
from sternhalma.rules.race import RaceRules

if TYPE_CHECKING:
    from sternhalma import _native


class RaceCore(Protocol):
    """One race ruleset's moves and apply, on bitboards."""

    def moves(self, marbles: Sequence[int], seat: int) -> bytes:
        """Every legal move of ``seat`` with ``marbles`` on the board, as (start, end) bytes."""
        ...

    def apply(self, marbles: Sequence[int], seat: int, start: int, end: int) -> tuple[int, ...]:
        """The bitboards after ``seat`` moves its marble from ``start`` to ``end``."""
        ...

    def finished(self, marbles: Sequence[int], seat: int, owner_counts: bool) -> bool:
        """Whether ``seat`` has finished (``RaceRules.has_finished``); ``owner_counts``:
        whether the marbles of its goal's owner count toward filling it yet."""
        ...


class PythonRaceCore:
    """The interface on the pure-Python engine (the reference)."""

    def __init__(self, rules: RaceRules) -> None:
        self.rules = rules

    def moves(self, marbles: Sequence[int], seat: int) -> bytes:
        occupied = 0
        for board in marbles:
            occupied |= board
        ends = self.rules.move_ends(occupied, seat, marbles[seat])
        return bytes(hole for move in ends for hole in move)

    def apply(self, marbles: Sequence[int], seat: int, start: int, end: int) -> tuple[int, ...]:
        after = list(marbles)
        after[seat] ^= (1 << start) | (1 << end)
        return tuple(after)

    def finished(self, marbles: Sequence[int], seat: int, owner_counts: bool) -> bool:
        position = Position(self.rules, seat, tuple(marbles))
        return self.rules.has_finished(position, seat, owner_counts=owner_counts)


def pairs(moves: bytes) -> list[tuple[int, int]]:
    """A move list of the core as (start, end) pairs."""
    return list(zip(moves[::2], moves[1::2], strict=True))


def _load() -> ModuleType | None:
    """The compiled module, or None for pure Python."""
    if os.environ.get("STERNHALMA_PURE", "") not in ("", "0"):
        return None
    path = os.environ.get("STERNHALMA_CORE_FILE")
    if path:
        spec = importlib.util.spec_from_file_location("sternhalma._native", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"STERNHALMA_CORE_FILE={path} is not a loadable module")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    try:
        from sternhalma import _native
    except ImportError:
        return None
    return _native


_NATIVE = _load()
#: Which core is in use, as ``sternhalma --version`` and ``sternhalma bench`` say it.
NAME = "compiled (C++)" if _NATIVE is not None else "pure Python"
COMPILED = _NATIVE is not None


def _compiled() -> ModuleType:
    """The compiled core's module: RuntimeError when it was not built or is switched off."""
    if _NATIVE is None:
        raise RuntimeError("the compiled core is not in use (pure Python)")
    return _NATIVE


def _rays(rules: RaceRules | CaptureRules) -> list[list[list[int]]]:
    """The board's rays as the compiled core takes them: per hole, per direction."""
    return [[list(ray) for ray in per] for per in rules.board.rays]


@cache
def race_core(rules: RaceRules) -> RaceCore:
    """The core for ``rules``: compiled when it was built, pure Python otherwise."""
    if _NATIVE is None:
        return PythonRaceCore(rules)
    return native_race_core(rules)


@cache
def native_race_core(rules: RaceRules) -> _native.RaceCore:
    """The compiled core for ``rules`` (RuntimeError when it was not built or is switched off)."""
    board = rules.board
    native: _native.RaceCore = _compiled().RaceCore(
        board.size,
        _rays(rules),
        list(rules.goals),
        list(rules.may_end),
        rules.long_jumps,
        rules.anti_blocking,
        rules.last_reply,
        [-1 if owner is None else owner for owner in rules.goal_owners],
    )
    return native


@cache
def native_evaluation(
    costs: tuple[tuple[int, ...], ...],
    to_go: tuple[tuple[int, ...], ...],
    divisor: tuple[int, ...],
    group: int,
) -> _native.Evaluation:
    """Hard's evaluation tables (players/evaluate.py) in the compiled core, built once."""
    evaluation: _native.Evaluation = _compiled().Evaluation(costs, to_go, divisor, group)
    return evaluation


def native_search_settings(search: str) -> _native.SearchSettings:
    """The compiled core's settings for one decision of the search named ``search``
    (players/race.py sets the other fields: it holds their defaults)."""
    native = _compiled()
    settings: _native.SearchSettings = native.SearchSettings()
    settings.search = native.Search[search]
    return settings


def distinct_captures(rules: CaptureRules, position: Position) -> list[Move]:
    """One chain per resulting position, as ``rules.distinct_moves`` lists them and in
    its order: on the compiled core when it was built."""
    if _NATIVE is None:
        return rules.distinct_moves(position)
    return [Move(path) for path in native_capture_core(rules).distinct(position.pieces)]


@cache
def native_capture_core(rules: CaptureRules) -> _native.CaptureCore:
    """The compiled capture chains for ``rules`` (RuntimeError when the core is not in use)."""
    native: _native.CaptureCore = _compiled().CaptureCore(
        rules.board.size, _rays(rules), rules.long_jumps
    )
    return native
