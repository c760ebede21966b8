"""Game clocks: a time bank for the whole game plus an increment per move.

Everything is integer milliseconds. The time source is injectable (a callable
returning milliseconds), so tests set the time instead of sleeping and a
server can use its own monotonic clock. The clock of
rules.md#clocks-and-resigning: the increment is added after a move only when
that move came in time; a player whose bank reaches zero has flagged.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from sternhalma.errors import SternhalmaError, shown

#: A time source: the current time in milliseconds (any fixed origin).
TimeSource = Callable[[], int]

#: Minutes and seconds in ASCII digits (``\d`` would take other scripts' digits),
#: at most six before the point and six after.
_CONTROL = re.compile(
    r"^\s*([0-9]{1,6}(?:\.[0-9]{1,6})?)\s*(?:\+\s*([0-9]{1,6}(?:\.[0-9]{1,6})?))?\s*$"
)


class ClockError(SternhalmaError):
    """A time control that cannot be read, or a clock used out of turn."""


def monotonic_ms() -> int:
    """The default time source: a monotonic clock in milliseconds."""
    return time.monotonic_ns() // 1_000_000


@dataclass(frozen=True)
class TimeControl:
    """How much time a player has: ``bank_ms`` for the game, ``increment_ms`` per move."""

    bank_ms: int
    increment_ms: int = 0

    def __post_init__(self) -> None:
        if self.bank_ms <= 0:
            raise ClockError("a clock needs some time in the bank (more than 0 minutes)")
        if self.increment_ms < 0:
            raise ClockError("the increment cannot be negative")

    def __str__(self) -> str:
        """The text ``parse_time_control`` reads back: minutes + seconds, like ``5+3``."""
        return f"{_number(self.bank_ms, 60_000)}+{_number(self.increment_ms, 1000)}"


def _number(ms: int, unit: int) -> str:
    """``ms`` in ``unit``s, without a decimal point when it is whole."""
    return format((Decimal(ms) / unit).normalize(), "f")


def parse_time_control(text: str) -> TimeControl:
    """``"5+3"``: 5 minutes in the bank and 3 seconds added per move.

    Minutes and seconds may have decimals (``"0.5+2"`` is 30 s + 2 s); ``"10"``
    means no increment. Anything else raises ClockError saying what to write.
    """
    match = _CONTROL.match(text)
    if not match:
        raise ClockError(
            f"{shown(text.strip())} is not a time control: write minutes + seconds per move, like 5+3"
        )
    bank = Decimal(match.group(1)) * 60_000
    increment = Decimal(match.group(2) or "0") * 1000
    if bank != bank.to_integral_value() or increment != increment.to_integral_value():
        raise ClockError(f"{shown(text.strip())} is finer than a millisecond")
    return TimeControl(int(bank), int(increment))


class Clock:
    """One time bank per seat; at most one seat's time runs at a time.

    The referee (``Game``) drives it: ``start(seat)`` when a seat's turn
    begins, ``punch(seat)`` when that seat's move arrives, ``stop()`` when the
    game ends. ``remaining(seat)`` is live for the running seat.
    """

    def __init__(
        self,
        control: TimeControl | str,
        seats: int,
        *,
        now: TimeSource = monotonic_ms,
        banks: Sequence[int] | None = None,
    ) -> None:
        self.control = parse_time_control(control) if isinstance(control, str) else control
        if seats < 1:
            raise ClockError("a clock needs at least one seat")
        self.now = now
        self._banks = [self.control.bank_ms] * seats
        if banks is not None:
            # A clock resumed from storage (a server restart): the time each seat had left.
            if len(banks) != seats or not all(
                isinstance(b, int) and not isinstance(b, bool) and b >= 0 for b in banks
            ):
                raise ClockError(f"a resumed clock needs {seats} banks of at least 0 ms")
            self._banks = list(banks)
        self._running: int | None = None
        self._since = 0

    @property
    def seats(self) -> int:
        return len(self._banks)

    @property
    def running(self) -> int | None:
        """The seat whose time is running, or None when the clock is stopped."""
        return self._running

    def remaining(self, seat: int) -> int:
        """Milliseconds left for ``seat`` now (never below 0)."""
        self._check_seat(seat)
        left = self._banks[seat]
        if seat == self._running:
            left -= self.now() - self._since
        return max(0, left)

    def is_out_of_time(self, seat: int) -> bool:
        """Whether ``seat``'s bank has reached zero (it has flagged)."""
        return self.remaining(seat) == 0

    def start(self, seat: int) -> None:
        """Run ``seat``'s time; whoever was running is charged, without increment."""
        self._check_seat(seat)
        self.stop()
        self._running = seat
        self._since = self.now()

    def stop(self) -> None:
        """Charge the running seat for its time so far and stop (no increment)."""
        if self._running is not None:
            self._charge(self._running)
            self._running = None

    def punch(self, seat: int) -> bool:
        """``seat``'s move has arrived: charge its time and add the increment if in time.

        Returns whether the move came in time (time left above zero). The
        clock is stopped afterwards; the referee starts the next seat.
        """
        if self._running != seat:
            raise ClockError(f"seat {seat}'s clock is not running")
        in_time = self._charge(seat) > 0
        if in_time:
            self._banks[seat] += self.control.increment_ms
        self._running = None
        return in_time

    def copy(self) -> Clock:
        """An independent clock in the same state, on the same time source."""
        other = Clock(self.control, self.seats, now=self.now)
        other._banks = list(self._banks)
        other._running = self._running
        other._since = self._since
        return other

    def _charge(self, seat: int) -> int:
        now = self.now()
        self._banks[seat] = max(0, self._banks[seat] - (now - self._since))
        self._since = now
        return self._banks[seat]

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < len(self._banks):
            raise ClockError(f"there is no seat {seat} on this clock")

    def __repr__(self) -> str:
        banks = ", ".join(str(self.remaining(s)) for s in range(self.seats))
        return f"<Clock {self.control} [{banks}] running={self._running}>"
