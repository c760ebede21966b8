"""Lets tests import the helpers that live beside them (reference.py); a Redis for the
tests of the computer's job queue."""

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from services import Redis


@pytest.fixture(scope="module")
def redis() -> Iterator[Redis]:
    """A redis-server of its own for a test module (tests/services.py)."""
    server = Redis()
    server.start()
    try:
        yield server
    finally:
        server.stop()
