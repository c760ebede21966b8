"""Computer-against-computer matches: seating, reports, parallel runs and the command."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sternhalma import match
from sternhalma.cli import main
from sternhalma.errors import SternhalmaError
from sternhalma.game import Game
from sternhalma.players import Limit, make_player
from sternhalma.records import read_record


def test_participants_rotate_through_the_seats() -> None:
    tasks = match.plan("classic-3", ["hard", "medium", "easy"], 4, seed=1)
    assert [t.seating for t in tasks] == [(0, 1, 2), (2, 0, 1), (1, 2, 0), (0, 1, 2)]
    assert [t.number for t in tasks] == [1, 2, 3, 4]


def test_with_openings_each_round_of_games_begins_with_its_own() -> None:
    plain = match.plan("classic-2", ["hard", "medium"], 4, seed=5)
    assert {t.opening for t in plain} == {()}
    tasks = match.plan("classic-2", ["hard", "medium"], 4, seed=5, openings=True)
    assert [t.seating for t in tasks] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    # A pair of games, the seats swapped, shares an opening: the sequential test's round.
    assert tasks[0].opening == tasks[1].opening == match.opening("classic-2", 5, 1)
    assert tasks[2].opening == tasks[3].opening == match.opening("classic-2", 5, 2)
    assert tasks[0].opening != tasks[2].opening
    game = Game("classic-2")
    for text in tasks[2].opening:
        game.play(text)
    assert game.moves_made(0) == game.moves_made(1) == match.OPENING_MOVES


def test_a_two_player_capture_round_begins_even() -> None:
    # From most random capture-2 openings the side to move wins whoever plays it, so a
    # round's opening is one that Hard, against itself, plays out to a close finish.
    moves = match.opening("capture-2", 1, 2)
    assert moves != match.random_opening("capture-2", "1:2")  # that one was not close
    game = Game("capture-2")
    for text in moves:
        game.play(text)
    players = [make_player("hard", 1), make_player("hard", 2)]
    while game.turn is not None:
        seat = game.turn
        game.play(players[seat].choose(game, Limit(nodes=match.EVEN_NODES)).move, seat)
    white, black = game.position.captured
    assert abs(white - black) <= 1
    # The race games keep their plain random openings.
    assert match.opening("classic-2", 1, 2) == match.random_opening("classic-2", "1:2")


def test_the_last_level_fills_the_remaining_seats() -> None:
    (task,) = match.plan("classic-6", ["Hard", "medium"], 1, seed=1)
    assert task.levels == ("hard", "medium", "medium", "medium", "medium", "medium")


@pytest.mark.parametrize(
    ("levels", "games", "budget", "message"),
    [
        (["medium", "easy", "easy"], 1, None, "classic-2 has 2 seats; 3 players"),
        (["medium", "genius"], 1, None, "unknown level 'genius'"),
        ([], 1, None, "name at least one player level"),
        (["medium"], 0, None, "at least one game"),
        (["medium"], 1, 0.0, "more than 0 seconds"),
    ],
)
def test_a_match_that_does_not_fit_is_refused(
    levels: list[str], games: int, budget: float | None, message: str
) -> None:
    with pytest.raises(SternhalmaError, match=message):
        match.plan("classic-2", levels, games, seed=1, budget=budget)


def test_a_game_report_tells_how_the_game_went() -> None:
    (task,) = match.plan("classic-2", ["medium", "easy"], 1, seed=2)
    report = match.play_game(task)
    assert report.variant == "classic-2"
    assert sorted(report.places) in ([1, 2], [1, 1])
    winner = report.winners[0]
    seat = report.seat_of(winner)
    assert report.finished[seat] or report.ending in ("out", "limit", "repetition")
    if report.finished[seat]:
        assert report.score[seat] >= 9  # nine of its own home, or ten (anti-blocking)
    for per_seat in (report.times, report.cpu):
        assert [len(t) for t in per_seat] == list(report.moves)
        assert all(t >= 0 for seat_times in per_seat for t in seat_times)
    assert report.searches == ((), ())  # no searching level played


def test_reports_are_the_same_in_one_process_or_two() -> None:
    tasks = match.plan("classic-2", ["medium", "easy"], 3, seed=7)
    alone = match.run(tasks, jobs=1)
    parallel = match.run(tasks, jobs=2)
    assert [(r.number, r.places, r.moves, r.score) for r in alone] == [
        (r.number, r.places, r.moves, r.score) for r in parallel
    ]


def test_standings_count_wins_and_moves_to_finish() -> None:
    tasks = match.plan("classic-2", ["medium", "easy"], 4, seed=3)
    reports = match.run(tasks)
    medium, easy = match.standings(reports, tasks[0].levels)
    assert medium.wins + easy.wins + medium.draws == 4
    assert len(medium.finish_moves) == sum(1 for r in reports if r.finished[r.seat_of(0)])
    assert all(moves >= 27 for moves in medium.finish_moves)  # the fewest possible alone


def test_match_command_begins_games_with_openings(tmp_path: Path) -> None:
    arguments = ["match", "--variant", "capture-2", "--players", "medium,easy"]
    arguments += ["--games", "2", "--openings", "--record", str(tmp_path)]
    result = CliRunner().invoke(main, arguments, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    opening = match.opening("capture-2", 1, 1)
    for path in sorted(tmp_path.glob("game-*.txt")):
        game = read_record(path.read_text(encoding="utf-8")).game
        played = [game.rules.format_move(move) for move in game.moves[: len(opening)]]
        assert played == list(opening)


def test_match_command_prints_games_and_summary(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "match",
            "--variant",
            "classic-2",
            "--players",
            "medium,easy",
            "--games",
            "2",
            "--seed",
            "1",
            "--jobs",
            "2",
            "--record",
            str(tmp_path),
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "moved first" in out and "others' marbles home" in out
    assert "1 medium (white)" in out and "2 easy (white)" in out  # seats rotate
    assert "summary: 2 games" in out and "moves to finish" in out
    records = sorted(tmp_path.glob("game-*.txt"))
    assert [p.name for p in records] == ["game-001.txt", "game-002.txt"]
    for path in records:
        record = read_record(path.read_text(encoding="utf-8"))  # replays every move
        assert record.game.is_over
        assert "medium (player 1)" in record.players.values()


def test_match_command_shows_captures_for_the_capture_game() -> None:
    result = CliRunner().invoke(
        main,
        ["match", "--variant", "capture-2", "--players", "medium,easy", "--games", "1"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "captures" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "medium,wizard"], "unknown level 'wizard'"),
        (["--games", "0"], "at least one game"),
        (["--jobs", "-1"], "--jobs must be 0"),
        (["--players", "easy,easy,easy"], "classic-2 has 2 seats"),
    ],
)
def test_match_command_refuses_bad_options(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["match", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_the_seat_that_made_a_third_repetition_and_whether_it_was_behind() -> None:
    def ending(moves: list[str]) -> tuple[int | None, bool]:
        game = Game("classic-2")
        for move in moves:
            assert match.repetition_made(game) == (None, False)
            game.play(move)
        assert game.result is not None and game.result.ending == "repetition"
        return match.repetition_made(game)

    # White jumps ahead, then both shuffle: white's move repeats the third time, ahead.
    ahead = ["k3-k5", "e14-e13", *["j4-j5", "e13-e14", "j5-j4", "e14-e13"] * 2]
    assert ending(ahead[:-1]) == (0, False)
    # Black jumps ahead, white steps back; white's shuffle repeats, two rows behind.
    behind = ["j4-j5", "e15-e13", "j5-j4", *["e14-e15", "k4-k5", "e15-e14", "k5-k4"] * 2]
    assert ending(behind) == (0, True)


def test_match_command_fixes_hards_nodes() -> None:
    args = ["match", "--players", "hard,medium", "--games", "1", "--nodes", "200", "--budget", "60"]
    tables = []
    for _ in range(2):
        result = CliRunner().invoke(main, args, env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert "3rd repetitions made (behind)" in result.output
        tables.append(result.output.split("summary")[0])
    assert tables[0] == tables[1]  # the same game both times: the nodes decide, not the clock
