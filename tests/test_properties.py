"""Invariants of the engine on random positions (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sternhalma.boards.base import bits
from sternhalma.boards.star import STAR
from sternhalma.notation import position_from_json, position_to_json
from sternhalma.position import Position
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.rules.base import Ruleset

STAR_IDS = [v.id for v in VARIANTS.values() if v.game == "chinese-checkers"]


def random_position(rules: Ruleset, seed: int, plies: int) -> Position:
    """Random legal play from the start, mostly forward so marbles spread out."""
    rng = random.Random(seed)
    position = rules.initial()
    for _ in range(plies):
        moves = rules.legal_moves(position)
        if not moves:
            break
        if rng.random() < 0.7:
            best = max(rules.progress(position, m) for m in moves)
            moves = [m for m in moves if rules.progress(position, m) == best]
        position = rules.apply_unchecked(position, rng.choice(moves))
    return position


def move_pairs(rules: Ruleset, position: Position) -> set[tuple[int, int]]:
    return {m.key for m in rules.legal_moves(position)}


def transformed(position: Position, table: tuple[int, ...], seat_map: list[int]) -> Position:
    """The position with every hole sent through ``table`` and seat s's marbles given to seat_map[s]."""
    marbles = [0] * len(position.marbles)
    for seat, board in enumerate(position.marbles):
        marbles[seat_map[seat]] = STAR.mask(table[h] for h in bits(board))
    return Position(position.rules, seat_map[position.turn], tuple(marbles))


seeds = st.integers(min_value=0, max_value=10**6)
plies = st.integers(min_value=0, max_value=80)


@settings(max_examples=40, deadline=None)
@given(seeds, plies, st.sampled_from(["classic-6", "longjump-6", "pairs-6"]))
def test_turning_a_position_60_degrees_turns_its_moves(seed: int, n: int, variant: str) -> None:
    rules = find_variant(variant)
    position = random_position(rules, seed, n)
    turned = transformed(position, STAR.rotate, [1, 2, 3, 4, 5, 0])
    rotate = STAR.rotate
    expected = {(rotate[a], rotate[b]) for a, b in move_pairs(rules, position)}
    assert move_pairs(rules, turned) == expected


@settings(max_examples=40, deadline=None)
@given(seeds, plies, st.sampled_from(["classic-2", "classic-6", "longjump-2", "fifteen-2"]))
def test_mirroring_a_position_mirrors_its_moves(seed: int, n: int, variant: str) -> None:
    rules = find_variant(variant)
    position = random_position(rules, seed, n)
    # The mirror keeps white and black and swaps red/green and blue/yellow.
    by_colour = {
        "white": "white",
        "black": "black",
        "red": "green",
        "green": "red",
        "blue": "yellow",
        "yellow": "blue",
    }
    seat_map = [rules.seats.index(by_colour[c]) for c in rules.seats]
    mirror = STAR.mirror
    expected = {(mirror[a], mirror[b]) for a, b in move_pairs(rules, position)}
    assert move_pairs(rules, transformed(position, mirror, seat_map)) == expected


@settings(max_examples=40, deadline=None)
@given(seeds, plies, st.sampled_from(STAR_IDS))
def test_apply_keeps_every_marble_and_paths_are_legal(seed: int, n: int, variant: str) -> None:
    rules = find_variant(variant)
    position = random_position(rules, seed, n)
    total = position.occupied.bit_count()
    for move in rules.legal_moves(position):
        # Each move's path is legal hop by hop, and applying it keeps every marble.
        assert rules.check_path(position, move) == move
        after = rules.apply(position, move)
        assert after.occupied.bit_count() == total
        assert [b.bit_count() for b in after.marbles] == [b.bit_count() for b in position.marbles]
        assert after.marbles[position.turn] >> move.end & 1
        assert not after.marbles[position.turn] >> move.start & 1


@settings(max_examples=40, deadline=None)
@given(seeds, plies, st.sampled_from(STAR_IDS))
def test_text_forms_round_trip(seed: int, n: int, variant: str) -> None:
    rules = find_variant(variant)
    position = random_position(rules, seed, n)
    assert position_from_json(position_to_json(position)) == position
    for move in rules.legal_moves(position):
        assert rules.parse_move(position, rules.format_move(move)) == move


def walled_in(rules: Ruleset, seed: int) -> Position:
    """One seat's marbles in a clump with the others packed round it: a position where
    that seat can often only jump, or cannot move at all."""
    rng = random.Random(seed)
    neighbours = rules.board.neighbours
    counts = [bin(m).count("1") for m in rules.initial().marbles]
    seat = rng.randrange(len(counts))
    clump = [rng.randrange(rules.board.size)]
    while len(clump) < counts[seat]:
        clump.append(rng.choice([n for h in clump for n in neighbours[h] if n not in clump]))
    rings: list[list[int]] = []
    taken = set(clump)
    for _ in range(2):
        ring = sorted({n for h in (rings[-1] if rings else clump) for n in neighbours[h]} - taken)
        rng.shuffle(ring)
        rings.append(ring)
        taken |= set(ring)
    rest = [h for h in range(rules.board.size) if h not in taken]
    rng.shuffle(rest)
    blockers = iter([*rings[0], *rings[1], *rest])
    marbles = [
        sum(1 << h for h in clump) if s == seat else sum(1 << next(blockers) for _ in range(count))
        for s, count in enumerate(counts)
    ]
    return Position(rules, seat, tuple(marbles))


@given(seeds, st.sampled_from(["classic-3", "classic-4", "halma-4", "longjump-6"]))
def test_has_move_says_whether_there_are_legal_moves(seed: int, variant: str) -> None:
    """The referee's quick answer (a free step, else the full list) agrees with the list."""
    rules = find_variant(variant)
    position = walled_in(rules, seed)
    assert rules.has_move(position) == bool(rules.legal_moves(position))
