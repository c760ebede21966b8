"""The time manager and the engine API: what a move may take, from the Limit alone.

The figures are today's allowances, as the server and Hard computed them before they
were gathered in players/timeman.py: 1 s a move, at most a 40th of the clock, the
search stopped at 90% of it, Hard's nodes the seconds at its game's rate.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from sternhalma import core
from sternhalma.game import Game
from sternhalma.notation import position_to_json
from sternhalma.players import Choice, EasyPlayer, HardPlayer, Info, Limit, MediumPlayer
from sternhalma.players.hard import BOOK, HardSettings, nodes_per_second
from sternhalma.players.timeman import Allowance, allowance, answer_by, pause
from sternhalma.rules import find_variant
from sternhalma.server.thinking.codec import read_work, write_work
from sternhalma.server.thinking.jobs import Job


@pytest.mark.parametrize(
    ("limit", "seconds", "nodes", "search"),
    [
        (Limit(), 1.0, 20_000, 0.9),  # the default: 1 s at 20,000 nodes a second
        (Limit(seconds=0.5), 0.5, 10_000, 0.45),
        (Limit(clock=20.0), 0.5, 10_000, 0.45),  # a 40th of 20 s
        (Limit(clock=100.0), 1.0, 20_000, 0.9),  # a 40th is more than the 1 s
        (Limit(seconds=3.0, clock=100.0), 2.5, 50_000, 2.25),
        (Limit(clock=8.0, increment=2.0), 1.0, 20_000, 0.9),  # 8 / 40 + 2: more than 1 s
        (Limit(seconds=5.0, clock=8.0, increment=2.0), 2.2, 44_000, 1.98),
        (Limit(seconds=5.0, clock=2.0, increment=3.0), 0.5, 10_000, 0.45),  # 1.5 s kept
        (Limit(seconds=5.0, clock=1.0, increment=3.0), 0.025, 500, 0.0225),  # a 40th only
        (Limit(clock=-0.2), 0.0, 1, 0.0),  # a flag about to fall: at once
        (Limit(nodes=500), 60.0, 500, 54.0),  # fixed nodes: the clock only a far cap
        (Limit(seconds=2.0, nodes=500), 2.0, 500, 1.8),
        (Limit(nodes=500, clock=20.0), 0.5, 500, 0.45),
    ],
)
def test_the_allowance_of_a_limit(limit: Limit, seconds: float, nodes: int, search: float) -> None:
    got = allowance(limit, 20_000)
    assert got.seconds == pytest.approx(seconds)
    assert got.nodes == nodes
    assert got.search_seconds == pytest.approx(search)


def test_a_negative_increment_is_refused() -> None:
    with pytest.raises(ValueError, match="increment is at least 0"):
        Limit(clock=10.0, increment=-1.0)


def test_a_level_that_does_not_search_gets_no_nodes() -> None:
    assert allowance(Limit()) == Allowance(1.0, None, 0.9)


def test_a_computer_move_is_shown_after_its_pause_at_most_half_its_time_on_a_clock() -> None:
    assert pause(Limit(), 0.6) == 0.6
    assert pause(Limit(clock=100.0), 0.6) == 0.5  # half of 1 s
    assert pause(Limit(clock=8.0), 0.6) == pytest.approx(0.1)  # half of 8 / 40
    assert pause(Limit(clock=100.0), 0.2) == 0.2


def test_the_server_waits_for_the_thinking_until_one_and_a_half_seconds_before_the_flag() -> None:
    assert answer_by(Limit()) is None
    assert answer_by(Limit(seconds=5.0)) is None
    assert answer_by(Limit(clock=10.0, increment=2.0)) == pytest.approx(8.5)


@pytest.mark.parametrize(
    ("variant", "compiled", "pure"),
    [
        ("classic-2", 240_000, 20_000),  # 20,000 a second, 12 times on the compiled core
        ("longjump-2", 240_000, 20_000),
        ("classic-3", 120_000, 30_000),  # the solo beam of three who never meet head on
        ("classic-6", 30_000, 30_000),  # playouts: the same on both cores
        ("halma-2", 22_500, 9_000),  # 9,000 a second, 2.5 times compiled
        ("halma-4", 9_000, 9_000),
        ("capture-2", 20_000, 20_000),  # capture: its own rates, two players and more
        ("capture-6", 5_000, 5_000),
    ],
)
def test_hard_s_nodes_a_second_by_game_and_core(
    variant: str, compiled: int, pure: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = find_variant(variant)
    monkeypatch.setattr(core, "COMPILED", True)
    assert nodes_per_second(HardSettings(), rules) == compiled
    monkeypatch.setattr(core, "COMPILED", False)
    assert nodes_per_second(HardSettings(), rules) == pure


def test_every_level_answers_a_choice_with_its_info() -> None:
    game = Game("classic-2")
    game.play(MediumPlayer(0).choose(game).move)
    for player in (EasyPlayer(1), MediumPlayer(1)):
        choice = player.choose(game, Limit(seconds=0.5))
        assert isinstance(choice, Choice)
        assert game.rules.is_legal(game.position, choice.move)
        assert (choice.info.search, choice.info.depth, choice.info.nodes) == ("", 0, 0)
        assert choice.info.seconds > 0
    choice = HardPlayer(1).choose(game, Limit(nodes=800))
    assert game.rules.is_legal(game.position, choice.move)
    assert choice.info.search == "alphabeta"
    assert choice.info.depth >= 1
    assert 0 < choice.info.nodes <= 800


def test_hard_tells_the_score_where_its_search_keeps_one() -> None:
    game = Game("capture-2")
    info = HardPlayer(3, book=False).choose(game, Limit(nodes=600)).info  # searched, not booked
    assert info.search == "alphabeta"
    assert info.score is not None and abs(info.score) < 100  # a capture lead, not a won game


def test_limits_and_infos_are_values() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limit().seconds = 2.0  # type: ignore[misc]
    assert Limit(1.0) == Limit(seconds=1.0)
    assert Choice((1, 2)).info == Info()


def test_a_job_carries_its_limit_across_redis_as_json() -> None:
    job = Job("classic-2", None, None, (), True, "hard", 7, None, 42.5, 2.0)
    assert job.limit == Limit(clock=42.5, increment=2.0)
    written = write_work(job)
    assert (written["seconds"], written["clock"], written["increment"]) == (None, 42.5, 2.0)
    assert read_work(json.loads(json.dumps(written))) == job


def test_hard_plays_the_book_s_move_from_a_start_at_once_and_searches_after() -> None:
    for variant in ("classic-2", "classic-6", "halma-2", "capture-2"):
        game = Game(variant)
        choice = HardPlayer(5).choose(game, Limit(nodes=800))
        assert game.rules.format_move(choice.move) == BOOK[position_to_json(game.position)]
        assert (choice.info.search, choice.info.nodes) == ("book", 0)
        game.play(choice.move)
        reply = HardPlayer(5).choose(game, Limit(nodes=800)).info
        assert reply.search not in ("", "book") and reply.nodes > 0
    searched = HardPlayer(5, book=False).choose(Game("classic-2"), Limit(nodes=800)).info
    assert searched.search == "alphabeta" and searched.nodes > 0
