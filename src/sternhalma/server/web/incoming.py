"""What a route reads from a request: the client's address and the JSON body, refused
with a clear ProtocolError when it is too large, cut short or not JSON. A module of its
own so that the routers app.py includes read them without importing app.py."""

from __future__ import annotations

from typing import Any

from fastapi import Request, WebSocket
from starlette.requests import ClientDisconnect

from sternhalma.jsontext import JsonTextError, read_json
from sternhalma.server.protocol import MAX_BODY, ProtocolError


def address_of(connection: Request | WebSocket) -> str:
    """The client's address (behind a trusted proxy: the one it forwarded)."""
    return connection.client.host if connection.client is not None else "unknown"


class BodyTooLarge(ProtocolError):
    """A request body over MAX_BODY bytes."""


async def json_body(request: Request) -> object:
    """The request's JSON body; ProtocolError when it is too large or not JSON."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared[:12]) > MAX_BODY:
        raise BodyTooLarge(f"the request is too large (at most {MAX_BODY} bytes)")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise BodyTooLarge(f"the request is too large (at most {MAX_BODY} bytes)")
    except ClientDisconnect:  # the body ended before its Content-Length: nothing to read
        raise ProtocolError("the request body ended before its Content-Length") from None
    try:
        return read_json(body)
    except JsonTextError as error:
        raise ProtocolError(f"the request body must be JSON: {error}") from None


async def json_object(request: Request, expected: str = "send a JSON object") -> dict[str, Any]:
    """The request's JSON body, which must be an object; ``expected`` says what to send."""
    body = await json_body(request)
    if not isinstance(body, dict):
        raise ProtocolError(expected)
    return body
