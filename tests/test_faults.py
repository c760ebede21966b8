"""Faults in a two-process deployment: a server killed, Redis restarted, the database gone.

Real processes on 127.0.0.1 (tests/services.py). Each test puts back what it broke.
"""

from __future__ import annotations

import random
import urllib.error
from collections.abc import Iterator

import pytest
from services import Cluster, Player, moved, seated_pair, start_cluster

pytestmark = pytest.mark.timeout(240)

#: Picks the moves (the first legal one each time would soon repeat a position).
CHOICE = random.Random(8)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_cluster(tmp_path_factory.mktemp("faults"))
    try:
        yield running
    finally:
        running.close()


def play(mover: Player, other: Player, seat: int) -> str:
    """``mover`` plays its first legal move; ``other`` sees it. The move's text."""
    assert mover.state["turn"] == seat, mover.seen[-3:]
    path = CHOICE.choice(mover.state["legal"])
    version = mover.state["v"] + 1
    mover.move(seat, path)
    for player in (other, mover):
        player.until_version(version)
        assert _has({"state": player.state}, path), player.seen[-3:]
    return "-".join(path)


def _has(message: dict[str, object], path: list[str]) -> bool:
    state = message.get("state")
    return (
        isinstance(state, dict)
        and bool(state["moves"])
        and state["moves"][-1]["text"] == ("-".join(path))
    )


def test_a_killed_process_s_players_reconnect_to_the_other_and_lose_nothing(
    cluster: Cluster,
) -> None:
    table, on_a, on_b = seated_pair(cluster)
    token_b = on_b.token
    played = [play(on_a, on_b, 0), play(on_b, on_a, 1), play(on_a, on_b, 0)]
    seen = on_a.state["v"]
    cluster.a.kill()
    try:
        # A's player reconnects (as the browser does) to B, with the version it saw.
        moved_on = Player(cluster.b, table["id"], table["token"], since=seen)
        assert moved_on.welcome["seats"] == [0]
        assert moved_on.welcome["missed"] == []
        assert [m["text"] for m in moved_on.state["moves"]] == played
        # B's player moved meanwhile? Not yet: it does now, and play goes on.
        played.append(play(on_b, moved_on, 1))
        played.append(play(moved_on, on_b, 0))
        played.append(play(on_b, moved_on, 1))
        state = cluster.b.get(f"/api/tables/{table['id']}")
        assert [m["text"] for m in state["moves"]] == played
        assert state["v"] == moved_on.state["v"]
        assert on_b.token == token_b
        moved_on.close()
    finally:
        on_a.close()
        on_b.close()
        cluster.a.start()


def test_play_goes_on_while_redis_restarts(cluster: Cluster) -> None:
    table, on_a, on_b = seated_pair(cluster)
    played = [play(on_a, on_b, 0), play(on_b, on_a, 1)]
    cluster.redis.stop()
    try:
        # Without Redis a move still counts; the other process finds it in the
        # database and sends its player a sync with the missed event.
        path = on_a.state["legal"][0]
        on_a.move(0, path)
        sync = on_b.until(lambda m: m["type"] == "sync" and _has(m, path))
        assert [e["event"]["kind"] for e in sync["missed"]] == ["move"]
        played.append("-".join(path))
    finally:
        cluster.redis.start()
    # Redis is back (same port): both processes listen again and events flow.
    played.append(play(on_b, on_a, 1))
    for _ in range(3):
        path = CHOICE.choice(on_a.state["legal"])
        on_a.move(0, path)
        seen = on_b.until(lambda m, p=path: m["type"] in ("event", "sync") and _has(m, p))
        played.append("-".join(path))
        played.append(play(on_b, on_a, 1))
    assert seen["type"] == "event", "the subscriber did not come back after Redis restarted"
    assert [m["text"] for m in cluster.a.get(f"/api/tables/{table['id']}")["moves"]] == played
    on_a.close()
    on_b.close()


def test_the_database_unreachable_gives_clear_errors_and_play_resumes(cluster: Cluster) -> None:
    table, on_a, on_b = seated_pair(cluster)
    played = [play(on_a, on_b, 0)]
    cluster.postgres.stop()
    try:
        path = on_b.state["legal"][0]
        on_b.move(1, path)
        refused = on_b.until(lambda m: m["type"] == "error")
        assert refused["code"] == "unavailable"
        assert "database" in refused["message"]
        # A table this process has not loaded: the HTTP API says 503 with the reason.
        with pytest.raises(urllib.error.HTTPError) as answer:
            cluster.a.get("/api/tables/not-loaded-here")
        assert answer.value.code == 503
        # A new connection to the table is refused with the reason, not "no such table".
        from websockets.exceptions import ConnectionClosed
        from websockets.sync.client import connect

        with connect(f"{cluster.b.ws_url}/ws/tables/{table['id']}") as ws:
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
    finally:
        cluster.postgres.start()
    # Back: the same move is accepted (nothing was half-saved) and play goes on.
    on_b.move(1, path)
    on_a.until(lambda m: _has(m, path))
    played.append("-".join(path))
    played.append(play(on_a, on_b, 0))
    played.append(play(on_b, on_a, 1))
    state = cluster.b.get(f"/api/tables/{table['id']}")
    assert [m["text"] for m in state["moves"]] == played
    on_a.close()
    on_b.close()


def test_moves_reach_the_other_process_in_order(cluster: Cluster) -> None:
    """Many quick moves: the other process's client sees every version once, in order."""
    _, on_a, on_b = seated_pair(cluster)
    start = on_a.state["v"]
    for _ in range(10):
        play(on_a, on_b, 0)
        play(on_b, on_a, 1)
    for player in (on_a, on_b):
        versions = [m["v"] for m in player.seen if m["type"] == "event" and m["v"] > start]
        assert versions == list(range(start + 1, start + 21))
    assert moved(0)(next(m for m in on_b.seen if m["type"] == "event" and m["v"] == start + 1))
    on_a.close()
    on_b.close()
