"""How far the analysis board's "moves to go" estimate is from the truth.

    nice .venv/bin/python bench/estimate_error.py [--positions 60] [--seed 1]
        [--variants classic-2 halma-2] [--reference 2000] [--nodes 20000]

For each variant, seeded positions of the first seat alone, as a race leaves them:
from home, 0 to 40 moves each either the estimate's own plan (the first move of a
16-wide beam) or, one time in three, a random move. Each position is counted twice:
the estimate (a beam ``--width`` wide, 256, alone: no remembered ways) and the
reference: the exact count by IDA* (``solo.lower_bound`` with ``--nodes``, 20,000) where it
finishes, else the shortest of the estimate and a beam ``--reference`` wide (itself
only an upper bound, so the error against it can only be understated there; the
figures say how many positions had an exact reference). Prints, per variant, the
error's distribution (estimate less reference): how many positions at 0, 1, 2, ...,
its mean, 95th percentile and maximum, and the error of a loss between two positions
a move apart, the figure the review's verdicts allow for.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from sternhalma.rules import find_variant
from sternhalma.rules.race import RaceRules
from sternhalma.solo import SoloMoves, beam, lower_bound


def positions(rules: RaceRules, count: int, rng: random.Random) -> list[int]:
    """Seeded positions of seat 0 alone, 0 to 40 moves from home."""
    solo = SoloMoves(rules, 0)
    found = []
    for _ in range(count):
        own = rules.homes[0]
        for _ in range(rng.randrange(41)):
            if solo.finished(own):
                break
            plan = beam(rules, 0, own, 16)
            if plan is not None and plan.moves and rng.random() > 1 / 3:
                move = plan.moves[0]
                own ^= (1 << move[0]) | (1 << move[-1])
            else:
                start, end = rng.choice(list(solo.ends(own)))
                own ^= start | end
        if not solo.finished(own):
            found.append(own)
    return found


def reference(
    rules: RaceRules, own: int, estimate: int, width: int, nodes: int
) -> tuple[int, bool]:
    """The true count (exact) or the best upper bound at hand."""
    bound = lower_bound(rules, 0, own, nodes)
    if bound.exact:
        return bound.moves, True
    wide = beam(rules, 0, own, width)
    return min(estimate, len(wide) if wide else estimate), False


def band(estimate: int) -> str:
    """The estimate's size band (the review's error allowance is per band, analysis.py)."""
    return "up to 10" if estimate <= 10 else "11 to 20" if estimate <= 20 else "over 20"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--width", type=int, default=256, help="the estimate's beam")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", nargs="+", default=["classic-2", "halma-2"])
    parser.add_argument("--reference", type=int, default=2000)
    parser.add_argument("--nodes", type=int, default=20_000)
    args = parser.parse_args()
    print(f"estimate: a beam {args.width} wide; reference: IDA* or a beam {args.reference} wide")
    for variant in args.variants:
        rules = find_variant(variant)
        assert isinstance(rules, RaceRules)
        rng = random.Random(args.seed)
        started = time.perf_counter()
        errors: list[int] = []
        exact = 0
        pairs: list[int] = []
        bands: dict[str, list[int]] = {}
        for own in positions(rules, args.positions, rng):
            guess = beam(rules, 0, own, args.width)
            estimate = len(guess) if guess else 0
            truth, is_exact = reference(rules, own, estimate, args.reference, args.nodes)
            errors.append(estimate - truth)
            bands.setdefault(band(estimate), []).append(estimate - truth)
            exact += is_exact
            # A loss's error: the estimate after the plan's first move against the
            # estimate here less one (a way home one move shorter is known).
            if guess and guess.moves:
                move = guess.moves[0]
                after = beam(rules, 0, own ^ (1 << move[0]) ^ (1 << move[-1]), args.width)
                if after is not None:
                    pairs.append(len(after) - (estimate - 1))
        spread = Counter(errors)
        ordered = sorted(errors)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(
            f"{variant}: {len(errors)} positions ({exact} with an exact reference), "
            f"{time.perf_counter() - started:.0f} s"
        )
        print("  error (moves): " + ", ".join(f"{k}: {spread[k]}" for k in sorted(spread)))
        print(f"  mean {statistics.mean(errors):.2f}, 95th percentile {p95}, max {max(errors)}")
        for name in ("up to 10", "11 to 20", "over 20"):
            if name in bands:
                print(
                    f"  estimate {name} moves: {len(bands[name])} positions, "
                    f"error max {max(bands[name])}, mean {statistics.mean(bands[name]):.2f}"
                )
        if pairs:
            loss = Counter(pairs)
            print(
                "  a loss's error (after the plan's move less the estimate before + 1): "
                + ", ".join(f"{k}: {loss[k]}" for k in sorted(loss))
            )


if __name__ == "__main__":
    main()
