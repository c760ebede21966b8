"""What the person running the server sees when something outside the program is wrong:
one line naming the port or the file and what to do, never a traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sternhalma", "serve", "--workers", "1", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_port_in_use_is_one_line_before_anything_is_announced(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve("--port", str(port), "--database-url", str(tmp_path / "t.db"))
    assert done.returncode == 2
    assert done.stdout == ""  # not "sternhalma is at ..." first
    assert done.stderr.splitlines() == [
        f"error: port {port} on 127.0.0.1 is already in use (another sternhalma?): "
        "stop that program, or choose another port with --port"
    ]
