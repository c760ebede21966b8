"""Engine speed figures: ``python bench/engine.py [variant ...]``.

The same measurement as ``sternhalma bench``; the issue's target is at least
25,000 positions per second on mid-game ``classic-2`` positions, in one process.
"""

from __future__ import annotations

import sys

from sternhalma import benchmark


def main(argv: list[str]) -> None:
    for figures in benchmark.run(argv or None, seconds=2.0):
        print(
            f"{figures.variant:12} {figures.positions_per_second:>10,.0f} positions/s "
            f"{figures.moves_per_second:>12,.0f} moves/s "
            f"{figures.applies_per_second:>10,.0f} apply/s"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
