"""Hostile text where the program reads it: JSON, positions, move text, records, the CLI.

Whatever comes in, the answer is a readable error (exit status 2 on the command
line), never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sternhalma.cli import main
from sternhalma.errors import InvalidMoveTextError, InvalidPositionError
from sternhalma.game import Game
from sternhalma.jsontext import MAX_DEPTH, JsonTextError, read_json
from sternhalma.notation import position_from_json, position_to_dict, position_to_json
from sternhalma.records import RecordError, read_record, write_record
from sternhalma.rules import find_variant

START = position_to_json(find_variant("classic-2").initial())
HUGE = "1" * 5000


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 5000, f"nested more than {MAX_DEPTH} deep"),
        ('{"a":' * 40 + "1" + "}" * 40, "nested more than"),
        (f'{{"n": {HUGE}}}', "more than 24 digits"),
        (f'{{"n": -{HUGE}}}', "more than 24 digits"),
        (f'{{"n": 1.{HUGE}}}', "too long or too large"),
        ('{"n": 1e999}', "too long or too large"),
        ('{"n": NaN}', "NaN is not a JSON number"),
        ('{"n": -Infinity}', "-Infinity is not a JSON number"),
        ('{"token": "\\ud800"}', "lone surrogate"),
        ('{"\\udfff": 1}', "lone surrogate"),
        ('["a", ["\\uDBFF"]]', "lone surrogate"),
        ('{"raw": "\udc80"}', "not Unicode text"),
        (b'{"raw": "\xed\xa0\x80"}', "not UTF-8"),
        (b"\xff", "not UTF-8"),
        ("{variant", "Expecting property name"),
    ],
)
def test_json_that_is_too_deep_too_big_or_not_text_is_refused(
    text: str | bytes, message: str
) -> None:
    with pytest.raises(JsonTextError, match=message):
        read_json(text)


def test_ordinary_json_reads_as_before() -> None:
    text = json.dumps(
        {
            "deep": json.loads("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)),
            "brackets in a string": "[[[[" * 40 + '\\"{{',
            "pair": "\ud83d\ude00 é",
            "numbers": [0, -7, 2**53, 1.5e300, -0.25],
        }
    )
    assert read_json(text) == json.loads(text)
    assert read_json(text.encode()) == json.loads(text)
    assert read_json('"\\ud83d\\ude00"') == "\U0001f600"
    assert read_json("[" * MAX_DEPTH + "]" * MAX_DEPTH) == json.loads(
        "[" * MAX_DEPTH + "]" * MAX_DEPTH
    )


@pytest.mark.parametrize(
    "text",
    [
        "[" * 5000,
        START.replace('"classic-2"', f'"classic-2", "x": {HUGE}'),
        START.replace('"white"', '"\\ud800"', 1),
    ],
)
def test_a_hostile_position_is_an_invalid_position(text: str) -> None:
    with pytest.raises(InvalidPositionError, match="the position is not valid JSON: "):
        position_from_json(text)


@pytest.mark.parametrize(
    "text",
    ["[" * 5000, START.replace('"classic-2"', f'"classic-2", "x": {HUGE}'), "\udcff"],
)
def test_moves_answers_a_hostile_position_with_one_line_and_status_2(text: str) -> None:
    result = CliRunner().invoke(main, ["moves", "--position", text])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: the position is not valid JSON")
    assert result.output.count("\n") == 1


def test_standard_input_that_is_not_utf8_is_one_line_and_status_2() -> None:
    for command in (["moves", "--position", "-"], ["replay", "-"]):
        result = CliRunner().invoke(main, command, input=b'[Variant "classic-2"]\n\xed\xa0\x80')
        assert (result.exit_code, result.output) == (2, "error: standard input is not UTF-8 text\n")


def test_x_joins_holes_only_in_capture_moves() -> None:
    classic = Game("classic-2")
    with pytest.raises(InvalidMoveTextError, match="x marks a capture, and classic-2 has none"):
        classic.play("m3xm5")
    classic.play("m3-m5")
    capture = Game("capture-2")
    move = capture.legal_moves()[0]
    capture.play(capture.rules.format_move(move).replace("-", "x"))
    assert capture.moves == [move]
    with pytest.raises(InvalidMoveTextError, match="x marks a capture"):
        Game("halma-2").play("a1xa2")


def replay(text: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["replay", "-"], input=text)
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("tags", "message"),
    [
        ('[MovesMade "² 0"]', "MovesMade needs 2 whole numbers"),
        ('[MovesMade "٣ 0"]', "MovesMade needs 2 whole numbers"),
        (f'[MovesMade "{HUGE} 0"]', "MovesMade needs 2 whole numbers"),
        ('[RoundsPlayed "¹"]', "RoundsPlayed must be a whole number"),
        (f'[RoundsPlayed "{HUGE}"]', "RoundsPlayed must be a whole number"),
        ('[Clock "٣+0"]', "Clock: '٣+0' is not a time control"),
        (f'[Clock "{HUGE}+0"]', "is not a time control"),
        (f'[Position "{"[" * 5000}"]', "Position: the position is not valid JSON: it is nested"),
        (f'[Position "{{\\"n\\": {HUGE}}}"]', "Position: the position is not valid JSON: a number"),
        ('[Position "\\"\\\\ud800\\""]', "Position: the position is not valid JSON: a string"),
    ],
)
def test_replay_refuses_hostile_tags_in_one_line(tags: str, message: str) -> None:
    status, output = replay(f'[Variant "classic-2"]\n{tags}\n\n1. m3-m5\n')
    assert status == 2, output
    assert output.startswith("error: ") and message in output, output
    assert output.count("\n") == 1


@pytest.mark.parametrize("number", [HUGE, "١", "²"])
def test_replay_refuses_a_strange_move_number_in_one_line(number: str) -> None:
    status, output = replay(f'[Variant "classic-2"]\n\n{number}. m3-m5\n')
    assert status == 2 and output.count("\n") == 1, output


def test_a_record_with_a_lone_surrogate_is_refused() -> None:
    with pytest.raises(RecordError, match="the record is not UTF-8 text"):
        read_record('[Variant "classic-2"]\n[White "\udcff"]\n')


def test_the_result_is_compared_by_meaning_not_by_the_order_of_its_text() -> None:
    game = Game("pairs-4")
    game.resign("white")
    text = write_record(game)
    result = '[Result "white 4, red 1, black 1, yellow 1"]'
    teams = '[TeamResult "white+black 2, red+yellow 1"]'
    assert result in text and teams in text
    shuffled = text.replace(result, '[Result "Yellow 1,red 1,  black 1 , white 4"]').replace(
        teams, '[TeamResult "red+yellow 1, white+black 2"]'
    )
    assert read_record(shuffled).game.result == game.result
    for wrong, message in (
        ("white 4, red 1, black 1", "Result gives no place for yellow"),
        ("white 4, red 1, black 1, yellow 1, red 1", "once with its place"),
        ("white 4 red 1 black 1 yellow 1", "once with its place"),
        ("white 4, red 1, black 1, yellow ¹", "once with its place"),
        ("white 4, red 1, black 1, green 1", "once with its place"),
        ("white 1, red 4, black 1, yellow 1", "does not match its moves"),
    ):
        with pytest.raises(RecordError, match=message):
            read_record(text.replace(result, f'[Result "{wrong}"]'))
    with pytest.raises(RecordError, match=r"team result .* does not match"):
        read_record(text.replace(teams, '[TeamResult "red+yellow 2, white+black 1"]'))


def test_a_record_from_a_position_still_reads_back() -> None:
    game = Game("classic-2")
    game.play("m3-m5")
    start = position_to_dict(game.position)
    again = Game("classic-2", start=position_from_json(json.dumps(start)), moves_made=[1, 0])
    again.play("e14-f13")
    assert read_record(write_record(again)).game.moves == again.moves


def test_replay_refuses_files_it_cannot_use_in_one_line(tmp_path: Path) -> None:
    latin = tmp_path / "latin1.txt"
    latin.write_bytes('[Variant "classic-2"]\n[White "Jos\xe9"]\n'.encode("latin-1"))
    for source, message in (
        (str(latin), f"error: {latin} is not UTF-8 text"),
        (str(tmp_path), f"error: cannot read {tmp_path}: Is a directory"),
        ("/dev/zero", "error: /dev/zero is longer than 16 MiB"),
    ):
        result = CliRunner().invoke(main, ["replay", source])
        assert (result.exit_code, result.output) == (2, message + "\n")
