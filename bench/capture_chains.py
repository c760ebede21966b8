"""How many capture chains a position can hold, and what listing them costs.

``python bench/capture_chains.py [games] [variant ...]`` plays seeded games of
capture Chinese checkers with four kinds of play and prints, for each, the
position with the most legal moves (paths) met: the count, the time
``legal_moves`` took to list them (or that it refused: more than
MOVE_LIST_LIMIT), the number of different resulting positions
(``distinct_moves``) and its time. Figures are printed, never asserted.

- random: a random move among the different outcomes;
- greedy: the most captures (the Medium level's rule);
- single: single jumps only, which keeps the board crowded with scattered holes;
- chains: each move picked (among a sample, half of it single jumps) to leave
  the most chains behind: a search for the worst case real play can reach.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from itertools import islice

from sternhalma.errors import TooManyMovesError
from sternhalma.position import Move, Position
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.rules.capture import MOVE_LIST_LIMIT, CaptureRules

Policy = Callable[[CaptureRules, Position, random.Random], Move]


def random_move(rules: CaptureRules, position: Position, rng: random.Random) -> Move:
    return rng.choice(rules.distinct_moves(position))


def greedy_move(rules: CaptureRules, position: Position, rng: random.Random) -> Move:
    moves = rules.distinct_moves(position)
    most = max(len(m) for m in moves)
    return rng.choice([m for m in moves if len(m) == most])


def single_move(rules: CaptureRules, position: Position, rng: random.Random) -> Move:
    return rng.choice([m for m in rules.distinct_moves(position) if len(m) == 2])


def chains_move(rules: CaptureRules, position: Position, rng: random.Random) -> Move:
    moves = rules.distinct_moves(position)
    singles = [m for m in moves if len(m) == 2]  # they keep the board full
    sample = rng.sample(moves, min(8, len(moves))) + rng.sample(singles, min(8, len(singles)))

    def after(move: Move) -> int:
        following = rules.apply_unchecked(position, move)
        return sum(1 for _ in islice(rules.iter_moves(following), 2 * MOVE_LIST_LIMIT))

    return max(sample, key=after)


POLICIES: dict[str, Policy] = {
    "random": random_move,
    "greedy": greedy_move,
    "single": single_move,
    "chains": chains_move,
}


def worst_of(rules: CaptureRules, policy: Policy, games: int, seed: int) -> tuple[int, Position]:
    """The largest path count met in ``games`` games, and its position."""
    rng = random.Random(seed)
    most, worst = -1, rules.initial()
    for _ in range(games):
        position = rules.initial()
        while rules.has_move(position):
            count = rules.count_moves(position)
            if count > most:
                most, worst = count, position
            if count > 20 * MOVE_LIST_LIMIT:
                break  # far past anything listable: this game has shown enough
            position = rules.apply_unchecked(position, policy(rules, position, rng))
    return most, worst


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=20, help="games per kind of play")
    capture = [v for v in VARIANTS if v.startswith("capture")]
    parser.add_argument(
        "variants", nargs="*", metavar="variant", help=f"one of {', '.join(capture)}"
    )
    options = parser.parse_args(argv)
    if not 1 <= options.games <= 10_000:
        parser.error("games: from 1 to 10000")
    games = options.games
    if unknown := [v for v in options.variants if v not in capture]:
        parser.error(f"unknown capture variant {unknown[0][:40]!r}")
    variants = options.variants or ["capture-2", "capture-2-longjump"]
    print(f"{games} games per kind of play; legal_moves lists at most {MOVE_LIST_LIMIT:,} paths")
    for variant in variants:
        rules = find_variant(variant)
        assert isinstance(rules, CaptureRules)
        for name, policy in POLICIES.items():
            count, position = worst_of(rules, policy, games if name != "chains" else 2, seed=1)
            start = time.perf_counter()
            try:
                listed = f"{len(rules.legal_moves(position)):,} listed"
            except TooManyMovesError:
                listed = "refused (too many)"
            list_time = time.perf_counter() - start
            start = time.perf_counter()
            distinct = len(rules.distinct_moves(position))
            distinct_time = time.perf_counter() - start
            print(
                f"{variant:20} {name:7} most paths {count:>14,}  legal_moves {listed:>20} "
                f"in {list_time:6.3f} s   distinct {distinct:>9,} in {distinct_time:6.3f} s"
            )


if __name__ == "__main__":
    main()
