"""Ratings (RULES.md §1 "Ratings"): pure functions, no storage.

Two players: Elo (start 1500; K = 32 for a player's first 30 rated games,
then 16). Three to six: each player is compared with every opponent by
place (better place = win 1, shared place = draw ½, worse = loss 0) and the
Elo update is the sum of those pairwise results, each weighted by
1/(players − 1). With two players that weight is 1, so one formula covers
both. Pairs games and games with a computer seat are unrated.

Ratings are floats; rounding for display is the caller's business.
"""

from __future__ import annotations

from collections.abc import Sequence

from sternhalma.errors import SternhalmaError
from sternhalma.rules.base import Ruleset

#: Every player's rating before their first rated game.
START_RATING = 1500.0
#: A player's first this many rated games use the larger K.
PROVISIONAL_GAMES = 30
K_PROVISIONAL = 32
K_ESTABLISHED = 16


class RatingError(SternhalmaError):
    """Inputs that do not describe one rated game."""


def k_factor(games_played: int) -> int:
    """K for a player who has completed ``games_played`` rated games before this one."""
    if games_played < 0:
        raise RatingError("games played cannot be negative")
    return K_PROVISIONAL if games_played < PROVISIONAL_GAMES else K_ESTABLISHED


def expected_score(rating: float, opponent: float) -> float:
    """The Elo expectation of scoring against ``opponent`` (0..1)."""
    return 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / 400.0)))


def score(place: int, opponent_place: int) -> float:
    """One pairwise result by place: 1 for a better place, ½ for a shared one, 0 else."""
    if place < opponent_place:
        return 1.0
    return 0.5 if place == opponent_place else 0.0


def rating_changes(
    ratings: Sequence[float], places: Sequence[int], games_played: Sequence[int]
) -> list[float]:
    """How much each seat's rating moves after one game (Elo, or pairwise by place).

    ``ratings`` before the game, ``places`` (1 = best, shared allowed) and
    each player's count of earlier rated games, all in seat order.
    """
    n = len(ratings)
    if not 2 <= n <= 6:
        raise RatingError(f"a rated game has 2 to 6 players, not {n}")
    if len(places) != n or len(games_played) != n:
        raise RatingError("give a rating, a place and a games-played count for every player")
    if not all(isinstance(p, int) and 1 <= p <= n for p in places):
        raise RatingError(f"places must be whole numbers from 1 to {n}")
    weight = 1.0 / (n - 1)
    changes = []
    for i in range(n):
        total = sum(
            score(places[i], places[j]) - expected_score(ratings[i], ratings[j])
            for j in range(n)
            if j != i
        )
        changes.append(k_factor(games_played[i]) * weight * total)
    return changes


def new_ratings(
    ratings: Sequence[float], places: Sequence[int], games_played: Sequence[int]
) -> list[float]:
    """The ratings after one game: ``ratings`` plus ``rating_changes``."""
    changes = rating_changes(ratings, places, games_played)
    return [rating + change for rating, change in zip(ratings, changes, strict=True)]


def is_rated(rules: Ruleset, *, rated_table: bool = True, computer_seats: int = 0) -> bool:
    """Whether a game counts for ratings: a rated table, no teams, no computer seat."""
    return rated_table and not rules.teams and computer_seats == 0


__all__ = [
    "K_ESTABLISHED",
    "K_PROVISIONAL",
    "PROVISIONAL_GAMES",
    "START_RATING",
    "RatingError",
    "expected_score",
    "is_rated",
    "k_factor",
    "new_ratings",
    "rating_changes",
    "score",
]
