"""How often a player comes first among several for its lead in Elo over each other seat.

    python bench/first_place.py [--seats 3 6] [--elo 0 20 ... 200] [--first 0.35 0.5]

A sequential test with three to six seats measures the tested player's lead over
each other seat (sprt.py); a target may instead ask how often it comes first.
This links the two under a plain model: every player's moves to finish are
normal with the same spread, ours lower by ``d`` spreads. Against each other
seat we then finish sooner with the chance Phi(d / sqrt 2) (the lead in Elo,
sprt.elo_of), and first with the chance that we beat the soonest of the others,
integrated numerically. Prints, per number of seats, the chance of coming first
at each ``--elo`` lead, and the lead that each ``--first`` chance needs.
"""

from __future__ import annotations

import argparse
import math
from statistics import NormalDist

from sternhalma.sprt import elo_of, expected_score

NORMAL = NormalDist()


def first_chance(seats: int, shift: float, step: float = 0.002) -> float:
    """The chance of finishing before all ``seats - 1`` others, ``shift`` spreads sooner
    (ours at x - shift, each other later than that)."""
    total, x = 0.0, -9.0
    while x < 9.0:
        total += NORMAL.pdf(x) * (1.0 - NORMAL.cdf(x - shift)) ** (seats - 1) * step
        x += step
    return total


def elo_for(shift: float) -> float:
    """The lead over each other seat, in Elo, of a player ``shift`` spreads ahead."""
    return elo_of(NORMAL.cdf(shift / math.sqrt(2.0)))


def shift_for_elo(elo: float) -> float:
    """The shift that ``elo`` points of lead over each other seat mean (elo_for inverted)."""
    return NORMAL.inv_cdf(expected_score(elo)) * math.sqrt(2.0)


def elo_for_first(seats: int, chance: float) -> float:
    """The lead over each other seat that comes first with ``chance`` (bisection)."""
    low, high = 0.0, 4.0
    for _ in range(40):
        middle = (low + high) / 2.0
        low, high = (middle, high) if first_chance(seats, middle) < chance else (low, middle)
    return elo_for((low + high) / 2.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, nargs="+", default=[3, 6])
    parser.add_argument("--elo", type=float, nargs="+", default=list(range(0, 201, 20)))
    parser.add_argument("--first", type=float, nargs="+", default=[0.35, 0.5])
    args = parser.parse_args()
    for seats in args.seats:
        print(f"{seats} seats (first {100 / seats:.1f}% between equals)")
        for elo in args.elo:
            chance = first_chance(seats, shift_for_elo(elo))
            print(f"  Elo {elo:+4.0f} over each other seat: first {100 * chance:4.1f}%")
        for chance in args.first:
            print(f"  first {100 * chance:.0f}% needs Elo {elo_for_first(seats, chance):+.0f}")


if __name__ == "__main__":
    main()
