"""`sternhalma serve` as a subprocess on 127.0.0.1, for the browser tests.

A test that restarts the server mid-game stops one process and starts another
on the same port and the same SQLite file, as a person restarting it would.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServerProcess:
    """One `sternhalma serve` process; ``start`` waits until it answers."""

    def __init__(self, database: Path, log: Path, port: int | None = None) -> None:
        self.database = database
        self.log_path = log
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> None:
        command = [
            sys.executable,
            "-c",
            "from sternhalma.cli import main; main()",
            "serve",
            "--port",
            str(self.port),
            "--database-url",
            str(self.database),
            "--workers",
            "1",
        ]
        log = self.log_path.open("a")
        self.process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ)
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
                self.process.kill()
                raise RuntimeError(f"the server did not start: {self.log_path.read_text()}")
            time.sleep(0.1)

    def stop(self) -> None:
        """Stop as Ctrl+C would (SIGINT): the server saves its clocks and exits."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=10) as response:
            return json.loads(response.read())
