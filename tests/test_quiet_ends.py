"""Ends without a word (issue 25): a thinking process whose parent was killed (nobody
is there to read a traceback about the answer it could not send), and a server
stopped while pages wait."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from services import Server

from sternhalma.game import Game
from sternhalma.records import write_record

ORPHAN = textwrap.dedent(
    """
    import json, multiprocessing, os
    from sternhalma.server.thinking.codec import write_work
    from sternhalma.server.thinking.jobs import Job
    from sternhalma.server.thinking.slot import slot_main

    if __name__ == "__main__":
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        given_up = context.Value("q", 0)  # kept: the child opens its semaphore by name
        process = context.Process(target=slot_main, args=(child, os.getpid(), None, given_up))
        process.start()
        child.close()
        assert json.loads(parent.recv_bytes())[0] == "ready"
        # A Hard move that thinks for a while (past its opening book, helpers.PAST_THE_BOOK);
        # its asker goes away at once.
        job = Job("classic-2", None, None, ("l4-l5", "e14-e13"), True, "hard", 1, 1.0)
        parent.send_bytes(json.dumps([1, write_work(job)]).encode())
        parent.close()
        process.join(30)
        print(process.exitcode)
    """
)


def test_a_thinking_process_whose_asker_is_gone_ends_quietly(tmp_path: Path) -> None:
    script = tmp_path / "orphan.py"  # a file: spawned processes import their __main__
    script.write_text(ORPHAN)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.strip() == "0"
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_a_server_stopped_with_analysis_pages_made_to_wait_ends_without_a_traceback(
    tmp_path: Path,
) -> None:
    """A page refused for asking too many reviews is left unread for a while (up to 8 s),
    longer than the server's grace when it stops: it is closed, not a traceback."""
    from websockets.sync.client import connect

    server = Server(f"sqlite+aiosqlite:///{tmp_path / 'quiet.db'}", None, tmp_path / "server.log")
    server.start()
    try:
        review = json.dumps({"type": "review", "record": write_record(Game("classic-2"))})
        with connect(f"{server.ws_url}/ws/analysis", max_size=2**22) as ws:
            refused = 0
            deadline = time.monotonic() + 60
            while refused < 5 and time.monotonic() < deadline:  # waits 0.5, 1, 2, 4 s, then 8
                ws.send(review)
                while True:
                    message = json.loads(ws.recv(timeout=30))
                    if message["type"] in ("review-done", "error"):
                        refused += message.get("code") == "too-many-requests"
                        break
            assert refused == 5
            server.stop()  # Ctrl+C, as an operator stops it
    finally:
        server.kill()
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log
