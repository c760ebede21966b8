"""Fuzzing every door, ten thousand inputs and more: how many, and how many failed.

    nice .venv/bin/python bench/fuzz.py                  # 2,500 inputs per door
    nice .venv/bin/python bench/fuzz.py --examples 500 --door record

The doors and checks are tests/fuzzing.py's (the test suite runs a few hundred):
HTTP requests and websocket messages to the app in this process, positions to
``sternhalma moves`` and records to ``sternhalma replay``. A failure is a 5xx, an
error or traceback in the log, a dropped websocket, an exit status other than 0
and 2, or an error that is not one line. Unlike the tests, a failure does not stop
the run: each is counted, and the first few are printed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fuzzing import open_doors, targets
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.strategies import SearchStrategy


def run_door(
    strategy: SearchStrategy[Any], check: Callable[[Any], None], examples: int, seed: int
) -> tuple[int, list[tuple[Any, str]]]:
    """Run ``check`` on ``examples`` drawn inputs: how many ran, and each failure."""
    count = 0
    failures: list[tuple[Any, str]] = []

    def counted(value: Any) -> None:
        nonlocal count
        count += 1
        try:
            check(value)
        except Exception:
            failures.append((value, traceback.format_exc(limit=3)))

    run = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )(given(strategy)(counted))
    hypothesis_seed(seed)(run)()
    return count, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2500, help="inputs per door")
    parser.add_argument("--door", action="append", choices=["http", "socket", "position", "record"])
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    failures: list[tuple[str, Any, str]] = []
    total = 0
    with tempfile.TemporaryDirectory() as folder, open_doors(Path(folder) / "fuzz.db") as doors:
        for door, (strategy, check) in targets(doors).items():
            if options.door and door not in options.door:
                continue
            started = time.perf_counter()
            count, failed = run_door(strategy, check, options.examples, options.seed)
            seconds = time.perf_counter() - started
            print(
                f"{door:9} {count:6,} inputs  {len(failed)} failures  ({seconds:.0f} s)", flush=True
            )
            total += count
            failures.extend((door, value, trace) for value, trace in failed)
    print(f"{'all':9} {total:6,} inputs  {len(failures)} failures")
    for door, value, trace in failures[:5]:
        print(f"\n--- {door}: {value!r:.300}\n{trace}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
