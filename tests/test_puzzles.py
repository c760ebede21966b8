"""The shipped puzzle set, re-checked by the engine; a tampered puzzle is caught; the
rules lesson's steps and the puzzles' server calls."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import Client

from sternhalma import core
from sternhalma.game import Game
from sternhalma.lessons import lesson
from sternhalma.notation import position_from_dict
from sternhalma.puzzles import KINDS, PuzzleError, check_puzzle, games
from sternhalma.rules import find_variant
from sternhalma.server.web.app import Settings, create_app

SHIPPED = Path(__file__).parents[1] / "src/sternhalma/web/data/puzzles.json"
SET: list[dict[str, Any]] = json.loads(SHIPPED.read_text())["puzzles"]


def sample(kind: str, every: int) -> list[dict[str, Any]]:
    return [p for p in SET if p["kind"] == kind][::every]


def test_the_set_has_every_kind_for_star_variants_and_halma() -> None:
    assert len(SET) == len({p["id"] for p in SET}) >= 60
    for kind in KINDS:
        variants = {p["variant"] for p in SET if p["kind"] == kind}
        assert variants, kind
    assert any(p["variant"].startswith("halma") for p in SET)
    assert all(900 <= p["rating"] <= 2500 for p in SET)


@pytest.mark.parametrize(
    "puzzle",
    sample("finish", 4) + sample("chain", 4) + sample("block", 4) + sample("crowd", 8),
    ids=lambda p: p["id"],
)
def test_a_sample_of_the_shipped_set_is_right(puzzle: dict[str, Any]) -> None:
    if puzzle["kind"] == "crowd" and not core.COMPILED:
        with pytest.raises(PuzzleError, match="needs the compiled core"):
            check_puzzle(puzzle)
        return
    check_puzzle(puzzle)


def test_a_wrong_answer_is_caught() -> None:
    chain = copy.deepcopy(next(p for p in SET if p["kind"] == "chain"))
    position = position_from_dict(chain["position"])
    rules = position.rules
    other = next(
        m
        for m in Game(rules, start=position, deadline_rule=False).legal_moves()
        if [rules.board.names[m[0]], rules.board.names[m[-1]]] not in chain["answers"]
    )
    chain["answers"] = [[rules.board.names[other[0]], rules.board.names[other[-1]]]]
    with pytest.raises(PuzzleError):
        check_puzzle(chain)
    finish = copy.deepcopy(next(p for p in SET if p["kind"] == "finish"))
    finish["moves"] -= 1
    with pytest.raises(PuzzleError):
        check_puzzle(finish)


def test_the_same_seed_plays_the_same_games() -> None:
    first = [ply.game.position for ply in next(games("classic-2", 5, 1))]
    again = [ply.game.position for ply in next(games("classic-2", 5, 1))]
    assert first == again and len(first) > 40


def test_each_lesson_step_asks_a_legal_move_the_rules_agree_with() -> None:
    steps = {step["id"]: step for step in lesson()}
    assert list(steps) == [
        "step",
        "jump",
        "chain",
        "points",
        "goal",
        "finish",
        "deadline",
        "capture",
        "halma",
    ]
    for step in steps.values():
        assert any(m["ok"] for m in step["moves"]), step["id"]
    assert all(m["finishes"] == m["ok"] for m in steps["finish"]["moves"])
    deadline = steps["deadline"]["moves"]
    assert all(m["out"] != m["ok"] for m in deadline) and any(m["out"] for m in deadline)
    assert all(len(m["path"]) >= 3 for m in steps["chain"]["moves"] if m["ok"])
    rules = find_variant("classic-2")
    goal = rules.goals[0]
    for move in steps["goal"]["moves"]:
        if move["ok"]:
            assert goal >> rules.board.index_of[move["path"][-1]] & 1


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    database = tmp_path_factory.mktemp("puzzles") / "tables.db"
    settings = Settings(database_url=f"sqlite+aiosqlite:///{database}", workers=1)
    with Client(create_app(settings)) as client:
        yield client


def test_the_finish_puzzles_moves_and_bad_input(client: TestClient) -> None:
    puzzle = next(p for p in SET if p["kind"] == "finish")
    body = {"variant": puzzle["variant"], "seat": puzzle["seat"], "marbles": puzzle["marbles"]}
    moves = client.post("/api/puzzles/solo-moves", json=body).json()["moves"]
    first = puzzle["solution"][0]
    assert any(m["path"][0] == first[0] and m["path"][-1] == first[1] for m in moves)
    for bad in (
        {**body, "variant": "capture-2"},
        {**body, "seat": "purple"},
        {**body, "marbles": ["zz9"]},
        {**body, "marbles": [puzzle["marbles"][0]] * 2},
    ):
        answer = client.post("/api/puzzles/solo-moves", json=bad)
        assert answer.status_code == 400 and answer.json()["message"]
    assert client.get("/api/learn").json()["steps"][0]["id"] == "step"
    for page in ("/puzzles", "/learn"):
        assert client.get(page).status_code == 200
