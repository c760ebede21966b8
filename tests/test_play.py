"""``sternhalma play``: a game in the terminal, driven by typed input."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner, Result
from helpers import position

from sternhalma import core
from sternhalma.cli import main
from sternhalma.cli.play import draw_board
from sternhalma.game import Game
from sternhalma.notation import position_to_json
from sternhalma.rules import find_variant


def play(*args: str, input: str) -> Result:
    return CliRunner().invoke(main, ["play", "--seed", "1", *args], input=input)


def test_every_hole_name_can_be_found_on_the_drawn_board() -> None:
    for variant in ("classic-6", "halma-2", "capture-2"):
        start = find_variant(variant).initial()
        text = draw_board(start).plain
        names = set(re.findall(r"[a-q]\d+", text))
        assert names == set(start.rules.board.names), variant


def test_marbles_show_their_colour_mark() -> None:
    text = draw_board(find_variant("classic-2").initial()).plain
    assert text.count("○") == 10 and text.count("●") == 10  # white and black
    assert "○m1" in text and "●e17" in text and " i9" in text


def test_help_moves_and_a_legal_move_then_the_computer_replies() -> None:
    result = play(input="help\nmoves\nl3-l5\nquit\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "you are ○ white" in out
    assert "hint    the move Hard would play" in out
    assert "14 moves: j4-i5" in out
    assert re.search(r"black plays [a-q]\d+-[a-q]\d+", out)
    assert "white, your move 2>" in out
    assert "Goodbye." in out


def test_a_bad_move_gets_its_reason_and_the_game_goes_on() -> None:
    result = play(input="m1-m5\nz9-z10\nl3-l5\nquit\n")
    out = result.output
    assert "m1-m5 is not legal for white: m1-m5 is not a step or a jump" in out
    assert "unknown hole 'z9'" in out
    assert "black plays" in out  # l3-l5 was played after the two refusals


def test_hint_names_a_legal_move() -> None:
    result = play("--budget", "0.2", input="hint\nquit\n")
    hint = re.search(r"hint: (\S+)", result.output)
    assert hint is not None
    start = find_variant("classic-2").initial()
    assert start.rules.parse_move(start, hint.group(1))


@pytest.mark.skipif(not core.COMPILED, reason="the fallback keeps no line")
def test_a_hint_shows_the_replies_hard_expects_and_they_are_legal_in_turn() -> None:
    result = play("--budget", "0.2", input="l3-l5\nhint\nquit\n")
    reply = re.search(r"black plays (\S+)", result.output)
    hint = re.search(r"hint: (\S+); expecting (.*)", result.output)
    assert reply is not None and hint is not None, result.output
    game = Game("classic-2")
    game.play("l3-l5")
    game.play(reply.group(1))
    game.play(hint.group(1))
    foreseen = hint.group(2).removesuffix(" …").split(", ")
    assert len(foreseen) >= 2
    for step in foreseen:
        colour, move = step.split(" ")
        assert game.rules.seats[game.turn] == colour
        game.play(move)


def test_undo_takes_back_your_move_and_the_reply() -> None:
    result = play(input="l3-l5\nundo\nundo\nquit\n")
    out = result.output
    assert re.search(r"Took back l3-l5, [a-q]\d+-[a-q]\d+\.", out)
    assert "There is no move of yours to take back." in out
    assert out.count("white, your move 1>") == 3


def test_playing_black_the_computer_moves_first() -> None:
    result = play("--seat", "black", "--level", "easy", input="quit\n")
    assert re.search(r"white plays \S+\n", result.output)
    assert "black, your move 1>" in result.output


def test_finishing_wins_the_game() -> None:
    # Black's last reply cannot finish, so white's e13-e14 wins.
    start = position(
        "classic-2",
        "white",
        white="e13 f14 g14 h14 e15 f15 g15 e16 f16 e17",
        black="i5 j5 k5 l5 i6 j6 k6 i7 j7 i8",
    )
    result = play("--position", position_to_json(start), input="e13-e14\n")
    assert result.exit_code == 0, result.output
    assert "You won!" in result.output
    assert "○ white 10/10 home" in result.output


def test_a_move_that_puts_you_out_asks_first() -> None:
    start = position(
        "classic-2",
        "white",
        white="l5 h8 h10 g12 e14 f14 g14 e15 f15 e16",
        black="i9 i11 g13 l2 m2 k3 l3 m3 j4 k4",
    )
    # White's 31st move: stepping back home puts white out.
    game = Game(start.rules, start=start, moves_made=(30, 30))
    assert game.would_put_out(start.rules.parse_move(start, "l5-l4"))
    result = play(
        "--position", position_to_json(start), "--moves-made", "30,30", input="l5-l4\nn\nquit\n"
    )
    assert "puts you out" in result.output
    assert "black plays" not in result.output  # declined: nothing was played


def test_bad_options_are_refused() -> None:
    result = play("--seat", "purple", input="")
    assert result.exit_code == 2 and "'purple' has no seat in classic-2" in result.output
    result = play("--position", "{nonsense", input="")
    assert result.exit_code == 2 and "not valid JSON" in result.output
