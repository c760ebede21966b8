"""PostgreSQL 15 and Redis on 127.0.0.1 for the cluster and fault tests, and server processes.

The tests start what they need themselves, on free ports, and stop it afterwards.
A service that cannot start fails the test with the reason (never a skip): the
cluster tests must not pass without the services they are about.

PostgreSQL runs as the ``postgres`` user (initdb refuses root) from Debian's
``/usr/lib/postgresql/15/bin``, with its data in a temporary folder owned by
that user; Redis runs without persistence. ``make test`` installs redis-server
when it is missing.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

PG_BIN = Path("/usr/lib/postgresql/15/bin")
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


class ServiceError(RuntimeError):
    """A service the tests need could not be started (the message says why)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServiceError(f"{what} exited with code {process.returncode}")
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise ServiceError(f"{what} did not listen on 127.0.0.1:{port} within {timeout} s")


def _as_postgres(command: list[str]) -> list[str]:
    """Run ``command`` as the postgres user (the tests run as root)."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


class Postgres:
    """A throwaway PostgreSQL 15 cluster on 127.0.0.1 (fsync off: tests only)."""

    def __init__(self) -> None:
        if not (PG_BIN / "postgres").exists():
            raise ServiceError(f"PostgreSQL 15 is not installed ({PG_BIN}/postgres is missing)")
        self.root = Path(tempfile.mkdtemp(prefix="sternhalma-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = self.root / "postgres.log"
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
        initdb = subprocess.run(
            _as_postgres(
                [
                    *(str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres"),
                    *("-A", "trust", "-E", "UTF8", "--no-sync"),
                ]
            ),
            capture_output=True,
            text=True,
        )
        if initdb.returncode != 0:
            raise ServiceError(f"initdb failed: {initdb.stderr.strip()[-500:]}")

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        log = self.log.open("ab")
        self.process = subprocess.Popen(
            _as_postgres(
                [
                    *(str(PG_BIN / "postgres"), "-D", str(self.data), "-p", str(self.port)),
                    *("-c", "listen_addresses=127.0.0.1"),
                    *("-c", f"unix_socket_directories={self.root}"),
                    *(
                        "-c",
                        "fsync=off",
                        "-c",
                        "synchronous_commit=off",
                        "-c",
                        "max_connections=200",
                    ),
                ]
            ),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        try:
            wait_for_port(self.port, self.process, "PostgreSQL", 30)
            self._wait_ready()
        except ServiceError as error:
            raise ServiceError(f"{error}: {self.log.read_text()[-800:]}") from None

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready = subprocess.run(
                [str(PG_BIN / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-q"],
                check=False,
            )
            if ready.returncode == 0:
                return
            time.sleep(0.1)
        raise ServiceError("PostgreSQL does not accept connections")

    def stop(self) -> None:
        """A fast shutdown: clients are disconnected at once. (Through pg_ctl: a signal
        to ``runuser`` would not reach the server.)"""
        if self.process is None:
            return
        subprocess.run(
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "stop", "-m", "fast"]),
            capture_output=True,
            timeout=60,
        )
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


class Redis:
    """A redis-server on 127.0.0.1 without persistence; ``restart`` keeps the port."""

    def __init__(self) -> None:
        if not Path(REDIS_SERVER).exists():
            raise ServiceError("redis-server is not installed (make test installs it)")
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *(REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(self.port)),
                *("--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        wait_for_port(self.port, self.process, "redis-server", 15)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None


class Program:
    """A ``sternhalma`` command running as a process of its own."""

    process: subprocess.Popen[bytes] | None

    def kill(self) -> None:
        """Gone without a word (SIGKILL), as a crashed machine would be; the thinking
        processes it started follow it."""
        if self.process is None:
            return
        self.process.kill()
        self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> int | None:
        """Stop with Ctrl+C (SIGINT); its exit code."""
        if self.process is None:
            return None
        self.process.send_signal(signal.SIGINT)
        try:
            code = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait(timeout=10)
        self.process = None
        return code


class Server(Program):
    """One ``sternhalma serve`` process; its settings come from the environment
    (STERNHALMA_DATABASE_URL, STERNHALMA_REDIS_URL), as in a deployment."""

    def __init__(
        self,
        database_url: str,
        redis_url: str | None,
        log: Path,
        port: int | None = None,
        think_timeout: float | None = None,
        workers: int = 1,
        env: dict[str, str] | None = None,
    ) -> None:
        self.workers = workers
        self.database_url = database_url
        #: Settings of this server besides the tests' usual ones (STERNHALMA_...).
        self.env = env or {}
        self.redis_url = redis_url
        self.think_timeout = think_timeout
        self.log_path = log
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> None:
        env = dict(os.environ, STERNHALMA_DATABASE_URL=self.database_url)
        # bench/load.py opens thousands of tables and connections from 127.0.0.1, and
        # every player of the browser tests comes from there too (their games are rated).
        env.update(
            STERNHALMA_MAX_CONNECTIONS="100000",
            STERNHALMA_MAX_NEW_TABLES="100000",
            STERNHALMA_MAX_SEAT_CHANGES="100000",
            STERNHALMA_MAX_NEW_IDENTITIES="100000",
            STERNHALMA_SAME_ADDRESS_HOURS="0",
        )
        env.pop("STERNHALMA_REDIS_URL", None)
        if self.redis_url is not None:
            env["STERNHALMA_REDIS_URL"] = self.redis_url
        if self.think_timeout is not None:
            env["STERNHALMA_THINK_TIMEOUT"] = str(self.think_timeout)
        env.update(self.env)
        command = [sys.executable, "-c", "from sternhalma.cli import main; main()", "serve"]
        log = self.log_path.open("a")
        self.process = subprocess.Popen(
            [*command, "--port", str(self.port), "--workers", str(self.workers)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/api/variants", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise ServiceError(f"the server did not start: {self.log_path.read_text()[-2000:]}")
            time.sleep(0.1)

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())


class Worker(Program):
    """One ``sternhalma worker`` process on a Redis (the computer's thinking for the
    servers that share it)."""

    def __init__(
        self, redis_url: str, log: Path, processes: int = 1, nodes: int | None = None
    ) -> None:
        self.redis_url = redis_url
        self.log_path = log
        self.processes = processes
        self.nodes = nodes
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [sys.executable, "-c", "from sternhalma.cli import main; main()", "worker"]
        command += ["--redis-url", self.redis_url, "--processes", str(self.processes)]
        if self.nodes is not None:
            command += ["--nodes", str(self.nodes)]
        with self.log_path.open("a") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 60) -> None:
        """Wait until the worker serves the queue (its thinking processes have started
        and it has announced itself in Redis)."""
        import redis

        from sternhalma.server.thinking.queue import MOVE_QUEUE

        client = redis.Redis.from_url(self.redis_url)
        deadline = time.monotonic() + timeout
        try:
            while not client.exists(f"{MOVE_QUEUE}:health-check"):
                if self.process is None or self.process.poll() is not None:
                    raise ServiceError(f"the worker exited: {self.log_path.read_text()[-2000:]}")
                if time.monotonic() > deadline:
                    raise ServiceError(f"the worker did not start within {timeout} s")
                time.sleep(0.05)
        finally:
            client.close()


class Player:
    """A scripted browser: one websocket on one table of one server process.

    ``state`` is the newest table state it was sent (events, syncs, welcomes);
    ``until`` reads messages until one matches, with a time limit so a test that
    waits for something that never comes fails instead of hanging.
    """

    def __init__(
        self, server: Server, table_id: str, token: str | None = None, since: int | None = None
    ) -> None:
        from websockets.sync.client import connect

        self.server = server
        self.table_id = table_id
        self.token = token
        self.ws = connect(f"{server.ws_url}/ws/tables/{table_id}", open_timeout=10).__enter__()
        self.seen: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {}
        hello: dict[str, Any] = {"type": "hello"}
        if token is not None:
            hello["token"] = token
        if since is not None:
            hello["since"] = since
        self.send(hello)
        self.welcome = self.until(lambda m: m["type"] == "welcome")

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def receive(self, timeout: float) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        self.seen.append(message)
        state = message.get("state")
        if isinstance(state, dict) and state.get("v", -1) >= self.state.get("v", -1):
            self.state = state
        return message

    def until(self, predicate: Any, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"the expected message did not come within {timeout} s; "
                    f"last seen: {[m.get('type') for m in self.seen[-5:]]}"
                )
            try:
                message = self.receive(left)
            except TimeoutError:
                continue
            if predicate(message):
                return message

    def drain(self, quiet: float = 1.0) -> None:
        """Read whatever comes until nothing has come for ``quiet`` seconds."""
        with contextlib.suppress(TimeoutError):
            while True:
                self.receive(quiet)

    def until_version(self, version: int, timeout: float = 20) -> dict[str, Any]:
        """Read until the state is at least at ``version`` (an event or a sync)."""
        if self.state.get("v", -1) >= version:
            return self.state
        self.until(lambda m: self.state.get("v", -1) >= version, timeout)
        return self.state

    def move(self, seat: int, path: list[str]) -> None:
        """Send a move made on the version this player has seen, as the browser does
        (a late or repeated one is then refused as stale instead of played again)."""
        self.send({"type": "move", "seat": seat, "path": path, "v": self.state.get("v")})

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()


def moved(seat: int | None = None) -> Any:
    """A predicate: a move event (of ``seat``)."""
    return lambda m: (
        m["type"] == "event"
        and m["event"]["kind"] == "move"
        and (seat is None or m["event"]["seat"] == seat)
    )


#: The identity secret each nickname was last played under, by database: a nickname
#: belongs to one identity, so every "bram" of a database is the same player.
IDENTITIES: dict[tuple[str, str], str] = {}


def identity_of(server: Server, nickname: str) -> str | None:
    return IDENTITIES.get((server.database_url, nickname))


def remember(server: Server, player: dict[str, Any]) -> None:
    IDENTITIES[(server.database_url, player["nickname"])] = player["secret"]


def online_table(
    server: Server, nickname: str = "ayse", clock: str | None = None, seats: int = 2
) -> dict[str, Any]:
    """A classic online table created on ``server``; the creator sits at seat 0."""
    body: dict[str, Any] = {
        "variant": "classic-2" if seats == 2 else f"classic-{seats}",
        "seats": [{"kind": "online"}] * seats,
        "nickname": nickname,
        "identity": identity_of(server, nickname),
    }
    if clock is not None:
        body["clock"] = clock
    table: dict[str, Any] = server.post("/api/tables", body)
    remember(server, table["player"])
    return table


def sit(player: Player, seat: int, nickname: str) -> str:
    """Take ``seat`` over the websocket; the seat's token."""
    identity = identity_of(player.server, nickname)
    player.send({"type": "sit", "seat": seat, "nickname": nickname, "identity": identity})
    reply = player.until(lambda m: m["type"] == "seated")
    remember(player.server, reply["player"])
    token: str = reply["token"]
    player.token = token
    return token


class Cluster:
    """PostgreSQL, Redis, two server processes sharing them (A and B) and a worker that
    thinks for both."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.postgres = Postgres()
        self.redis = Redis()
        self.servers: list[Server] = []
        self.worker = Worker(self.redis.url, folder / "worker.log")

    def start(self) -> None:
        self.postgres.start()
        self.redis.start()
        self.worker.start()
        self.worker.wait_ready()
        for name in ("a", "b"):
            server = Server(self.postgres.url, self.redis.url, self.folder / f"server-{name}.log")
            self.servers.append(server)
        # One after the other: both would migrate the fresh database (they take turns
        # anyway, under an advisory lock) and each warms up a worker process.
        for server in self.servers:
            server.start()

    @property
    def a(self) -> Server:
        return self.servers[0]

    @property
    def b(self) -> Server:
        return self.servers[1]

    def close(self) -> None:
        for server in self.servers:
            server.stop()
        self.worker.stop()
        self.redis.stop()
        self.postgres.close()


def start_cluster(folder: Path) -> Cluster:
    """A running cluster; whatever started is stopped again if the rest cannot start."""
    cluster = Cluster(folder)
    try:
        cluster.start()
    except BaseException:
        cluster.close()
        raise
    return cluster


def seated_pair(cluster: Cluster, **options: Any) -> tuple[dict[str, Any], Player, Player]:
    """An online classic-2 table created on A; its creator plays on A, the other on B."""
    table = online_table(cluster.a, **options)
    on_a = Player(cluster.a, table["id"], table["token"])
    on_b = Player(cluster.b, table["id"])
    sit(on_b, 1, "bram")
    on_a.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "start")
    return table, on_a, on_b
