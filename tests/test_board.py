"""Geometry of the star (rules.md#the-star-board) and the seating (rules.md#variants)."""

from __future__ import annotations

from sternhalma.boards.base import bits
from sternhalma.boards.star import COLOURS, STAR, opposite
from sternhalma.rules import STAR_SEATING, find_variant

# The rows of the drawing in rules.md#the-star-board, bottom to top.
ROWS = {
    1: "m1",
    2: "l2 m2",
    3: "k3 l3 m3",
    4: "j4 k4 l4 m4",
    5: "e5 f5 g5 h5 i5 j5 k5 l5 m5 n5 o5 p5 q5",
    6: "e6 f6 g6 h6 i6 j6 k6 l6 m6 n6 o6 p6",
    7: "e7 f7 g7 h7 i7 j7 k7 l7 m7 n7 o7",
    8: "e8 f8 g8 h8 i8 j8 k8 l8 m8 n8",
    9: "e9 f9 g9 h9 i9 j9 k9 l9 m9",
    10: "d10 e10 f10 g10 h10 i10 j10 k10 l10 m10",
    11: "c11 d11 e11 f11 g11 h11 i11 j11 k11 l11 m11",
    12: "b12 c12 d12 e12 f12 g12 h12 i12 j12 k12 l12 m12",
    13: "a13 b13 c13 d13 e13 f13 g13 h13 i13 j13 k13 l13 m13",
    14: "e14 f14 g14 h14",
    15: "e15 f15 g15",
    16: "e16 f16",
    17: "e17",
}


def names(mask: int) -> set[str]:
    return set(STAR.names_of(mask))


def test_121_holes_named_as_in_the_drawing() -> None:
    drawn = [name for row in ROWS.values() for name in row.split()]
    assert STAR.size == 121
    assert sorted(STAR.names) == sorted(drawn)
    assert STAR.names[0] == "m1" and STAR.names[-1] == "e17"
    # The drawing's horizontal position x = 2q + r puts i9 in the middle column.
    q, r = STAR.cells[STAR.index("i9")]
    assert (q, r) == (9, 9) and 2 * q + r == 27


def test_hexagon_and_points() -> None:
    assert STAR.hexagon.bit_count() == 61
    assert STAR.index("i9") in set(bits(STAR.hexagon))
    for colour in COLOURS:
        assert STAR.point[colour].bit_count() == 10
    union = 0
    for colour in COLOURS:
        assert union & STAR.point[colour] == 0
        union |= STAR.point[colour]
    assert union | STAR.hexagon == STAR.all
    assert names(STAR.point["white"]) == set(
        ["m1", "l2", "m2", "k3", "l3", "m3", "j4", "k4", "l4", "m4"]
    )
    assert names(STAR.point["black"]) == set(
        ["e14", "f14", "g14", "h14", "e15", "f15", "g15", "e16", "f16", "e17"]
    )
    assert names(STAR.point["blue"]) == set(
        ["d10", "c11", "d11", "b12", "c12", "d12", "a13", "b13", "c13", "d13"]
    )


def test_neighbours() -> None:
    def around(hole: str) -> set[str]:
        return {STAR.names[n] for n in STAR.neighbours[STAR.index(hole)]}

    assert around("m1") == {"l2", "m2"}
    assert around("l2") == {"m1", "m2", "k3", "l3"}
    assert around("i9") == {"h9", "j9", "i10", "h10", "i8", "j8"}
    assert around("e17") == {"e16", "f16"}
    assert around("a13") == {"b13", "b12"}
    assert around("q5") == {"p5", "p6"}
    # Neighbourhood is symmetric and nobody has more than six.
    for i in range(STAR.size):
        assert len(STAR.neighbours[i]) <= 6
        for n in STAR.neighbours[i]:
            assert i in STAR.neighbours[n]


def test_the_move_examples_of_the_rules() -> None:
    # l2-l3 is a step; m1-m3-k5 jumps over m2, then over l4.
    assert STAR.index("l3") in STAR.neighbours[STAR.index("l2")]
    m1_jumps = {STAR.names[land]: over for over, land, _ in STAR.jumps[STAR.index("m1")]}
    assert m1_jumps["m3"] == 1 << STAR.index("m2")
    m3_jumps = {STAR.names[land]: over for over, land, _ in STAR.jumps[STAR.index("m3")]}
    assert m3_jumps["k5"] == 1 << STAR.index("l4")


def test_seat_table() -> None:
    assert STAR_SEATING == {
        2: ("white", "black"),
        3: ("white", "blue", "yellow"),
        4: ("white", "red", "black", "yellow"),
        6: ("white", "red", "blue", "black", "yellow", "green"),
    }
    assert [opposite(c) for c in COLOURS] == ["black", "yellow", "green", "white", "red", "blue"]
    three = find_variant("classic-3")
    # With three players the goals are the empty opposite points.
    for colour, goal in zip(three.seats, three.goals, strict=True):
        assert names(goal) == names(STAR.point[opposite(colour)])
    assert find_variant("pairs-4").teams == ((0, 2), (1, 3))
    assert find_variant("pairs-6").teams == ((0, 3), (1, 4), (2, 5))


def test_fifteen_marble_homes() -> None:
    rules = find_variant("fifteen-2")
    white_home = names(rules.homes[0])
    assert white_home == names(STAR.point["white"]) | {"i5", "j5", "k5", "l5", "m5"}
    assert names(rules.homes[1]) == names(STAR.point["black"]) | {"e13", "f13", "g13", "h13", "i13"}
    assert rules.goals == (rules.homes[1], rules.homes[0])
    assert rules.deadline == 40


def test_rotation_and_mirror_tables() -> None:
    turn = STAR.rotate
    for i in range(STAR.size):
        j = i
        for _ in range(6):
            j = turn[j]
        assert j == i
        assert STAR.mirror[STAR.mirror[i]] == i
    for k, colour in enumerate(COLOURS):
        turned = STAR.mask(turn[h] for h in bits(STAR.point[colour]))
        assert turned == STAR.point[COLOURS[(k + 1) % 6]]
