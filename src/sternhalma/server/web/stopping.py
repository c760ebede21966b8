"""A websocket still open when the server stops ends there, without a traceback.

uvicorn gives open connections a grace period when it stops (``serve`` sets 5 s),
then cancels their handlers. A handler that is not reading its socket then (an
analysis page made to wait after a refusal waits up to 8 s) would end in a logged
traceback, one per connection: an operator stopping a flooded server saw dozens.
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Receive, Scope, Send


class QuietStop:
    """Outermost: a websocket handler cancelled ends the connection quietly (only
    the server cancels one, when it stops)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        except asyncio.CancelledError:
            return
