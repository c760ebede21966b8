"""Test helpers: positions built by hand, a coroutine run on a loop of its own, the test client."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urljoin

from starlette.testclient import TestClient, WebSocketTestSession
from starlette.types import ASGIApp

from sternhalma.game import Game
from sternhalma.position import Position
from sternhalma.rules import find_variant
from sternhalma.server.storage.store import Store, database_url

T = TypeVar("T")

#: Classic-2's first two moves: past Hard's opening book, so a Hard job there searches
#: (from the start Hard plays the book's move at once).
PAST_THE_BOOK = ("l4-l5", "e14-e13")


class Client(TestClient):
    """Starlette's test client under the name ``localhost``: the server refuses names
    it does not answer to (server/web/guard.py), and the client's own ``testserver`` is one."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app, base_url="http://localhost")

    def websocket_connect(self, url: str, *args: Any, **kwargs: Any) -> WebSocketTestSession:
        return super().websocket_connect(urljoin("ws://localhost", url), *args, **kwargs)


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on an event loop of its own in a thread (the browser tests keep
    a loop running in the main thread) and return its result or raise its error."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def migrate(path: Path) -> None:
    """Open the SQLite file at ``path`` as the server does at start (its migrations run),
    then close it."""

    async def open_and_close() -> None:
        store = Store(database_url(str(path)))
        try:
            await store.open()
        finally:
            await store.close()

    run_apart(open_and_close())


def position(variant: str, turn: str, **marbles: str) -> Position:
    """A position with the given marbles (space-separated hole names per colour).

    Colours left out have no marbles. Counts are not checked, so a rule can be
    shown with just the marbles it needs.
    """
    rules = find_variant(variant)
    boards = tuple(rules.board.mask_of_names(marbles.get(c, "").split()) for c in rules.seats)
    return Position(rules, rules.seat_of(turn), boards)


def move_texts(pos: Position, start: str | None = None) -> set[str]:
    """The legal moves as text, optionally only those of the marble on ``start``."""
    rules = pos.rules
    texts = {rules.format_move(m) for m in rules.legal_moves(pos)}
    return {t for t in texts if start is None or t.split("-")[0] == start}


def ends(pos: Position, start: str) -> set[str]:
    return {t.split("-")[-1] for t in move_texts(pos, start)}


def head() -> str:
    """The newest migration's revision: what an upgraded database is stamped with."""
    from alembic.script import ScriptDirectory

    from sternhalma.server.storage.migrations import config

    revision = ScriptDirectory.from_config(config()).get_current_head()
    assert revision is not None
    return revision


def game_with_a_blunder() -> tuple[Game, str, str]:
    """A classic-2 game of five moves from a position near its end (white has three
    marbles left outside its goal), the third white's worst move, which the review
    judges a loss. The game, that move's text and its verdict (inaccuracy, mistake)."""
    from sternhalma.analysis import review_move
    from sternhalma.players import make_player

    white, black = make_player("medium", 1), make_player("medium", 2)
    game = Game("classic-2", deadline_rule=False)
    rules = game.rules
    goal = rules.goals[0]  # type: ignore[attr-defined]
    while (game.position.marbles[0] & ~goal).bit_count() > 3 or game.turn != 0:
        assert not game.is_over
        game.play((white if game.turn == 0 else black).choose(game).move)
    start = Game("classic-2", start=game.position, deadline_rule=False)
    start.play(white.choose(start).move)
    start.play(black.choose(start).move)
    reviews = {move: review_move(start.copy(), move) for move in start.legal_moves()}
    worst = max(reviews, key=lambda move: (reviews[move].loss, move))
    verdict = reviews[worst].verdict
    assert verdict != "good"
    blunder = rules.format_move(worst)
    start.play(worst)
    start.play(black.choose(start).move)
    start.play(white.choose(start).move)
    return start, blunder, verdict
