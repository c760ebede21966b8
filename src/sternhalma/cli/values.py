"""Number options with bounds on both sides. click's FloatRange lets ``nan`` through
(every comparison with it is false) and an open range lets ``inf`` and ``1e308``
through; a count without a top lets 10**30 through to the compiled core (a C++
integer) or to a loop that would never end. Every option of the ``sternhalma``
command that takes a number takes one of these, so a bad value is one line of usage
error, never a traceback or a hang (tests/test_bad_values.py, bench/fuzz_cli.py)."""

from __future__ import annotations

import math
from typing import Any

import click

from sternhalma.errors import shown

#: The most of anything counted that the command takes: a count the compiled core
#: keeps in a 32-bit integer (Hard's beam width is worked out from its nodes) fits.
MOST = 10**9


class Finite(click.FloatRange):
    """A finite number within ``min``..``max`` (``min_open``: above ``min``)."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{shown(value)} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


def seconds(low: float, high: float, *, above: bool = False) -> Finite:
    """Seconds from ``low`` (or just above it) to ``high``."""
    return Finite(low, high, min_open=above)


def count(low: int, high: int = MOST) -> click.IntRange:
    """A whole number from ``low`` to ``high``."""
    return click.IntRange(low, high)


#: A seed: any whole number a 64-bit integer holds.
SEED = click.IntRange(-(2**63), 2**63 - 1)
