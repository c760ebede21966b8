"""Every option of the ``sternhalma`` command, tried with bad values: how many were
refused with one line, and how many ended in a traceback or a hang.

    nice .venv/bin/python bench/fuzz_cli.py               # every option, every value
    nice .venv/bin/python bench/fuzz_cli.py --sample 2    # two options a command

The subcommands and their options are read from the click command tree
(``sternhalma.cli:main``), so an option added later is tried too. Each option (and
each positional argument) gets the numbers nan, inf, -inf, 1e308, -5, 2**63 and
10**30 and the strings huge (100 kB), binary (0xff 0x01: a NUL cannot pass through
exec) and empty, each in a process of its own with a timeout. ``serve`` and
``worker`` run for good when a value is fine: one still running after a few
seconds is counted "accepted", not a hang. Exit status 1 if any traceback or hang.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import click

from sternhalma.cli import main

NUMBERS: list[str | bytes] = ["nan", "inf", "-inf", "1e308", "-5", str(2**63), str(10**30)]
STRINGS: list[str | bytes] = ["x" * 100_000, b"\xff\x01", ""]
#: Commands that serve until stopped when every value is fine.
LONG_RUNNING = {"serve", "worker"}
#: A value for each positional argument while an option is tried.
ARGUMENTS = {"source": "-"}


@dataclass
class Case:
    command: list[str]
    target: str  # the option or argument tried
    value: str | bytes
    argv: list[str | bytes]


@dataclass
class Outcome:
    case: Case
    kind: str  # "refused", "accepted", "traceback", "hang", "unclear"
    stderr: str


def commands(group: click.Group, path: list[str]) -> Iterator[tuple[list[str], click.Command]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, [*path, name])
        else:
            yield [*path, name], command


def cases(sample: int | None, port: int, out: Path) -> Iterator[Case]:
    for path, command in commands(main, []):
        arguments = [p for p in command.params if isinstance(p, click.Argument)]
        options = [
            p
            for p in command.params
            if isinstance(p, click.Option) and not p.is_flag and not p.count and p.name != "help"
        ]
        if sample is not None:
            options = options[:sample]
        fixed: list[str | bytes] = []
        for argument in arguments:
            if argument.required:
                fixed.append(ARGUMENTS.get(argument.name or "", "-"))
        if path[0] == "serve":
            fixed = ["--port", str(port)]
        if path == ["puzzles", "make"]:  # a value that is fine makes one small set
            fixed = ["--games", "1", "--per-variant", "1", "--out", str(out)]
        for number, option in enumerate(options):
            flag = max(option.opts, key=len)
            if path[0] == "serve":  # a port each: two accepted values run side by side
                fixed = ["--port", str(port + number)]
            for value in NUMBERS + STRINGS:
                yield Case(path, flag, value, [*path, *fixed, flag, value])
        for index, argument in enumerate(arguments[: sample or None]):
            for value in NUMBERS + STRINGS:
                given = list(fixed)
                if index < len(given):
                    given[index] = value
                else:
                    given.append(value)
                yield Case(path, argument.name or "argument", value, [*path, *given])


def run(case: Case, home: str, timeout: float, short: float) -> Outcome:
    long_running = case.command[0] in LONG_RUNNING
    if case.command == ["puzzles", "make"]:
        timeout = max(timeout, 120.0)  # a seed that is fine makes a set: ~20 s alone
    env = {**os.environ, "XDG_DATA_HOME": home, "HOME": home}
    env["STERNHALMA_DATABASE_URL"] = str(Path(home) / "fuzz.db")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "sternhalma", *case.argv],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=short if long_running else timeout,
            env=env,
            cwd=home,  # a value taken as a file name (match --record) lands there
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        stderr = (expired.stderr or b"").decode(errors="replace")
        if "Traceback" in stderr:
            return Outcome(case, "traceback", stderr)
        return Outcome(case, "accepted" if long_running else "hang", stderr)
    stderr = done.stderr.decode(errors="replace")
    if "Traceback" in stderr:
        return Outcome(case, "traceback", stderr)
    if done.returncode == 0:
        return Outcome(case, "accepted", stderr)
    errors = [line for line in stderr.splitlines() if line.lower().startswith("error")]
    return Outcome(case, "refused" if len(errors) == 1 else "unclear", stderr)


def shown(value: str | bytes) -> str:
    text = repr(value)
    return text if len(text) < 24 else f"{text[:16]}... ({len(value)} chars)"


def main_(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=None, help="options a command")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before a hang")
    parser.add_argument("--short", type=float, default=15.0, help="seconds for serve/worker")
    parser.add_argument("--jobs", type=int, default=2)
    options = parser.parse_args(argv)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as home:
        all_cases = list(
            cases(options.sample, 18_000 + os.getpid() % 1000, Path(home) / "puzzles.json")
        )
        with ThreadPoolExecutor(options.jobs) as pool:
            outcomes = list(
                pool.map(lambda c: run(c, home, options.timeout, options.short), all_cases)
            )
    kinds = Counter(o.kind for o in outcomes)
    print(
        f"{len(outcomes)} bad values to {len({' '.join(c.command) for c in all_cases})} "
        f"commands in {time.monotonic() - start:.0f} s: "
        + ", ".join(
            f"{kinds[k]} {k}" for k in ("refused", "accepted", "unclear", "traceback", "hang")
        )
    )
    by_command: dict[str, Counter[str]] = {}
    for outcome in outcomes:
        by_command.setdefault(" ".join(outcome.case.command), Counter())[outcome.kind] += 1
    for name, counted in sorted(by_command.items()):
        print(f"  {name:16} " + ", ".join(f"{n} {k}" for k, n in sorted(counted.items())))
    for outcome in outcomes:
        if outcome.kind in ("traceback", "hang", "unclear", "accepted"):
            last = outcome.stderr.strip().splitlines()[-1:] or [""]
            print(
                f"{outcome.kind}: sternhalma {' '.join(outcome.case.command)} "
                f"{outcome.case.target} {shown(outcome.case.value)}: {last[0][:160]}"
            )
    return 1 if kinds["traceback"] or kinds["hang"] else 0


if __name__ == "__main__":
    sys.exit(main_())
