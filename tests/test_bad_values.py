"""Bad values found in issue 25, each refused with one line: numbers that are not
finite or too large for the command line, a database URL of an unknown kind, a
non-boolean ``deadline_rule``, an address no route takes, a body cut short, a huge
move echoed back."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from test_online import make_client
from test_operator import free_port
from test_server import PERSON

from sternhalma.cli import main
from sternhalma.errors import InvalidMoveTextError
from sternhalma.game import Game
from sternhalma.rules import find_variant

#: Each refused by click's usage error (status 2) before anything runs.
REFUSED = [
    ["play", "--level", "hard", "--budget", "nan"],
    ["play", "--level", "hard", "--budget", "inf"],
    ["play", "--level", "hard", "--budget", "1e308"],
    ["play", "--budget", "-1"],
    ["match", "--players", "hard,easy", "--budget", "inf"],
    ["match", "--budget", "nan"],
    ["match", "--players", "hard,easy", "--nodes", "9223372036854775807"],
    ["match", "--players", "hard,easy", "--nodes", str(2**63)],
    ["match", "--players", "hard,easy", "--nodes", str(10**30)],
    ["match", "--games", str(10**30)],
    ["match", "--jobs", "100000"],
    ["solve", "crossing", "--width", str(10**30)],
    ["bench", "--seconds", "nan"],
    ["bench", "--seconds", "1e308"],
    ["worker", "--nodes", str(10**30)],
]


@pytest.mark.parametrize("arguments", REFUSED, ids=" ".join)
def test_a_bad_number_on_the_command_line_is_a_usage_error(arguments: list[str]) -> None:
    result = CliRunner().invoke(main, arguments, input="quit\n")
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert f"Invalid value for '{arguments[-2]}'" in result.output


@pytest.mark.parametrize(
    "arguments",
    [
        ["--database-url", "nosuch://x"],
        ["--database-url", "mysql://user@host/db"],
        ["--think-timeout", "nan"],
        ["--same-address-hours", "nan"],
        ["--same-address-hours", "inf"],
        ["--first-move", "nan"],
        ["--max-new-tables", str(10**30)],
    ],
    ids=" ".join,
)
def test_a_bad_serve_option_is_one_line_before_anything_starts(arguments: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sternhalma", "serve", "--port", str(free_port()), *arguments],
        capture_output=True,
        text=True,
        timeout=60,  # a value let through starts the server, and the test fails here
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert f"Invalid value for {arguments[0]}" in done.stderr.replace("'", "")


def test_the_largest_node_count_the_command_takes_plays(tmp_path: Path) -> None:
    """10**9 nodes reaches the compiled core (Hard's beam width is worked out from it)
    without a TypeError; the time budget ends each move."""
    result = CliRunner().invoke(
        main,
        [
            *("match", "--players", "hard,easy", "--games", "1", "--nodes", str(10**9)),
            *("--budget", "0.01", "--record", str(tmp_path)),
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.exception is None
    assert len(list(tmp_path.iterdir())) == 1


def test_a_huge_move_is_not_echoed_whole() -> None:
    game = Game(find_variant("classic-2"))
    for text in ("m1-" + "z" * 2_000_000, "z" * 2_000_000, "m1-m3-" * 400_000 + "-"):
        with pytest.raises(InvalidMoveTextError) as refused:
            game.play(text)
        assert len(str(refused.value)) < 200
        assert "characters" in str(refused.value)
    result = CliRunner().invoke(main, ["replay", "-"], input="1. " + "m" * 2_000_000 + "\n")
    assert result.exit_code == 2
    assert len(result.output) < 300 and result.output.count("\n") == 1


# -- HTTP ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    with make_client(tmp_path_factory.mktemp("bad") / "tables.db") as client:
        yield client  # type: ignore[misc]


@pytest.mark.parametrize("value", ["no", 0, None, 1, "false", [], {}])
def test_deadline_rule_must_be_true_or_false(client: TestClient, value: object) -> None:
    response = client.post(
        "/api/tables",
        json={"variant": "classic-2", "seats": [PERSON, PERSON], "deadline_rule": value},
    )
    assert response.status_code == 400
    assert response.json() == {
        "type": "error",
        "code": "ProtocolError",
        "message": '"deadline_rule" must be true or false',
    }


def test_deadline_rule_false_switches_the_rule_off(client: TestClient) -> None:
    for value, expected in ((False, False), (True, True)):
        response = client.post(
            "/api/tables",
            json={"variant": "classic-2", "seats": [PERSON, PERSON], "deadline_rule": value},
        )
        assert response.status_code == 200
        assert response.json()["state"]["deadline_rule"] is expected


def test_an_unrouted_address_answers_in_the_project_s_error_shape(client: TestClient) -> None:
    for path in ("/api/nothing", "/api/tables/x/nothing", "/ws/nothing"):
        response = client.get(path)
        assert response.status_code == 404
        body = response.json()
        assert body["type"] == "error" and body["code"] == "not-found", path
        assert path in body["message"]
    page = client.get("/nothing/at/all")  # a page a person typed: the HTML 404 page
    assert page.status_code == 404 and "text/html" in page.headers["content-type"]
    wrong = client.put("/api/variants", json={})
    assert wrong.status_code == 405 and wrong.json()["code"] == "method"
    assert "GET" in wrong.headers["allow"]
    long = client.get("/api/" + "x" * 5000)
    assert long.status_code == 404 and len(long.json()["message"]) < 200


def test_a_body_shorter_than_its_content_length_is_refused_without_a_traceback(
    tmp_path: Path,
) -> None:
    port = free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "sternhalma", "serve", "--port", str(port)),
            *("--workers", "1", "--database-url", str(tmp_path / "t.db")),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert "sternhalma is at" in server.stdout.readline()
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        with connection:
            connection.sendall(
                b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                b'{"variant":'
            )
            connection.shutdown(socket.SHUT_WR)  # the body ends at 11 of 100 bytes
            answer = b""
            while chunk := connection.recv(4096):
                answer += chunk
        assert re.match(rb"HTTP/1.1 (400|4\d\d)", answer) or answer == b""
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert "Traceback" not in errors and "ClientDisconnect" not in errors, errors


@pytest.mark.parametrize("script", ["engine.py", "capture_chains.py"])
def test_the_benches_answer_help_and_refuse_a_bad_argument(script: str) -> None:
    path = Path(__file__).resolve().parents[1] / "bench" / script
    helped = subprocess.run(
        [sys.executable, str(path), "--help"], capture_output=True, text=True, timeout=60
    )
    assert helped.returncode == 0 and helped.stdout.startswith("usage:"), helped.stderr
    refused = subprocess.run(
        [sys.executable, str(path), "nosuch"], capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.splitlines()[-1].startswith(f"{script}: error:")
