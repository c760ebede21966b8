"""The variant registry: every game the project offers, by id."""

from __future__ import annotations

from sternhalma.boards.star import STAR, opposite
from sternhalma.errors import UnknownVariantError, shown
from sternhalma.rules.base import Ruleset
from sternhalma.rules.capture import capture_variants
from sternhalma.rules.halma import halma_variants
from sternhalma.rules.race import RaceRules

#: Seats in turn order for each number of players on the star (rules.md#variants).
STAR_SEATING: dict[int, tuple[str, ...]] = {
    2: ("white", "black"),
    3: ("white", "blue", "yellow"),
    4: ("white", "red", "black", "yellow"),
    6: ("white", "red", "blue", "black", "yellow", "green"),
}

#: The five hexagon holes in front of each point that a 15-marble home adds.
FIFTEEN_EXTRA = {"white": "i5 j5 k5 l5 m5", "black": "e13 f13 g13 h13 i13"}


def star_race(
    id: str,
    players: int,
    *,
    title: str,
    long_jumps: bool = False,
    fifteen: bool = False,
    pairs: bool = False,
) -> RaceRules:
    """A Chinese checkers variant: the seating of ``players`` plus options."""
    seats = STAR_SEATING[players]
    homes = []
    for colour in seats:
        home = STAR.point[colour]
        if fifteen:
            home |= STAR.mask_of_names(FIFTEEN_EXTRA[colour].split())
        homes.append(home)
    # Each goal is the facing point, extended exactly as the facing home is.
    goals = [
        homes[seats.index(opposite(c))] if opposite(c) in seats else STAR.point[opposite(c)]
        for c in seats
    ]
    forbidden = [STAR.points & ~(home | goal) for home, goal in zip(homes, goals, strict=True)]
    teams = (
        [(s, seats.index(opposite(c))) for s, c in enumerate(seats) if s < seats.index(opposite(c))]
        if pairs
        else []
    )
    return RaceRules(
        id,
        "chinese-checkers",
        STAR,
        seats,
        homes,
        goals,
        forbidden,
        teams=teams,
        long_jumps=long_jumps,
        deadline=40 if fifteen else 30,
        last_reply=players == 2,
        title=title,
    )


def _build() -> dict[str, Ruleset]:
    variants: list[Ruleset] = [
        star_race("classic-2", 2, title="Classic, 2 players"),
        star_race("classic-3", 3, title="Classic, 3 players"),
        star_race("classic-4", 4, title="Classic, 4 players"),
        star_race("classic-6", 6, title="Classic, 6 players"),
        star_race("longjump-2", 2, long_jumps=True, title="Long jumps, 2 players"),
        star_race("longjump-6", 6, long_jumps=True, title="Long jumps, 6 players"),
        star_race("fifteen-2", 2, fifteen=True, title="15 marbles, 2 players"),
        star_race("pairs-4", 4, pairs=True, title="Pairs, 2 × 2"),
        star_race("pairs-6", 6, pairs=True, title="Pairs, 3 × 2"),
        *capture_variants(),
        *halma_variants(),
    ]
    return {rules.id: rules for rules in variants}


#: Every variant by id, in the order a menu shows them.
VARIANTS: dict[str, Ruleset] = _build()

#: The games the variants belong to, in the same order: each has a lobby choice, a "how
#: to play" page in every language and its address /how-to-play/<game>.
GAMES: tuple[str, ...] = tuple(dict.fromkeys(rules.game for rules in VARIANTS.values()))


def find_variant(id: str) -> Ruleset:
    """The ruleset called ``id``; UnknownVariantError naming the known ones otherwise."""
    key = id.strip().lower()
    if key not in VARIANTS:
        raise UnknownVariantError(f"unknown variant {shown(id)}; known: {', '.join(VARIANTS)}")
    return VARIANTS[key]


__all__ = ["GAMES", "STAR_SEATING", "VARIANTS", "RaceRules", "Ruleset", "find_variant", "star_race"]
