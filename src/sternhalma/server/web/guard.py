"""Requests from other sites: what every HTTP request and websocket passes first.

- **Host**: the name the browser used must be one of ours (localhost, the bind
  address, an ``--allow-origin`` host) or a bare IP address. A page under DNS
  rebinding reaches this server under the attacker's name, so its Host (and its
  Origin, which matches it) is refused.
- **Origin**: a browser's websocket, and any request that changes something
  (POST, PUT, PATCH, DELETE), must come from a page of this server or an allowed
  origin. Clients that are not browsers send no Origin and are let in: they can
  only do what the API allows anyway.
- **JSON only**: a request that changes something must say ``application/json``.
  A page of another site can send a form or ``text/plain`` without asking, but
  not JSON, for which the browser first asks this server (CORS), which never agrees.
- **Headers**: every response, API and /static included, carries SECURITY_HEADERS.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Sent with every response: nothing may be loaded from another site, run inline or
#: framed; no sniffing a JSON answer into a script; no address given away as a referrer.
#: WebAssembly may be compiled (Pyodide, the local game's Python: docs/browser.md), not eval.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_RAW_HEADERS = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

#: Methods that change something: JSON from an allowed origin only.
CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def host_names(bind: str, origins: Iterable[str]) -> frozenset[str]:
    """The names this server answers to besides bare IP addresses."""
    names = {"localhost", bind.strip("[]").lower()}
    names.update((urlsplit(origin).hostname or "") for origin in origins)
    return frozenset(name for name in names if name)


def host_allowed(host: str, names: frozenset[str]) -> bool:
    """Whether a Host header (``name[:port]``) names this server."""
    try:
        name = urlsplit(f"//{host}").hostname or ""
    except ValueError:
        return False
    if name in names:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True  # a bare address cannot be rebound: the page was loaded from it


def origin_allowed(origin: str | None, host: str, origins: Iterable[str]) -> bool:
    """Whether the page that sent a request is ours (or an allowed origin's)."""
    if origin is None:
        return True
    if origin in origins:
        return True
    parsed = urlsplit(origin)
    return parsed.scheme in ("http", "https") and parsed.netloc.lower() == host.lower()


class Guard:
    """ASGI middleware doing the checks above, before the app sees the request."""

    def __init__(self, app: ASGIApp, *, bind: str, origins: tuple[str, ...]) -> None:
        self.app = app
        self.origins = origins
        self.names = host_names(bind, origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        hosts = headers.getlist("host")
        # Two Host headers name two servers: which one the request meant is anybody's
        # guess, so it is refused like a Host of another site.
        host = hosts[0] if len(hosts) == 1 else ", ".join(hosts)
        refusal = None
        if len(hosts) > 1 or not host_allowed(host, self.names):
            refusal = (
                400,
                "host",
                f"this server does not answer to the name {host[:60]!r}; "
                "its operator can allow it with --allow-origin",
            )
        elif scope["type"] == "websocket" or scope["method"] in CHANGING:
            if not origin_allowed(headers.get("origin"), host, self.origins):
                refusal = (403, "origin", "requests from pages of other sites are refused")
            elif scope["type"] == "http" and not _is_json(headers.get("content-type", "")):
                refusal = (415, "json", "send the request as JSON (Content-Type: application/json)")
        if refusal is not None:
            if scope["type"] == "websocket":
                # Before accepting: the browser sees the handshake refused (HTTP 403).
                await send({"type": "websocket.close", "code": 1008, "reason": refusal[2]})
            else:
                await _refuse(send, *refusal)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in _RAW_HEADERS if k not in present]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _is_json(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"type": "error", "code": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *_RAW_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
