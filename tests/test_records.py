"""Game records: write then read gives the same game; bad records say what is wrong."""

from __future__ import annotations

import datetime
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from sternhalma.cli import main
from sternhalma.clock import Clock, parse_time_control
from sternhalma.game import Game
from sternhalma.notation import position_to_dict
from sternhalma.records import RecordError, read_record, write_record


def forward_game(variant: str, seed: int, limit: int | None = None) -> Game:
    """A game of mostly forward moves (to its end, or ``limit`` moves)."""
    rng = random.Random(seed)
    game = Game(variant)
    rules = game.rules
    while not game.is_over and (limit is None or len(game.moves) < limit):
        moves = game.legal_moves()
        if rng.random() < 0.9:
            best = max(rules.progress(game.position, m) for m in moves)
            moves = [m for m in moves if rules.progress(game.position, m) == best]
        game.play(rng.choice(moves))
    return game


def same_game(a: Game, b: Game) -> None:
    assert b.rules is a.rules
    assert b.moves == a.moves
    assert b.position == a.position
    assert b.result == a.result
    assert b.turns == a.turns


def test_a_finished_game_reads_back_the_same() -> None:
    game = forward_game("classic-2", seed=7)
    assert game.is_over
    text = write_record(
        game,
        players={"black": "Computer (medium)", "white": 'Ayşe "the quick"'},
        date=datetime.date(2024, 5, 1),
        time_control=parse_time_control("5+3"),
    )
    assert text.startswith(
        '[Variant "classic-2"]\n[Date "2024-05-01"]\n[White "Ayşe \\"the quick\\""]'
    )
    assert "\n1. " in text and f"\n{len(game.moves)}. " in text
    record = read_record(text)
    same_game(game, record.game)
    assert record.players == {"white": 'Ayşe "the quick"', "black": "Computer (medium)"}
    assert record.date == "2024-05-01"
    assert str(record.time_control) == "5+3"
    assert record.text() == text


def test_every_kind_of_game_reads_back() -> None:
    for variant in ("classic-6", "pairs-4", "capture-3", "halma-2", "fifteen-2"):
        game = forward_game(variant, seed=3, limit=40)
        same_game(game, read_record(write_record(game)).game)


def test_an_unfinished_game_is_marked_and_reads_back_unfinished() -> None:
    game = forward_game("classic-3", seed=1, limit=12)
    text = write_record(game, players=["Ann", "Bob", "Cem"])
    assert '[Result "*"]' in text
    assert '[Blue "Bob"]' in text
    record = read_record(text)
    same_game(game, record.game)
    assert not record.game.is_over


def test_a_resignation_is_recorded_with_its_seat() -> None:
    game = forward_game("classic-4", seed=2, limit=9)
    game.resign("black")
    text = write_record(game)
    assert '[Ending "resignation"]' in text and '[Resigned "black"]' in text
    record = read_record(text)
    same_game(game, record.game)


def test_a_flag_is_recorded_with_the_clock() -> None:
    now = [0]
    game = Game("classic-2", clock=Clock("1+0", 2, now=lambda: now[0]))
    game.play("m3-m5")
    now[0] = 70_000
    assert game.check_time()
    text = write_record(game)
    assert '[Clock "1+0"]' in text and '[Flagged "black"]' in text
    record = read_record(text)
    assert record.game.result == game.result
    assert record.game.clock is None  # a replay has no running clock


def test_a_game_set_up_mid_way_keeps_its_start() -> None:
    start = forward_game("classic-2", seed=4, limit=20).position
    game = Game("classic-2", start=start, moves_made=[10, 10], rounds_played=10)
    for _ in range(6):
        game.play(game.legal_moves()[0])
    text = write_record(game)
    assert "[Position " in text and '[MovesMade "10 10"]' in text and '[RoundsPlayed "10"]' in text
    record = read_record(text)
    same_game(game, record.game)
    assert record.game.moves_made(0) == 13
    assert record.game.rounds_played == 13


def test_a_casual_game_keeps_the_deadline_off() -> None:
    game = Game("classic-2", deadline_rule=False)
    text = write_record(game)
    assert '[Deadline "off"]' in text
    assert read_record(text).game.deadline is None
    assert read_record(write_record(Game("classic-2"))).game.deadline == 30


def test_an_illegal_move_is_named_by_number_and_reason() -> None:
    text = '[Variant "classic-6"]\n\n1. m3-m5\n2. h5-j5\n'
    with pytest.raises(RecordError) as error:
        read_record(text)
    assert str(error.value) == "move 2: h5-j5 is not legal for red: i5 is empty"


def test_moves_may_be_written_without_numbers_and_with_comments() -> None:
    text = '[Variant "classic-2"]\nm3-m5 E14-E13 ; black replies\n3.k3-k5\n'
    game = read_record(text).game
    assert [game.rules.format_move(m) for m in game.moves] == ["m3-m5", "e14-e13", "k3-k5"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1. m3-m5\n", "no Variant tag"),
        ('[Variant "classic-9"]\n', "unknown variant 'classic-9'"),
        ("[Variant classic-2]\n", 'line 1: a tag must look like [Name "value"]'),
        (
            '[Variant "classic-2"]\n[Variant "classic-3"]\n',
            "line 2: the Variant tag is given twice",
        ),
        (
            '[Variant "classic-2"]\n1. m3-m5\n3. e14-e13\n',
            "line 3: move number 3 where move 2 was expected",
        ),
        (
            '[Variant "classic-2"]\n1. m3-m5\n[Date "2024-01-01"]\n',
            "line 3: tags must come before the moves",
        ),
        ('[Variant "classic-2"]\n[Green "Ann"]\n', "green player, who has no seat in classic-2"),
        ('[Variant "classic-2"]\n[Clock "fast"]\n', "Clock: 'fast' is not a time control"),
        ('[Variant "classic-2"]\n[Result "white 1, black 2"]\n1. m3-m5\n', "the game is not over"),
        ('[Variant "classic-2"]\n[Ending "timeout"]\n', "unknown Ending 'timeout'"),
        ('[Variant "classic-2"]\n1. m3-m5 2. zz-m5\n', "move 2: unknown hole 'zz'"),
        ('[Variant "classic-2"]\n[Ending "resignation"]\n', "has no Resigned tag"),
        ('[Variant "classic-2"]\n[Position "{"]\n', "Position: the position is not valid JSON"),
    ],
)
def test_bad_records_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=None) as error:
        read_record(text)
    assert message in str(error.value)


def test_a_result_that_does_not_match_the_moves_is_refused() -> None:
    game = Game("classic-2")
    game.resign("black")
    text = write_record(game).replace("white 1, black 2", "white 2, black 1")
    with pytest.raises(RecordError, match=r"result \(white 2, black 1\) does not match its moves"):
        read_record(text)


def test_moves_after_the_end_are_refused() -> None:
    game = forward_game("classic-2", seed=7)
    text = write_record(game).replace('[Result "', '[Old "') + f"{len(game.moves) + 1}. m1-m2\n"
    with pytest.raises(RecordError, match=rf"move {len(game.moves) + 1}: the game is over"):
        read_record(text)


# -- sternhalma replay ---------------------------------------------------------------
def test_replay_prints_the_result_and_the_position(tmp_path: Path) -> None:
    game = forward_game("classic-2", seed=7)
    path = tmp_path / "game.txt"
    path.write_text(write_record(game, players=["Ann", "Bob"]), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert game.result is not None
    assert f"Result: white {game.result.places[0]}, black {game.result.places[1]}" in result.output
    assert game.result.reason in result.output
    assert "white: Ann, black: Bob" in result.output
    assert '"variant": "classic-2"' in result.output


def test_replay_json_from_standard_input() -> None:
    game = forward_game("pairs-4", seed=5)
    result = CliRunner().invoke(main, ["replay", "-", "--json"], input=write_record(game))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert game.result is not None
    assert data["result"]["places"] == dict(zip(game.rules.seats, game.result.places, strict=True))
    assert data["result"]["team_places"] == list(game.result.team_places)
    assert data["result"]["ending"] == game.result.ending
    assert data["position"] == position_to_dict(game.position)
    assert len(data["moves"]) == len(game.moves)


def test_replay_fails_with_one_line_and_status_2(tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["replay", "-"], input='[Variant "classic-6"]\n1. m3-m5\n2. h5-j5\n')
    assert bad.exit_code == 2
    assert bad.output == "error: move 2: h5-j5 is not legal for red: i5 is empty\n"
    missing = runner.invoke(main, ["replay", str(tmp_path / "nothing.txt")])
    assert missing.exit_code == 2
    assert missing.output.startswith("error: cannot read ")
    assert missing.output.count("\n") == 1


def test_replay_counts_one_round_and_one_move_in_the_singular() -> None:
    game = Game("classic-2")
    game.play(game.rules.parse_move(game.position, "m3-m5"))
    game.play(game.rules.parse_move(game.position, "e15-e13"))
    one = CliRunner().invoke(main, ["replay", "-"], input=write_record(game))
    assert "\n2 moves, 1 round\n" in one.output
    game.play(game.rules.parse_move(game.position, "m5-m6"))
    three = CliRunner().invoke(main, ["replay", "-"], input=write_record(game))
    assert "\n3 moves, 1 round\n" in three.output


# -- records made before the finishing rule of issue 30 ----------------------------------
# Made by the earlier rule, where the goal's owner's marbles counted at any time: white
# "finished" with h13-h14 around black's e17 although black had made only 5 moves.
EARLIER_FINISHED = r"""[Variant "classic-2"]
[Date "2024-05-01"]
[White "Ann"]
[Black "Bob"]
[Position "{\"variant\": \"classic-2\", \"turn\": \"white\", \"marbles\": {\"white\": [\"i8\", \"h13\", \"e14\", \"f14\", \"g14\", \"e15\", \"f15\", \"g15\", \"e16\", \"f16\"], \"black\": [\"i5\", \"j5\", \"k5\", \"l5\", \"m5\", \"i6\", \"j6\", \"k6\", \"i7\", \"e17\"]}}"]
[MovesMade "5 5"]
[Result "white 1, black 2"]
[Ending "last-reply"]
[Reason "White finished first and black's last reply did not finish: white wins."]

1. h13-h14
2. m5-m4
"""
# Six players, still going: white "finished" on its 4th move (h12-h14 into the hole black
# left) and its turns were skipped, so red's f8-g7 follows green's move.
EARLIER_GOING = r"""[Variant "classic-6"]
[Position "{\"variant\": \"classic-6\", \"turn\": \"white\", \"marbles\": {\"white\": [\"m1\", \"l2\", \"m2\", \"k3\", \"l3\", \"m3\", \"j4\", \"k4\", \"l4\", \"h12\"], \"red\": [\"e5\", \"f5\", \"g5\", \"e6\", \"f6\", \"g6\", \"e7\", \"f7\", \"e8\", \"f9\"], \"blue\": [\"d10\", \"h10\", \"c11\", \"d11\", \"b12\", \"c12\", \"d12\", \"a13\", \"b13\", \"c13\"], \"black\": [\"h13\", \"e14\", \"f14\", \"g14\", \"e15\", \"f15\", \"g15\", \"e16\", \"f16\", \"e17\"], \"yellow\": [\"k9\", \"m10\", \"l11\", \"m11\", \"k12\", \"l12\", \"m12\", \"k13\", \"l13\", \"m13\"], \"green\": [\"o5\", \"p5\", \"q5\", \"n6\", \"o6\", \"p6\", \"n7\", \"o7\", \"j8\", \"n8\"]}}"]
[MovesMade "3 3 3 3 3 3"]
[Result "*"]

1. h12-h14
2. f9-f8
3. h10-h9
4. h13-h12
5. k9-k8
6. j8-j7
7. f8-g7
"""


def test_a_record_finished_by_the_earlier_rule_still_reads_as_it_ended() -> None:
    record = read_record(EARLIER_FINISHED)
    game = record.game
    assert game.finish_rule == "anytime"
    assert game.result is not None
    assert game.result.places == (1, 2)
    assert game.result.ending == "last-reply"
    # Written again, it says which rule it was played by, and reads back the same.
    text = record.text()
    assert '[Finishing "anytime"]' in text
    again = read_record(text)
    same_game(game, again.game)
    assert again.game.finish_rule == "anytime"


def test_a_game_going_on_by_the_earlier_rule_still_reads() -> None:
    game = read_record(EARLIER_GOING).game
    assert game.finish_rule == "anytime"
    assert game.status("white") == "finished"
    assert game.turn == 2  # blue


def test_a_record_of_todays_rule_is_read_by_it_and_says_nothing_of_rules() -> None:
    game = forward_game("classic-6", seed=3, limit=60)
    text = write_record(game)
    assert "Finishing" not in text
    assert read_record(text).game.finish_rule == "owner-leaving"


def test_a_record_that_breaks_either_rule_names_todays_error() -> None:
    text = EARLIER_FINISHED.replace("2. m5-m4", "2. m5-m3")
    with pytest.raises(RecordError, match="move 2: m5-m3 is not legal for black"):
        read_record(text)
    with pytest.raises(RecordError, match="Finishing must be one of"):
        read_record(EARLIER_FINISHED.replace("[Result", '[Finishing "sometimes"]\n[Result'))
    # A record that names today's rule is not read by the earlier one.
    named = EARLIER_FINISHED.replace("[Result", '[Finishing "owner-leaving"]\n[Result')
    with pytest.raises(RecordError, match="after its 2 moves the game is not over"):
        read_record(named)


def test_replay_says_plainly_that_a_game_ended_by_the_earlier_rule() -> None:
    runner = CliRunner()
    shown = runner.invoke(main, ["replay", "-"], input=EARLIER_FINISHED)
    assert shown.exit_code == 0, shown.output
    assert "Result: white 1, black 2 (last-reply)" in shown.output
    assert "earlier finishing rule" in shown.output
    data = json.loads(runner.invoke(main, ["replay", "-", "--json"], input=EARLIER_FINISHED).output)
    assert data["finish_rule"] == "anytime"
    today = runner.invoke(main, ["replay", "-"], input=write_record(forward_game("classic-2", 7)))
    assert "earlier" not in today.output


def test_the_analysis_steps_through_a_game_of_the_earlier_rule() -> None:
    from sternhalma.analysis import replay

    game = read_record(EARLIER_GOING).game
    assert [move for _, move in replay(game)] == game.moves
