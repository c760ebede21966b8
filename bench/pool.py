"""The seek pool under load: 1,000 simulated seekers over 2 server processes.

    .venv/bin/python bench/pool.py                          # 1,000 seekers, cluster
    .venv/bin/python bench/pool.py --seekers 200 --setup sqlite

Setups: ``cluster`` is two ``sternhalma serve`` processes on PostgreSQL + Redis
(started here on free loopback ports, as the tests do: tests/services.py), each
seeker on one of them in turn; ``sqlite`` is one process on an SQLite file.

Each seeker opens ``/ws/pool`` and joins a two-player rated pool (two clocks, so
two pools), arriving at ``--rate`` a second. The figure is the **pairing latency**:
from the "seeking" reply to the "paired" notice (this process's clock). Then the
run checks that no seeker was paired twice or lost: every seeker got exactly one
"paired", every table has exactly its two seekers, and each seeker's seat at the
table (read back over HTTP) bears its nickname.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from services import Postgres, Redis, Server

CLOCKS = ("3+2", "5+3")


class Seeker:
    def __init__(self, n: int, server: Server) -> None:
        self.n = n
        self.nickname = f"seeker{n}"
        self.server = server
        self.clock = CLOCKS[n % len(CLOCKS)]
        self.paired: list[dict[str, Any]] = []
        self.latency: float | None = None
        self.error: str | None = None

    async def run(self, deadline: float, grace: float) -> None:
        try:
            async with connect(f"{self.server.ws_url}/ws/pool", open_timeout=30) as ws:
                await ws.send(
                    json.dumps(
                        {
                            "type": "seek",
                            "variant": "classic-2",
                            "clock": self.clock,
                            "rated": True,
                            "nickname": self.nickname,
                        }
                    )
                )
                joined: float | None = None
                while time.monotonic() < deadline:
                    left = deadline - time.monotonic()
                    try:
                        text = await asyncio.wait_for(ws.recv(), timeout=max(0.01, left))
                    except TimeoutError:
                        break
                    message = json.loads(text)
                    if message["type"] == "seeking":
                        joined = time.perf_counter()
                    elif message["type"] == "paired":
                        self.paired.append(message)
                        if joined is not None and self.latency is None:
                            self.latency = time.perf_counter() - joined
                        # Stay a moment: a second notice would show up here.
                        deadline = min(deadline, time.monotonic() + grace)
                    elif message["type"] == "error":
                        self.error = message["code"]
                        return
        except Exception as error:  # a refused connection counts as lost, with its reason
            self.error = type(error).__name__


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(servers: list[Server], count: int, rate: float, timeout: float) -> int:
    seekers = [Seeker(n, servers[n % len(servers)]) for n in range(count)]
    started = time.monotonic()
    tasks = []
    for seeker in seekers:
        tasks.append(asyncio.create_task(seeker.run(time.monotonic() + timeout, 1.0)))
        await asyncio.sleep(1 / rate)
    await asyncio.gather(*tasks)
    spent = time.monotonic() - started
    latencies = [s.latency * 1000 for s in seekers if s.latency is not None]
    twice = [s.nickname for s in seekers if len(s.paired) > 1]
    lost = [s.nickname for s in seekers if not s.paired]
    errors = Counter(s.error for s in seekers if s.error)
    by_table: dict[str, list[Seeker]] = {}
    for seeker in seekers:
        for notice in seeker.paired:
            by_table.setdefault(notice["table"], []).append(seeker)
    wrong_tables = [t for t, people in by_table.items() if len(people) != 2]
    mismatched = 0
    async with httpx2.AsyncClient(timeout=30) as client:
        for table_id, people in by_table.items():
            state = (await client.get(f"{people[0].server.url}/api/tables/{table_id}")).json()
            for seeker in people:
                seat = next(n["seat"] for n in seeker.paired if n["table"] == table_id)
                if state["seats"][seat]["nickname"] != seeker.nickname:
                    mismatched += 1
            if state["clock"] is None or len({p.clock for p in people}) != 1:
                mismatched += 1
    print(
        f"seekers: {count} over {len(servers)} process(es), arriving at {rate:g}/s ({spent:.1f} s)"
    )
    if latencies:
        print(
            f"pairing latency: p50 {percentile(latencies, 0.5):.0f} ms, "
            f"p99 {percentile(latencies, 0.99):.0f} ms, max {max(latencies):.0f} ms, "
            f"mean {statistics.fmean(latencies):.0f} ms"
        )
    across = [
        s.latency * 1000
        for people in by_table.values()
        if len(people) == 2 and people[0].server is not people[1].server
        for s in people
        if s.latency is not None
    ]
    if across and len(across) < len(latencies):
        print(
            f"  of which pairs across the two processes: {len(across) // 2} tables, "
            f"p50 {percentile(across, 0.5):.0f} ms, p99 {percentile(across, 0.99):.0f} ms"
        )
    print(f"tables: {len(by_table)}; paired twice: {len(twice)}; lost: {len(lost)}")
    print(
        f"tables without exactly two seekers: {len(wrong_tables)}; seats not theirs: {mismatched}"
    )
    if errors:
        print(f"errors: {dict(errors)}")
    bad = bool(twice or lost or wrong_tables or mismatched or errors)
    print("FAILED" if bad else "OK: every seeker paired exactly once")
    return 1 if bad else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setup", choices=("cluster", "sqlite"), default="cluster")
    parser.add_argument("--seekers", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=50.0, help="seekers arriving a second")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a seeker waits")
    options = parser.parse_args()
    if options.seekers % 2:
        parser.error("an even number of seekers: each pairs with another")
    with tempfile.TemporaryDirectory() as folder:
        postgres = redis = None
        servers: list[Server] = []
        try:
            if options.setup == "sqlite":
                url = f"sqlite+aiosqlite:///{Path(folder) / 'pool.db'}"
                servers = [Server(url, None, Path(folder) / "server.log")]
            else:
                postgres, redis = Postgres(), Redis()
                postgres.start()
                redis.start()
                servers = [
                    Server(postgres.url, redis.url, Path(folder) / f"server-{n}.log") for n in "ab"
                ]
            for server in servers:
                server.start()
            code = asyncio.run(run(servers, options.seekers, options.rate, options.timeout))
        finally:
            for server in servers:
                server.stop()
            if redis is not None:
                redis.stop()
            if postgres is not None:
                postgres.close()
    sys.exit(code)


if __name__ == "__main__":
    main()
