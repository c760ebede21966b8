"""What a log-in costs the server: argon2id hashing and checking with the parameters
server/accounts/passwords.py uses (argon2-cffi's defaults), on this machine.

    .venv/bin/python bench/passwords.py [--rounds 20]

Prints the median milliseconds of one hash and one check, and how many log-ins a
second one core could check at that rate.
"""

from __future__ import annotations

import argparse
import statistics
import time

from argon2 import PasswordHasher


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    hasher = PasswordHasher()
    stored = hasher.hash("correct horse battery")
    hashing, checking = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        hasher.hash("correct horse battery")
        hashing.append(time.perf_counter() - start)
        start = time.perf_counter()
        hasher.verify(stored, "correct horse battery")
        checking.append(time.perf_counter() - start)
    hash_ms = statistics.median(hashing) * 1000
    check_ms = statistics.median(checking) * 1000
    print(f"argon2id (t={hasher.time_cost}, m={hasher.memory_cost} KiB, p={hasher.parallelism})")
    print(f"hash:  {hash_ms:.1f} ms (median of {rounds})")
    print(f"check: {check_ms:.1f} ms (median of {rounds}); {1000 / check_ms:.1f} log-ins/s a core")


if __name__ == "__main__":
    main()
