"""Browser tests: Debian's Chromium (headless, via Playwright) against the real server.

The server is started as `sternhalma serve` in a subprocess on a free port of
127.0.0.1 with its own SQLite file, and stopped after the session. Screenshots
go to artifacts/ (git-ignored) for people to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from services import Server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "locale": "en-US", "viewport": {"width": 1280, "height": 860}}


def serve(folder: Path, **env: str) -> Iterator[str]:
    """The URL of a running `sternhalma serve` with settings ``env``, stopped afterwards."""
    # Every browser test comes from 127.0.0.1: analyses and reviews are not held to one
    # person's rate.
    process = Server(
        str(folder / "tables.db"),
        None,
        folder / "server.log",
        env={"STERNHALMA_MAX_ANALYSES": "100000", "STERNHALMA_MAX_REVIEWS": "1000", **env},
    )
    process.start()
    try:
        yield process.url
    finally:
        process.stop()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose local games are its own tables (``--server-engine``): the tests of
    the table page need no Pyodide loaded in every one of them (test_browser_engine.py
    plays in the browser)."""
    yield from serve(tmp_path_factory.mktemp("e2e"), STERNHALMA_SERVER_ENGINE="1")


@pytest.fixture(scope="session")
def browser_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server as it runs by default: local games in the browser (docs/browser.md)."""
    yield from serve(tmp_path_factory.mktemp("e2e-browser"))


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
