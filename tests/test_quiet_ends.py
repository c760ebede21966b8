"""A thinking process whose parent was killed ends without a word (issue 25): nobody
is there to read a traceback about the answer it could not send."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

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
        # A Hard move that thinks for a while; its asker goes away at once.
        job = Job("classic-2", None, None, (), True, "hard", 1, 1.0)
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
