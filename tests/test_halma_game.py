"""Halma through the referee, the records and the command line."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sternhalma import core
from sternhalma.cli import main
from sternhalma.errors import IllegalMoveError
from sternhalma.game import ROUND_LIMIT, Game
from sternhalma.notation import position_to_json
from sternhalma.position import Position
from sternhalma.records import read_record, write_record
from sternhalma.rules import find_variant
from sternhalma.rules.race import RaceRules


def rules_of(variant: str) -> RaceRules:
    rules = find_variant(variant)
    assert isinstance(rules, RaceRules)
    return rules


def board(variant: str, turn: str = "white", **pieces: str) -> Position:
    """A Halma position with the named pieces per colour (counts not checked)."""
    rules = rules_of(variant)
    boards = tuple(rules.board.mask_of_names(pieces.get(c, "").split()) for c in rules.seats)
    return Position(rules, rules.seat_of(turn), boards)


def camp_but(variant: str, seat: int, missing: str, extra: str) -> str:
    """Seat's goal camp without ``missing``, plus a piece on ``extra``."""
    rules = rules_of(variant)
    names = [n for n in rules.board.names_of(rules.goals[seat]) if n != missing]
    assert len(names) == rules.marbles_per_seat - 1
    return " ".join([*names, extra])


def home(variant: str, seat: int) -> str:
    rules = rules_of(variant)
    return " ".join(rules.board.names_of(rules.homes[seat]))


def play_all(game: Game, *moves: str) -> None:
    for move in moves:
        game.play(move)


# -- halma-2 -----------------------------------------------------------------------------------
def test_the_first_player_with_every_piece_in_the_opposing_camp_wins() -> None:
    start = board("halma-2", white=camp_but("halma-2", 0, "b12", "c11"), black="h8 p1")
    game = Game("halma-2", start=start)
    game.play("c11-b12")
    assert game.result is not None
    assert game.result.ending == "finished"
    assert game.result.places == (1, 2)
    assert game.result.reason == "White finished first."


def test_black_wins_at_once_too_there_is_no_last_reply() -> None:
    start = board("halma-2", "black", white="h8 a1", black=camp_but("halma-2", 1, "o5", "n6"))
    game = Game("halma-2", start=start)
    game.play("n6-o5")
    assert game.result is not None
    assert game.result.places == (2, 1)
    assert game.result.reason == "Black finished first."


def test_a_piece_in_the_opposing_camp_cannot_leave_it_through_the_referee() -> None:
    start = board("halma-2", white="c13 h8", black="c12 p1")
    game = Game("halma-2", start=start)
    with pytest.raises(IllegalMoveError, match="may only move inside it"):
        game.play("c13-d13")
    with pytest.raises(IllegalMoveError, match="may only land on goal squares"):
        game.play("c13-c11")
    assert game.position == start
    assert game.moves == []
    game.play("c13-d14")  # inside the camp is fine
    assert game.turn == 1


def test_a_full_camp_with_an_opposing_piece_in_it_is_not_a_win() -> None:
    # Black keeps a piece on b12 in its own home: white cannot finish (no anti-blocking).
    start = board("halma-2", white=camp_but("halma-2", 0, "b12", "c11"), black="b12 p1")
    game = Game("halma-2", start=start)
    assert "c11-b12" not in {game.rules.format_move(m) for m in game.legal_moves()}
    game.play("c11-d11")
    assert not game.is_over


def test_the_same_position_a_third_time_is_a_draw() -> None:
    game = Game("halma-2")
    for _ in range(2):
        play_all(game, "o5-o6", "b12-b11", "o6-o5", "b11-b12")
    assert game.result is not None
    assert game.result.ending == "repetition"
    assert game.result.places == (1, 1)
    assert game.result.is_draw
    assert len(game.moves) == 8


def test_a_repetition_is_a_draw_even_when_one_side_is_ahead() -> None:
    white = camp_but("halma-2", 0, "b12", "h8")
    game = Game("halma-2", start=board("halma-2", white=white, black=home("halma-2", 1)))
    for _ in range(2):
        play_all(game, "h8-h7", "b12-b11", "h7-h8", "b11-b12")
    assert game.result is not None
    assert game.result.ending == "repetition"
    assert game.result.places == (1, 1)
    assert game.rules.standing(game.position, 0) > game.rules.standing(game.position, 1)


def test_the_round_limit_ranks_by_pieces_in_the_camp_then_distance() -> None:
    white = camp_but("halma-2", 0, "b12", "h8")
    start = board("halma-2", white=white, black=home("halma-2", 1))
    game = Game("halma-2", start=start, rounds_played=ROUND_LIMIT - 1)
    play_all(game, "h8-g9", "b12-c11")
    assert game.result is not None
    assert game.result.ending == "limit"
    assert game.result.places == (1, 2)
    assert game.result.reason == f"The {ROUND_LIMIT}-round limit was reached: white wins."


# -- halma-4 -------------------------------------------------------------------------------------
def test_four_players_move_clockwise_from_the_bottom_right() -> None:
    game = Game("halma-4")
    order = []
    for move in ("m2-l3", "d2-e3", "d15-e14", "m15-l14", "n3-m4"):
        order.append(game.rules.seats[game.turn or 0])
        game.play(move)
    assert order == ["white", "red", "black", "yellow", "white"]


def test_a_team_wins_when_both_partners_fill_their_camps() -> None:
    variant = "halma-4"
    start = board(
        variant,
        white=camp_but(variant, 0, "b13", "c12"),
        red=home(variant, 1),
        black=camp_but(variant, 2, "o4", "n6"),
        yellow=home(variant, 3),
    )
    game = Game(variant, start=start)
    game.play("c12-b13")  # white is home: first place, but the team is not
    assert not game.is_over
    assert game.status("white") == "finished"
    assert game.places == {0: 1}
    play_all(game, "d1-e2", "n6-n5", "o13-o12")
    assert game.turn == 1  # white's turn is skipped: it no longer moves
    play_all(game, "e2-f3", "n5-o4")
    result = game.result
    assert result is not None
    assert result.ending == "finished"
    assert result.team_places == (1, 2)
    assert result.winning_teams == (0,)
    assert result.places == (1, 3, 2, 4)  # red is a little nearer its camp than yellow
    assert result.reason == "White+black finished first."


def test_one_finished_partner_is_not_a_team_win() -> None:
    variant = "halma-4"
    start = board(
        variant,
        "red",
        white=home(variant, 0),
        red=camp_but(variant, 1, "n14", "m13"),
        black=home(variant, 2),
        yellow="h8 h9",
    )
    game = Game(variant, start=start)
    game.play("m13-n14")
    assert not game.is_over
    assert game.in_play == [0, 2, 3]


# -- records and the command line ---------------------------------------------------------------
def forward_game(variant: str, seed: int, moves: int) -> Game:
    """A game of mostly forward moves, to its end or ``moves`` moves."""
    rng = random.Random(seed)
    game = Game(variant)
    rules = game.rules
    while not game.is_over and len(game.moves) < moves:
        legal = game.legal_moves()
        if rng.random() < 0.9:
            best = max(rules.progress(game.position, m) for m in legal)
            legal = [m for m in legal if rules.progress(game.position, m) == best]
        game.play(rng.choice(legal))
    return game


@pytest.mark.parametrize("variant", ["halma-2", "halma-4"])
def test_a_record_replays_to_the_same_game(variant: str) -> None:
    game = forward_game(variant, seed=5, moves=60)
    text = write_record(game)
    assert f'[Variant "{variant}"]' in text
    again = read_record(text).game
    assert again.moves == game.moves
    assert again.position == game.position
    assert again.result == game.result


def test_sternhalma_moves_lists_halma_moves() -> None:
    rules = rules_of("halma-2")
    position = rules.apply(rules.initial(), rules.parse_path("o5-o6"))
    result = CliRunner().invoke(main, ["moves", "--position", position_to_json(position), "--json"])
    assert result.exit_code == 0, result.output
    moves = json.loads(result.output)
    assert moves == sorted(rules.format_move(m) for m in rules.legal_moves(position))
    assert moves[0].startswith("a12-") and all(m.split("-")[0] in home("halma-2", 1) for m in moves)
    assert "b12-b11" in moves and "c13-a11" in moves  # a step, and a jump over b12


def test_sternhalma_moves_names_a_bad_square() -> None:
    data = json.loads(position_to_json(rules_of("halma-2").initial()))
    data["marbles"]["white"][0] = "q3"
    result = CliRunner().invoke(main, ["moves", "--position", json.dumps(data)])
    assert result.exit_code == 2
    assert "'q3'" in result.output


def test_sternhalma_bench_prints_halma_figures() -> None:
    result = CliRunner().invoke(
        main, ["bench", "--variant", "halma-2", "--variant", "halma-4", "--seconds", "0.05"]
    )
    assert result.exit_code == 0, result.output
    # A line each in the engine table, and in the compiled core's table when it is in use.
    rows = sum(1 for line in result.output.splitlines() if "halma-" in line)
    assert rows == (4 if core.COMPILED else 2)


# -- random games --------------------------------------------------------------------------------
@settings(max_examples=6, deadline=None)
@given(st.sampled_from(["halma-2", "halma-4"]), st.integers(0, 10**6))
def test_random_games_end_with_a_valid_result(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    game = Game(variant)
    rules = game.rules
    assert isinstance(rules, RaceRules)
    count = rules.marbles_per_seat
    while not game.is_over:
        legal = game.legal_moves()
        if rng.random() < 0.8:
            best = max(rules.progress(game.position, m) for m in legal)
            legal = [m for m in legal if rules.progress(game.position, m) == best]
        game.play(rng.choice(legal))
        assert all(m.bit_count() == count for m in game.position.marbles)
    result = game.result
    assert result is not None
    assert result.ending in ("finished", "limit", "repetition", "no-moves")
    assert game.rounds_played <= ROUND_LIMIT
    places = result.places
    assert len(places) == rules.players and min(places) == 1
    assert all(1 <= p <= rules.players for p in places)
    if result.ending == "finished":
        units = rules.teams or tuple((s,) for s in range(rules.players))
        winners = [u for u in units if all(rules.has_finished(game.position, s) for s in u)]
        assert len(winners) == 1
        if rules.teams:
            assert result.team_places[units.index(winners[0])] == 1
        else:
            assert places[winners[0][0]] == 1
