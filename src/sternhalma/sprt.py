"""The sequential probability ratio test that decides whether a change to a player helps.

The tested player meets the other in rounds: one opening, played once with the
tested player in each seat. With two players a round is a pair of games (seats
swapped) and scores 0, 1/2, 1, 3/2 or 2 points for the first player, so a
match is five counts (the pentanomial model, as fishtest uses it): pairing
takes the luck of the opening and of moving first out of the noise, and the
variance is measured over pairs rather than assumed from single games. With
three to six seats the other player fills every other seat, and a game scores
the share of them the tested player placed ahead of (a shared place half): 1/2
between equals, as a two-player game's points.

The test weighs H0 "the first player is ELO0 stronger" against H1 "it is ELO1
stronger" (logistic Elo: a score s is 400·log10(s / (1 - s)) points; with
more seats, the lead over each other seat). The log-likelihood ratio is that
of the generalised SPRT, with the mean round score taken as normally
distributed:

    LLR = N · (s1 - s0) · (2·mean - s0 - s1) / (2·var)

with N rounds, mean and var the mean and variance of a round's score per game
(for a pair 0, 1/4, 1/2, 3/4 or 1), s0 and s1 the scores that ELO0 and ELO1
expect. Half a round more is taken at each of a pair's five scores (for pairs,
Jeffreys' prior for a multinomial): fishtest takes an empty count as 1/1000,
which lets a first pair won twice (a variance of nearly zero) accept H1 alone;
half a pair needs a run of such pairs, and weighs little once there are tens.
The match goes on until the LLR leaves the bounds ln(beta / (1 - alpha)) and
ln((1 - beta) / alpha): below, H0 is accepted; above, H1; alpha and beta are
the chances of the two wrong decisions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sternhalma.errors import SternhalmaError

#: A pair's score per game, by its points for the first player (0, 1/2, 1, 3/2, 2).
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: The rounds added at each of PAIR_SCORES, so a few rounds all alike do not decide the test.
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

    def llr(self, rounds: Rounds) -> float:
        """The log-likelihood ratio of H1 against H0 after ``rounds`` (0 before any)."""
        if not rounds.played:
            return 0.0
        n, mean, var = rounds.moments(PRIOR)
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)

    def verdict(self, rounds: Rounds) -> str | None:
        """ "H1" or "H0" once the LLR has left the bounds; None while the test goes on."""
        llr = self.llr(rounds)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


@dataclass(frozen=True)
class Rounds:
    """The rounds played so far, each as the first player's mean score per game in it.

    A round is one opening played once with the first player in each seat: a pair with
    two players, whose score per game is 0, 1/4, 1/2, 3/4 or 1 (the pentanomial's five
    counts). With more seats a game scores the share of the other players it placed
    ahead of (a shared place half), so a round's score lies anywhere from 0 to 1."""

    scores: tuple[float, ...] = ()

    @classmethod
    def of_pairs(cls, counts: tuple[int, int, int, int, int]) -> Rounds:
        """The pairs of the pentanomial ``counts`` (pairs scoring 0, 1/2, 1, 3/2, 2 points)."""
        return cls(tuple(x for c, x in zip(counts, PAIR_SCORES, strict=True) for _ in range(c)))

    @property
    def played(self) -> int:
        return len(self.scores)

    def add(self, *games: float) -> Rounds:
        """With one more round, whose games scored ``games`` (each from 0 to 1) for the
        first player."""
        return Rounds((*self.scores, sum(games) / len(games)))

    @property
    def pentanomial(self) -> tuple[int, ...]:
        """How many pairs scored 0, 1/2, 1, 3/2 and 2 points (two-player rounds)."""
        counts = [0] * len(PAIR_SCORES)
        for score in self.scores:
            counts[round(4 * score)] += 1
        return tuple(counts)

    def moments(self, prior: float = 0.0) -> tuple[float, float, float]:
        """The rounds, their mean score per game and its variance; ``prior`` adds that many
        rounds at each of a pair's five scores."""
        n = self.played + prior * len(PAIR_SCORES)
        total = sum(self.scores) + prior * sum(PAIR_SCORES)
        mean = total / n
        var = (
            sum((x - mean) ** 2 for x in self.scores)
            + prior * sum((x - mean) ** 2 for x in PAIR_SCORES)
        ) / n
        return n, mean, var

    def elo(self) -> tuple[float, float, float]:
        """The first player's Elo lead (from its score) and the 95% interval about it
        (from the rounds' variance, with the test's prior, so never of width zero)."""
        if not self.scores:
            return 0.0, -math.inf, math.inf
        _, mean, _ = self.moments()
        _, _, var = self.moments(PRIOR)
        margin = Z95 * math.sqrt(var / self.played)
        return elo_of(mean), elo_of(mean - margin), elo_of(mean + margin)
