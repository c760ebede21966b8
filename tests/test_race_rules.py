"""One test per move rule of rules.md#moves, each on a position built for it."""

from __future__ import annotations

import pytest
from helpers import ends, move_texts, position

from sternhalma import IllegalMoveError, InvalidMoveTextError, find_variant
from sternhalma.position import Position
from sternhalma.rules.race import RaceRules


def jump_ends(pos: Position, start: str) -> set[str]:
    """Ends of the marble's moves that are not steps."""
    board = pos.rules.board
    adjacent = {board.names[n] for n in board.neighbours[board.index(start)]}
    return ends(pos, start) - adjacent


def test_steps_go_to_empty_adjacent_holes() -> None:
    pos = position("classic-2", "white", white="i9", black="j9 i10")
    assert ends(pos, "i9") == {"h9", "h10", "i8", "j8", "k9", "i11"}
    with pytest.raises(IllegalMoveError, match="j9 is occupied"):
        pos.rules.parse_move(pos, "i9-j9")


def test_start_position_has_the_fourteen_opening_moves() -> None:
    rules = find_variant("classic-2")
    assert move_texts(rules.initial()) == {
        "j4-i5", "j4-j5", "k4-j5", "k4-k5", "l4-k5", "l4-l5", "m4-l5", "m4-m5",
        "k3-i5", "k3-k5", "l3-j5", "l3-l5", "m3-k5", "m3-m5",
    }  # fmt: skip


def test_jump_chains_may_stop_after_any_jump() -> None:
    # The rules' own example: m1-m3-k5 jumps over m2, then over l4.
    pos = position("classic-2", "white", white="m1", black="m2 l4")
    assert move_texts(pos, "m1") >= {"m1-m3", "m1-m3-k5"}
    assert pos.rules.format_move(pos.rules.parse_move(pos, "M1-M3-K5")) == "m1-m3-k5"


def test_other_points_can_be_passed_through_but_not_ended_in() -> None:
    # i5 jumps over h5 into red's point (g5), then over g6 out of it to g7.
    pos = position("classic-2", "white", white="i5", black="h5 g6")
    assert "i5-g5-g7" in move_texts(pos, "i5")
    assert "g5" not in ends(pos, "i5")
    with pytest.raises(IllegalMoveError, match="cannot end in another point"):
        pos.rules.parse_move(pos, "i5-g5")
    # Red's point is red's home in classic-6, so there a red marble may end there.
    six = position("classic-6", "red", red="h6", white="h5")
    assert "h6-h4" not in move_texts(six)  # h4 does not exist
    back_home = position("classic-6", "red", red="g7", white="g6")
    assert "g5" in ends(back_home, "g7")


def test_a_marble_may_end_in_its_own_home_and_its_goal() -> None:
    home = position("classic-2", "white", white="l5", black="l4")
    assert "l3" in ends(home, "l5")
    goal = position("classic-2", "white", white="h12", black="h13")
    assert "h14" in ends(goal, "h12")


def test_goal_lock_even_during_a_chain() -> None:
    # h14 is in white's goal: h14-h12-f14 would leave the goal and come back.
    pos = position("classic-2", "white", white="h14", black="h13 g13")
    assert ends(pos, "h14") == {"g14", "g15"}
    with pytest.raises(IllegalMoveError, match="in its goal"):
        pos.rules.parse_move(pos, "h14-h12-f14")
    with pytest.raises(IllegalMoveError, match="in its goal"):
        pos.rules.parse_move(pos, "h14-i13")
    inside = position("classic-2", "white", white="h14", black="g14")
    assert "h14-f14" in move_texts(inside)


@pytest.mark.parametrize("gap", [0, 1, 2])
def test_long_jumps_with_equal_empty_holes_on_each_side(gap: int) -> None:
    # Straight up column i from i5: the jumped marble sits gap holes above it.
    over = f"i{6 + gap}"
    land = f"i{7 + 2 * gap}"
    pos = position("longjump-2", "white", white="i5", black=over)
    assert jump_ends(pos, "i5") == {land}
    assert pos.rules.parse_move(pos, f"i5-{land}")
    # Not with an unequal number of empty holes on the two sides.
    for wrong in (f"i{6 + 2 * gap}", f"i{8 + 2 * gap}"):
        if wrong != over:
            with pytest.raises(IllegalMoveError):
                pos.rules.parse_move(pos, f"i5-{wrong}")
    # Classic rules know only the jump over an adjacent marble.
    classic = position("classic-2", "white", white="i5", black=over)
    assert jump_ends(classic, "i5") == ({land} if gap == 0 else set())


def test_a_blocked_long_jump() -> None:
    # A second marble between the jumped one and the landing hole blocks it.
    pos = position("longjump-2", "white", white="i5", black="i7 i8")
    assert "i9" not in ends(pos, "i5")
    with pytest.raises(IllegalMoveError, match="exactly one marble"):
        pos.rules.parse_move(pos, "i5-i9")
    # Landing off the board: from i9 over i11 would need i13 empty and land on i13 (fine),
    # but over i12 it would land beyond the top of column i, which does not exist.
    edge = position("longjump-2", "white", white="i9", black="i12")
    assert {"i13", "i15"}.isdisjoint(ends(edge, "i9"))


def test_long_jumps_chain() -> None:
    pos = position("longjump-2", "white", white="i5", black="i7 k9")
    assert "i5-i9-m9" in move_texts(pos, "i5")


def test_no_hole_twice_and_the_start_counts_as_visited() -> None:
    # Around i9: jumps over j9, j10 and i10 form a triangle i9 -> k9 -> i11 -> i9.
    pos = position("classic-2", "white", white="i9", black="j9 j10 i10")
    assert ends(pos, "i9") == {"h9", "h10", "i8", "j8", "k9", "i11"}
    with pytest.raises(IllegalMoveError, match="lands on i9 twice"):
        pos.rules.parse_move(pos, "i9-k9-i11-i9")
    with pytest.raises(IllegalMoveError, match="lands on k9 twice"):
        pos.rules.parse_move(pos, "i9-k9-i11-k9")


def test_steps_and_jumps_do_not_mix() -> None:
    pos = position("classic-2", "white", white="l2", black="l4")
    with pytest.raises(IllegalMoveError, match="steps and jumps do not mix"):
        pos.rules.parse_move(pos, "l2-l3-l5")
    assert all(len(t.split("-")) == 2 for t in move_texts(pos) if t.endswith(("l3", "m2", "k3")))


def test_a_move_with_any_legal_path_is_accepted_and_keeps_its_path() -> None:
    # Two chains reach k9 from i9: directly over j9 and round via i11.
    pos = position("classic-2", "white", white="i9", black="j9 j10 i10")
    rules = pos.rules
    listed = [m for m in rules.legal_moves(pos) if rules.format_move(m).endswith("k9")]
    assert [rules.format_move(m) for m in listed] == ["i9-k9"]  # one move, shortest path
    longer = rules.parse_move(pos, "i9-i11-k9")
    assert rules.format_move(longer) == "i9-i11-k9"
    assert rules.apply(pos, longer) == rules.apply(pos, listed[0])


def test_bad_move_text_says_what_is_wrong() -> None:
    rules = find_variant("classic-2")
    start = rules.initial()
    with pytest.raises(InvalidMoveTextError, match="unknown hole 'z9'"):
        rules.parse_move(start, "m1-z9")
    with pytest.raises(InvalidMoveTextError, match="not a move"):
        rules.parse_move(start, "m4")
    with pytest.raises(InvalidMoveTextError, match="empty"):
        rules.parse_move(start, "  ")
    with pytest.raises(IllegalMoveError, match="l4 is occupied"):
        rules.parse_move(start, "l2-l4")
    with pytest.raises(IllegalMoveError, match="not a step or a jump"):
        rules.parse_move(start, "m4-k7")
    with pytest.raises(IllegalMoveError, match="the marble on e14 is black's"):
        rules.parse_move(start, "e14-e13")
    with pytest.raises(IllegalMoveError, match="no marble on i9"):
        rules.parse_move(start, "i9-i10")
    with pytest.raises(IllegalMoveError, match="j5-j7 is not legal for white: j6 is empty"):
        rules.parse_move(position("classic-2", "white", white="j5"), "j5-j7")


def test_apply_passes_the_turn_and_moves_one_marble() -> None:
    rules = find_variant("classic-4")
    start = rules.initial()
    after = rules.apply(start, rules.parse_move(start, "m3-k5"))
    assert after.colour == "red"
    assert after.marbles[1:] == start.marbles[1:]
    assert after.marbles[0] == start.marbles[0] ^ rules.board.mask_of_names(["m3", "k5"])
    assert start.colour == "white"  # the old position is unchanged
    with pytest.raises(IllegalMoveError):
        rules.apply(after, rules.parse_path("l2-l3"))


def race(variant: str) -> RaceRules:
    rules = find_variant(variant)
    assert isinstance(rules, RaceRules)
    return rules


def test_each_goal_has_the_owner_whose_home_it_is() -> None:
    # rules.md#finishing: the owner's marbles count only once it is no longer leaving.
    assert race("classic-2").goal_owners == (1, 0)
    assert race("classic-3").goal_owners == (None, None, None)  # empty points
    assert race("classic-6").goal_owners == (3, 4, 5, 0, 1, 2)
    assert race("pairs-4").goal_owners == (2, 3, 0, 1)  # the partner
    assert race("fifteen-2").leaving == 40
    assert race("classic-6").leaving == 30


def test_a_goal_holding_the_owners_marble_is_full_only_when_the_owner_counts() -> None:
    rules = race("classic-2")
    full = position("classic-2", "black", white="e14 f14 g14 h14 e15 f15 g15 e16 f16", black="e17")
    assert rules.has_finished(full, 0)
    assert not rules.has_finished(full, 0, owner_counts=False)
    own = position("classic-2", "black", white="e14 f14 g14 h14 e15 f15 g15 e16 f16 e17")
    assert rules.has_finished(own, 0, owner_counts=False)
