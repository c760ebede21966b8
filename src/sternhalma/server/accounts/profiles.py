"""What a player's pages show: the profile (ratings over time, games played and won,
the games themselves, newest first), the ratings next to names, and whether a viewer
would be rated at a table."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select

from sternhalma.rating import START_RATING, is_provisional
from sternhalma.server.accounts.service import player_tables
from sternhalma.server.storage.account_rows import AccountRow, is_trusted, session_player
from sternhalma.server.storage.identities import Origin
from sternhalma.server.storage.nicknames import nickname_key
from sternhalma.server.storage.schema import PlayerRow, RatingChangeRow, RatingRow, TableRow
from sternhalma.server.storage.store import Store
from sternhalma.server.storage.tokens import hash_secret

#: Games on one page of a profile.
PAGE = 20
#: Players whose ratings one request may ask for.
MAX_PLAYERS = 50


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


async def find_player(store: Store, nickname: str) -> tuple[str, str, bool] | None:
    """The player called ``nickname`` now (id, nickname, has an account)."""
    async with store.engine.connect() as connection:
        row = (
            await connection.execute(
                select(PlayerRow.id, PlayerRow.nickname, AccountRow.player_id)
                .outerjoin(AccountRow, AccountRow.player_id == PlayerRow.id)
                .where(PlayerRow.name_key == nickname_key(nickname))
            )
        ).first()
    return None if row is None else (str(row[0]), str(row[1]), row[2] is not None)


async def identity_player(store: Store, secret: str | None) -> str | None:
    """The player whose identity (or session play secret) is ``secret``."""
    if not secret:
        return None
    hashed = hash_secret(secret)
    async with store.engine.connect() as connection:
        found = (
            await connection.execute(select(PlayerRow.id).where(PlayerRow.secret_hash == hashed))
        ).scalar_one_or_none()
        if found is None:
            found = await connection.run_sync(session_player, hashed, datetime.now(UTC))
    return None if found is None else str(found)


async def viewer_origin(store: Store, player: str | None, address: str) -> Origin:
    """Where a viewer's identity comes from, as a sit would find it: the player's, or a
    new identity's from ``address`` now."""
    now = datetime.now(UTC)
    if player is not None:
        async with store.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(PlayerRow.address_hash, PlayerRow.created_at).where(
                        PlayerRow.id == player
                    )
                )
            ).first()
            if row is not None:
                rules = store.identities
                trusted = await connection.run_sync(
                    is_trusted, player, now, rules.account_age, rules.account_games
                )
                return Origin(row[0], _aware(row[1]), trusted)
    return Origin(store.hash_address(address), now)


async def ratings_of(store: Store, players: Sequence[str], category: str) -> dict[str, Any]:
    """Each player's rating in ``category`` as shown next to a name ("1662?" while
    provisional; a player without rated games has the start rating, provisional)."""
    wanted = list(dict.fromkeys(players))[:MAX_PLAYERS]
    shown: dict[str, Any] = {
        p: {"rating": round(START_RATING), "games": 0, "provisional": True} for p in wanted
    }
    if not wanted:
        return shown
    async with store.engine.connect() as connection:
        rows = await connection.execute(
            select(RatingRow.player_id, RatingRow.rating, RatingRow.games).where(
                RatingRow.player_id.in_(wanted), RatingRow.category == category
            )
        )
        for player, rating, games in rows:
            shown[player] = {
                "rating": round(rating),
                "games": games,
                "provisional": is_provisional(games),
            }
    return shown


def _seat(seats: list[Any], player: str) -> int | None:
    return next(
        (i for i, s in enumerate(seats) if isinstance(s, dict) and s.get("player") == player), None
    )


def _place(seats: list[Any], result: str | None, player: str) -> int | None:
    """The place ``player`` finished in (None: no result, or not seated)."""
    seat = _seat(seats, player)
    places = (json.loads(result) if result else {}).get("places") or []
    return places[seat] if seat is not None and seat < len(places) else None


def _game(row: Any, player: str) -> dict[str, Any]:
    """One game of a player's list."""
    seats = json.loads(row.seats)
    seat = _seat(seats, player)
    return {
        "id": row.id,
        "variant": row.variant,
        "status": row.status,
        "rated": row.rated,
        "at": _aware(row.updated_at).isoformat(),
        "seat": seat,
        "place": _place(seats, row.result, player),
        "players": [
            {"nickname": s.get("nickname"), "player": s.get("player"), "kind": s.get("kind")}
            for s in seats
            if isinstance(s, dict)
        ],
    }


async def profile(store: Store, player: str, page: int, own: bool) -> dict[str, Any]:
    """A player's profile: ratings per category with their history, games played and
    won, one page of finished games newest first, and (``own``) the games in progress."""
    page = max(0, page)
    async with store.engine.connect() as connection:
        ratings = (
            await connection.execute(
                select(RatingRow).where(RatingRow.player_id == player).order_by(RatingRow.category)
            )
        ).all()
        changes = (
            await connection.execute(
                select(
                    RatingChangeRow.category,
                    RatingChangeRow.before,
                    RatingChangeRow.after,
                    TableRow.updated_at,
                    TableRow.id,
                )
                .join(TableRow, TableRow.id == RatingChangeRow.table_id)
                .where(RatingChangeRow.player_id == player)
                .order_by(TableRow.updated_at)
            )
        ).all()
        finished = (
            await connection.execute(
                select(TableRow.seats, TableRow.result).where(
                    player_tables(player), TableRow.status == "over"
                )
            )
        ).all()
        games = (
            await connection.execute(
                select(TableRow)
                .where(player_tables(player), TableRow.status.in_(("over", "aborted")))
                .order_by(TableRow.updated_at.desc())
                .offset(page * PAGE)
                .limit(PAGE + 1)
            )
        ).all()
        running: Sequence[Any] = []
        if own:
            running = (
                await connection.execute(
                    select(TableRow)
                    .where(player_tables(player), TableRow.status.in_(("waiting", "playing")))
                    .order_by(TableRow.updated_at.desc())
                    .limit(PAGE)
                )
            ).all()
        total = (
            await connection.execute(
                select(func.count())
                .select_from(TableRow)
                .where(player_tables(player), TableRow.status.in_(("over", "aborted")))
            )
        ).scalar_one()
    won = sum(_place(json.loads(seats), result, player) == 1 for seats, result in finished)
    history: dict[str, list[dict[str, Any]]] = {}
    for category, before, after, at, table_id in changes:
        points = history.setdefault(category, [])
        if not points:
            points.append({"at": None, "rating": round(before)})
        points.append({"at": _aware(at).isoformat(), "rating": round(after), "table": table_id})
    return {
        "ratings": [
            {
                "category": r.category,
                "rating": round(r.rating),
                "deviation": round(r.deviation),
                "games": r.games,
                "provisional": is_provisional(r.games),
                "history": history.get(r.category, []),
            }
            for r in ratings
        ],
        "played": len(finished),
        "won": won,
        "games": [_game(row, player) for row in games[:PAGE]],
        "total": total,
        "page": page,
        "more": len(games) > PAGE,
        "in_progress": [_game(row, player) for row in running] if own else None,
    }
