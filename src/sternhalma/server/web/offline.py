"""What lets the local game run in the browser and offline (docs/browser.md): the
engine as a pure-Python wheel, the service worker with the list of the app's files,
and the web app manifest.

The wheel is made here, in memory, from this install's own engine files (everything
of the package but the server, the command line and the C++ sources), so it is
always the engine the server runs. Pyodide itself is copied from the npm package by
``tools/build_browser.py`` into ``web/pyodide/`` (git-ignored); without it the lobby
plays local games on the server.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import mimetypes
import os
import zipfile
from functools import cache
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.responses import FileResponse
from starlette.staticfiles import NotModifiedResponse
from starlette.types import Scope

PACKAGE = Path(__file__).resolve().parents[2]
#: The package's folders and files that stay out of the browser's engine: the server and
#: the command line need other packages; the C++ sources and the web app are not Python.
LEFT_OUT = ("server", "cli", "_core", "web", "__main__.py")
#: Where the engine's wheel is served; the version in the name is the package's.
WHEEL_NAME = "sternhalma-0.1.0-py3-none-any.whl"
WHEEL_URL = f"/engine/{WHEEL_NAME}"
#: A fixed time for every file of the wheel: the same engine gives the same bytes.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)
#: Where the engine's snapshot is served, by ``engine_key`` (docs/browser.md), and the
#: folder of the web files it is made into by ``tools/build_browser.py``.
SNAPSHOT_URL = "/engine/snapshot/{key}"
SNAPSHOT_FOLDER = Path("pyodide") / "snapshot"
#: The app's files the service worker keeps from the first visit on (besides /static):
#: the lobby's page and the catalogue of variants.
SHELL_EXTRA = ("/", "/api/variants", "/manifest.webmanifest", WHEEL_URL)


def engine_files(package: Path = PACKAGE) -> list[Path]:
    """The engine's source files (and its opening book), in a fixed order."""
    files = []
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package)
        if relative.parts[0] in LEFT_OUT or "__pycache__" in relative.parts:
            continue
        if path.is_file() and (path.suffix in (".py", ".json") or path.name == "py.typed"):
            files.append(path)
    return files


@cache
def engine_wheel(package: Path = PACKAGE) -> bytes:
    """The engine as a wheel (pure Python, no dependencies), reproducible byte for byte."""
    info = "sternhalma-0.1.0.dist-info"
    contents: list[tuple[str, bytes]] = [
        (f"sternhalma/{path.relative_to(package).as_posix()}", path.read_bytes())
        for path in engine_files(package)
    ]
    contents.append(
        (
            f"{info}/METADATA",
            b"Metadata-Version: 2.1\nName: sternhalma\nVersion: 0.1.0\n"
            b"Summary: The sternhalma engine for the browser (no server)\n",
        )
    )
    contents.append(
        (
            f"{info}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: sternhalma\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
    )
    record = []
    for name, data in contents:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    contents.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in contents:
            entry = zipfile.ZipInfo(name, ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            wheel.writestr(entry, data)
    return buffer.getvalue()


@cache
def engine_key() -> str:
    """The engine wheel's hash, as the browser's worker reckons it: its ETag, and the name
    its snapshot is made and asked for under."""
    return hashlib.sha256(engine_wheel()).hexdigest()[:32]


def pyodide_ready(web: Path) -> bool:
    """Whether ``tools/build_browser.py`` copied Pyodide into the web files."""
    return (web / "pyodide" / "pyodide.mjs").is_file() and (
        web / "pyodide" / "pyodide.asm.wasm"
    ).is_file()


def shell_files(web: Path) -> list[str]:
    """The addresses the service worker keeps at install: every file of the web app
    but Pyodide (kept when a local game first loads it), and SHELL_EXTRA."""
    static = [
        "/static/" + path.relative_to(web).as_posix()
        for path in sorted(web.rglob("*"))
        if path.is_file()
        and path.relative_to(web).parts[0] not in ("pyodide",)
        and path.name not in ("sw.js", "index.html", "manifest.webmanifest")
    ]
    return [*SHELL_EXTRA, *static]


def pyodide_files(web: Path) -> list[str]:
    """Pyodide's addresses, which the service worker keeps once a local game is played
    (not the gzip copies: the server sends those in place of the files)."""
    folder = web / "pyodide"
    return [
        f"/static/pyodide/{p.name}"
        for p in sorted(folder.glob("*"))
        if p.is_file() and p.suffix != ".gz"
    ]


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (named, and not with q=0)."""
    for part in accept_encoding.lower().split(","):
        name, *params = (item.strip() for item in part.split(";"))
        if name == "gzip":
            return not any(
                p.replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params
            )
    return False


class Precompressed(StaticFiles):
    """The web app's files; where ``tools/build_browser.py`` wrote a gzip copy beside one
    (Pyodide's: its interpreter is 9.6 MB, 3.5 MB compressed), that copy to a browser that
    takes gzip, so a first visit transfers less. Made once at the build, not at each
    request. A range request gets the file itself (a range counts its bytes)."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        packed = Path(f"{os.fspath(full_path)}.gz")
        try:
            packed_stat = packed.stat()
        except OSError:
            return super().file_response(full_path, stat_result, scope, status_code)
        headers = Headers(scope=scope)
        fresh = packed_stat.st_mtime >= stat_result.st_mtime  # else a stale copy: not sent
        if (
            not fresh
            or status_code != 200
            or "range" in headers
            or not accepts_gzip(headers.get("accept-encoding", ""))
        ):
            response = super().file_response(full_path, stat_result, scope, status_code)
        else:
            media_type = mimetypes.guess_type(os.fspath(full_path))[0] or "text/plain"
            response = FileResponse(
                packed,
                stat_result=packed_stat,
                media_type=media_type,
                headers={"Content-Encoding": "gzip"},
            )
            if self.is_not_modified(response.headers, headers):
                response = NotModifiedResponse(response.headers)
        response.headers["Vary"] = "Accept-Encoding"
        return response


def app_version(web: Path) -> str:
    """A hash of the app's files and the engine: a new one makes browsers take the new
    service worker, which keeps the new files."""
    digest = hashlib.sha256(engine_wheel())
    for path in sorted(web.rglob("*")):
        if path.is_file() and path.relative_to(web).parts[0] != "pyodide":
            digest.update(path.relative_to(web).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def pyodide_version(web: Path) -> str:
    """The Pyodide copied (its package.json names it): the service worker's Pyodide cache."""
    try:
        package = json.loads((web / "pyodide" / "package.json").read_text())
        return str(package["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return "none"


def add_offline(app: FastAPI, web: Path) -> None:
    """The routes of the engine's wheel, the service worker and the manifest."""
    # Served as WebAssembly, Pyodide compiles while it downloads; as anything else it
    # fails and downloads the 10 MB again (Python before 3.12 does not know .wasm).
    mimetypes.add_type("application/wasm", ".wasm")

    async def wheel(request: Request) -> Response:
        etag = f'"{engine_key()}"'
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers={"ETag": etag})
        return Response(engine_wheel(), media_type="application/zip", headers={"ETag": etag})

    async def snapshot(request: Request, key: str) -> Response:
        # Only the running engine's: one of another is no use to a browser (it asks by
        # the hash of the wheel it got), and the key never names a path.
        path = web / SNAPSHOT_FOLDER / f"{key}.bin"
        if key != engine_key() or not path.is_file():
            return Response("no snapshot of this engine", status_code=404)
        packed = path.with_name(f"{path.name}.gz")
        if packed.is_file() and accepts_gzip(request.headers.get("accept-encoding", "")):
            return FileResponse(
                packed,
                media_type="application/octet-stream",
                headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"},
            )
        return FileResponse(path, media_type="application/octet-stream")

    @cache
    def worker_script() -> str:
        template = (web / "sw.js").read_text()
        return (
            template.replace('"__VERSION__"', json.dumps(app_version(web)))
            .replace('"__PYODIDE__"', json.dumps(pyodide_version(web)))
            .replace('["__SHELL__"]', json.dumps(shell_files(web)))
            .replace('["__ENGINE__"]', json.dumps(pyodide_files(web)))
        )

    async def service_worker() -> Response:
        # At the root, so that it may serve every page of the app.
        return Response(worker_script(), media_type="text/javascript")

    async def manifest() -> Response:
        return Response(
            (web / "manifest.webmanifest").read_bytes(), media_type="application/manifest+json"
        )

    app.add_api_route(WHEEL_URL, wheel, include_in_schema=False)
    app.add_api_route(SNAPSHOT_URL, snapshot, include_in_schema=False)
    app.add_api_route("/sw.js", service_worker, include_in_schema=False)
    app.add_api_route("/manifest.webmanifest", manifest, include_in_schema=False)
