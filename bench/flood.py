"""Floods of every surface that makes the server work, and what another player sees.

    nice .venv/bin/python bench/flood.py --surface reviews --addresses 1 --setup embedded
    nice .venv/bin/python bench/flood.py --surface all --addresses 10 --setup queue

Everything runs on 127.0.0.1 (tests/services.py starts the server, and with
``--setup queue`` PostgreSQL, Redis and two ``sternhalma worker`` processes of two
thinking processes each, on free ports, and stops them).

A victim, in a process of its own, plays a clocked online table (``--clock``, 1+0)
against Hard from 127.0.0.1 for ``--seconds`` and, beside it, sends a plain GET
(``/api/variants``) every 0.1 s. After 3 s the flood starts, from ``--addresses``
loopback addresses (127.0.0.2, 127.0.0.3, ...: Linux routes all of 127.0.0.0/8 to
the loopback, and the server sees each as a client address of its own):

- ``reviews``: 90 websockets to ``/ws/analysis``, each sending a 300-move Halma record
  for review, again at once after every refusal, and opening again when closed;
- ``records``: 20 clients posting that record to ``/api/analysis/record`` in a loop;
- ``hints``: 20 tables against Hard, each asking for a hint every 0.5 s;
- ``all``: the three at once; ``none``: no flood (the figures without one).

The embedded server runs two thinking processes (``--workers 2``), and so does
each worker: analyses and hints may hold only the one at the lower CPU priority,
the computer's moves always have the other (server/thinking/pool.py).

Printed: the victim's wait for each computer reply (from its move to the computer's,
the 0.6 s pause included: p50, p99), the computer's losses on time, the GET's p50 and
p99, and how the flood was answered (by error code).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import random
import re
import statistics
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import httpx2
from thinking import HARD, Address, Game1, Server, Services, _one_game, summary, table
from websockets.asyncio.client import connect

from sternhalma.game import Game
from sternhalma.records import write_record

REVIEWERS = 90
UPLOADERS = 20
HINTERS = 20


def halma_record(moves: int = 300, seed: int = 1) -> str:
    game = Game("halma-2")
    choice = random.Random(seed)
    while len(game.moves) < moves and not game.is_over:
        game.play(choice.choice(game.legal_moves()))
    return write_record(game)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def victim(server: Address, seconds: float, clock: str) -> tuple[Game1, list[float]]:
    """Play against Hard and probe a plain GET, for ``seconds`` (in a process of its own)."""
    return asyncio.run(_victim(server, time.perf_counter() + seconds, clock))


async def _victim(server: Address, stop_at: float, clock: str) -> tuple[Game1, list[float]]:
    record = Game1()
    gets: list[float] = []

    async def probe(http: httpx2.AsyncClient) -> None:
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            reply = await http.get(f"{server.url}/api/variants")
            reply.raise_for_status()
            gets.append(time.perf_counter() - started)
            await asyncio.sleep(0.1)

    async with httpx2.AsyncClient(timeout=30) as http, httpx2.AsyncClient(timeout=30) as prober:
        probing = asyncio.create_task(probe(prober))
        while time.perf_counter() < stop_at:
            await _one_game(http, server, stop_at, record, clock)
        await probing
    return record, gets


class Flood:
    """The flooding clients, spread over the loopback ``addresses``."""

    def __init__(self, server: Address, addresses: int, stop_at: float) -> None:
        self.server = server
        self.addresses = [f"127.0.0.{2 + n}" for n in range(addresses)]
        self.stop_at = stop_at
        self.answers: Counter[str] = Counter()
        self.record = halma_record()

    def address(self, n: int) -> str:
        return self.addresses[n % len(self.addresses)]

    def running(self) -> bool:
        return time.perf_counter() < self.stop_at

    async def reviewer(self, n: int) -> None:
        while self.running():
            try:
                async with connect(
                    f"{self.server.ws_url}/ws/analysis",
                    local_addr=(self.address(n), 0),
                    max_size=2**22,
                ) as ws:
                    await ws.send(json.dumps({"type": "review", "record": self.record}))
                    while self.running():
                        with contextlib.suppress(TimeoutError):
                            message = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                            kind = message.get("code") or message["type"]
                            if kind in ("review-move", "review-position"):
                                continue
                            self.answers[f"review {kind}"] += 1
                            if message["type"] in ("error", "review-done"):
                                await ws.send(json.dumps({"type": "review", "record": self.record}))
            except Exception as error:  # closed by the server (flood), refused: again
                self.answers[f"review {type(error).__name__}"] += 1
                await asyncio.sleep(0.1)

    async def uploader(self, n: int) -> None:
        transport = httpx2.AsyncHTTPTransport(local_address=self.address(n))
        async with httpx2.AsyncClient(timeout=60, transport=transport) as http:
            while self.running():
                try:
                    reply = await http.post(
                        f"{self.server.url}/api/analysis/record", json={"record": self.record}
                    )
                    code = reply.json().get("code", "ok") if reply.status_code != 200 else "ok"
                    self.answers[f"record {reply.status_code} {code}"] += 1
                except httpx2.HTTPError as error:
                    self.answers[f"record {type(error).__name__}"] += 1

    async def hinter(self, n: int) -> None:
        transport = httpx2.AsyncHTTPTransport(local_address=self.address(n))
        async with httpx2.AsyncClient(timeout=60, transport=transport) as http:
            created = await table(
                http, self.server, {"variant": "classic-2", "seats": [{"kind": "person"}, HARD]}
            )
        while self.running():
            try:
                async with connect(
                    f"{self.server.ws_url}/ws/tables/{created['id']}",
                    local_addr=(self.address(n), 0),
                ) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": created["token"]}))
                    next_ask = 0.0
                    while self.running():
                        if time.perf_counter() >= next_ask:
                            await ws.send(json.dumps({"type": "hint"}))
                            next_ask = time.perf_counter() + 0.5
                        with contextlib.suppress(TimeoutError):
                            message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                            if message["type"] in ("hint", "error"):
                                self.answers[f"hint {message.get('code') or 'hint'}"] += 1
            except Exception as error:
                self.answers[f"hint {type(error).__name__}"] += 1
                await asyncio.sleep(0.1)

    async def run(self, surface: str) -> None:
        tasks = []
        if surface in ("reviews", "all"):
            tasks += [self.reviewer(n) for n in range(REVIEWERS)]
        if surface in ("records", "all"):
            tasks += [self.uploader(n) for n in range(UPLOADERS)]
        if surface in ("hints", "all"):
            tasks += [self.hinter(n) for n in range(HINTERS)]
        await asyncio.gather(*tasks, return_exceptions=True)


async def main_async(args: argparse.Namespace, folder: Path) -> None:
    with Services(folder, args.setup == "queue") as services:
        if args.setup == "queue":
            for _ in range(2):
                services.add_worker(processes=2)
        else:  # the server's own two thinking processes (one is the computer moves')
            assert services.server is not None
            services.server.stop()
            services.server = Server(
                f"sqlite+aiosqlite:///{folder / 'bench.db'}", None, folder / "server.log", workers=2
            )
            services.server.start()
        server = Address.of(services.server)
        loop = asyncio.get_running_loop()
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as other:
            playing = loop.run_in_executor(other, victim, server, args.seconds, args.clock)
            await asyncio.sleep(3)
            flood = Flood(server, args.addresses, time.perf_counter() + args.seconds - 3)
            await flood.run(args.surface)
            record, gets = await playing
    print(
        f"flood {args.surface} ({args.setup}, {args.addresses} address"
        f"{'es' if args.addresses > 1 else ''}, {args.seconds:g} s, clock {args.clock}): "
        f"computer replies at the other table {summary(record.waits)}; "
        f"computer lost on time: {record.flagged} of {record.games} games; "
        f"GET /api/variants p50 {1000 * statistics.median(gets):.0f} ms, "
        f"p99 {1000 * percentile(gets, 0.99):.0f} ms ({len(gets)} requests)"
    )
    print("  the flood was answered: " + ", ".join(f"{k} {v}" for k, v in flood.answers.items()))
    for log in sorted(folder.glob("*.log")):  # what the server and workers warned of
        warned = [
            line
            for line in log.read_text(errors="replace").splitlines()
            if re.search(r"ERROR|WARNING|a thinking process|^job ", line)
        ]
        for line in warned[-5:]:
            print(f"  {log.name}: {line[:200]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--surface", choices=["none", "reviews", "records", "hints", "all"], default="all"
    )
    parser.add_argument("--addresses", type=int, default=1)
    parser.add_argument("--setup", choices=["embedded", "queue"], default="embedded")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clock", default="1+0")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sternhalma-flood-") as folder:
        asyncio.run(main_async(args, Path(folder)))


if __name__ == "__main__":
    main()
