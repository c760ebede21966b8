"""Answers for requests no route takes, in the project's error shape
(``{"type": "error", "code", "message"}``, docs/protocol.md) instead of FastAPI's
``{"detail": ...}``.

An address under ``/api/`` or ``/ws/`` gets JSON; any other (a page a person typed)
gets the page ``install`` is given (the HTML 404 page of web/pages.py; by default
the same JSON).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException

from sternhalma.errors import shown

#: Codes by HTTP status of what the routing refuses.
CODES = {404: "not-found", 405: "method"}


def api_error(status: int, path: str) -> JSONResponse:
    code = CODES.get(status, "http")
    if status == 404:
        message = f"there is nothing at {shown(path, 80)}: the API is described in docs/protocol.md"
    elif status == 405:
        message = f"{shown(path, 80)} does not take this method"
    else:
        message = "the request was refused"
    return JSONResponse({"type": "error", "code": code, "message": message}, status_code=status)


async def page_not_found(request: Request) -> Response:
    """A page address nothing serves (the hook for an HTML page)."""
    return api_error(404, request.url.path)


def install(app: FastAPI, pages: Callable[[Request], Awaitable[Response]] = page_not_found) -> None:
    """Answer refusals of the routing (404, 405) in the project's error shape."""

    @app.exception_handler(HTTPException)
    async def routing_refused(request: Request, error: HTTPException) -> Response:
        path = request.url.path
        if error.status_code == 404 and not path.startswith(("/api/", "/ws/")):
            return await pages(request)
        response = api_error(error.status_code, path)
        if error.headers:
            response.headers.update(error.headers)
        return response
