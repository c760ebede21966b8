"""Games being played online, as the lobby's live list and the Watch page show them:
read from the database (every process of a cluster sees the same list), with each
player's rating in the game's variant where the player has one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from sternhalma.rating import ESTABLISHED_GAMES
from sternhalma.rules import find_variant
from sternhalma.server.storage.database import reachable
from sternhalma.server.storage.schema import RatingRow, TableRow
from sternhalma.server.storage.store import Store


class LiveGames:
    """The online games being played now."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.url = store.url

    @reachable
    async def playing(self, limit: int = 200) -> list[dict[str, Any]]:
        """Online tables being played, each with its players' ratings (``rating``: the
        mean of the known ones, None without any), the most recently changed first."""
        async with self.store.sessions() as session:
            rows = (
                await session.scalars(
                    select(TableRow)
                    .where(TableRow.status == "playing", TableRow.seats.contains('"online"'))
                    .order_by(TableRow.updated_at.desc())
                    .limit(limit)
                )
            ).all()
            tables = self.store._readable(rows)
            wanted = {
                (seat["player"], table.variant)
                for table in tables
                for seat in table.seats
                if seat.get("player")
            }
            ratings: dict[tuple[str, str], RatingRow] = {}
            players = {player for player, _ in wanted}
            if players:
                found = await session.scalars(
                    select(RatingRow).where(RatingRow.player_id.in_(players))
                )
                ratings = {(r.player_id, r.category): r for r in found}
        games = []
        for table in tables:
            rules = find_variant(table.variant)
            seats = []
            known = []
            for colour, seat in zip(rules.seats, table.seats, strict=False):
                rated = ratings.get((seat.get("player") or "", table.variant))
                entry: dict[str, Any] = {
                    "colour": colour,
                    "kind": seat.get("kind"),
                    "level": seat.get("level"),
                    "nickname": seat.get("nickname"),
                    "rating": None if rated is None else round(rated.rating),
                    "provisional": rated is None or rated.games < ESTABLISHED_GAMES,
                }
                if rated is not None:
                    known.append(rated.rating)
                seats.append(entry)
            games.append(
                {
                    "id": table.id,
                    "variant": table.variant,
                    "game": rules.game,
                    "seats": seats,
                    "moves": sum(1 for a in table.actions if a.get("move")),
                    "clock": table.clock.control if table.clock is not None else None,
                    "rated": table.rated,
                    "rating": round(sum(known) / len(known)) if known else None,
                }
            )
        return games
