"""Writes Hard's recorded choices: ``python tests/make_hard_moves.py``.

``tests/data/hard-moves.json`` holds seeded mid-game positions of many variants
(the moves that reach them) with the move Hard chose there at a fixed node
allowance, the search it ran and the nodes it used. test_hard_moves.py checks
that Hard still makes exactly those choices: a change meant to leave Hard's play
as it is (an API, the time manager) must not move a single one. Rewrite the file
only for a change that is meant to change Hard's play, and say so in its commit.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from sternhalma.game import Game
from sternhalma.players import HardPlayer, Limit, make_player

PATH = Path(__file__).parent / "data" / "hard-moves.json"
#: Variants and how many positions each; about 25 in all.
VARIANTS = {
    "classic-2": 3,
    "classic-3": 2,
    "classic-4": 2,
    "classic-6": 3,
    "longjump-2": 2,
    "longjump-6": 1,
    "fifteen-2": 1,
    "pairs-4": 1,
    "halma-2": 3,
    "halma-4": 1,
    "capture-2": 3,
    "capture-3": 2,
    "capture-2-longjump": 1,
}
#: Hard's node allowance in every position: small, so that the checks are quick.
NODES = 2500


def positions() -> list[tuple[str, list[str], int]]:
    """(variant, moves from the start, Hard's seed): seeded games of Medium and Easy."""
    found = []
    for variant, count in VARIANTS.items():
        rng = random.Random(f"hard-moves:{variant}")
        while sum(1 for v, _, _ in found if v == variant) < count:
            game = Game(variant)
            plies = rng.randint(2, 60)
            moves: list[str] = []
            for _ in range(plies):
                if game.turn is None:
                    break
                level = "medium" if rng.random() < 0.7 else "easy"
                move = make_player(level, rng.getrandbits(31)).choose(game).move
                moves.append(game.rules.format_move(move))
                game.play(move)
            if game.turn is not None:
                found.append((variant, moves, rng.getrandbits(31)))
    return found


def hard_choice(variant: str, moves: list[str], seed: int, nodes: int) -> tuple[str, str, int, int]:
    """Hard's move text in the position after ``moves``, its search, depth and nodes used."""
    game = Game(variant)
    for text in moves:
        game.play(text)
    choice = HardPlayer(seed).choose(game, Limit(600.0, nodes))
    info = choice.info
    return game.rules.format_move(choice.move), info.search, info.depth, info.nodes


def main() -> None:
    cases = []
    for variant, moves, seed in positions():
        move, mode, depth, nodes = hard_choice(variant, moves, seed, NODES)
        cases.append(
            {
                "variant": variant,
                "moves": moves,
                "seed": seed,
                "nodes": NODES,
                "move": move,
                "search": mode,
                "depth": depth,
                "used": nodes,
            }
        )
    PATH.write_text(json.dumps(cases, indent=1) + "\n", encoding="utf-8")
    print(f"{len(cases)} positions written to {PATH}")


if __name__ == "__main__":
    main()
