"""bench/fuzz_cli.py on a sample: the first option of every subcommand (and its
positional arguments), each with every bad number and string, in a process of its
own; none may end in a traceback or hang, and each is refused with one error line
(``serve`` and ``worker`` may be accepted: they then serve until stopped)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from fuzz_cli import cases, commands, run

from sternhalma.cli import main


def test_every_subcommand_is_found_in_the_command_tree() -> None:
    names = {" ".join(path) for path, _ in commands(main, [])}
    assert {"play", "match", "serve", "worker", "solve crossing", "puzzles make"} <= names


def test_a_sample_of_bad_values_is_refused_with_one_line(tmp_path: Path) -> None:
    sample = [
        case
        for case in cases(1, 18_999, tmp_path / "puzzles.json")
        if case.command[0] not in ("serve", "worker") or case.target == "--host"
    ]
    # The huge and binary strings and the numbers past 64 bits, for every command.
    chosen = [
        c for c in sample if c.value in (str(10**30), "nan", b"\xff\x01") or len(c.value) > 1000
    ]
    outcomes = [run(case, str(tmp_path), timeout=120, short=30) for case in chosen]
    bad = [
        (" ".join(o.case.command), o.case.target, o.case.value[:20], o.kind, o.stderr[-300:])
        for o in outcomes
        if o.kind not in ("refused", "accepted")
        or (o.kind == "accepted" and o.case.command[0] not in ("serve", "worker"))
    ]
    assert bad == []
    assert len(outcomes) >= 40
