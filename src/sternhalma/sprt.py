"""The sequential probability ratio test that decides whether a change to a player helps.

Two players meet in pairs of games: the same opening, seats swapped. A pair
scores 0, 1/2, 1, 3/2 or 2 points for the first player, so a match is five
counts (the pentanomial model, as fishtest uses it): pairing takes the luck of
the opening and of moving first out of the noise, and the variance is
measured over pairs rather than assumed from single games.

The test weighs H0 "the first player is ELO0 stronger" against H1 "it is ELO1
stronger" (logistic Elo: a score s is 400·log10(s / (1 - s)) points). The
log-likelihood ratio is that of the generalised SPRT, with the mean pair score
taken as normally distributed:

    LLR = N · (s1 - s0) · (2·mean - s0 - s1) / (2·var)

with N pairs, mean and var the mean and variance of a pair's score per game
(0, 1/4, 1/2, 3/4, 1), s0 and s1 the scores that ELO0 and ELO1 expect. Each
count is taken as half a pair more than it is (Jeffreys' prior for a
multinomial): fishtest takes an empty count as 1/1000, which lets a first pair
won twice (a variance of nearly zero) accept H1 alone; half a pair needs a
run of such pairs, and weighs little once there are tens. The match goes on
until the LLR leaves the bounds ln(beta / (1 - alpha)) and
ln((1 - beta) / alpha): below, H0 is accepted; above, H1; alpha and beta are
the chances of the two wrong decisions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sternhalma.errors import SternhalmaError

#: A pair's score per game, by its points for the first player (0, 1/2, 1, 3/2, 2).
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: What each count gets on top, so a few pairs all alike do not decide the test.
PRIOR = 0.5
#: The normal distribution's two-sided 95% quantile.
Z95 = 1.959963984540054


class SprtError(SternhalmaError):
    """A test that cannot be set up (bounds, error chances)."""


def expected_score(elo: float) -> float:
    """The score per game that a lead of ``elo`` (logistic) points expects."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of(score: float) -> float:
    """The logistic Elo lead that a score per game means (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class Sprt:
    """The test's hypotheses and error chances."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise SprtError(f"ELO0 must be below ELO1 (got {self.elo0:g} and {self.elo1:g})")
        for name, chance in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < chance < 0.5:
                raise SprtError(f"{name} is a chance between 0 and 0.5, not {chance:g}")

    @property
    def lower(self) -> float:
        """At or below this LLR, H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """At or above this LLR, H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, pairs: Pentanomial) -> float:
        """The log-likelihood ratio of H1 against H0 after ``pairs`` (0 before any)."""
        if not pairs.pairs:
            return 0.0
        n, mean, var = pairs.moments(PRIOR)
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)

    def verdict(self, pairs: Pentanomial) -> str | None:
        """ "H1" or "H0" once the LLR has left the bounds; None while the test goes on."""
        llr = self.llr(pairs)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


@dataclass(frozen=True)
class Pentanomial:
    """How many pairs scored 0, 1/2, 1, 3/2 and 2 points for the first player."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def add(self, first: float, second: float) -> Pentanomial:
        """With one more pair, whose two games scored ``first`` and ``second`` (0, 1/2 or 1)
        for the first player."""
        index = round(2 * (first + second))
        counts = list(self.counts)
        counts[index] += 1
        return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))

    def moments(self, prior: float = 0.0) -> tuple[float, float, float]:
        """The pairs (each count plus ``prior``), their mean score per game and its variance."""
        counts = [c + prior for c in self.counts]
        n = sum(counts)
        mean = sum(c * x for c, x in zip(counts, PAIR_SCORES, strict=True)) / n
        var = sum(c * (x - mean) ** 2 for c, x in zip(counts, PAIR_SCORES, strict=True)) / n
        return n, mean, var

    def elo(self) -> tuple[float, float, float]:
        """The first player's Elo lead (from its score) and the 95% interval about it
        (from the pairs' variance, with the test's prior, so never of width zero)."""
        if not self.pairs:
            return 0.0, -math.inf, math.inf
        _, mean, _ = self.moments()
        _, _, var = self.moments(PRIOR)
        margin = Z95 * math.sqrt(var / self.pairs)
        return elo_of(mean), elo_of(mean - margin), elo_of(mean + margin)
