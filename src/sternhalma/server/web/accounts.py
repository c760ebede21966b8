"""The accounts' HTTP side (docs/accounts.md): make an account, log in and out, change the
password, delete the account, download one's games; the profile (``/@/NICK``), ratings
next to names, and whether a table's game would be rated for the viewer.

The session cookie is HttpOnly (no script reads it), SameSite=Lax, and Secure when the
request came over HTTPS (behind a proxy: as it forwarded). Changing requests are
guarded against other sites by the Origin check (server/web/guard.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import FileResponse, JSONResponse

from sternhalma.errors import UnknownVariantError
from sternhalma.rules import VARIANTS
from sternhalma.server.accounts.profiles import (
    find_player,
    identity_player,
    profile,
    ratings_of,
    viewer_origin,
)
from sternhalma.server.accounts.service import AccountRules, Accounts, Session
from sternhalma.server.protocol import ProtocolError, TableError, parse_nickname
from sternhalma.server.storage.account_rows import SESSION_DAYS
from sternhalma.server.storage.identities import share_an_address
from sternhalma.server.tables.service import Tables
from sternhalma.server.web.incoming import address_of, json_object

COOKIE = "sternhalma_session"
#: The header a page sends its identity in where it asks about itself (its own profile,
#: whether a table would be rated for it): a GET has no body.
IDENTITY_HEADER = "x-sternhalma-identity"
#: Games one download holds (the newest).
MAX_DOWNLOAD = 500


def accounts_router(rules: AccountRules, web_root: Path) -> APIRouter:
    router = APIRouter()

    def accounts(request: Request) -> Accounts:
        tables: Tables = request.app.state.tables
        return Accounts(tables.store, rules)

    @router.get("/api/account")
    async def me(request: Request) -> dict[str, Any]:
        found = await accounts(request).me(request.cookies.get(COOKIE))
        if found is None:
            return {"player": None, "account": False}
        return {"player": {"id": found.player, "nickname": found.nickname}, "account": True}

    @router.post("/api/account/register")
    async def register(request: Request) -> JSONResponse:
        data = await json_object(request)
        identity = data.get("identity")
        if identity is not None and not isinstance(identity, str):
            raise ProtocolError('"identity" must be the secret your browser keeps')
        session = await accounts(request).register(
            parse_nickname(data.get("nickname")),
            data.get("password"),
            identity,
            address_of(request),
        )
        return logged_in(request, session)

    @router.post("/api/account/login")
    async def login(request: Request) -> JSONResponse:
        data = await json_object(request)
        session = await accounts(request).login(
            data.get("nickname"), data.get("password"), address_of(request)
        )
        return logged_in(request, session)

    @router.post("/api/account/logout")
    async def logout(request: Request) -> JSONResponse:
        await json_object(request)
        await accounts(request).logout(request.cookies.get(COOKIE))
        response = JSONResponse({"player": None, "account": False})
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return response

    @router.post("/api/account/password")
    async def change_password(request: Request) -> dict[str, Any]:
        data = await json_object(request)
        await accounts(request).change_password(
            request.cookies.get(COOKIE), data.get("old"), data.get("new"), address_of(request)
        )
        return {"changed": True}

    @router.post("/api/account/delete")
    async def delete_account(request: Request) -> JSONResponse:
        data = await json_object(request)
        player = await accounts(request).delete(
            request.cookies.get(COOKIE), data.get("password"), address_of(request)
        )
        tables: Tables = request.app.state.tables
        # This process's copies of the player's games are read again with the new name.
        for live in list(tables.copies.live.values()):
            if any(seat.player == player for seat in live.table.seats) and live.table.over:
                tables.copies.drop(live)
        response = JSONResponse({"deleted": True})
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return response

    @router.get("/api/account/games")
    async def download(request: Request) -> Response:
        """Every finished game of the logged-in player as game records (docs/records.md),
        newest first, one after another."""
        tables: Tables = request.app.state.tables
        found = await accounts(request).me(request.cookies.get(COOKIE))
        if found is None:
            raise TableError("login", "log in first")
        records: list[str] = []
        page = 0
        while len(records) < MAX_DOWNLOAD:
            data = await profile(tables.store, found.player, page, own=False)
            for game in data["games"]:
                if game["status"] == "over":
                    live = await tables.copies.get(game["id"])
                    records.append(live.table.record())
            if not data["more"]:
                break
            page += 1
        name = f"sternhalma-games-{found.nickname}.txt".replace('"', "")
        return Response(
            "\n".join(records),
            media_type="text/plain; charset=utf-8",
            headers={"Content-Disposition": f"attachment; filename*=UTF-8''{_quote(name)}"},
        )

    @router.get("/api/players/{nickname}")
    async def player_profile(nickname: str, request: Request, page: int = 0) -> dict[str, Any]:
        tables: Tables = request.app.state.tables
        found = await find_player(tables.store, nickname[:64])
        if found is None:
            raise TableError("no-player", f"there is no player called {nickname[:40]!r}")
        player, name, account = found
        me = await accounts(request).me(request.cookies.get(COOKIE))
        mine = me.player if me is not None else None
        if mine is None:
            mine = await identity_player(tables.store, request.headers.get(IDENTITY_HEADER))
        data = await profile(tables.store, player, page, own=mine == player)
        return {"player": {"id": player, "nickname": name, "account": account}, **data}

    @router.get("/api/ratings/of")
    async def ratings_next_to_names(
        request: Request, category: str, players: str = ""
    ) -> dict[str, Any]:
        if category not in VARIANTS:
            raise UnknownVariantError(f"there is no rating category {category[:40]!r}")
        tables: Tables = request.app.state.tables
        ids = [p for p in players.split(",") if p][:50]
        return {"ratings": await ratings_of(tables.store, ids, category)}

    @router.post("/api/tables/unrated")
    async def unrated_for_me(request: Request) -> dict[str, Any]:
        """For each rated table asked about: why its game would not be rated if the viewer
        sat down (``same-address``), before they do."""
        data = await json_object(request)
        ids = data.get("tables")
        identity = data.get("identity")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ProtocolError('send {"tables": [table ids], "identity": your secret or null}')
        tables: Tables = request.app.state.tables
        me = await accounts(request).me(request.cookies.get(COOKIE))
        player = me.player if me is not None else None
        if player is None and isinstance(identity, str):
            player = await identity_player(tables.store, identity)
        mine = await viewer_origin(tables.store, player, address_of(request))
        answer: dict[str, str] = {}
        for table_id in ids[:50]:
            try:
                table = (await tables.copies.get(table_id)).table
            except TableError:
                continue
            origins = [s.origin for s in table.seats if s.origin is not None and s.player != player]
            if table.rated and share_an_address([*origins, mine], table.same_address):
                answer[table_id] = "same-address"
        return {"unrated": answer}

    async def index() -> Response:
        return FileResponse(web_root / "index.html")

    router.add_api_route("/@/{nickname}", index, include_in_schema=False)
    router.add_api_route("/account", index, include_in_schema=False)
    return router


def logged_in(request: Request, session: Session) -> JSONResponse:
    """The reply to a log-in (a password's or a passkey's): the player and the play
    secret the browser keeps; the session itself rides in the cookie."""
    response = JSONResponse(
        {
            "player": {
                "id": session.player,
                "nickname": session.nickname,
                "secret": session.secret,
            },
            "account": True,
        }
    )
    response.set_cookie(
        COOKIE,
        session.token,
        max_age=SESSION_DAYS * 86400,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )
    return response


def _quote(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="")
