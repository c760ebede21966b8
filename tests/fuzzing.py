"""What the fuzz tests throw at the program, and what every answer must be.

Four doors, each with a hypothesis strategy and a check that raises AssertionError
when the answer is wrong:

- ``http``: any method, path, headers and body to the app: never a 5xx, and an
  error is a JSON ``{"type": "error", "message": ...}``;
- ``socket``: messages on a table's websocket, from its seated player or from a
  newcomer: every answer is a known message, and the connection stays open (a
  ping after each gets its pong);
- ``position``: ``sternhalma moves --position TEXT``: exit status 0, or 2 with one
  line ``error: ...``;
- ``record``: ``sternhalma replay -`` on a mutated game record: the same.

Nowhere may the server log an error or a traceback. tests/test_fuzz.py runs a few
hundred inputs; bench/fuzz.py runs ten thousand and more and counts the failures.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from click.testing import CliRunner
from helpers import Client
from hypothesis import strategies as st

from sternhalma.cli import main
from sternhalma.game import Game
from sternhalma.notation import position_to_dict
from sternhalma.records import write_record
from sternhalma.rules import VARIANTS
from sternhalma.server.storage.identities import IdentityRules
from sternhalma.server.storage.store import database_url
from sternhalma.server.web.admission import AddressLimits, Limits
from sternhalma.server.web.app import Settings, create_app

#: Valid JSON that this program must refuse or survive, in four kinds: huge and long
#: numbers, deep nesting, lone surrogates, and other strange strings.
HOSTILE_JSON = (
    ("1" * 5000, "-" + "9" * 4400, "1." + "1" * 5000, "1" * 25, "1e99999", "-1e400", "NaN"),
    ("[" * 3000 + "]" * 3000, '{"a":' * 1000 + "1" + "}" * 1000, "[" * 33 + "]" * 33),
    ('"\\ud800"', '"\\udfff\\ud800"', '"a\\ud83d"', '"\\udc00b"'),
    ('"\\ud83d\\ude00"', '"a\\u0000b"', '"\\u202e"', '"²"', '"١٢"', '"１"', '"' + "x" * 5000 + '"'),
)
hostile_json = st.one_of(*(st.sampled_from(kind) for kind in HOSTILE_JSON))
#: Text fragments that break naive parsing, spliced anywhere.
HOSTILE_TEXT = (
    "\ud800",
    "\udcff",
    "²",
    "¹",
    "٣",
    "1" * 5000,
    "[" * 3000,
    "\x00",
    "\ufeff",
    '"',
    "\\",
    "\\ud800",
    "x",
    "-",
    "\n",
    "NaN",
    "+",
    ".",
)
#: Stands for a hostile JSON value in a structure; replaced after json.dumps.
SLOT = "\x01slot\x01"
SLOT_TEXT = json.dumps(SLOT)

HOLES = ("l4", "l5", "k4", "k5", "m1", "m3", "e14", "e13", "i9", "a1", "p16", "zz9", "", "I9")
COLOURS = ("white", "black", "red", "blue", "yellow", "green", "purple", "")

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(HOLES + COLOURS)
    | st.just(SLOT)
)
json_values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=10,
)


@st.composite
def as_text(draw: st.DrawFn, values: st.SearchStrategy[Any]) -> str:
    """JSON text of a drawn value, its slots filled with hostile JSON, and sometimes
    with a hostile fragment spliced in anywhere (mostly no longer JSON)."""
    text = json.dumps(draw(values))
    while SLOT_TEXT in text:
        text = text.replace(SLOT_TEXT, draw(hostile_json), 1)
    if draw(st.integers(0, 4)) == 0:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(HOSTILE_TEXT)) + text[at:]
    return text


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """What a field should hold, a hostile JSON value, or any JSON value (a third each)."""
    return strategy | st.just(SLOT) | json_values


seats = st.lists(
    st.fixed_dictionaries(
        {"kind": maybe(st.sampled_from(["person", "online", "computer"]))},
        optional={"level": maybe(st.sampled_from(["easy", "medium", "hard"]))},
    ),
    max_size=7,
)
positions = st.fixed_dictionaries(
    {
        "variant": maybe(st.sampled_from(sorted({r.base_id for r in VARIANTS.values()}))),
        "turn": maybe(st.sampled_from(COLOURS)),
    },
    optional={
        "marbles": maybe(
            st.dictionaries(st.sampled_from(COLOURS), st.lists(maybe(st.sampled_from(HOLES))))
        ),
        "options": maybe(st.just(["longjump"])),
        "pieces": maybe(st.lists(st.sampled_from(HOLES))),
        "captured": maybe(st.dictionaries(st.sampled_from(COLOURS), maybe(st.integers(0, 60)))),
    },
)
#: Start positions of every variant: valid JSON whose parts the strategies change.
STARTS = [position_to_dict(rules.initial()) for rules in VARIANTS.values()]
position_texts = as_text(st.sampled_from(STARTS) | positions | json_values) | st.text(max_size=60)

new_tables = st.fixed_dictionaries(
    {
        "variant": maybe(st.sampled_from(["classic-2", "classic-3", "capture-2", "halma-2"])),
        "seats": maybe(seats),
    },
    optional={
        "clock": maybe(st.sampled_from(["5+3", "0", "1+1", "abc", "", "999+0", "²+1"])),
        "rated": maybe(st.booleans()),
        "nickname": maybe(st.text(max_size=30)),
        "sit": maybe(st.integers(-2, 7)),
        "identity": maybe(st.text(max_size=40)),
        "start": maybe(positions),
        "moves_made": maybe(st.lists(st.integers(-1, 40))),
        "deadline_rule": json_values,
    },
)
messages = st.fixed_dictionaries(
    {
        "type": maybe(
            st.sampled_from(
                ["hello", "move", "undo", "hint", "resign", "rematch", "look", "sit", "leave"]
            )
        )
    },
    optional={
        "seat": maybe(st.integers(-3, 8)),
        "path": maybe(st.lists(maybe(st.sampled_from(HOLES)), max_size=4)),
        "v": maybe(st.integers(-1, 50)),
        "ply": maybe(st.integers(-1, 50)),
        "token": maybe(st.text(max_size=40)),
        "since": maybe(st.integers(-1, 50)),
        "nickname": maybe(st.text(max_size=30)),
        "identity": maybe(st.text(max_size=40)),
        "confirm": json_values,
    },
)
#: A sound message of each type, for one_hostile_field.
SOUND_MESSAGES: dict[str, dict[str, Any]] = {
    "hello": {"token": "token", "since": 0},
    "move": {"seat": 0, "path": ["l4", "l5"], "v": 1, "confirm": False},
    "sit": {"seat": 1, "nickname": "Bob", "identity": "identity"},
    "look": {"ply": 0},
    "resign": {"seat": 0},
    "undo": {},
    "hint": {},
    "rematch": {},
    "leave": {},
    "ping": {},
}

#: Every (type, field) pair of the sound messages.
FIELDS = [(kind, field) for kind, sound in SOUND_MESSAGES.items() for field in ("type", *sound)]


@st.composite
def one_hostile_field(draw: st.DrawFn) -> dict[str, Any]:
    """A sound message with one field (its type included) made hostile."""
    kind, field = draw(st.sampled_from(FIELDS))
    message = {"type": kind, **SOUND_MESSAGES[kind]}
    message[field] = SLOT
    return message


message_texts = as_text(one_hostile_field() | messages | json_values)

PATHS = (
    "/",
    "/api/variants",
    "/api/tables",
    "/api/tables/{id}",
    "/api/tables/{id}/record",
    "/api/ratings",
    "/api/ratings?category={text}",
    "/table/{id}",
    "/ratings",
    "/how-to-play/{text}",
    "/static/js/api.js",
    "/static/{text}",
    "/openapi.json",
    "/docs",
    "/{text}",
)
CONTENT_TYPES = ("application/json", "application/json; charset=utf-8", "text/plain", "", None)
ORIGINS = ("http://localhost", "https://evil.example", "null", "http://localhost:1", None)
HOSTS = ("localhost", "127.0.0.1:8000", "evil.example", "[::1]", "", "a" * 300, None)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@st.composite
def requests(draw: st.DrawFn) -> Request:
    path = draw(st.sampled_from(PATHS))
    text = draw(st.text(max_size=30) | st.sampled_from(HOSTILE_TEXT))
    # Percent-encoded as a browser would (a lone surrogate as the bytes UTF-8 forbids).
    quoted = quote(text.encode("utf-8", "surrogatepass"), safe="")
    path = path.replace("{id}", quoted or "x").replace("{text}", quoted)
    headers = {}
    for name, values in (("content-type", CONTENT_TYPES), ("origin", ORIGINS), ("host", HOSTS)):
        value = draw(st.sampled_from(values))
        if value is not None:
            headers[name] = value
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD"]))
    if draw(st.booleans()):  # half are new tables as the lobby sends them, but for the body
        method, path, headers = "POST", "/api/tables", {"content-type": "application/json"}
    body = draw(as_text(new_tables) | as_text(json_values) | st.text(max_size=40))
    encoded = body.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        encoded = draw(st.binary(max_size=80))
    return Request(method, path, headers, encoded)


def sample_records() -> list[str]:
    """Short real records of several kinds: from the start, from a position, finished."""
    texts = []
    for variant, moves in (("classic-2", 3), ("capture-2", 2), ("halma-2", 1), ("pairs-4", 0)):
        game = Game(variant)
        for _ in range(moves):
            game.play(game.legal_moves()[-1])
        texts.append(write_record(game, players=["Ann", "Bob"], date="2024-05-01"))
    middle = Game("classic-2")
    middle.play("m3-m5")
    game = Game("classic-2", start=middle.position, moves_made=[1, 0], rounds_played=0)
    game.resign("black")
    texts.append(write_record(game, time_control=None))
    return texts


RECORDS = sample_records()
edits = st.tuples(
    st.sampled_from(["tag", "line", "token", "delete"]),
    st.integers(0, 40),
    st.sampled_from(["MovesMade", "RoundsPlayed", "Result", "TeamResult", "Clock", "Position"])
    | st.sampled_from(["Ending", "Resigned", "Deadline", "Variant", "White", "Green", "X"]),
    st.sampled_from(HOSTILE_TEXT)
    | hostile_json
    | st.sampled_from(["1 0", "0 1", "² 0", "white 1, black 2", "black 2, white 1", "*", "5+3"])
    | st.text(max_size=20),
)


@st.composite
def record_texts(draw: st.DrawFn) -> str:
    """A real record with a few edits: a tag set to something hostile, a line or a move
    replaced or inserted, a line deleted."""
    lines = draw(st.sampled_from(RECORDS)).splitlines()
    for kind, index, tag, value in draw(st.lists(edits, max_size=4)):
        at = index % (len(lines) + 1)
        if kind == "tag":
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            lines = [line for line in lines if not line.startswith(f"[{tag} ")]
            lines.insert(min(at, 1), f'[{tag} "{escaped}"]')
        elif kind == "line":
            lines.insert(at, value)
        elif kind == "token" and lines:
            line = lines[at % len(lines)]
            lines[at % len(lines)] = line.replace(line.split(" ")[-1], value) if line else value
        elif lines:
            del lines[at % len(lines)]
    return "\n".join(lines) + "\n"


# -- the checks ---------------------------------------------------------------------------------
#: What the table socket may send back (docs/protocol.md), "chat-history" after a `leave`.
SOCKET_REPLIES = {
    "event",
    "error",
    "welcome",
    "look",
    "seated",
    "confirm",
    "sync",
    "presence",
    "chat-history",
}


class LoudLog(logging.Handler):
    """Keeps every error and traceback anything logs."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.records.append(record)


@dataclass
class Doors:
    """The app (in this process) and the command line, with a log that must stay quiet."""

    client: Client
    log: LoudLog = field(default_factory=LoudLog)

    @contextmanager
    def quiet(self) -> Iterator[None]:
        before = len(self.log.records)
        yield
        loud = self.log.records[before:]
        assert not loud, f"logged: {loud[0].getMessage()[:200]}"

    def http(self, request: Request) -> None:
        with self.quiet():
            response = self.client.request(
                request.method, request.path, headers=request.headers, content=request.body
            )
            assert response.status_code < 500, (response.status_code, response.text[:200])
            answered_json = response.headers.get("content-type", "") == "application/json"
            if response.status_code >= 400 and request.method != "HEAD" and answered_json:
                data = response.json()
                assert data.get("message") or data.get("detail"), data

    def socket(self, seated_and_texts: tuple[bool, list[str]]) -> None:
        seated, texts = seated_and_texts
        with self.quiet():
            # One free seat.
            table = new_fuzz_table(self.client, [{"kind": "online"}, {"kind": "online"}], sit=0)
            with self.client.websocket_connect(f"/ws/tables/{table['id']}") as ws:
                if seated:
                    ws.send_json({"type": "hello", "token": table["token"]})
                for text in texts:
                    ws.send_text(text)
                    ws.send_json({"type": "ping"})
                    while (reply := ws.receive_json())["type"] != "pong":
                        assert reply["type"] in SOCKET_REPLIES, reply
                        assert reply["type"] != "error" or reply["message"], reply

    def position(self, text: str) -> None:
        # An argument may hold a lone surrogate: Python reads bytes that are not UTF-8 so.
        self._command(["moves", f"--position={text}"], None)

    def record(self, text: str) -> None:
        self._command(["replay", "-"], text.encode("utf-8", "surrogatepass"))

    def _command(self, args: list[str], stdin: bytes | None) -> None:
        result = CliRunner().invoke(main, args, input=stdin)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(f"{type(result.exception).__name__}: {result.exception}")
        assert result.exit_code in (0, 2), (result.exit_code, result.output[-300:])
        if result.exit_code == 2:
            assert result.output.startswith("error: "), result.output[:300]
            assert result.output.count("\n") == 1, result.output[:300]


def fuzz_settings(database: Path) -> Settings:
    """A server that lets one client make every table and message the fuzzing needs."""
    return Settings(
        database_url=database_url(str(database)),
        workers=1,
        computer_pause=0,
        limits=Limits(rate=10_000.0, burst=10_000.0),
        per_address=AddressLimits(connections=10_000, tables=10_000_000, seat_changes=10_000_000),
        # Every table here comes from one address, under one nickname.
        identities=IdentityRules(per_hour=1_000_000, same_address=0),
    )


#: The identity the fuzzed tables are created under (a nickname belongs to one identity).
FUZZ_IDENTITY: dict[str, str] = {}


def new_fuzz_table(client: Client, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A classic-2 table made by "Fuzz", always the same identity."""
    table: dict[str, Any] = client.post(
        "/api/tables",
        json={
            "variant": "classic-2",
            "seats": seats,
            "nickname": "Fuzz",
            "identity": FUZZ_IDENTITY.get("secret"),
            **extra,
        },
    ).json()
    FUZZ_IDENTITY.update(table["player"])
    return table


@contextmanager
def open_doors(database: Path) -> Iterator[Doors]:
    with Client(create_app(fuzz_settings(database))) as client:
        doors = Doors(client)
        logging.getLogger().addHandler(doors.log)
        try:
            yield doors
        finally:
            logging.getLogger().removeHandler(doors.log)


#: Each door's strategy and check, by name.
def targets(doors: Doors) -> dict[str, tuple[st.SearchStrategy[Any], Callable[[Any], None]]]:
    return {
        "http": (requests(), doors.http),
        "socket": (
            st.tuples(st.booleans(), st.lists(message_texts, min_size=1, max_size=4)),
            doors.socket,
        ),
        "position": (position_texts, doors.position),
        "record": (record_texts(), doors.record),
    }
