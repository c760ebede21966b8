"""Load on online tables: N tables, two scripted websocket players each, on 127.0.0.1.

    .venv/bin/python bench/load.py                      # both setups, human pace + saturation
    .venv/bin/python bench/load.py --setup sqlite --tables 250 500 --seconds 20
    .venv/bin/python bench/load.py --saturation-only --setup cluster

Setups: ``sqlite`` is one ``sternhalma serve`` process on an SQLite file;
``cluster`` is two processes on PostgreSQL 15 + Redis (started here on free
loopback ports, as the tests do: tests/services.py), each table on one of them
as the reverse proxy of docs/deploy.md routes it (by table);
``cluster-split`` the same processes with every table's first player on
process A and the second on process B (every move crosses processes: the
worst case); ``postgres`` is one process on the same PostgreSQL + Redis (what
two processes are compared with).

Human pace: each player moves 1-3 s (uniform jitter) after the turn comes to
it. The figure is the **move→broadcast latency**: from the mover sending its
move to the *other* player receiving the event (both clocks are this process's
``time.perf_counter``). Each N gets fresh servers; the largest N whose p99
stays under 200 ms is reported. Saturation: players move the moment their turn
comes; the figure is moves per second applied over the run.

The load generator shares the machine with the servers, so it is kept lean:
one asyncio process, raw websockets, the legal moves taken from the state the
server sends (no rules engine here), one ``json.loads`` per message. Every run
is bounded in tables and seconds and stops what it started.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from services import Postgres, Redis, Server

TARGET_P99_MS = 200.0


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    finished: int = 0
    #: Tables whose setup failed (the server refused or timed out).
    broken: int = 0
    #: The servers' CPU seconds over the run.
    cpu: float = 0.0


class Servers:
    """The server processes of one run, started fresh and stopped afterwards."""

    def __init__(self, setup: str, folder: Path) -> None:
        self.setup = setup
        self.folder = folder
        self.postgres: Postgres | None = None
        self.redis: Redis | None = None
        self.servers: list[Server] = []

    def __enter__(self) -> Servers:
        try:
            if self.setup == "sqlite":
                url = f"sqlite+aiosqlite:///{self.folder / 'load.db'}"
                self.servers = [Server(url, None, self.folder / "server.log")]
            else:
                self.postgres = Postgres()
                self.postgres.start()
                self.redis = Redis()
                self.redis.start()
                self.servers = [
                    Server(self.postgres.url, self.redis.url, self.folder / f"server-{n}.log")
                    for n in ("a" if self.setup == "postgres" else "ab")
                ]
            for server in self.servers:
                server.start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        for server in self.servers:
            server.stop()
        if self.redis is not None:
            self.redis.stop()
        if self.postgres is not None:
            self.postgres.close()

    def pair(self, n: int) -> tuple[Server, Server]:
        """Where table ``n``'s two players connect."""
        if self.setup == "cluster-split":
            return self.servers[0], self.servers[1]
        server = self.servers[n % len(self.servers)]
        return server, server


async def open_table(
    http: httpx2.AsyncClient, first: Server, second: Server, n: int
) -> tuple[ClientConnection, ClientConnection, dict[str, Any]]:
    """A seated classic-2 table: player 0 on ``first``, player 1 on ``second``."""
    body = {"variant": "classic-2", "seats": [{"kind": "online"}] * 2, "nickname": f"p{n}a"}
    reply = (await http.post(f"{first.url}/api/tables", json=body)).json()
    table_id, token = reply["id"], reply["token"]
    ws0 = await connect(f"{first.ws_url}/ws/tables/{table_id}", max_size=2**22)
    await ws0.send(json.dumps({"type": "hello", "token": token}))
    ws1 = await connect(f"{second.ws_url}/ws/tables/{table_id}", max_size=2**22)
    await ws1.send(json.dumps({"type": "hello"}))
    await ws1.send(json.dumps({"type": "sit", "seat": 1, "nickname": f"p{n}b"}))
    state: dict[str, Any] = {}
    while state.get("status") != "playing":
        message = json.loads(await asyncio.wait_for(ws1.recv(), 30))
        state = message.get("state") or state
    return ws0, ws1, state


class Table:
    """Two scripted players of one table. Each acts on what its own connection showed
    it (with two processes, one player may see a move before the other's process has
    heard of it, as two people on two machines would)."""

    def __init__(
        self,
        sockets: tuple[ClientConnection, ClientConnection],
        state: dict[str, Any],
        stats: Stats,
        pace: tuple[float, float] | None,
        rng: random.Random,
    ) -> None:
        self.sockets = sockets
        self.states = [state, state]
        self.stats = stats
        self.pace = pace
        self.rng = rng
        #: When the move that makes version v was sent.
        self.sent: dict[int, float] = {}
        self.measuring_from = float("inf")
        self.stop_at = 0.0
        self.turn_taken = -1

    async def run(self, start_at: float, measure_from: float, stop_at: float) -> None:
        self.stop_at = stop_at
        readers = [asyncio.create_task(self.read(seat)) for seat in (0, 1)]
        await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
        self.measuring_from = measure_from
        for seat in (0, 1):
            self.play_if_my_turn(seat)
        await asyncio.sleep(max(0.0, stop_at - time.perf_counter()))
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)

    async def read(self, seat: int) -> None:
        ws = self.sockets[seat]
        async for raw in ws:
            now = time.perf_counter()
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "event":
                event = message["event"]
                if event.get("kind") == "move" and event.get("seat") != seat:
                    sent = self.sent.pop(message["v"], None)
                    if sent is not None and sent >= self.measuring_from:
                        self.stats.latencies.append((now - sent) * 1000)
                self.update(seat, message["state"])
            elif kind == "sync":
                self.update(seat, message["state"])
            elif kind == "confirm":
                await ws.send(json.dumps({**message, "type": "move", "confirm": True}))
            elif kind == "error":
                self.stats.errors += 1
                self.stats.codes[message.get("code", "?")] = (
                    self.stats.codes.get(message.get("code", "?"), 0) + 1
                )
                state = message.get("state")
                # A refused move at the version it was made on: choose again.
                if isinstance(state, dict) and state["v"] == self.turn_taken:
                    self.turn_taken = -1
                    self.update(seat, state)

    def update(self, seat: int, state: dict[str, Any]) -> None:
        if state["v"] < self.states[seat].get("v", -1):
            return
        self.states[seat] = state
        if state.get("over"):
            self.stats.finished += seat == 0
            return
        self.play_if_my_turn(seat)

    def play_if_my_turn(self, seat: int) -> None:
        state = self.states[seat]
        turn = state.get("turn")
        if turn != seat or not state.get("legal") or self.turn_taken == state["v"]:
            return
        self.turn_taken = state["v"]
        delay = 0.0 if self.pace is None else self.rng.uniform(*self.pace)
        asyncio.get_running_loop().call_later(delay, self.move, turn, state)

    def move(self, seat: int, state: dict[str, Any]) -> None:
        if time.perf_counter() >= self.stop_at or self.states[seat]["v"] != state["v"]:
            return
        path = self.rng.choice(state["legal"])
        self.sent[state["v"] + 1] = time.perf_counter()
        self.stats.moves += 1
        message = json.dumps({"type": "move", "seat": seat, "path": path, "v": state["v"]})
        asyncio.get_running_loop().create_task(self.sockets[seat].send(message))


async def run_load(
    servers: Servers, tables: int, seconds: float, pace: tuple[float, float] | None
) -> Stats:
    """Open ``tables`` tables, play for ``seconds`` after a short ramp, and measure."""
    stats = Stats()
    rng = random.Random(tables)
    limits = httpx2.Limits(max_connections=16)
    opened: list[Table] = []
    semaphore = asyncio.Semaphore(16)

    async def one(n: int, http: httpx2.AsyncClient) -> None:
        async with semaphore:
            first, second = servers.pair(n)
            try:
                ws0, ws1, state = await open_table(http, first, second, n)
            except Exception as error:  # a refused or slow setup is counted, not fatal
                stats.broken += 1
                print(f"  table {n} could not be set up: {error!r}", file=sys.stderr)
                return
            opened.append(Table((ws0, ws1), state, stats, pace, random.Random(rng.random())))

    async with httpx2.AsyncClient(limits=limits, timeout=60) as http:
        await asyncio.gather(*(one(n, http) for n in range(tables)))
    ramp = 3.0 if pace is not None else 1.0
    begin = time.perf_counter()
    # Tables start spread over the first second (players do not all sit down at once).
    await asyncio.gather(
        *(table.run(begin + rng.random(), begin + ramp, begin + ramp + seconds) for table in opened)
    )
    for table in opened:
        for ws in table.sockets:
            with contextlib.suppress(Exception):
                await ws.close()
    return stats


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_once(setup: str, size: int, seconds: float, pace: tuple[float, float] | None) -> Stats:
    """One run on fresh servers in a temporary folder; ``cpu`` is the servers' CPU time
    over the run (the tables' setup included), a figure other work on the machine
    hardly moves, unlike the latencies."""
    with (
        tempfile.TemporaryDirectory(prefix="sternhalma-load-") as folder,
        Servers(setup, Path(folder)) as servers,
    ):
        pids = [server.process.pid for server in servers.servers if server.process is not None]
        before = sum(cpu_seconds(pid) for pid in pids)
        stats = asyncio.run(run_load(servers, size, seconds, pace))
        stats.cpu = sum(cpu_seconds(pid) for pid in pids) - before
        return stats


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def human_pace(setup: str, sizes: list[int], seconds: float) -> int | None:
    """Each size on fresh servers; the largest whose p99 stays under the target."""
    best = None
    print(f"\n== {setup}: human pace (a move 1-3 s after the turn comes), {seconds:.0f} s each")
    print(
        f"{'tables':>7} {'moves':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}"
        f" {'CPU ms/move':>12}"
    )
    for size in sizes:
        stats = run_once(setup, size, seconds, (1.0, 3.0))
        lat = stats.latencies
        if not lat:
            print(f"{size:>7} no moves measured (broken tables: {stats.broken})")
            break
        p50, p99 = statistics.median(lat), percentile(lat, 0.99)
        print(
            f"{size:>7} {len(lat):>7} {p50:>8.1f} {p99:>8.1f} {max(lat):>8.1f} {stats.errors:>7}"
            f" {1000 * stats.cpu / len(lat):>12.2f}"
            + (f"  ({stats.broken} tables not set up)" if stats.broken else "")
        )
        if p99 < TARGET_P99_MS and not stats.broken:
            best = size
        else:
            break
    print(f"largest N with p99 < {TARGET_P99_MS:.0f} ms ({setup}): {best}")
    return best


def saturation(setup: str, size: int, seconds: float) -> float:
    stats = run_once(setup, size, seconds, None)
    rate = len(stats.latencies) / seconds
    lat = stats.latencies or [0.0]
    print(
        f"\n== {setup}: saturation, {size} tables moving at once for {seconds:.0f} s: "
        f"{rate:.0f} moves/s applied and broadcast (p50 {statistics.median(lat):.1f} ms, "
        f"p99 {percentile(lat, 0.99):.1f} ms, errors {stats.codes or 0}; "
        f"server CPU {1000 * stats.cpu / max(1, len(stats.latencies)):.2f} ms a move)"
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--setup",
        choices=["sqlite", "postgres", "cluster", "cluster-split", "both"],
        default="both",
    )
    parser.add_argument("--tables", type=int, nargs="+", default=[250, 500, 750, 1000])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--saturation-tables", type=int, default=100)
    parser.add_argument("--saturation-only", action="store_true")
    parser.add_argument("--no-saturation", action="store_true")
    args = parser.parse_args()
    if max(args.tables) > 2000 or args.seconds > 300:
        parser.error("bounded runs only: at most 2000 tables and 300 seconds")
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    setups = ["sqlite", "cluster"] if args.setup == "both" else [args.setup]
    for setup in setups:
        if not args.saturation_only:
            human_pace(setup, sorted(args.tables), args.seconds)
        if not args.no_saturation:
            saturation(setup, args.saturation_tables, min(args.seconds, 20.0))


if __name__ == "__main__":
    main()
