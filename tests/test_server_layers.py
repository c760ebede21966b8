"""The server's packages depend on each other one way (docs/architecture.md "The server"):
``protocol`` and ``bus`` below everything, then ``storage``, then ``tables``, then
``web``; ``thinking`` stands apart and is used by ``tables`` and ``web``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[1] / "src" / "sternhalma" / "server"
#: What each package may import of the server's other packages.
ALLOWED = {
    "storage": {"protocol", "storage"},
    "accounts": {"protocol", "storage", "accounts"},
    "thinking": {"thinking"},
    "tables": {"protocol", "bus", "storage", "thinking", "tables"},
    "pool": {"protocol", "bus", "storage", "tables", "pool"},
    "web": {"protocol", "bus", "storage", "thinking", "tables", "accounts", "pool", "web"},
}


def server_imports(path: Path) -> set[str]:
    """The server packages or modules that ``path`` imports (``tables``, ``bus``...)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[:2] == ["sternhalma", "server"] and len(parts) > 2:
                found.add(parts[2])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[:2] == ["sternhalma", "server"] and len(parts) > 2:
                    found.add(parts[2])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_server_package_imports_only_the_layers_below_it(package: str) -> None:
    files = sorted((SERVER / package).rglob("*.py"))
    assert files
    wrong = {
        f"{path.relative_to(SERVER)} imports server.{name}"
        for path in files
        for name in server_imports(path) - ALLOWED[package]
    }
    assert not wrong, sorted(wrong)


def test_the_server_s_shared_modules_import_no_package_of_it() -> None:
    for name in ("protocol.py", "bus.py"):
        assert server_imports(SERVER / name) == set(), name
