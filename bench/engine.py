"""Engine speed figures: ``python bench/engine.py [variant ...]``.

The same measurement as ``sternhalma bench``; the issue's target is at least
25,000 positions per second on mid-game ``classic-2`` positions, in one process;
issue 16's: the compiled core at least 10 times the Python engine's move lists
a second on the same positions, in the same run.
"""

from __future__ import annotations

import argparse

from sternhalma import benchmark, core
from sternhalma.rules import VARIANTS


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "variants", nargs="*", metavar="variant", help=f"one of {', '.join(VARIANTS)}"
    )
    variants = parser.parse_args(argv).variants
    if unknown := [v for v in variants if v not in VARIANTS]:
        parser.error(f"unknown variant {unknown[0][:40]!r}")
    print(f"core: {core.NAME}")
    for figures in benchmark.run(variants or None, seconds=2.0):
        fast, ratio = figures.core_positions_per_second, figures.core_ratio
        compiled = "" if fast is None else f" compiled {fast:>10,.0f} lists/s ({ratio:.1f}×)"
        print(
            f"{figures.variant:12} {figures.positions_per_second:>10,.0f} positions/s "
            f"{figures.moves_per_second:>12,.0f} moves/s "
            f"{figures.applies_per_second:>10,.0f} apply/s{compiled}"
        )


if __name__ == "__main__":
    main()
