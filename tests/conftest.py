"""Lets tests import the helpers that live beside them (reference.py), keeps wall-clock time
out of the property tests (Hypothesis's per-example deadline fails a test on a busy machine),
and gives the tests of the computer's job queue a Redis."""

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

from services import Redis

settings.register_profile("sternhalma", deadline=None)
settings.load_profile("sternhalma")


@pytest.fixture(scope="module")
def redis() -> Iterator[Redis]:
    """A redis-server of its own for a test module (tests/services.py)."""
    server = Redis()
    server.start()
    try:
        yield server
    finally:
        server.stop()
