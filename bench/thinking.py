"""The computer's thinking under load: hint floods, workers added, a worker killed.

    nice .venv/bin/python bench/thinking.py flood --setup embedded
    nice .venv/bin/python bench/thinking.py flood --setup queue --sustained 60
    nice .venv/bin/python bench/thinking.py throughput --processes 1 2
    nice .venv/bin/python bench/thinking.py kill --games 20

Everything runs on 127.0.0.1 (tests/services.py starts PostgreSQL, Redis, the
servers and ``sternhalma worker`` processes on free ports and stops them).

``flood``: one client opens 95 websockets to one table against the computer and
each asks for a hint, then hangs up (``--sustained S``: the 95 stay and ask again
every second for S seconds). Meanwhile another player plays an online table with a
1+0 clock against Hard. The figures: that player's wait for each computer reply
(from sending a move to seeing the computer's, its 0.6 s pause included: p50, p99,
max) and whether the computer lost on time. ``embedded`` is one server thinking
in its own processes (``make run``); ``queue`` is a server on PostgreSQL + Redis
and one worker.

``throughput``: tables where a scripted person plays Hard (a fixed node allowance,
``--nodes``, so a move is the same work whatever the load) from one mid-game
position, each replaced by a new one after 8 replies, on PostgreSQL + Redis: one
server, and a worker with 1, then 2, thinking processes, alternating; computer
moves per second, and the ratio.

``kill``: 20 games of a scripted person (Medium, played by this client) against Hard
with two workers of one thinking process each; after ``--kill-after`` moves one
worker is killed with SIGKILL while it runs a computer move (it is stopped with
SIGSTOP, and killed if it has a job, else let go and caught again a moment later).
Every game must finish, no move be played twice (the versions of the moves each
table showed never repeat, and the seats alternate), and no computer reply wait
more than the job timeout + 2 s; the killed move's table is shown apart.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import redis.asyncio
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from services import Postgres, Redis, Worker
from services import Server as Server  # flood.py uses it from here

from sternhalma.game import Game
from sternhalma.notation import position_to_dict
from sternhalma.players import make_player
from sternhalma.server.thinking.heartbeat import RUNNING_KEY

#: The scripted player's moves (always the first legal one would soon repeat a position).
CHOICE = random.Random(8)
HARD = {"kind": "computer", "level": "hard"}


class Services:
    """One server (on SQLite, or on PostgreSQL + Redis with workers), started fresh."""

    def __init__(self, folder: Path, queue: bool, **worker: Any) -> None:
        self.folder = folder
        self.postgres = Postgres() if queue else None
        self.redis = Redis() if queue else None
        self.workers: list[Worker] = []
        self.worker_options = worker
        self.server: Server | None = None

    def __enter__(self) -> Services:
        try:
            if self.postgres is not None and self.redis is not None:
                self.postgres.start()
                self.redis.start()
                self.server = Server(self.postgres.url, self.redis.url, self.folder / "server.log")
            else:
                url = f"sqlite+aiosqlite:///{self.folder / 'bench.db'}"
                self.server = Server(url, None, self.folder / "server.log")
            self.server.start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def add_worker(self, **options: Any) -> Worker:
        assert self.redis is not None
        name = self.folder / f"worker-{len(self.workers)}.log"
        worker = Worker(self.redis.url, name, **{**self.worker_options, **options})
        worker.start()
        worker.wait_ready()
        self.workers.append(worker)
        return worker

    def __exit__(self, *_: object) -> None:
        if self.server is not None:
            self.server.stop()
        for worker in self.workers:
            worker.stop()
        if self.redis is not None:
            self.redis.stop()
        if self.postgres is not None:
            self.postgres.close()


@dataclass(frozen=True)
class Address:
    """Where a server listens (what a client process needs of it)."""

    url: str
    ws_url: str

    @classmethod
    def of(cls, server: Server | None) -> Address:
        assert server is not None
        return cls(server.url, server.ws_url)


#: The identity of each nickname this process plays under (a nickname belongs to one).
IDENTITIES: dict[str, str] = {}


async def table(http: httpx2.AsyncClient, server: Address, body: dict[str, Any]) -> dict[str, Any]:
    nickname = body.get("nickname")
    if nickname in IDENTITIES:
        body = {**body, "identity": IDENTITIES[nickname]}
    reply = await http.post(f"{server.url}/api/tables", json=body)
    if reply.status_code != 200:
        # A plain error: it crosses from the player's process to the bench's.
        raise RuntimeError(f"a new table was refused: {reply.text}")
    data: dict[str, Any] = reply.json()
    if nickname is not None:
        IDENTITIES[nickname] = data["player"]["secret"]
    return data


async def socket(server: Address, table_id: str, token: str | None = None) -> ClientConnection:
    ws = await connect(f"{server.ws_url}/ws/tables/{table_id}", max_size=2**22)
    hello: dict[str, Any] = {"type": "hello"}
    if token:
        hello["token"] = token
    await ws.send(json.dumps(hello))
    return ws


def summary(waits: list[float]) -> str:
    if not waits:
        return "no replies"
    ordered = sorted(waits)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"{len(ordered)} replies: p50 {statistics.median(ordered):.2f} s, "
        f"p99 {p99:.2f} s, max {ordered[-1]:.2f} s (reply {waits.index(ordered[-1]) + 1})"
    )


@dataclass
class Game1:
    """A player at an online table against the computer, timing each reply."""

    waits: list[float] = field(default_factory=list)
    flagged: int = 0
    games: int = 0


def play_against_computer(server: Address, seconds: float, clock: str) -> Game1:
    """Play (a random legal move, at once) against Hard for ``seconds``, in a process of
    its own (the flooding client's work must not delay this player's clock)."""
    return asyncio.run(_play_against_computer(server, time.perf_counter() + seconds, clock))


async def _play_against_computer(server: Address, stop_at: float, clock: str) -> Game1:
    record = Game1()
    async with httpx2.AsyncClient(timeout=30) as http:
        while time.perf_counter() < stop_at:
            await _one_game(http, server, stop_at, record, clock)
    return record


async def _one_game(
    http: httpx2.AsyncClient, server: Address, stop_at: float, record: Game1, clock: str
) -> None:
    body = {
        "variant": "classic-2",
        "seats": [{"kind": "online"}, HARD],
        "nickname": "victim",
        "clock": clock,
    }
    created = await table(http, server, body)
    record.games += 1
    ws = await socket(server, created["id"], created["token"])
    sent: float | None = None
    try:
        while time.perf_counter() < stop_at:
            with contextlib.suppress(TimeoutError):
                message = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                state = message.get("state")
                event = message.get("event") or {}
                if event.get("kind") == "move" and event.get("seat") == 1 and sent:
                    record.waits.append(time.perf_counter() - sent)
                    sent = None
                if event.get("kind") == "flag" and event.get("seat") == 1:
                    record.flagged += 1
                if isinstance(state, dict):
                    if state["over"]:
                        break
                    if state["turn"] == 0 and state["legal"] and state["thinking"] is None:
                        await ws.send(
                            json.dumps(
                                {
                                    "type": "move",
                                    "seat": 0,
                                    "path": CHOICE.choice(state["legal"]),
                                    "v": state["v"],
                                    "confirm": True,
                                }
                            )
                        )
                        sent = time.perf_counter()
    finally:
        await ws.close()


async def flood_hints(
    server: Address, table_id: str, token: str, connections: int, sustained: float
) -> dict[str, int]:
    """``connections`` websockets ask for hints: once and hang up, or every second."""
    replies: dict[str, int] = {}

    async def one() -> None:
        ws = await socket(server, table_id, token)
        try:
            await ws.send(json.dumps({"type": "hint"}))
            if not sustained:
                return
            stop_at = time.perf_counter() + sustained
            next_ask = time.perf_counter() + 1.0
            while time.perf_counter() < stop_at:
                with contextlib.suppress(TimeoutError):
                    wait = max(0.01, next_ask - time.perf_counter())
                    message = json.loads(await asyncio.wait_for(ws.recv(), wait))
                    kind = message.get("code") or message["type"]
                    replies[kind] = replies.get(kind, 0) + 1
                if time.perf_counter() >= next_ask:
                    await ws.send(json.dumps({"type": "hint"}))
                    next_ask += 1.0
        finally:
            await ws.close()

    await asyncio.gather(*(one() for _ in range(connections)), return_exceptions=True)
    return replies


async def flood(args: argparse.Namespace, folder: Path) -> None:
    with Services(folder, args.setup == "queue") as services:
        if args.setup == "queue":
            services.add_worker(processes=args.processes)
        server = Address.of(services.server)
        async with httpx2.AsyncClient(timeout=30) as http:
            body = {"variant": "classic-2", "seats": [{"kind": "person"}, HARD]}
            target = await table(http, server, body)
        seconds = (args.sustained or args.seconds) + 5
        loop = asyncio.get_running_loop()
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as other:
            victim = loop.run_in_executor(other, play_against_computer, server, seconds, args.clock)
            await asyncio.sleep(3)  # a few replies before the flood
            replies = await flood_hints(
                server, target["id"], target["token"], args.connections, args.sustained
            )
            record = await victim
    kind = f"sustained {args.sustained:g} s" if args.sustained else "hint then hang up"
    print(
        f"flood ({args.setup}, {args.connections} connections, {kind}): computer replies at "
        f"the other table {summary(record.waits)}; computer lost on time: {record.flagged} "
        f"of {record.games} games; the flooding connections were answered {replies}"
    )


def midgame() -> dict[str, Any]:
    """A classic-2 table set up 20 moves in (Medium against Medium): every table of the
    throughput run starts here, so its computer moves cost the same all run long."""
    game = Game("classic-2")
    player = make_player("medium", 3)
    for _ in range(20):
        game.play(player.choose(game).move)
    return {
        "variant": "classic-2",
        "seats": [{"kind": "person"}, HARD],
        "start": position_to_dict(game.position),
        "moves_made": [game.moves_made(seat) for seat in range(2)],
    }


class ComputerTables:
    """``tables`` tables where a scripted person (a random legal move, at once) plays
    Hard from the same mid-game position and resigns after ``per_table`` replies, when a
    new table takes its place; ``moves`` counts the computer's moves."""

    def __init__(self, server: Address, tables: int, per_table: int = 8) -> None:
        self.server = server
        self.tables = tables
        self.per_table = per_table
        self.body = midgame()
        self.moves = 0
        self.running: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        self.running = [asyncio.create_task(self._table()) for _ in range(self.tables)]

    async def stop(self) -> None:
        for task in self.running:
            task.cancel()
        await asyncio.gather(*self.running, return_exceptions=True)

    async def _table(self) -> None:
        async with httpx2.AsyncClient(timeout=30) as http:
            while True:
                created = await table(http, self.server, self.body)
                ws = await socket(self.server, created["id"], created["token"])
                replies, answered = 0, -1
                try:
                    async for raw in ws:
                        message = json.loads(raw)
                        event = message.get("event") or {}
                        if event.get("kind") == "move" and event.get("seat") == 1:
                            self.moves += 1
                            replies += 1
                        state = message.get("state")
                        if not isinstance(state, dict):
                            continue
                        if state["over"]:
                            break
                        if replies >= self.per_table:
                            await ws.send(json.dumps({"type": "resign", "seat": 0}))
                            break
                        mine = state["turn"] == 0 and state["thinking"] is None
                        if mine and state["legal"] and state["v"] > answered:
                            answered = state["v"]
                            move = {"type": "move", "seat": 0, "v": state["v"], "confirm": True}
                            move["path"] = CHOICE.choice(state["legal"])
                            await ws.send(json.dumps(move))
                finally:
                    await ws.close()

    async def rate(self, seconds: float) -> float:
        """Computer moves per second over the next ``seconds``."""
        before, started = self.moves, time.perf_counter()
        await asyncio.sleep(seconds)
        return (self.moves - before) / (time.perf_counter() - started)


async def throughput(args: argparse.Namespace, folder: Path) -> None:
    """One server on PostgreSQL + Redis; a worker with each number of processes in
    turn, ``--rounds`` times (the machine's other load changes: alternating evens it)."""
    rates: dict[int, list[float]] = {p: [] for p in args.processes}
    with Services(folder, True, nodes=args.nodes) as services:
        tables = ComputerTables(Address.of(services.server), args.tables)
        await tables.start()
        try:
            for _ in range(args.rounds):
                for processes in args.processes:
                    worker = services.add_worker(processes=processes)
                    await asyncio.sleep(args.warmup)
                    rate = await tables.rate(args.seconds)
                    worker.stop()
                    rates[processes].append(rate)
                    print(f"throughput: {processes} thinking processes: {rate:.2f} moves/s")
        finally:
            await tables.stop()
    means = {p: statistics.mean(r) for p, r in rates.items()}
    summary = ", ".join(f"{p}: {m:.2f}" for p, m in means.items())
    print(f"throughput: mean computer moves per second by thinking processes {summary}")
    if len(means) == 2:
        one, two = (means[p] for p in sorted(means))
        print(f"throughput: {max(means)} processes give {two / one:.2f}x of {min(means)}")


async def kill(args: argparse.Namespace, folder: Path) -> None:
    timeout = float(os.environ.get("STERNHALMA_THINK_TIMEOUT", "10"))
    with Services(folder, True, nodes=args.nodes) as services:
        victim = services.add_worker(processes=1)
        services.add_worker(processes=1)
        server = Address.of(services.server)
        waits: list[float] = []
        #: Each computer reply: its table, when the person moved, when it came.
        replies: list[tuple[str, float, float]] = []
        killed: dict[str, Any] = {}
        problems: list[str] = []
        finished = 0
        plies = 0
        person = make_player("medium", 1)
        async with httpx2.AsyncClient(timeout=30) as http:

            async def one(n: int) -> None:
                nonlocal finished, plies
                body = {"variant": "classic-2", "seats": [{"kind": "person"}, HARD]}
                created = await table(http, server, body)
                ws = await socket(server, created["id"], created["token"])
                versions: set[int] = set()
                sent: float | None = None
                try:
                    while True:
                        message = json.loads(await asyncio.wait_for(ws.recv(), timeout + 60))
                        state = message.get("state")
                        event = message.get("event") or {}
                        if message["type"] == "error" or event.get("kind") == "error":
                            problems.append(f"table {n}: {message.get('code') or event}")
                        if event.get("kind") == "move":
                            plies += 1
                            if message["v"] in versions:
                                problems.append(f"table {n}: version {message['v']} twice")
                            versions.add(message["v"])
                            if event["seat"] == 1 and sent is not None:
                                now = time.perf_counter()
                                waits.append(now - sent)
                                replies.append((created["id"], sent, now))
                                sent = None
                        if not isinstance(state, dict):
                            continue
                        if state["over"]:
                            seats = [m["seat"] for m in state["moves"]]
                            if any(a == b for a, b in itertools.pairwise(seats)):
                                problems.append(f"table {n}: a seat moved twice in a row")
                            finished += 1
                            return
                        if state["turn"] == 0 and state["thinking"] is None and sent is None:
                            game = Game("classic-2")
                            for move in state["moves"]:
                                game.play(move["text"])
                            names = game.rules.board.names
                            path = [names[hole] for hole in person.choose(game).move]
                            await ws.send(
                                json.dumps(
                                    {
                                        "type": "move",
                                        "seat": 0,
                                        "path": path,
                                        "v": state["v"],
                                        "confirm": True,
                                    }
                                )
                            )
                            sent = time.perf_counter()
                finally:
                    await ws.close()

            async def killer() -> None:
                while plies < args.kill_after:
                    await asyncio.sleep(0.05)
                assert services.redis is not None and victim.process is not None
                pid = victim.process.pid
                client = redis.asyncio.Redis.from_url(services.redis.url)
                try:
                    while True:  # stopped, the worker can neither finish a job nor take one
                        os.kill(pid, signal.SIGSTOP)
                        held = [
                            key.decode().removeprefix(RUNNING_KEY)
                            for key in await client.keys(RUNNING_KEY + "move:*")
                            if (await client.get(key) or b"").split(b":")[1:2] == [b"%d" % pid]
                        ]
                        if held:
                            victim.kill()
                            break
                        os.kill(pid, signal.SIGCONT)
                        await asyncio.sleep(0.02)
                finally:
                    await client.aclose()
                    if victim.process is not None:
                        os.kill(pid, signal.SIGCONT)
                killed.update(held=held, at=time.perf_counter())
                print(f"kill: worker killed with SIGKILL after {plies} moves, running {held}")

            killing = asyncio.create_task(killer())
            results = await asyncio.gather(
                *(one(n) for n in range(args.games)), return_exceptions=True
            )
            killing.cancel()
        for result in results:
            if isinstance(result, BaseException):
                problems.append(f"a game did not finish: {result!r}")
        log = (folder / "server.log").read_text()
        resent = [line for line in log.splitlines() if "sent again" in line or "on try" in line]
    limit = timeout + 2
    over = sum(1 for wait in waits if wait > limit)
    print(
        f"kill: {finished} of {args.games} games finished, {plies} moves; computer replies "
        f"{summary(waits)}; {over} over the job timeout + 2 s ({limit:g} s); "
        f"problems: {problems or 'none'}"
    )
    for job_id in killed.get("held", []):
        table_id = job_id.split(":")[1]
        after = [(s, c) for t, s, c in replies if t == table_id and c > killed["at"]]
        if not after:
            print(f"kill: the killed job {job_id}: its table got no reply after the kill")
            continue
        sent, came = after[0]
        print(
            f"kill: the killed job {job_id}: its table waited {came - sent:.2f} s from the "
            f"person's move ({came - killed['at']:.2f} s after the kill)"
        )
    print("kill: the server's log of jobs sent again:", *resent, sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="scenario", required=True)
    f = sub.add_parser("flood")
    f.add_argument("--setup", choices=["embedded", "queue"], default="embedded")
    f.add_argument("--connections", type=int, default=95)
    f.add_argument("--sustained", type=float, default=0.0)
    f.add_argument("--seconds", type=float, default=30.0, help="how long the other table plays")
    f.add_argument("--clock", default="1+0")
    f.add_argument("--processes", type=int, default=1, help="the worker's (queue)")
    t = sub.add_parser("throughput")
    t.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    t.add_argument("--nodes", type=int, default=8000)
    t.add_argument("--tables", type=int, default=8)
    t.add_argument("--warmup", type=float, default=5.0)
    t.add_argument("--seconds", type=float, default=20.0)
    t.add_argument("--rounds", type=int, default=3)
    k = sub.add_parser("kill")
    k.add_argument("--games", type=int, default=20)
    k.add_argument("--nodes", type=int, default=2000)
    k.add_argument("--kill-after", type=int, default=300, help="moves played before the kill")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sternhalma-thinking-") as folder:
        scenario = {"flood": flood, "throughput": throughput, "kill": kill}[args.scenario]
        asyncio.run(scenario(args, Path(folder)))


if __name__ == "__main__":
    main()
