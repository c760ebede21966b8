"""Writes Hard's opening book, src/sternhalma/opening_book.json (docs/players.md): for the
start position of every variant, the move the compiled Hard makes there when it thinks
BOOK_SECONDS, four times its default. Hard (players/hard.py) plays that move at once
instead of searching for the game's first move, on the server and in the browser.

    .venv/bin/python tools/make_book.py

Needs the compiled core (``make setup``). Run it again when the rules or Hard change.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sternhalma.core import COMPILED
from sternhalma.game import Game
from sternhalma.notation import position_to_json
from sternhalma.players import HardPlayer
from sternhalma.players.choice import Limit
from sternhalma.rules import VARIANTS, find_variant

BOOK = Path(__file__).resolve().parents[1] / "src" / "sternhalma" / "opening_book.json"
BOOK_SECONDS = 4.0
SEED = 0


def start_positions() -> dict[str, str]:
    """Each variant's start position (its JSON text, the book's key), by variant."""
    return {variant: position_to_json(Game(variant).position) for variant in VARIANTS}


def book_move(variant: str) -> str:
    """The compiled Hard's move from ``variant``'s start, as move text."""
    game = Game(variant)
    move = HardPlayer(SEED, book=False).choose(game, Limit(seconds=BOOK_SECONDS)).move
    return find_variant(variant).format_move(move)


def main() -> None:
    if not COMPILED:
        sys.exit("the compiled core is not built: run make setup")
    book = {}
    for variant, key in start_positions().items():
        book[key] = book_move(variant)
        print(f"{variant:20} {book[key]}", flush=True)
    BOOK.write_text(json.dumps(book, indent=1, sort_keys=True) + "\n")
    print(f"{len(book)} openings written to {BOOK}")


if __name__ == "__main__":
    main()
