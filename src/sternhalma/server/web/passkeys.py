"""Passkeys' HTTP side (docs/accounts.md "Passkeys"): add, list and remove one's passkeys;
log in with one. The relying party is the name the browser used (the guard has checked
it is one of ours) or, with ``--public-url``, that address's: a passkey belongs to one
name, so a deployment reached under several should say which with ``--public-url``.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from sternhalma.server.accounts.passkeys import Passkeys
from sternhalma.server.accounts.service import AccountRules, Accounts
from sternhalma.server.protocol import TableError
from sternhalma.server.tables.service import Tables
from sternhalma.server.web.accounts import COOKIE, logged_in
from sternhalma.server.web.incoming import address_of, json_object


def relying_party(public_url: str | None, request: Request) -> tuple[str, str]:
    """The relying party id and the origin a ceremony is made for. WebAuthn takes names
    only: a page opened at a bare address is told which name to use instead."""
    if public_url:
        parts = urlsplit(public_url)
        origin = f"{parts.scheme}://{parts.netloc}"
    else:
        parts = urlsplit(f"//{request.headers.get('host', '')}")
        origin = f"{request.url.scheme}://{parts.netloc}"
    name = (parts.hostname or "").lower()
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return name, origin
    if address.is_loopback:
        port = f":{parts.port}" if parts.port else ""
        hint = f"open http://localhost{port}/account instead"
    else:
        hint = "its operator can give it one with --public-url (docs/deploy.md)"
    raise TableError(
        "passkey-address",
        f"passkeys need the server's name, not its address {name!r}: {hint}",
    )


def passkeys_router(rules: AccountRules, public_url: str | None) -> APIRouter:
    router = APIRouter()

    def passkeys(request: Request) -> Passkeys:
        tables: Tables = request.app.state.tables
        return Passkeys(Accounts(tables.store, rules))

    @router.get("/api/account/passkeys")
    async def mine(request: Request) -> dict[str, Any]:
        return {"passkeys": await passkeys(request).mine(request.cookies.get(COOKIE))}

    @router.post("/api/account/passkeys/options")
    async def register_options(request: Request) -> dict[str, Any]:
        data = await json_object(request)
        rp_id, origin = relying_party(public_url, request)
        return await passkeys(request).begin_register(
            request.cookies.get(COOKIE),
            data.get("password"),
            data.get("name"),
            rp_id,
            origin,
            address_of(request),
        )

    @router.post("/api/account/passkeys")
    async def register(request: Request) -> dict[str, Any]:
        data = await json_object(request)
        added = await passkeys(request).finish_register(
            request.cookies.get(COOKIE), data.get("ceremony"), data.get("credential")
        )
        return {"passkey": added}

    @router.post("/api/account/passkeys/remove")
    async def remove(request: Request) -> dict[str, Any]:
        data = await json_object(request)
        await passkeys(request).remove(request.cookies.get(COOKIE), data.get("id"))
        return {"removed": True}

    @router.post("/api/account/passkey-login/options")
    async def login_options(request: Request) -> dict[str, Any]:
        await json_object(request)
        rp_id, origin = relying_party(public_url, request)
        return await passkeys(request).begin_login(rp_id, origin, address_of(request))

    @router.post("/api/account/passkey-login")
    async def login(request: Request) -> JSONResponse:
        data = await json_object(request)
        session = await passkeys(request).finish_login(
            data.get("ceremony"), data.get("credential"), address_of(request)
        )
        return logged_in(request, session)

    return router
