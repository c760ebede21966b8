"""The computer's jobs at the server: hints bounded and dropped, moves first, the clock kept.

The app runs with one real thinking process (server/thinking/ ``Pool``), as a
small machine would, or with the job queue on a real Redis and no worker at all.
In ``endless`` apps Hard's search is fixed at more nodes than it could search in
a test's time, so a hint runs until it is cancelled or taken over: what happens
to it does not depend on the machine's speed. Nothing measures time; waits have
limits.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import PAST_THE_BOOK, Client
from services import Redis
from test_server import PERSON, Socket, connect, event_of, first_legal, new_table, receive_until

from sternhalma.game import Game
from sternhalma.notation import position_from_json, position_to_json
from sternhalma.players import Limit
from sternhalma.players.timeman import allowance
from sternhalma.server.tables.computer_turns import RETRY_WAIT, ComputerTurns
from sternhalma.server.thinking.jobs import Job, read_hint
from sternhalma.server.thinking.pool import Pool
from sternhalma.server.web.app import Settings, create_app

HARD = {"kind": "computer", "level": "hard"}
EASY = {"kind": "computer", "level": "easy"}
#: Hard's nodes a move in an ``endless`` app.
ENDLESS = 10**9


def _past_the_book() -> str:
    """Classic-2 after ``PAST_THE_BOOK``, the person to move: Hard searches for a hint there."""
    game = Game("classic-2")
    for text in PAST_THE_BOOK:
        game.play(game.rules.parse_move(game.position, text))
    return position_to_json(game.position)


#: Where an ``endless`` app's hint searches until it is given up.
PAST_BOOK_START = _past_the_book()

pytestmark = pytest.mark.timeout(180)


def app(folder: Path, nodes: int | None = None) -> TestClient:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{folder / 'jobs.db'}",
        workers=1,
        computer_pause=0,
        think_nodes=nodes,
    )
    return Client(create_app(settings))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app(tmp_path) as client:
        yield client


@pytest.fixture
def endless(tmp_path: Path) -> Iterator[TestClient]:
    with app(tmp_path, ENDLESS) as client:
        yield client


def pool(client: TestClient) -> Pool:
    # The pool behind the admission layer's Shared (server/web/admission.py).
    thinking = client.app.state.tables.computer.thinking.thinking  # type: ignore[attr-defined]
    assert isinstance(thinking, Pool)
    return thinking


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen"
        time.sleep(0.01)


def reply(ws: Socket) -> dict[str, Any]:
    """The next hint or error (events and the welcome skipped)."""
    return receive_until(ws, lambda m: m["type"] in ("hint", "error"))


def test_one_hint_at_a_time_per_table(endless: TestClient) -> None:
    table = new_table(endless, "classic-2", [PERSON, EASY], start=PAST_BOOK_START)
    with connect(endless, table) as first, connect(endless, table) as second:
        first.send_json({"type": "hint"})
        wait_for(lambda: pool(endless).busy == 1, "the hint's start")
        second.send_json({"type": "hint"})
        assert reply(second)["code"] == "hint-busy"
        first.send_json({"type": "hint"})
        assert reply(first)["code"] == "hint-busy"
    # The first asker left: its hint was given up, and the second may ask.
    # (The pool counts the job given up just after taking it off the process.)
    wait_for(lambda: pool(endless).given_up == 1, "the hint given up")
    assert pool(endless).busy == 0


def test_three_hints_a_minute_per_connection(client: TestClient) -> None:
    table = new_table(client, "classic-2", [PERSON, EASY])
    with connect(client, table) as first, connect(client, table) as second:
        for _ in range(3):
            first.send_json({"type": "hint"})
            assert reply(first)["type"] == "hint"
        first.send_json({"type": "hint"})
        refused = reply(first)
        assert refused["code"] == "hint-limit"
        assert "at most 3 hints in 60 seconds" in refused["message"]
        assert "state" not in refused  # nothing changed: no board to send
        second.send_json({"type": "hint"})  # another connection still may
        assert reply(second)["type"] == "hint"


def test_a_hint_is_given_up_when_its_asker_leaves(endless: TestClient) -> None:
    table = new_table(endless, "classic-2", [PERSON, EASY], start=PAST_BOOK_START)
    thinking = pool(endless)
    process = thinking.free[0].process.pid
    with connect(endless, table) as ws:
        ws.send_json({"type": "hint"})
        wait_for(lambda: thinking.busy == 1, "the hint's start")
    # The pool is read from this thread: wait until the event loop has put the
    # process back, not only taken the job off it.
    wait_for(lambda: thinking.busy == 0 and bool(thinking.free), "the hint's end")
    assert thinking.given_up == 1
    assert thinking.free[0].process.pid == process, "the thinking process goes on"


def test_a_hint_for_a_position_that_changed_is_given_up(endless: TestClient) -> None:
    table = new_table(endless, "classic-2", [PERSON, EASY], start=PAST_BOOK_START)
    with connect(endless, table) as asker, connect(endless, table) as mover:
        state = receive_until(mover, lambda m: m["type"] == "welcome")["state"]
        asker.send_json({"type": "hint"})
        wait_for(lambda: pool(endless).busy == 1, "the hint's start")
        mover.send_json({"type": "move", "seat": 0, "path": first_legal(state), "v": state["v"]})
        stale = reply(asker)
        assert stale["code"] == "stale"
        assert "ask for a hint again" in stale["message"]
        # The computer's answer to the move comes as usual.
        assert receive_until(mover, event_of("move", 1))["state"]["turn"] == 0
    assert pool(endless).given_up == 1


def test_a_computer_move_takes_the_thinking_process_from_a_hint(endless: TestClient) -> None:
    hinted = new_table(endless, "classic-2", [PERSON, EASY], start=PAST_BOOK_START)
    other = new_table(endless, "classic-2", [PERSON, EASY], start=PAST_BOOK_START)
    with connect(endless, hinted) as asker, connect(endless, other) as player:
        state = receive_until(player, lambda m: m["type"] == "welcome")["state"]
        asker.send_json({"type": "hint"})
        wait_for(lambda: pool(endless).busy == 1, "the hint's start")
        player.send_json({"type": "move", "seat": 0, "path": first_legal(state), "v": state["v"]})
        answer = receive_until(player, event_of("move", 1))
        assert answer["state"]["turn"] == 0
        assert pool(endless).given_up == 1
        # The hint waits again and then runs again.
        wait_for(lambda: pool(endless).busy == 1, "the hint's second start")


def test_a_hint_flood_at_one_table_leaves_another_table_s_clocked_computer_in_time(
    client: TestClient,
) -> None:
    """A small hint flood (12 connections of one table asking, then hanging up) while
    the other table plays against Hard on a 30-second clock."""
    flooded = new_table(client, "classic-2", [PERSON, HARD])
    clocked = new_table(client, "classic-2", [PERSON, HARD], clock="0.5+0")
    with connect(client, clocked) as player:
        state = receive_until(player, lambda m: m["type"] == "welcome")["state"]
        for _ in range(4):
            with contextlib.ExitStack() as flood:
                askers = [flood.enter_context(connect(client, flooded)) for _ in range(12)]
                for asker in askers:
                    asker.send_json({"type": "hint"})
                path = first_legal(state)
                player.send_json({"type": "move", "seat": 0, "path": path, "v": state["v"]})
                answer = receive_until(
                    player,
                    lambda m: (
                        m["type"] == "event"
                        and m["event"]["kind"] in ("move", "flag")
                        and m["event"]["seat"] == 1
                    ),
                )
                assert answer["event"]["kind"] == "move", "the computer lost on time"
                state = answer["state"]
                answers = [reply(asker) for asker in askers]
                # One hint at a time: the others were refused at once (past 30 a
                # minute from one address, by the admission layer's rate).
                codes = {a.get("code", a["type"]) for a in answers}
                assert codes <= {"hint", "hint-busy", "hint-limit"}
                assert sum(a["type"] == "hint" for a in answers) < len(answers)
        assert not state["over"]
        assert state["clock"]["remaining"][1] > 0


def test_a_clocked_computer_s_job_carries_its_clock_and_increment(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server hands the thinking the computer's clock as it stands; the time manager,
    not the server, makes an allowance of it."""
    jobs: list[Job] = []
    think = ComputerTurns._think

    def recording(self: ComputerTurns, live: Any, job: Job, *args: Any) -> Any:
        jobs.append(job)
        return think(self, live, job, *args)

    monkeypatch.setattr(ComputerTurns, "_think", recording)
    table = new_table(client, "classic-2", [PERSON, HARD], clock="2+3")
    with connect(client, table) as player:
        state = receive_until(player, lambda m: m["type"] == "welcome")["state"]
        player.send_json({"type": "move", "seat": 0, "path": first_legal(state), "v": state["v"]})
        receive_until(player, event_of("move", 1))
    (job,) = jobs
    assert (job.level, job.seconds, job.increment) == ("hard", None, 3.0)
    assert job.clock is not None and 110 < job.clock <= 120  # two minutes, barely begun
    assert job.limit == Limit(clock=job.clock, increment=3.0)
    assert allowance(job.limit).seconds == 1.0  # a 40th of two minutes is more than 1 s


def test_with_no_worker_answering_a_clocked_computer_plays_a_quick_move_before_its_flag(
    tmp_path: Path, redis: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'queue.db'}",
        redis_url=redis.url,
        computer_pause=0,
    )
    caplog.set_level(logging.WARNING, logger="sternhalma")
    with Client(create_app(settings)) as client:
        table = new_table(client, "classic-2", [PERSON, HARD], clock="0.05+0")
        with connect(client, table) as ws:
            state = receive_until(ws, lambda m: m["type"] == "welcome")["state"]
            ws.send_json({"type": "move", "seat": 0, "path": first_legal(state), "v": state["v"]})
            answer = receive_until(
                ws,
                lambda m: (
                    m["type"] == "event"
                    and (m["event"]["kind"] in ("move", "flag") and m["event"]["seat"] == 1)
                ),
            )
    assert answer["event"]["kind"] == "move", "the computer lost on time"
    assert 0 < answer["state"]["clock"]["remaining"][1] < 3000
    assert "playing a quick medium move" in caplog.text


def test_a_hints_answer_carries_its_line_and_a_broken_one_is_refused() -> None:
    job = Job("classic-2", PAST_BOOK_START, None, (), True, "hard", 1, hint=True)
    move, line = read_hint(job.answer(20_000))
    game = Game("classic-2", start=position_from_json(PAST_BOOK_START))
    game.play(move)
    assert line, "alpha-beta in contact foresees replies"
    for seat, text in line:
        assert seat == game.turn
        game.play(text)
    for broken in (
        "k4-k5",
        "[]",
        '{"move": "k4-k5"}',
        '{"move": "k4-k5", "line": [[0]]}',
        '{"move": "k4-k5", "line": [["0", "k4-k5"]]}',
    ):
        with pytest.raises(ValueError, match="hint's"):
            read_hint(broken)


def test_an_answer_the_table_cannot_play_is_a_clear_error_and_the_game_goes_on(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A thinking process that answers nonsense (a hint's line naming a seat the game lacks,
    a computer move that is no move here) fails that hint or move; the table goes on."""
    think = Pool.think

    async def broken(self: Pool, job: Any, priority: Any, key: str) -> str:
        if isinstance(job, Job) and job.hint:
            return '{"move": "k4-k5", "line": [[7, "k4-k5"]]}'  # no seat 7 at classic-2
        if isinstance(job, Job) and len(job.moves) == 1:
            return "k4-k5"  # the first move of white, not of black's turn
        return await think(self, job, priority, key)

    monkeypatch.setattr(Pool, "think", broken)
    table = new_table(client, "classic-2", [PERSON, EASY], start=PAST_BOOK_START)
    with connect(client, table) as ws:
        state = receive_until(ws, lambda m: m["type"] == "welcome")["state"]
        ws.send_json({"type": "hint"})
        assert reply(ws)["code"] == "computer-failed"
        ws.send_json({"type": "move", "seat": 0, "path": first_legal(state), "v": state["v"]})
        failed = receive_until(ws, event_of("error"))
        assert failed["event"]["code"] == "computer-failed"
        assert failed["state"]["turn"] == 1 and failed["state"]["thinking"] is None
        # The computer tries again, but not at once: once after a second, then after two.
        began = time.monotonic()
        receive_until(ws, event_of("error"))
        receive_until(ws, event_of("error"))
        assert time.monotonic() - began >= RETRY_WAIT * 3 - 0.1
    assert "an unreadable hint" in caplog.text
    assert "the computer failed to choose a move" in caplog.text
