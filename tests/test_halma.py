"""Halma (rules.md#halma, and our halma-4) at the ruleset level: the board, camps and moves."""

from __future__ import annotations

import pytest

from sternhalma.boards.square import SQUARE
from sternhalma.errors import IllegalMoveError, InvalidMoveTextError, InvalidPositionError
from sternhalma.notation import position_from_dict, position_to_dict
from sternhalma.position import Position
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.rules.race import RaceRules


def rules_of(variant: str) -> RaceRules:
    rules = find_variant(variant)
    assert isinstance(rules, RaceRules)
    return rules


def squares(text: str) -> set[str]:
    """``l1-p1 m3-p3`` -> every square of those row ranges."""
    result = set()
    for part in text.split():
        first, last = part.split("-")
        row = int(first[1:])
        assert row == int(last[1:])
        for column in range(ord(first[0]), ord(last[0]) + 1):
            result.add(f"{chr(column)}{row}")
    return result


def camp(rules: RaceRules, mask: int) -> set[str]:
    return set(rules.board.names_of(mask))


def board(variant: str, turn: str = "white", **pieces: str) -> Position:
    """A Halma position with the named pieces per colour (counts not checked)."""
    rules = rules_of(variant)
    boards = tuple(rules.board.mask_of_names(pieces.get(c, "").split()) for c in rules.seats)
    return Position(rules, rules.seat_of(turn), boards)


def texts(position: Position, start: str | None = None) -> set[str]:
    rules = position.rules
    found = {rules.format_move(m) for m in rules.legal_moves(position)}
    return {t for t in found if start is None or t.split("-")[0] == start}


def ends(position: Position, start: str) -> set[str]:
    return {t.split("-")[-1] for t in texts(position, start)}


# -- the board ---------------------------------------------------------------------------------
def test_the_board_is_16_by_16_from_a1_to_p16() -> None:
    assert SQUARE.size == 256
    assert SQUARE.kind == "square"
    assert SQUARE.names[0] == "a1"
    assert SQUARE.names[15] == "p1"
    assert SQUARE.names[16] == "a2"
    assert SQUARE.names[255] == "p16"
    assert (
        "q3" not in SQUARE.index_of and "a17" not in SQUARE.index_of and "a0" not in SQUARE.index_of
    )


def test_squares_have_up_to_eight_neighbours() -> None:
    def around(name: str) -> set[str]:
        return {SQUARE.names[n] for n in SQUARE.neighbours[SQUARE.index(name)]}

    assert around("a1") == {"a2", "b1", "b2"}
    assert around("h1") == {"g1", "i1", "g2", "h2", "i2"}
    assert around("h8") == {"g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"}


def test_distance_counts_king_steps() -> None:
    index = SQUARE.index
    assert SQUARE.distance(index("a1"), index("p16")) == 15
    assert SQUARE.distance(index("a1"), index("p1")) == 15
    assert SQUARE.distance(index("c3"), index("e9")) == 6
    assert SQUARE.distance(index("h8"), index("h8")) == 0


# -- the variants and camps ---------------------------------------------------------------------
def test_halma_variants_are_registered_as_race_games_without_a_deadline() -> None:
    assert [v.id for v in VARIANTS.values() if v.game == "halma"] == ["halma-2", "halma-4"]
    for variant in ("halma-2", "halma-4"):
        rules = rules_of(variant)
        assert rules.board is SQUARE
        assert rules.deadline is None
        assert not rules.last_reply
        assert not rules.anti_blocking
        assert not rules.long_jumps
        assert rules.ends_at_first_finish
        assert all(may_end == SQUARE.all for may_end in rules.may_end)


def test_halma_2_camps_are_the_19_squares_of_the_rules() -> None:
    rules = rules_of("halma-2")
    assert rules.seats == ("white", "black")
    white = squares("l1-p1 l2-p2 m3-p3 n4-p4 o5-p5")
    black = squares("a16-e16 a15-e15 a14-d14 a13-c13 a12-b12")
    assert len(white) == len(black) == 19
    assert camp(rules, rules.homes[0]) == white == camp(rules, rules.goals[1])
    assert camp(rules, rules.homes[1]) == black == camp(rules, rules.goals[0])
    assert rules.initial().colour == "white"
    assert rules.teams == ()


def test_halma_4_camps_are_13_squares_in_every_corner_clockwise() -> None:
    rules = rules_of("halma-4")
    assert rules.seats == ("white", "red", "black", "yellow")
    homes = {
        "white": squares("m1-p1 m2-p2 n3-p3 o4-p4"),  # bottom right
        "red": squares("a1-d1 a2-d2 a3-c3 a4-b4"),  # bottom left
        "black": squares("a16-d16 a15-d15 a14-c14 a13-b13"),  # top left
        "yellow": squares("m16-p16 m15-p15 n14-p14 o13-p13"),  # top right
    }
    partner = {"white": "black", "black": "white", "red": "yellow", "yellow": "red"}
    for seat, colour in enumerate(rules.seats):
        assert len(homes[colour]) == 13
        assert camp(rules, rules.homes[seat]) == homes[colour]
        assert camp(rules, rules.goals[seat]) == homes[partner[colour]]
    assert rules.teams == ((0, 2), (1, 3))
    assert rules.marbles_per_seat == 13


def test_the_start_has_every_camp_full() -> None:
    for variant, count in (("halma-2", 19), ("halma-4", 13)):
        start = rules_of(variant).initial()
        assert all(marbles.bit_count() == count for marbles in start.marbles)
        assert start.occupied.bit_count() == count * len(start.marbles)


# -- moves -------------------------------------------------------------------------------------
def test_a_step_goes_to_any_of_eight_empty_neighbours() -> None:
    position = board("halma-2", white="h8", black="a16")
    assert ends(position, "h8") == {"g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"}


def test_jumps_go_in_eight_directions_over_any_colour() -> None:
    position = board("halma-2", white="h8 h9 g7", black="i9 i8 g8 a16")
    # Over h9 (own) to h10, over i9 (black) to j10, over i8 to j8, over g8 to f8,
    # over g7 (own) to f6, and on from f8 over g7 to h6; steps to h7, i7 and g9.
    assert ends(position, "h8") == {"h10", "j10", "j8", "f8", "f6", "h6", "h7", "i7", "g9"}


def test_jumps_chain_and_the_player_may_stop_after_any_jump() -> None:
    position = board("halma-2", white="a1 b2 d4", black="f6 a16")
    assert {"a1-c3", "a1-c3-e5", "a1-c3-e5-g7"} <= texts(position, "a1")
    rules = position.rules
    after = rules.apply(position, rules.parse_path("a1-c3-e5"))
    assert camp(rules, after.marbles[0]) == {"e5", "b2", "d4"}
    assert after.colour == "black"


def test_steps_and_jumps_do_not_mix() -> None:
    rules = rules_of("halma-2")
    position = board("halma-2", white="a1 b2", black="a16")
    with pytest.raises(IllegalMoveError, match="steps and jumps do not mix"):
        rules.parse_move(position, "a1-c3-c4")


def test_a_chain_never_lands_on_the_same_square_twice() -> None:
    rules = rules_of("halma-2")
    # h8 could jump round the square of pieces and back: the start counts as visited.
    position = board("halma-2", white="h8 i8 j9 i10", black="h9 a16")
    with pytest.raises(IllegalMoveError, match="lands on h8 twice"):
        rules.parse_move(position, "h8-j8-j10-h10-h8")
    assert "h8" not in ends(position, "h8")
    # Nothing is captured: jumped pieces stay.
    after = rules.apply(position, rules.parse_path("h8-j8-j10"))
    assert camp(rules, after.marbles[1]) == {"h9", "a16"}
    assert after.occupied.bit_count() == position.occupied.bit_count()


def test_a_piece_in_the_opposing_camp_never_leaves_it() -> None:
    rules = rules_of("halma-2")
    # White's pieces on b13 and c13 are in white's goal: they move only inside it.
    position = board("halma-2", white="b13 c13 h8", black="p1")
    assert ends(position, "b13") == {"a12", "b12", "a13", "a14", "b14", "c14"}
    with pytest.raises(IllegalMoveError, match="may only move inside it"):
        rules.parse_move(position, "c13-d12")
    # Not even for a moment: b12 may not jump out to d12 to come back in on d14.
    position = board("halma-2", white="b12 h8", black="c12 d13 p1")
    assert "d14" not in ends(position, "b12")
    with pytest.raises(IllegalMoveError, match="may only land on goal squares"):
        rules.parse_move(position, "b12-d12-d14")


def test_a_piece_outside_its_goal_may_end_on_any_square() -> None:
    position = board("halma-2", white="l1 m2", black="a16")
    assert "n3" in ends(position, "l1")  # inside its own home
    # In halma-4 a piece may stop in a third player's camp.
    position = board("halma-4", white="e3", red="d2 a1", black="a16", yellow="p16")
    assert "c1" in ends(position, "e3")


def test_move_text_is_case_insensitive_and_bad_squares_are_named() -> None:
    rules = rules_of("halma-2")
    position = rules.initial()
    assert rules.format_move(rules.parse_move(position, "O5-N6")) == "o5-n6"
    with pytest.raises(InvalidMoveTextError, match="unknown square 'q3'"):
        rules.parse_move(position, "p3-q3")
    with pytest.raises(InvalidMoveTextError, match="unknown square 'a17'"):
        rules.parse_move(position, "a16-a17")
    with pytest.raises(IllegalMoveError, match="the piece on a12 is black's"):
        rules.parse_move(position, "a12-a11")
    with pytest.raises(IllegalMoveError, match="there is no piece on h8"):
        rules.parse_move(position, "h8-h9")


# -- winning and standing ----------------------------------------------------------------------
def test_a_player_finishes_with_every_own_piece_in_the_opposing_camp() -> None:
    rules = rules_of("halma-2")
    goal = rules.goals[0]
    full = rules.board.names_of(goal)
    done = board("halma-2", white=" ".join(full), black="a1")
    assert rules.has_finished(done, 0)
    assert not rules.has_finished(done, 1)
    one_short = board("halma-2", white=" ".join([*full[1:], "h8"]), black=full[0])
    assert not rules.has_finished(one_short, 0)  # no anti-blocking rule: the camp is full


def test_standing_is_pieces_in_the_camp_then_distance() -> None:
    rules = rules_of("halma-2")
    position = board("halma-2", white="a16 b16 h8", black="p1 a1")
    # h8 is 5 king steps from the nearest square of white's camp (c13);
    # a1 is 11 from black's (l1) and p1 is in it.
    assert rules.standing(position, 0) == (2, -5)
    assert rules.standing(position, 1) == (1, -11)


# -- position JSON -----------------------------------------------------------------------------
def test_position_json_has_the_star_shape() -> None:
    rules = rules_of("halma-2")
    position = rules.apply(rules.initial(), rules.parse_path("o5-o6"))
    data = position_to_dict(position)
    assert data["variant"] == "halma-2"
    assert data["turn"] == "black"
    assert set(data["marbles"]) == {"white", "black"}
    assert "o6" in data["marbles"]["white"]
    assert "options" not in data and "pieces" not in data
    assert position_from_dict(data) == position


def test_bad_halma_positions_are_refused() -> None:
    data = position_to_dict(rules_of("halma-2").initial())
    with pytest.raises(InvalidPositionError, match="'q3'"):
        position_from_dict({**data, "marbles": {**data["marbles"], "white": ["q3"]}})
    with pytest.raises(InvalidPositionError, match="needs 19"):
        position_from_dict({**data, "marbles": {**data["marbles"], "white": ["a1"]}})
    with pytest.raises(InvalidPositionError, match="'red' has no seat in halma-2"):
        position_from_dict({**data, "marbles": {**data["marbles"], "red": []}})


def test_race_moves_are_already_one_per_resulting_position() -> None:
    rules = rules_of("halma-4")
    position = rules.initial()
    moves = rules.distinct_moves(position)
    assert moves == rules.legal_moves(position)
    assert len({rules.apply_unchecked(position, m) for m in moves}) == len(moves)
