"""Capture Chinese checkers through the referee, the records and the command line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sternhalma.cli import main
from sternhalma.errors import IllegalMoveError
from sternhalma.game import Game, GameError
from sternhalma.notation import position_from_dict, position_to_json
from sternhalma.position import Position
from sternhalma.records import read_record, write_record
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.rules.capture import TOTAL_PIECES, CaptureRules

CAPTURE = [v.id for v in VARIANTS.values() if v.game == "capture"]


def start(variant: str, pieces: str, captured: dict[str, int], turn: str = "white") -> Position:
    """A capture position from JSON, so pieces + captured must really make 60."""
    data: dict[str, object] = {
        "variant": variant.removesuffix("-longjump"),
        "turn": turn,
        "pieces": pieces.split(),
        "captured": captured,
    }
    if variant.endswith("-longjump"):
        data["options"] = ["longjump"]
    return position_from_dict(data)


def random_game(variant: str, seed: int) -> Game:
    """A game to its end, each move chosen at random among the different outcomes."""
    rng = random.Random(seed)
    game = Game(variant)
    rules = game.rules
    assert isinstance(rules, CaptureRules)
    while not game.is_over:
        move = rng.choice(rules.distinct_moves(game.position))
        game.play(rules.format_move(move) if rng.random() < 0.5 else move)
    return game


# -- scenarios -------------------------------------------------------------------------------
def test_a_capture_is_credited_to_the_mover() -> None:
    game = Game("capture-2")
    game.play("k9-i9", seat="white")
    assert game.position.captured == (1, 0)
    assert game.turn == 1
    game.play("m9xk9", seat="black")  # "x" works as the separator too
    assert game.position.captured == (1, 1)
    assert game.position.pieces.bit_count() == 58
    assert [game.rules.format_move(m) for m in game.moves] == ["k9-i9", "m9-k9"]


def test_any_seat_moves_any_piece_in_seat_order() -> None:
    game = Game("capture-5")
    order = []
    for _ in range(6):
        order.append(game.rules.seats[game.turn or 0])
        game.play(game.legal_moves()[0])
    assert order == ["white", "red", "blue", "black", "yellow", "white"]


def test_a_chain_may_come_back_to_its_start_through_the_referee() -> None:
    rules = find_variant("capture-2")
    game = Game(rules, start=start("capture-2", "i9 j9 j10 i10", {"white": 28, "black": 28}))
    played = game.play("i9-k9-i11-i9")
    assert rules.format_move(played) == "i9-k9-i11-i9"
    assert game.position.captured == (31, 28)
    assert game.result is not None  # one piece left: no jump anywhere
    assert game.result.places == (1, 2)
    assert game.result.ending == "no-moves"


def test_two_paths_between_the_same_holes_are_two_moves() -> None:
    position = start("capture-2", "i9 j9 k10 i10 j11", {"white": 30, "black": 25})
    texts = {
        position.rules.format_move(m) for m in Game(position.rules, start=position).legal_moves()
    }
    assert {"i9-k9-k11", "i9-i11-k11"} <= texts
    first = Game(position.rules, start=position)
    first.play("i9-k9-k11")
    second = Game(position.rules, start=position)
    second.play("i9-i11-k11")
    assert first.position.captured == second.position.captured == (32, 25)
    assert first.position.pieces != second.position.pieces


def test_a_step_is_refused_and_changes_nothing() -> None:
    game = Game("capture-3")
    before = game.position
    with pytest.raises(IllegalMoveError, match="capture moves are jumps only"):
        game.play("k9-j9")
    with pytest.raises(GameError, match="it is white's turn, not blue's"):
        game.play("k9-i9", seat="blue")
    assert game.position == before
    assert game.moves == []


def test_the_game_ends_when_no_jump_exists_and_most_captures_win() -> None:
    game = Game("capture-2", start=start("capture-2", "i8 i9", {"white": 29, "black": 29}))
    game.play("i8-i10")
    assert game.result is not None
    assert game.result.ending == "no-moves"
    assert game.result.places == (1, 2)
    assert game.result.winners == (0,)
    assert game.result.reason == "Nobody can move: white wins."
    assert game.legal_moves() == []


def test_equal_captures_for_two_is_a_draw() -> None:
    game = Game("capture-2", start=start("capture-2", "i8 i9 e5", {"white": 28, "black": 29}))
    game.play("i9-i7")
    assert game.result is not None
    assert game.result.places == (1, 1)
    assert game.result.is_draw
    assert game.result.reason == "Nobody can move: a draw."


def test_a_tie_for_the_most_is_a_draw_between_those_players() -> None:
    rules = find_variant("capture-3")
    position = start("capture-3", "i8 i9", {"white": 19, "blue": 20, "yellow": 19})
    game = Game(rules, start=position)
    game.play("i8-i10")
    assert game.result is not None
    assert game.result.places == (1, 1, 3)
    assert game.result.is_draw
    assert game.result.reason == "Nobody can move: a draw between white and blue."


def test_a_position_without_jumps_is_over_at_once() -> None:
    game = Game(
        "capture-4",
        start=start("capture-4", "e5 q5 m1", {"white": 20, "red": 17, "black": 20, "yellow": 0}),
    )
    assert game.is_over
    assert game.result is not None
    assert game.result.places == (1, 3, 1, 4)
    with pytest.raises(GameError, match="the game is over"):
        game.play("e5-g5")


def test_a_long_jump_captures_through_the_referee() -> None:
    position = start("capture-2-longjump", "i9 i11 k13 e5", {"white": 28, "black": 28})
    game = Game(position.rules, start=position)
    game.play("i9-i13-m13")
    assert game.position.captured == (30, 28)
    assert game.result is not None  # m13 and e5 are far apart: nothing to jump
    # Without the option the same pieces have no jump at all: a draw at once.
    plain = Game("capture-2", start=start("capture-2", "i9 i11 k13 e5", {"white": 28, "black": 28}))
    assert plain.result is not None
    assert (plain.result.ending, plain.result.places) == ("no-moves", (1, 1))


def test_resigning_with_three_players_ranks_the_rest_by_captures() -> None:
    game = Game("capture-3")
    game.play("k9-i9")
    game.resign("yellow")
    assert game.result is not None
    assert game.result.ending == "resignation"
    assert game.result.places == (1, 2, 3)


# -- records and the command line -----------------------------------------------------------
@pytest.mark.parametrize("variant", ["capture-2", "capture-5-longjump"])
def test_a_record_replays_to_the_same_game(variant: str) -> None:
    game = random_game(variant, seed=11)
    text = write_record(game, players=[f"Player {n}" for n in range(1, game.rules.players + 1)])
    assert f'[Variant "{variant}"]' in text
    again = read_record(text).game
    assert again.moves == game.moves
    assert again.position == game.position
    assert again.result == game.result


def test_a_record_from_a_set_up_position_keeps_the_option() -> None:
    position = start(
        "capture-3-longjump", "i9 i11 k13 e5 f5", {"white": 20, "blue": 20, "yellow": 15}
    )
    game = Game(position.rules, start=position)
    game.play("i9-i13")
    again = read_record(write_record(game)).game
    assert again.start == position
    assert again.position == game.position


def test_sternhalma_replay_checks_a_capture_record(tmp_path: Path) -> None:
    game = random_game("capture-3-longjump", seed=2)
    record = tmp_path / "capture.txt"
    record.write_text(write_record(game))
    result = CliRunner().invoke(main, ["replay", str(record)])
    assert result.exit_code == 0, result.output
    assert game.result is not None and game.result.reason in result.output
    lines = record.read_text().splitlines()
    third = next(i for i, line in enumerate(lines) if line.startswith("3. "))
    lines[third] = "3. k9-j9"
    record.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["replay", str(record)])
    assert result.exit_code == 2
    assert "move 3: k9-j9 is not legal for yellow" in result.output
    assert "capture moves are jumps only" in result.output


def test_sternhalma_moves_lists_every_path() -> None:
    position = start("capture-2", "i9 j9 j10 i10", {"white": 28, "black": 28})
    result = CliRunner().invoke(main, ["moves", "--position", position_to_json(position), "--json"])
    assert result.exit_code == 0, result.output
    moves = json.loads(result.output)
    assert moves == sorted(moves)
    # Both ways round the triangle, back to the start, are listed.
    assert {"i9-k9-i11-i9", "i9-i11-k9-i9"} <= set(moves)
    rules = position.rules
    assert isinstance(rules, CaptureRules)
    assert len(moves) == len(set(moves)) == rules.count_moves(position)


def test_sternhalma_moves_explains_a_bad_capture_position() -> None:
    data = {
        "variant": "capture-2",
        "turn": "white",
        "pieces": ["i9"],
        "captured": {"white": 1, "black": 1},
    }
    result = CliRunner().invoke(main, ["moves", "--position", json.dumps(data)])
    assert result.exit_code == 2
    assert "must add up to 60" in result.output


def test_sternhalma_bench_prints_capture_figures() -> None:
    result = CliRunner().invoke(
        main,
        ["bench", "--variant", "capture-2", "--variant", "capture-6-longjump", "--seconds", "0.05"],
    )
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "capture" in line]
    assert len(rows) == 2
    for row in rows:
        cells = [cell.strip() for cell in row.strip("│ ").split("│")]
        assert float(cells[3]) > 0  # the sampled positions have moves to generate


# -- random games ------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CAPTURE), st.integers(0, 10**6))
def test_random_games_end_with_a_valid_result(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    game = Game(variant)
    rules = game.rules
    assert isinstance(rules, CaptureRules)
    while not game.is_over:
        position = game.position
        assert position.pieces.bit_count() + sum(position.captured) == TOTAL_PIECES
        assert rules.has_move(position)
        move = rng.choice(rules.distinct_moves(position))
        game.play(move)
        after = game.position
        assert sum(after.captured) - sum(position.captured) == len(move) - 1
    final = game.position
    assert final.pieces.bit_count() + sum(final.captured) == TOTAL_PIECES
    assert not rules.has_move(final)
    assert len(game.moves) <= TOTAL_PIECES - 1
    result = game.result
    assert result is not None and result.ending == "no-moves"
    best = max(final.captured)
    assert result.winners == tuple(s for s, n in enumerate(final.captured) if n == best)
    for seat, place in enumerate(result.places):
        assert place == 1 + sum(1 for n in final.captured if n > final.captured[seat])
