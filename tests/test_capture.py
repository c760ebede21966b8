"""Capture Chinese checkers at the ruleset level: one test per rule of
rules.md#capture-chinese-checkers."""

from __future__ import annotations

import pytest

from sternhalma.errors import (
    IllegalMoveError,
    InvalidPositionError,
    SternhalmaError,
    TooManyMovesError,
)
from sternhalma.notation import position_from_dict, position_to_dict, position_to_json
from sternhalma.position import Position
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.rules.capture import MOVE_LIST_LIMIT, CaptureRules


def rules_of(variant: str) -> CaptureRules:
    rules = find_variant(variant)
    assert isinstance(rules, CaptureRules)
    return rules


def board(variant: str, pieces: str, turn: int = 0, captured: tuple[int, ...] = ()) -> Position:
    """A capture position with the named pieces (counts not checked: only what a rule needs)."""
    rules = rules_of(variant)
    counts = captured or (0,) * rules.players
    return Position(rules, turn, (), rules.board.mask_of_names(pieces.split()), counts)


def texts(position: Position) -> set[str]:
    rules = position.rules
    return {rules.format_move(m) for m in rules.legal_moves(position)}


def names(position: Position) -> set[str]:
    return set(position.rules.board.names_of(position.pieces))


# -- the variants and their seats ------------------------------------------------------------
def test_every_player_count_and_its_long_jump_form_is_registered() -> None:
    capture = [v.id for v in VARIANTS.values() if v.game == "capture"]
    plain = [f"capture-{n}" for n in range(2, 7)]
    assert capture == plain + [f"{v}-longjump" for v in plain]
    for variant in capture:
        rules = rules_of(variant)
        assert rules.moves_by_path
        assert rules.long_jumps == variant.endswith("-longjump")
        assert rules.deadline is None
        assert not rules.last_reply
        assert rules.teams == ()


@pytest.mark.parametrize(
    ("players", "seats"),
    [
        (2, "white black"),
        (3, "white blue yellow"),
        (4, "white red black yellow"),
        (5, "white red blue black yellow"),
        (6, "white red blue black yellow green"),
    ],
)
def test_seats_follow_the_star_seating(players: int, seats: str) -> None:
    assert rules_of(f"capture-{players}").seats == tuple(seats.split())
    assert rules_of(f"capture-{players}-longjump").seats == tuple(seats.split())


# -- the start ---------------------------------------------------------------------------
def test_sixty_pieces_fill_the_hexagon_but_the_centre() -> None:
    rules = rules_of("capture-3")
    start = rules.initial()
    assert start.marbles == ()
    assert start.pieces.bit_count() == 60
    assert start.pieces == rules.board.hexagon & ~(1 << rules.board.index("i9"))
    assert not start.pieces & rules.board.points
    assert start.captured == (0, 0, 0)
    assert start.colour == "white"


def test_the_first_moves_jump_into_the_centre_or_out_to_a_point() -> None:
    position = rules_of("capture-2").initial()
    moves = texts(position)
    into_centre = {m for m in moves if m.endswith("-i9")}
    assert into_centre == {"k9-i9", "g9-i9", "i11-i9", "i7-i9", "k7-i9", "g11-i9"}
    # Every other first move jumps an edge piece of the hexagon out to a point.
    board = position.rules.board
    for move in moves - into_centre:
        start, end = move.split("-")
        assert board.hexagon >> board.index(start) & 1
        assert board.points >> board.index(end) & 1
    # No chain continues: the only empty holes in the hexagon are the two just made.
    assert all(m.count("-") == 1 for m in moves)


# -- moves -----------------------------------------------------------------------------------
def test_a_jump_captures_the_jumped_piece_for_the_mover() -> None:
    rules = rules_of("capture-2")
    after = rules.apply(rules.initial(), rules.parse_path("k9-i9"))
    assert after.captured == (1, 0)
    assert after.pieces.bit_count() == 59
    assert "j9" not in names(after) and "k9" not in names(after)
    assert "i9" in names(after)
    assert after.colour == "black"
    again = rules.apply(after, rules.parse_path("m9-k9"))  # black captures l9
    assert again.captured == (1, 1)
    assert "l9" not in names(again)


def test_any_piece_may_be_moved_by_anyone() -> None:
    position = board("capture-4", "i9 j9", turn=2)
    assert texts(position) == {"i9-k9", "j9-h9"}


def test_a_step_is_refused_with_a_reason() -> None:
    rules = rules_of("capture-2")
    position = board("capture-2", "i9 j9 i11")
    with pytest.raises(IllegalMoveError, match="capture moves are jumps only"):
        rules.parse_move(position, "i9-i10")
    with pytest.raises(IllegalMoveError, match="capture moves are jumps only"):
        rules.parse_move(position, "i9-k9-k10")


def test_the_chain_continues_with_the_same_piece_and_may_stop_after_any_jump() -> None:
    position = board("capture-2", "i9 j9 k10")
    assert texts(position) == {"i9-k9", "i9-k9-k11", "j9-h9"}
    after = position.rules.apply(position, position.rules.parse_path("i9-k9-k11"))
    assert names(after) == {"k11"}
    assert after.captured == (2, 0)


def test_a_chain_may_come_back_to_its_start() -> None:
    # i9 jumps j9, j10 and i10 around a triangle and lands on i9 again.
    position = board("capture-2", "i9 j9 j10 i10")
    assert "i9-k9-i11-i9" in texts(position)
    after = position.rules.apply(position, position.rules.parse_path("i9-k9-i11-i9"))
    assert names(after) == {"i9"}
    assert after.captured == (3, 0)


def test_a_chain_may_land_twice_on_a_hole_it_visited() -> None:
    # g9 jumps to i9, goes round the triangle back to i9, and on over j8.
    position = board("capture-2", "g9 h9 j9 j10 i10 j8")
    move = "g9-i9-k9-i11-i9-k7"
    assert move in texts(position)
    after = position.rules.apply(position, position.rules.parse_path(move))
    assert after.captured == (5, 0)
    assert names(after) == {"k7"}


def test_a_captured_piece_cannot_be_jumped_again() -> None:
    rules = rules_of("capture-2")
    position = board("capture-2", "i9 j9")
    with pytest.raises(IllegalMoveError, match="j9 was already captured in this move"):
        rules.parse_move(position, "i9-k9-i9")
    assert texts(position) == {"i9-k9", "j9-h9"}


def test_moves_differ_by_path_when_they_capture_different_pieces() -> None:
    # Two chains from i9 to k11: over j9 then k10, or over i10 then j11.
    rules = rules_of("capture-2")
    position = board("capture-2", "i9 j9 k10 i10 j11")
    both = {"i9-k9-k11", "i9-i11-k11"}
    assert both <= texts(position)
    first, second = (rules.apply(position, rules.parse_path(m)) for m in sorted(both))
    assert first.captured == second.captured == (2, 0)
    assert names(first) != names(second)


def test_moves_may_end_in_a_point() -> None:
    position = board("capture-2", "m3 m2")
    assert texts(position) == {"m3-m1", "m2-m4"}


def test_landing_needs_an_empty_hole() -> None:
    rules = rules_of("capture-2")
    position = board("capture-2", "i9 j9 k9")
    with pytest.raises(IllegalMoveError, match="k9 is occupied"):
        rules.parse_move(position, "i9-k9")
    with pytest.raises(IllegalMoveError, match="there is no piece on h9 to jump"):
        rules.parse_move(position, "i9-g9")
    with pytest.raises(IllegalMoveError, match="there is no piece on e5"):
        rules.parse_move(position, "e5-g5")


def test_long_jumps_are_off_by_default() -> None:
    rules = rules_of("capture-2")
    position = board("capture-2", "i9 i11")
    with pytest.raises(IllegalMoveError, match="long jumps are off"):
        rules.parse_move(position, "i9-i13")
    assert texts(position) == set()


def test_a_long_jump_captures_the_one_piece_jumped() -> None:
    rules = rules_of("capture-2-longjump")
    position = board("capture-2-longjump", "i9 i11 k13")
    assert "i9-i13" in texts(position)
    after = rules.apply(position, rules.parse_path("i9-i13"))
    assert names(after) == {"i13", "k13"}
    assert after.captured == (1, 0)
    # Chains go on with long jumps: i13 over k13 (two holes away) to m13.
    assert "i9-i13-m13" in texts(position)


def test_a_long_jump_needs_empty_holes_around_the_jumped_piece() -> None:
    rules = rules_of("capture-2-longjump")
    position = board("capture-2-longjump", "i9 i11 i12")
    with pytest.raises(IllegalMoveError, match="needs exactly one piece, on i11"):
        rules.parse_move(position, "i9-i13")
    # i11 may long-jump down over i9, or up over i12 and then down over i9 from
    # three holes away; i12 jumps i11 and then i9.
    assert texts(position) == {"i11-i13", "i11-i13-i5", "i11-i7", "i12-i10", "i12-i10-i8"}


# -- the end and the score -------------------------------------------------------------------
def test_no_jump_anywhere_means_no_move() -> None:
    rules = rules_of("capture-2")
    for pieces in ("i9", "i9 k9", "e5 q5 m1 e17", ""):
        position = board("capture-2", pieces)
        assert not rules.has_move(position)
        assert rules.legal_moves(position) == []


def test_standing_is_the_number_of_captures() -> None:
    rules = rules_of("capture-3")
    position = board("capture-3", "i9", captured=(20, 19, 20))
    assert [rules.standing(position, s) for s in range(3)] == [(20,), (19,), (20,)]
    assert not rules.has_finished(position, 0)


def test_progress_counts_the_captures_of_a_move() -> None:
    position = board("capture-2", "i9 j9 k10")
    rules = position.rules
    assert rules.progress(position, rules.parse_path("i9-k9-k11")) == 2
    assert rules.progress(position, rules.parse_path("j9-h9")) == 1


# -- many chains -------------------------------------------------------------------------------
def lattice(variant: str) -> Position:
    """A thinned-out board where one piece has an astronomical number of chains: pieces
    on the midpoints of a triangular grid of spacing 2, so each hop can go six ways."""
    rules = rules_of(variant)
    cells = rules.board.cells
    odd = {c for c in cells if c[0] % 2 and c[1] % 2}
    middles = {
        (q + dq, r + dr)
        for q, r in odd
        for dq, dr in ((1, 0), (0, 1), (-1, 1))
        if (q + 2 * dq, r + 2 * dr) in odd
    }
    chosen = rules.board.mask(rules.board.index_of[f"{chr(96 + q)}{r}"] for q, r in middles)
    pieces = (chosen & rules.board.hexagon) | 1 << rules.board.index("i9")
    return Position(rules, 0, (), pieces, (60 - pieces.bit_count(), 0))


def test_too_many_chains_to_list_is_a_clear_error_not_a_hang() -> None:
    position = lattice("capture-2")
    rules = position.rules
    assert isinstance(rules, CaptureRules)
    # The same check as with the default limit of a million, sooner.
    with pytest.raises(TooManyMovesError, match="more than 20,000 different capture chains"):
        rules.legal_moves(position, limit=20_000)
    assert isinstance(TooManyMovesError("x"), SternhalmaError)
    assert rules.has_move(position)
    # A chain can still be played and checked without listing them all.
    assert rules.parse_move(position, "i9-k9-k11-i11-i9")
    # The continuations of a chain are what a table lights up hop by hop.
    assert set(rules.continuations(position, rules.parse_path("i9-k9"))) >= {
        rules.board.index("k11"),
        rules.board.index("m9"),
    }


def test_counting_and_streaming_agree_with_the_list() -> None:
    rules = rules_of("capture-2")
    position = board("capture-2", "i9 j9 j10 i10 j8 h9 h8 k11 l10")
    moves = rules.legal_moves(position)
    assert len(moves) == len(set(moves)) == rules.count_moves(position)
    assert list(rules.iter_moves(position)) == moves
    assert len(moves) <= MOVE_LIST_LIMIT


def test_distinct_moves_keep_one_path_per_resulting_position() -> None:
    rules = rules_of("capture-2")
    # Round the triangle either way: the same three pieces, the same end.
    position = board("capture-2", "i9 j9 j10 i10")
    every = rules.legal_moves(position)
    results = {rules.apply_unchecked(position, m) for m in every}
    distinct = rules.distinct_moves(position)
    assert len(distinct) < len(every)
    assert {rules.apply_unchecked(position, m) for m in distinct} == results
    assert len(distinct) == len(results)
    assert set(distinct) <= set(every)


def test_continuations_of_a_chain() -> None:
    rules = rules_of("capture-2")
    position = board("capture-2", "i9 j9 k10 i10 j11")
    index = rules.board.index
    assert sorted(rules.continuations(position, [index("i9")])) == sorted(
        [index("k9"), index("i11")]
    )
    assert rules.continuations(position, rules.parse_path("i9-k9")) == [index("k11")]
    assert rules.continuations(position, rules.parse_path("i9-k9-k11")) == [index("i11")]
    # Back to the start over the last piece, and then nothing is left to jump.
    assert rules.continuations(position, rules.parse_path("i9-k9-k11-i11")) == [index("i9")]
    assert rules.continuations(position, rules.parse_path("i9-k9-k11-i11-i9")) == []
    assert rules.continuations(position, [index("a13")]) == []
    with pytest.raises(IllegalMoveError):
        rules.continuations(position, rules.parse_path("i9-i10"))


# -- position JSON ---------------------------------------------------------------------------
def test_position_json_round_trips_with_the_long_jump_option() -> None:
    rules = rules_of("capture-4-longjump")
    position = rules.apply(rules.initial(), rules.parse_path("k9-i9"))
    data = position_to_dict(position)
    assert data["variant"] == "capture-4"
    assert data["options"] == ["longjump"]
    assert data["turn"] == "red"
    assert data["captured"] == {"white": 1, "red": 0, "black": 0, "yellow": 0}
    assert len(data["pieces"]) == 59
    assert "marbles" not in data
    assert position_from_dict(data) == position
    plain = position_to_dict(rules_of("capture-4").initial())
    assert "options" not in plain
    assert position_from_dict(plain).rules is rules_of("capture-4")


def test_bad_capture_positions_are_refused_with_a_reason() -> None:
    good = position_to_dict(rules_of("capture-2").initial())
    with pytest.raises(InvalidPositionError, match="must add up to 60"):
        position_from_dict({**good, "captured": {"white": 1, "black": 0}})
    with pytest.raises(InvalidPositionError, match="unknown hole 'q3'"):
        position_from_dict({**good, "pieces": ["q3", *good["pieces"][1:]]})
    with pytest.raises(InvalidPositionError, match="unknown option"):
        position_from_dict({**good, "options": ["wrap"]})
    with pytest.raises(InvalidPositionError, match='"captured" must give a count for each seat'):
        position_from_dict({**good, "captured": {"white": 0}})
    assert position_to_json(position_from_dict(good)).startswith('{"variant": "capture-2"')
