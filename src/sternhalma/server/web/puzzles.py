"""The puzzles' and the rules lesson's server calls (the /puzzles and /learn pages).

The puzzle set itself is a static file (web/data/puzzles.json, made by
``sternhalma puzzles make``); the browser checks an answer against the
answers it ships. What needs the engine is here: a "finish in N" puzzle's
moves for one seat alone (solo.py: not a variant position, so not
``/api/analysis/moves``), and the lesson's positions with their legal moves.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from sternhalma.lessons import lesson
from sternhalma.rules import VARIANTS
from sternhalma.rules.race import RaceRules
from sternhalma.server.protocol import ProtocolError
from sternhalma.server.web.incoming import json_object
from sternhalma.solo import SoloMoves

router = APIRouter()


def solo_moves(body: dict[str, Any]) -> dict[str, Any]:
    """Every move of one seat's marbles alone on the board, with the marbles after it."""
    rules = VARIANTS.get(str(body.get("variant")))
    if not isinstance(rules, RaceRules):
        raise ProtocolError('"variant" must be a race variant, like "classic-2"')
    seat = body.get("seat")
    if seat not in rules.seats:
        raise ProtocolError(f'"seat" must be one of {", ".join(rules.seats)}')
    marbles = body.get("marbles")
    board = rules.board
    if (
        not isinstance(marbles, list)
        or not 1 <= len(marbles) <= rules.marbles_per_seat
        or not all(isinstance(name, str) and name in board.index_of for name in marbles)
        or len(set(marbles)) != len(marbles)
    ):
        raise ProtocolError(f'"marbles" must be the names of 1 to {rules.marbles_per_seat} holes')
    index = rules.seats.index(seat)
    own = board.mask_of_names(marbles)
    solo = SoloMoves(rules, index)
    moves = []
    for start, end in solo.ends(own):
        move = solo.path(own, start.bit_length() - 1, end.bit_length() - 1)
        moves.append(
            {
                "text": rules.format_move(move),
                "path": [board.names[h] for h in move],
                "marbles": board.names_of(own ^ start ^ end),
            }
        )
    return {"moves": moves}


@router.post("/api/puzzles/solo-moves")
async def puzzle_solo_moves(request: Request) -> dict[str, Any]:
    """A "finish in N" puzzle's moves: {variant, seat, marbles} → {moves}."""
    body = await json_object(request, 'send {"variant", "seat", "marbles": [<hole names>]}')
    return solo_moves(body)


@router.get("/api/learn")
async def learn() -> dict[str, Any]:
    """The rules lesson: each step's position and legal moves, the asked ones marked."""
    return {"steps": await asyncio.to_thread(lesson)}
