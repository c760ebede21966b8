"""The analysis board and the game review on the server.

Fast answers (a record read into its positions, the legal moves of a
position) are computed at once. The computer's work (moves to go, best move,
one move of a review) is an ``AnalysisJob`` for the computer's thinking
(server/thinking/: the server's pool, or ``sternhalma worker`` on Redis),
below computer moves and hints, admitted by the one admission layer
(server/web/admission.py): one review at a time per connection, a rate per
connection and per address, and together with hints at most the layer's places
of the thinking; beyond that the request is refused, so a crowd of reviews never
crowds out the computer players.

A review streams: the browser opens ``/ws/analysis``, sends the record, and
gets each move's verdict as soon as it is judged (that is the progress).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from sternhalma.analysis import race_rules, replay, thresholds
from sternhalma.errors import SternhalmaError
from sternhalma.game import Result
from sternhalma.jsontext import JsonTextError, read_json
from sternhalma.notation import position_from_dict, position_to_dict
from sternhalma.position import Position
from sternhalma.records import read_record
from sternhalma.server.protocol import MAX_BODY, ProtocolError, TableError, error_message
from sternhalma.server.thinking import Priority, Thinking, ThinkingFailed
from sternhalma.server.thinking.analysis import AnalysisJob, game_at, record_game
from sternhalma.server.web.admission import CLOSE_FLOOD, Admission, ConnectionLimits, Limits
from sternhalma.solo import crossing_rules


# -- fast answers on the server ------------------------------------------------------------
def record_plies(text: str) -> dict[str, Any]:
    """A record as the analysis board steps through it: every position and move."""
    record = read_record(text)
    game = record.game
    rules = game.rules
    names = rules.board.names
    positions = [position_to_dict(game.start)]
    moves = []
    for before, move in replay(game):
        moves.append({"text": rules.format_move(move), "path": [names[h] for h in move]})
        positions.append(position_to_dict(rules.apply_unchecked(before.position, move)))
    return {
        "variant": rules.id,
        "players": record.players,
        "result": None if game.result is None else game.result.reason,
        "outcome": None if game.result is None else _outcome(rules.seats, game.result),
        "analysable": rules.game != "capture",
        "positions": positions,
        "moves": moves,
    }


def _outcome(seats: tuple[str, ...], result: Result) -> dict[str, Any]:
    """The result in words the browser translates (the reason is English only)."""
    return {
        "places": list(result.places),
        "team_places": list(result.team_places),
        "ending": result.ending,
        "seat": None if result.seat is None else seats[result.seat],
    }


def legal_moves(position: object) -> dict[str, Any]:
    """Every legal move of a position, each with the position it leads to."""
    game = game_at(position_from_dict(position))
    rules = game.rules
    names = rules.board.names
    return {
        "moves": [
            {
                "text": rules.format_move(move),
                "path": [names[h] for h in move],
                "after": position_to_dict(rules.apply_unchecked(game.position, move)),
            }
            for move in game.legal_moves()
        ]
    }


def crossing_moves(white: object) -> dict[str, Any]:
    """The crossing puzzle's moves from white's marbles (hole names), each with the
    marbles after it. The puzzle is not a variant: one seat alone (solo.py)."""
    rules = crossing_rules()
    board = rules.board
    if (
        not isinstance(white, list)
        or len(white) != rules.marbles_per_seat
        or not all(isinstance(name, str) and name in board.index_of for name in white)
        or len(set(white)) != len(white)
    ):
        raise ProtocolError(f'"white" must be the names of {rules.marbles_per_seat} holes')
    own = board.mask_of_names(white)
    position = Position(rules, 0, (own,))
    return {
        "moves": [
            {
                "text": rules.format_move(move),
                "path": [board.names[h] for h in move],
                "white": board.names_of(own ^ (1 << move[0]) ^ (1 << move[-1])),
            }
            for move in rules.legal_moves(position)
        ]
    }


#: Refusals after which a page is not read for a while (0.5 s, doubling, at most
#: MAX_BACK_OFF seconds), and what is kept in between.
BACK_OFF = frozenset({"too-many-requests", "busy", "flood"})
MAX_BACK_OFF = 8.0


class Analyses:
    """The server's analyses, admitted by the one admission layer (server/web/admission.py)."""

    def __init__(
        self, thinking: Thinking, admission: Admission, limits: Limits | None = None
    ) -> None:
        #: The thinking as the layer shares it: analyses hold at most its places.
        self.thinking = thinking
        self.admission = admission
        self.limits = limits or Limits()

    async def think(self, work: str, *args: Any) -> Any:
        """The result of ``WORK[work](*args)``, run as a job once the layer gives it a
        place; Busy when too many wait. Cancelling the call cancels the job."""
        key = f"analysis:{work}:{uuid.uuid4().hex}"
        answer = await self.thinking.think(AnalysisJob(work, args), Priority.ANALYSIS, key)
        return json.loads(answer)

    async def serve(self, websocket: WebSocket, address: str = "unknown") -> None:
        """One browser's analysis connection: position analyses and at most one review.

        Every message passes the connection's rate, is read by the bounded JSON reader,
        and each request the address's rate, before any work; the record of a review is
        read in a thread. Only the newest position analysis matters (the page has moved
        on): a new one cancels the one before.
        """
        review: asyncio.Task[None] | None = None
        analysis: asyncio.Task[None] | None = None
        lock = asyncio.Lock()  # one message out at a time
        own = ConnectionLimits(self.limits, asyncio.get_running_loop().time)
        admission = self.admission
        refusals = 0  # requests refused in a row for a rate or a full share

        async def send(data: dict[str, Any]) -> None:
            async with lock:
                await websocket.send_text(json.dumps(data))

        async def run_review(text: str) -> None:
            try:
                game = await admission.work(record_game, text)
                total = len(game.moves)
                await send({"type": "review-start", "total": total})
                start = await self.think("start", text)
                await send({"type": "review-position", "number": 0, **start})
                for number in range(1, total + 1):
                    judged = await self.think("move", text, number)
                    await send({"type": "review-move", "done": number, "total": total, **judged})
                await send(
                    {
                        "type": "review-done",
                        "thresholds": thresholds(),
                    }
                )
            except (SternhalmaError, ThinkingFailed) as error:
                await send({"type": "error", **error_message(error)})

        async def run_analysis(position: object, ident: object) -> None:
            try:
                race_rules(game_at(position_from_dict(position)).rules)  # bad input: said now
                result = await self.think("analyse", position)
                await send({"type": "analysis", "id": ident, **result})
            except (SternhalmaError, ThinkingFailed) as error:
                await send({"type": "error", **error_message(error)})

        try:
            while True:
                received = await websocket.receive()
                if received["type"] == "websocket.disconnect":
                    break
                admitted = await own.flooding()
                if admitted is None:
                    await websocket.close(code=CLOSE_FLOOD, reason="too many messages")
                    break
                try:
                    if not admitted:
                        raise TableError("flood", "too many messages; slow down")
                    message = _message(received.get("text", received.get("bytes")))
                    kind = message["type"]
                    if kind == "analyse":
                        await admission.admit("analysis", address)
                        if analysis is not None:
                            analysis.cancel()
                        analysis = asyncio.create_task(
                            run_analysis(message.get("position"), message.get("id"))
                        )
                    elif kind == "review":
                        if review is not None and not review.done():
                            raise ProtocolError("a review is already running on this page")
                        record = message.get("record")
                        if not isinstance(record, str):
                            raise ProtocolError('"review" needs the "record" text')
                        await admission.admit("review", address)
                        review = asyncio.create_task(run_review(record))
                    elif kind == "cancel":
                        if review is not None:
                            review.cancel()
                    else:
                        raise ProtocolError(f"unknown message type {str(kind)[:20]!r}")
                    refusals = 0
                except SternhalmaError as error:
                    await send({"type": "error", **error_message(error)})
                    if isinstance(error, TableError) and error.code in BACK_OFF:
                        # Asking again at once will be refused again: this page is not
                        # read for a while, longer each time (its sender waits, and a
                        # flood of such pages costs the server next to nothing).
                        refusals += 1
                        await asyncio.sleep(min(MAX_BACK_OFF, 0.25 * 2**refusals))
        except WebSocketDisconnect:
            pass
        finally:
            for task in (review, analysis):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, SternhalmaError):
                        await task


def _message(text: str | bytes | None) -> dict[str, Any]:
    """A message read by the one bounded JSON reader (sternhalma.jsontext)."""
    if text is None:
        raise ProtocolError("a message must be JSON text")
    if len(text) > MAX_BODY:
        raise ProtocolError(f"the message is too large (at most {MAX_BODY} bytes)")
    try:
        data = read_json(text)
    except JsonTextError as error:
        raise ProtocolError(f"a message must be JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ProtocolError('a message must be a JSON object with a "type"')
    return data
