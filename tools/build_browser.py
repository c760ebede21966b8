"""Put Pyodide (the npm package ``pyodide``, pinned in package.json) among the web app's
files, so the server serves it itself and the local game runs in the browser with no
other site involved (docs/browser.md). Run by ``make setup``.

``npm ci`` installs the package into node_modules/ (its lock file pins it), with axe-core
for the accessibility tests (tests/e2e/test_accessibility.py); the files
a browser needs are copied into src/sternhalma/web/pyodide/ (git-ignored). Without
npm this says so and copies nothing: the server then plays local games on its own
tables (and ``make setup`` asks again next time).

``--snapshot`` (run by ``make setup`` after the install, with the project's Python) makes
the engine's snapshot once for each engine: Pyodide under Node starts Python, imports
the engine's wheel as the server serves it and saves its memory, which a browser's first
visit restores instead of starting Python (seconds here). Kept under the wheel's hash in
``pyodide/snapshot/`` (with a gzip copy), the snapshots of older engines removed.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "node_modules" / "pyodide"
TARGET = ROOT / "src" / "sternhalma" / "web" / "pyodide"
#: What loadPyodide fetches for the core interpreter and its standard library.
FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",
)
#: Those the server may send gzip-compressed (server/web/offline.py, ``StaticFiles``): a
#: copy ``NAME.gz`` is written beside each (the interpreter: 9.6 MB, 3.5 MB compressed).
#: The standard library is a zip already.
COMPRESSED = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "pyodide-lock.json")
#: The engine's snapshots (served by server/web/offline.py, its ``SNAPSHOT_FOLDER``).
SNAPSHOTS = TARGET / "snapshot"


#: Under Node: Pyodide starts Python, imports the engine from the wheel and saves its memory.
MAKE_SNAPSHOT = r"""
const [pyodide, wheel, out] = process.argv.slice(-3);
const fs = await import("node:fs");
const { loadPyodide } = await import(pyodide);
const py = await loadPyodide({ _makeSnapshot: true });
py.unpackArchive(new Uint8Array(fs.readFileSync(wheel)), "wheel");
py.runPython("import sternhalma.browser");
fs.writeFileSync(out, py.makeMemorySnapshot());
"""


def install() -> bool:
    """``npm ci`` when node_modules does not hold every package package.json pins yet
    (Pyodide; axe-core, which the accessibility tests run); False without npm."""
    if all(installed_version(name) == version for name, version in wanted_versions().items()):
        return True
    if shutil.which("npm") is None:
        print(
            "npm is not installed: local games will be played on the server (docs/browser.md)",
            file=sys.stderr,
        )
        return False
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ROOT, check=True)
    return True


def wanted_versions() -> dict[str, str]:
    """The packages package.json pins, each to one version."""
    manifest = json.loads((ROOT / "package.json").read_text())
    return {**manifest["dependencies"], **manifest.get("devDependencies", {})}


def installed_version(name: str) -> str | None:
    manifest = ROOT / "node_modules" / name / "package.json"
    try:
        return str(json.loads(manifest.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def copy() -> None:
    TARGET.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        source, target = PACKAGE / name, TARGET / name
        if not target.exists() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)
            shutil.rmtree(SNAPSHOTS, ignore_errors=True)  # another Pyodide's
    compress(TARGET)
    size = sum((TARGET / name).stat().st_size for name in FILES)
    print(f"Pyodide copied into {TARGET.relative_to(ROOT)} ({size / 1e6:.1f} MB)")


def snapshot() -> None:
    """The engine's snapshot for its wheel's hash, unless made already; without Node or
    Pyodide, none (the browser then starts Python itself)."""
    from sternhalma.server.web.offline import engine_key, engine_wheel

    made = SNAPSHOTS / f"{engine_key()}.bin"
    packed = Path(f"{made}.gz")
    if made.exists() and packed.exists():
        return
    node = shutil.which("node")
    if node is None or not (PACKAGE / "pyodide.mjs").exists():
        print("no Node or Pyodide: no snapshot of the engine is made", file=sys.stderr)
        return
    shutil.rmtree(SNAPSHOTS, ignore_errors=True)  # older engines'
    SNAPSHOTS.mkdir(parents=True)
    wheel, making = SNAPSHOTS / "engine.whl", SNAPSHOTS / "making.bin"
    wheel.write_bytes(engine_wheel())
    paths = [str(PACKAGE / "pyodide.mjs"), str(wheel), str(making)]
    try:
        subprocess.run([node, "--input-type=module", "-e", MAKE_SNAPSHOT, *paths], check=True)
    except subprocess.CalledProcessError as error:
        print(f"the engine's snapshot could not be made ({error})", file=sys.stderr)
        return
    finally:
        wheel.unlink()
    packed.write_bytes(gzip.compress(making.read_bytes(), compresslevel=9, mtime=0))
    making.rename(made)
    sizes = f"{made.stat().st_size / 1e6:.1f} MB, {packed.stat().st_size / 1e6:.1f} MB sent"
    print(f"The engine's snapshot made: {sizes}")


def compress(folder: Path) -> None:
    """Writes ``NAME.gz`` beside each of COMPRESSED in ``folder`` that has none as new as
    itself; no time in the header: the same file gives the same bytes."""
    for name in COMPRESSED:
        target, packed = folder / name, folder / f"{name}.gz"
        if not packed.exists() or packed.stat().st_mtime < target.stat().st_mtime:
            packed.write_bytes(gzip.compress(target.read_bytes(), compresslevel=9, mtime=0))


if __name__ == "__main__":
    if sys.argv[1:] == ["--snapshot"]:
        snapshot()
    elif install():
        copy()
