"""The games one may watch: ``/api/live`` (the lobby's live list and the Watch page's
choice) and the Watch page itself (``/watch``, which follows the best-rated game).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response


def watching_router(web_root: Path) -> APIRouter:
    router = APIRouter()

    @router.get("/api/live")
    async def live(request: Request) -> dict[str, Any]:
        """Online games being played, the best-rated first (docs/protocol.md)."""
        return {"games": await request.app.state.tables.watching.live()}

    @router.get("/watch", include_in_schema=False)
    async def watch() -> Response:
        return FileResponse(web_root / "index.html")

    return router
