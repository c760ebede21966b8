"""The analysis board's server side: records, legal moves, the puzzle, the streamed
review over its websocket, and the limits that keep reviews from crowding the computer
as jobs on its thinking (server/thinking/)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import PAST_THE_BOOK, Client, run_apart

from sternhalma.analysis import review_game
from sternhalma.game import Game
from sternhalma.records import write_record
from sternhalma.server.thinking import Priority
from sternhalma.server.thinking.analysis import AnalysisJob, start_job
from sternhalma.server.thinking.jobs import Job
from sternhalma.server.thinking.pool import Pool
from sternhalma.server.web.admission import AddressLimits, Admission, Busy, Capacity, Shared
from sternhalma.server.web.app import Settings, create_app
from sternhalma.server.web.review import Analyses

MOVES = ["m4-m5", "g15-g13", "m5-m4"]


def record() -> str:
    game = Game("classic-2")
    for move in MOVES:
        game.play(move)
    return write_record(game)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = tmp_path_factory.mktemp("review") / "tables.db"
    settings = Settings(database_url=f"sqlite+aiosqlite:///{database}", workers=1)
    with Client(create_app(settings)) as client:
        yield client


def test_a_record_becomes_positions_and_moves(client: TestClient) -> None:
    data = client.post("/api/analysis/record", json={"record": record()}).json()
    assert [m["text"] for m in data["moves"]] == MOVES
    assert len(data["positions"]) == 4 and data["analysable"]
    assert "m5" in data["positions"][1]["marbles"]["white"]
    bad = client.post("/api/analysis/record", json={"record": '[Variant "classic-2"]\n1. m1-m9'})
    assert bad.status_code == 400 and "m1-m9" in bad.json()["message"]


def test_legal_moves_lead_to_their_positions(client: TestClient) -> None:
    start = client.post("/api/analysis/record", json={"record": record()}).json()["positions"][0]
    moves = client.post("/api/analysis/moves", json={"position": start}).json()["moves"]
    step = next(m for m in moves if m["text"] == "m4-m5")
    assert step["path"] == ["m4", "m5"] and step["after"]["turn"] == "black"
    refused = client.post("/api/analysis/moves", json={"position": {"variant": "nothing"}})
    assert refused.status_code in (400, 404)


def test_the_crossing_puzzle_moves(client: TestClient) -> None:
    home = ["m1", "l2", "m2", "k3", "l3", "m3", "j4", "k4", "l4", "m4"]
    moves = client.post("/api/puzzles/crossing/moves", json={"white": home}).json()["moves"]
    step = next(m for m in moves if m["text"] == "k4-k5")
    assert sorted(step["white"]) == sorted([*home[:7], "k5", "l4", "m4"])
    bad = client.post("/api/puzzles/crossing/moves", json={"white": ["m1", "m1"]})
    assert bad.status_code == 400


def test_the_review_streams_each_move_as_the_library_judges_it(client: TestClient) -> None:
    game = Game("classic-2")
    for move in MOVES:
        game.play(move)
    expected = review_game(game).as_dict()
    with client.websocket_connect("/ws/analysis") as socket:
        socket.send_json({"type": "review", "record": record()})
        assert socket.receive_json() == {"type": "review-start", "total": 3}
        first = socket.receive_json()
        assert first["type"] == "review-position" and first["race"] == expected["start"]["race"]
        # A second review on the same page waits for the first.
        socket.send_json({"type": "review", "record": record()})
        seen: list[dict[str, Any]] = []
        errors = []
        while len(seen) < 3:
            message = socket.receive_json()
            if message["type"] == "error":
                errors.append(message["message"])
            else:
                seen.append(message)
        assert [m["done"] for m in seen] == [1, 2, 3]
        assert [{k: m[k] for k in expected["moves"][0]} for m in seen] == expected["moves"]
        # m5-m4 steps back home: at most two moves lost, within the count's error so far
        # from the goal, so no mistake (docs/analysis.md, "The estimate's error").
        assert seen[2]["verdict"] != "mistake"
        assert socket.receive_json()["type"] == "review-done"
        assert errors == ["a review is already running on this page"]


def test_a_position_analysis_and_bad_messages(client: TestClient) -> None:
    start = client.post("/api/analysis/record", json={"record": record()}).json()["positions"][3]
    with client.websocket_connect("/ws/analysis") as socket:
        socket.send_text("not json")
        assert socket.receive_json()["type"] == "error"
        socket.send_json({"type": "analyse", "id": "x", "position": start})
        reply = socket.receive_json()
        assert reply["type"] == "analysis" and reply["id"] == "x" and reply["turn"] == "black"
        assert reply["best"]["path"][0] in start["marbles"]["black"]
        socket.send_json({"type": "review", "record": write_record(Game("capture-2"))})
        assert "race games" in socket.receive_json()["message"]


class Held:
    """A computer's thinking whose jobs finish only when the test lets them; a job's
    answer is its arguments."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.jobs: list[tuple[AnalysisJob, Priority]] = []

    async def think(self, job: AnalysisJob, priority: Priority, key: str) -> str:
        self.jobs.append((job, priority))
        await self.release.wait()
        return json.dumps(getattr(job, "args", None))


def admitting(thinking: Any, places: int = 1, queued: int = 1) -> Analyses:
    """Analyses admitted by a layer of ``places`` places of ``thinking``."""
    admission = Admission(AddressLimits(), Capacity(places=places, queued=queued))
    return Analyses(Shared(thinking, admission.places), admission)


def test_analyses_and_hints_hold_at_most_the_layers_places_and_moves_never_wait() -> None:
    hint = Job("classic-2", None, None, (), True, "hard", 7, None)

    async def scenario() -> None:
        thinking = Held()
        analyses = admitting(thinking)
        shared = analyses.thinking
        running = asyncio.create_task(analyses.think("move", "abc", 1))
        waiting = asyncio.create_task(analyses.think("move", "abc", 2))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert len(thinking.jobs) == 1  # one place: the second waits
        with pytest.raises(Busy):
            await analyses.think("move", "abc", 3)
        with pytest.raises(Busy):  # a hint needs a place of the same share
            await shared.think(hint, Priority.HINT, "h")
        move = asyncio.create_task(shared.think(hint, Priority.MOVE, "m"))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        assert thinking.jobs[-1] == (hint, Priority.MOVE), "a computer move needs no place"
        thinking.release.set()
        assert await running == ["abc", 1] and await waiting == ["abc", 2]
        await move
        assert thinking.jobs == [
            (AnalysisJob("move", ("abc", 1)), Priority.ANALYSIS),
            (hint, Priority.MOVE),
            (AnalysisJob("move", ("abc", 2)), Priority.ANALYSIS),
        ]

    run_apart(scenario())


def test_a_cancelled_analysis_leaves_the_line_and_gives_its_place_back() -> None:
    """The page moved on while its analysis waited behind a long hint: the job leaves
    the thinking's line, and the next analysis gets the one place and its answer."""
    long_hint = Job("classic-2", None, None, PAST_THE_BOOK, True, "hard", 7, 600.0)

    async def until(condition: Any) -> None:
        for _ in range(1000):
            if condition():
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the thinking did not get there")

    async def scenario() -> Any:
        pool = Pool(1)
        await pool.start()
        analyses = admitting(pool)
        try:
            hint = asyncio.create_task(pool.think(long_hint, Priority.HINT, "h"))
            await until(lambda: pool.busy == 1)
            moved_on = asyncio.create_task(analyses.think("start", record()))
            await until(lambda: len(pool.waiting) == 1)
            moved_on.cancel()
            with pytest.raises(asyncio.CancelledError):
                await moved_on
            assert not pool.waiting
            hint.cancel()
            with pytest.raises(asyncio.CancelledError):
                await hint
            return await asyncio.wait_for(analyses.think("start", record()), 60)
        finally:
            await pool.close()

    assert run_apart(scenario()) == json.loads(json.dumps(start_job(record())))


def test_the_pages_are_served(client: TestClient) -> None:
    for path in ("/analysis", "/puzzle/crossing", "/static/data/crossing.json"):
        assert client.get(path).status_code == 200
