"""Issue 23 over two server processes on PostgreSQL and Redis: the live list (from the
database, with the spectators counted over both processes) and the chat (a line said on
one process reaches a player on the other, and is kept for a new connection there).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from services import Cluster, Player, moved, seated_pair, start_cluster

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_cluster(tmp_path_factory.mktemp("cluster-watch"))
    try:
        yield running
    finally:
        running.close()


def listed(cluster: Cluster, table_id: str, spectators: int) -> dict[str, Any]:
    """The game as both processes list it, once both count ``spectators``."""
    found: dict[str, Any] = {}
    for server in (cluster.a, cluster.b):
        for _ in range(100):
            games = {g["id"]: g for g in server.get("/api/live")["games"]}
            if table_id in games and games[table_id]["spectators"] == spectators:
                found[server.url] = games[table_id]
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"{server.url} does not list {table_id} with {spectators}")
    first, second = found.values()
    return first if first == second else {"differ": (first, second)}


def test_the_live_list_and_the_chat_span_both_processes(cluster: Cluster) -> None:
    table, on_a, on_b = seated_pair(cluster)
    spectator = Player(cluster.b, table["id"])
    try:
        on_a.move(0, on_a.state["legal"][0])
        on_b.until(moved(0))
        game = listed(cluster, table["id"], 1)
        assert game["variant"] == "classic-2" and game["moves"] == 1
        assert [s["nickname"] for s in game["seats"]][1] == "bram"
        spectator.close()
        assert listed(cluster, table["id"], 0)["moves"] == 1
        # A line said on A reaches the player on B, and is kept for a new connection on B.
        on_a.send({"type": "chat", "text": "<b>hi</b> from A"})
        line = on_b.until(lambda m: m["type"] == "chat")["line"]
        assert line["text"] == "<b>hi</b> from A" and line["room"] == "players"
        again = Player(cluster.b, table["id"], table["token"])
        try:
            assert [c["text"] for c in again.welcome["chat"]] == ["<b>hi</b> from A"]
        finally:
            again.close()
    finally:
        for player in (on_a, on_b, spectator):
            player.close()
