"""Ratings (docs/ratings.md): pure functions, no storage.

Every player has a Glicko-2 rating (Glickman, "Example of the Glicko-2
system"): a rating on the familiar scale (start 1500), a deviation (how
unsure that rating is; start 350) and a volatility (how erratic the player
is; start 0.06). Each rated game is one rating period.

Two players: the game is one result, as in the paper. Three to six players:
each player is compared with every opponent by place (better place = win 1,
shared place = draw ½, worse = loss 0), and those pairwise results enter
the same update, each with weight 1/(players − 1): a game counts as one game
however many sat at it, and with two players the weight is 1, so one formula
covers both. Pairs games and games with a computer seat are unrated.

A player is provisional until ``ESTABLISHED_GAMES`` rated games in a
category; the ratings page lists established players only.

Ratings are floats; rounding for display is the caller's business.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sternhalma.errors import SternhalmaError
from sternhalma.rules.base import Ruleset

#: Every player's rating, deviation and volatility before their first rated game.
START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
#: Glicko-2's system constant τ: how fast the volatility may change (the paper
#: suggests 0.3 to 1.2; smaller suits games with fewer upsets).
TAU = 0.5
#: A player's rating is provisional (shown with "?", not listed) before this many rated games.
ESTABLISHED_GAMES = 10
#: A rated game between two players who already played ``n`` rated games together in the
#: last ``REPEAT_DAYS`` days counts ``REPEAT_FACTOR ** n`` of a game between them.
REPEAT_FACTOR = 0.5
REPEAT_DAYS = 7
#: Glicko-2 works on its own scale: μ = (r − 1500) / SCALE, φ = RD / SCALE.
SCALE = 400.0 / math.log(10.0)
#: When the volatility iteration stops (the paper's ε).
_EPSILON = 1e-6


class RatingError(SternhalmaError):
    """Inputs that do not describe one rated game."""


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 rating on the display scale."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY


def is_provisional(games: int) -> bool:
    """Whether a player with ``games`` rated games still has a provisional rating."""
    return games < ESTABLISHED_GAMES


def score(place: int, opponent_place: int) -> float:
    """One pairwise result by place: 1 for a better place, ½ for a shared one, 0 else."""
    if place < opponent_place:
        return 1.0
    return 0.5 if place == opponent_place else 0.0


def _g(phi: float) -> float:
    """How much a result against an opponent of deviation φ counts (1 when certain)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, opponent_mu: float, opponent_phi: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(opponent_phi) * (mu - opponent_mu)))


def update(player: Rating, results: Sequence[tuple[Rating, float, float]]) -> Rating:
    """The player's rating after one rating period of ``results``: (opponent, score,
    weight) with score 0, ½ or 1. With every weight 1 this is the paper's algorithm;
    a weight w counts that result as w of a game."""
    if not results:
        raise RatingError("a rating period needs at least one result")
    mu = (player.rating - START_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    information = 0.0  # 1/v
    improvement = 0.0  # Δ/v
    for opponent, result, weight in results:
        if not 0.0 <= result <= 1.0 or weight <= 0.0:
            raise RatingError("a result is a score from 0 to 1 with a positive weight")
        opponent_mu = (opponent.rating - START_RATING) / SCALE
        opponent_phi = opponent.deviation / SCALE
        g = _g(opponent_phi)
        expected = _expected(mu, opponent_mu, opponent_phi)
        information += weight * g * g * expected * (1.0 - expected)
        improvement += weight * g * (result - expected)
    v = 1.0 / information
    delta = v * improvement
    sigma = _new_volatility(phi, sigma, v, delta)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Rating(START_RATING + SCALE * new_mu, SCALE * new_phi, sigma)


def _new_volatility(phi: float, sigma: float, v: float, delta: float) -> float:
    """Step 5 of the paper: the root of f by the Illinois method."""
    a = math.log(sigma * sigma)
    tau2 = TAU * TAU

    def f(x: float) -> float:
        ex = math.exp(x)
        return (
            ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2)
            - (x - a) / tau2
        )

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        high = a - k * TAU
    f_low, f_high = f(low), f(high)
    while abs(high - low) > _EPSILON:
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = middle, f_middle
    return math.exp(low / 2.0)


def repeat_weight(previous: int) -> float:
    """How much a result between two players counts when they already played
    ``previous`` rated games together lately: farming one victim pays less each time."""
    return float(REPEAT_FACTOR ** max(0, previous))


def rate_game(
    ratings: Sequence[Rating],
    places: Sequence[int],
    repeats: Sequence[Sequence[int]] | None = None,
) -> list[Rating]:
    """Everyone's rating after one game: ``ratings`` before it and ``places`` (1 = best,
    shared allowed), both in seat order. Each player meets every opponent by place,
    each result weighted 1/(players − 1), times ``repeat_weight`` of ``repeats[i][j]``
    (the rated games players i and j played together lately); everyone is rated
    against the others' ratings from before the game."""
    n = len(ratings)
    if not 2 <= n <= 6:
        raise RatingError(f"a rated game has 2 to 6 players, not {n}")
    if len(places) != n:
        raise RatingError("give a rating and a place for every player")
    if not all(isinstance(p, int) and 1 <= p <= n for p in places):
        raise RatingError(f"places must be whole numbers from 1 to {n}")
    if repeats is not None and (len(repeats) != n or any(len(row) != n for row in repeats)):
        raise RatingError("give the games played together for every pair of players")
    weight = 1.0 / (n - 1)

    def pair(i: int, j: int) -> float:
        return weight * (1.0 if repeats is None else repeat_weight(repeats[i][j]))

    return [
        update(
            ratings[i],
            [(ratings[j], score(places[i], places[j]), pair(i, j)) for j in range(n) if j != i],
        )
        for i in range(n)
    ]


def is_rated(rules: Ruleset, *, rated_table: bool = True, computer_seats: int = 0) -> bool:
    """Whether a game counts for ratings: a rated table, no teams, no computer seat."""
    return rated_table and not rules.teams and computer_seats == 0


__all__ = [
    "ESTABLISHED_GAMES",
    "START_DEVIATION",
    "START_RATING",
    "START_VOLATILITY",
    "TAU",
    "Rating",
    "RatingError",
    "is_provisional",
    "is_rated",
    "rate_game",
    "repeat_weight",
    "score",
    "update",
]
