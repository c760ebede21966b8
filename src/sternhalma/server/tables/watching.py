"""The games one may watch: online games being played, the best-rated first, with how
many watch each (over every process: tables/presence.py). The list comes from the
database (storage/watching.py), so every process of a cluster gives the same.
"""

from __future__ import annotations

from typing import Any

from sternhalma.server.storage.store import Store
from sternhalma.server.storage.watching import LiveGames
from sternhalma.server.tables.presence import Presence


class Watching:
    """The lobby's live list and the Watch page's choice."""

    def __init__(self, store: Store, presence: Presence) -> None:
        self.games = LiveGames(store)
        self.presence = presence

    async def live(self, limit: int = 50) -> list[dict[str, Any]]:
        """Games being played, the best-rated first (games without a rated player last,
        the liveliest of those first)."""
        games = await self.games.playing()
        for game in games:
            game["spectators"] = self.presence.everyone(game["id"])[1]
        games.sort(key=lambda g: (g["rating"] is None, -(g["rating"] or 0)))
        return games[:limit]
