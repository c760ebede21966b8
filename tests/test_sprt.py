"""The sequential test: its statistics against figures worked out by hand, the rounds it
plays (pairs with two players), the players it takes, and ``sternhalma match --sprt`` on a
tiny run."""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

from sternhalma import match
from sternhalma.cli import main
from sternhalma.errors import SternhalmaError
from sternhalma.game import Game
from sternhalma.players.hard import HardSettings
from sternhalma.players.race import DuelSettings
from sternhalma.sprt import Rounds, Sprt, SprtError, elo_of, expected_score

# By hand: 50 Elo expects 1 / (1 + 10^(-50/400)) = 1 / 1.749894 = 0.571463.
S1 = 0.571463


def test_scores_and_elo_convert_both_ways() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(50) == pytest.approx(S1, abs=1e-6)
    # 0.675 = 400 log10(0.675 / 0.325) = 400 * 0.317421 points.
    assert elo_of(0.675) == pytest.approx(126.97, abs=0.01)
    assert elo_of(expected_score(-120)) == pytest.approx(-120)
    assert elo_of(1.0) == math.inf and elo_of(0.0) == -math.inf


def test_the_bounds_come_from_alpha_and_beta() -> None:
    test = Sprt(0, 50)
    assert test.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944439)
    assert test.upper == pytest.approx(2.944439)
    skewed = Sprt(0, 50, alpha=0.1, beta=0.05)
    assert skewed.lower == pytest.approx(-2.890372)  # ln(0.05 / 0.9)
    assert skewed.upper == pytest.approx(2.251292)  # ln(0.95 / 0.1)


def test_the_llr_of_even_pairs() -> None:
    # Counts 1 2 4 2 1, each plus half a pair: 1.5 2.5 4.5 2.5 1.5, N = 12.5, mean 0.5,
    # var = (2 * 1.5 * 0.25 + 2 * 2.5 * 0.0625) / 12.5 = 1.0625 / 12.5 = 0.085;
    # LLR = 12.5 * (S1 - 0.5) * (1 - 0.5 - S1) / (2 * 0.085) = -0.375512.
    pairs = Rounds.of_pairs((1, 2, 4, 2, 1))
    assert Sprt(0, 50).llr(pairs) == pytest.approx(-0.375512, abs=1e-5)
    assert pairs.played == 10
    assert Sprt(0, 50).verdict(pairs) is None


def test_the_llr_of_a_lead() -> None:
    # Counts 0 1 3 4 2 plus half a pair each: 0.5 1.5 3.5 4.5 2.5, N = 12.5;
    # mean = (0.375 + 1.75 + 3.375 + 2.5) / 12.5 = 0.64;
    # var = (0.5*0.4096 + 1.5*0.1521 + 3.5*0.0196 + 4.5*0.0121 + 2.5*0.1296) / 12.5 = 0.0704;
    # LLR = 12.5 * (S1 - 0.5) * (1.28 - 0.5 - S1) / (2 * 0.0704) = 1.3230 (S1 to 6 places).
    pairs = Rounds.of_pairs((0, 1, 3, 4, 2))
    assert Sprt(0, 50).llr(pairs) == pytest.approx(1.3230, abs=1e-4)
    # The Elo estimate comes from the counts alone: 6.75 points of 10 = 0.675.
    elo, low, high = pairs.elo()
    assert elo == pytest.approx(126.97, abs=0.01)
    # 95%: 0.675 ± 1.96 * sqrt(0.0704 / 10) = 0.675 ± 0.164452.
    assert low == pytest.approx(elo_of(0.675 - 0.164452), abs=0.01)
    assert high == pytest.approx(elo_of(0.675 + 0.164452), abs=0.01)


def test_the_test_accepts_and_rejects() -> None:
    test = Sprt(0, 50)
    assert test.verdict(Rounds.of_pairs((0, 0, 10, 20, 10))) == "H1"
    assert test.verdict(Rounds.of_pairs((10, 20, 10, 0, 0))) == "H0"
    # Even: 50 pairs do not yet tell it from 50 Elo better, 100 do.
    assert test.verdict(Rounds.of_pairs((5, 10, 20, 10, 5))) is None
    assert test.verdict(Rounds.of_pairs((10, 20, 40, 20, 10))) == "H0"
    assert test.llr(Rounds()) == 0.0


def test_a_few_pairs_all_won_do_not_decide_alone() -> None:
    test = Sprt(0, 50)
    assert test.verdict(Rounds.of_pairs((0, 0, 0, 0, 1))) is None
    assert test.verdict(Rounds.of_pairs((0, 0, 0, 0, 3))) is None
    assert test.verdict(Rounds.of_pairs((0, 0, 0, 0, 8))) == "H1"


def test_pairs_count_by_their_points() -> None:
    pairs = Rounds().add(1.0, 1.0).add(1.0, 0.0).add(0.5, 0.5).add(0.5, 1.0).add(0.0, 0.5)
    assert pairs.pentanomial == (0, 1, 2, 1, 1)
    assert sorted(pairs.scores) == list(Rounds.of_pairs((0, 1, 2, 1, 1)).scores)


def test_the_llr_of_rounds_of_three_seats() -> None:
    # Rounds of three games scoring 3/4, 1/2 and 1 a game, plus half a round at each of
    # 0, 1/4, 1/2, 3/4, 1: N = 5.5, mean = (2.25 + 1.25) / 5.5 = 0.636364;
    # var = (0.012913 + 0.018595 + 0.132231
    #        + 0.5 * (0.404959 + 0.149793 + 0.018595 + 0.012913 + 0.132231)) / 5.5 = 0.095041;
    # LLR = 5.5 * (S1 - 0.5) * (2 * 0.636364 - 0.5 - S1) / (2 * 0.095041) = 0.41617.
    rounds = Rounds().add(1.0, 0.5, 0.75).add(0.5, 0.5, 0.5).add(1.0, 1.0, 1.0)
    assert rounds.scores == (0.75, 0.5, 1.0)
    assert Sprt(0, 50).llr(rounds) == pytest.approx(0.41617, abs=1e-4)
    assert rounds.elo()[0] == pytest.approx(elo_of(0.75))


@pytest.mark.parametrize(
    ("elo0", "elo1", "alpha", "message"),
    [(50, 0, 0.05, "ELO0 must be below ELO1"), (0, 5, 0.0, "alpha"), (0, 5, 0.7, "alpha")],
)
def test_a_test_that_cannot_be_run_is_refused(
    elo0: float, elo1: float, alpha: float, message: str
) -> None:
    with pytest.raises(SprtError, match=message):
        Sprt(elo0, elo1, alpha)


# -- the players and the pairs --------------------------------------------------------
def test_a_contestant_names_its_own_limits_and_settings() -> None:
    hard = match.contestant("hard:nodes=20000:seconds=0.5:duel.breadth=8:compiled_scale=6")
    assert (hard.level, hard.nodes, hard.seconds) == ("hard", 20000, 0.5)
    assert hard.settings == HardSettings(duel=DuelSettings(breadth=8), compiled_scale=6)
    weighed = match.contestant("hard:duel.weights.rows=10:crowd.weights.group=0").settings
    assert weighed is not None
    assert (weighed.duel.weights.rows, weighed.crowd.weights.group) == (10, 0)
    assert weighed.duel.weights.steps == HardSettings().duel.weights.steps
    assert weighed.duel.breadth == HardSettings().duel.breadth
    assert str(hard) == "hard:nodes=20000:seconds=0.5:duel.breadth=8:compiled_scale=6"
    plain = match.contestant(" Medium ")
    assert (plain.level, plain.nodes, plain.settings, str(plain)) == (
        "medium",
        None,
        None,
        "medium",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hard:nodes", "key=value"),
        ("hard:nodes=many", "nodes is a number"),
        ("hard:nodes=0", "more than 0"),
        ("hard:nodes=10000000000000", "at most"),
        ("hard:seconds=nan", "seconds is more than 0"),
        ("hard:width=3", "no setting 'width'"),
        ("hard:duel=fast", "duel cannot be set"),
        ("hard:duel.weights=1", "cannot be set"),
        ("hard:duel.weights.rows=many", "duel.weights.rows is a number"),
        ("hard:duel.weights.depth=1", "no setting 'duel.weights.depth'"),
        ("hard:weights.rows=1", "no setting 'weights.rows'"),
        ("hard:compiled_scale.x=1", "compiled_scale has no fields"),
        ("hard:duel.breadth=1e12", "duel.breadth is a number"),
        ("hard:duel.breadth=0", "breadth is at least 1"),
        ("hard:solo.beam_depth=0", "beam_depth is at least 1"),
        ("hard:crowd.playout_options=-1", "playout_options is at least 1"),
        ("medium:nodes=5", "only hard takes options"),
        ("genius", "unknown level"),
    ],
)
def test_a_contestant_that_does_not_exist_is_refused(text: str, message: str) -> None:
    with pytest.raises(SternhalmaError, match=message):
        match.contestant(text)


def test_a_pair_is_one_opening_with_the_seats_swapped() -> None:
    template = match.plan_sprt("classic-2", ["hard:nodes=300", "hard:nodes=100"], seed=4)
    first, second = match.round_tasks(template, 3)
    assert (first.number, second.number) == (5, 6)
    assert (first.seating, second.seating) == ((0, 1), (1, 0))
    assert first.opening == second.opening
    assert len(first.opening) == 2 * match.OPENING_MOVES
    assert match.round_tasks(template, 4)[0].opening != first.opening
    game = Game("classic-2")
    for text in first.opening:
        game.play(text)  # legal moves from the start
    assert game.turn == 0


def test_a_round_of_three_seats_the_tested_player_in_each() -> None:
    template = match.plan_sprt("classic-3", ["hard:nodes=300", "hard:nodes=100"], seed=4)
    games = match.round_tasks(template, 2)
    assert [g.number for g in games] == [4, 5, 6]
    assert [g.seating.index(0) for g in games] == [0, 1, 2]
    assert all(sorted(g.seating) == [0, 1, 2] for g in games)
    assert len({g.opening for g in games}) == 1
    assert len(games[0].opening) == 3 * match.OPENING_MOVES
    game = Game("classic-3")
    for text in games[0].opening:
        game.play(text)
    assert game.turn == 0


def _report(seating: tuple[int, ...], places: tuple[int, ...]) -> match.GameReport:
    seats = len(seating)
    return match.GameReport(
        number=1,
        variant=f"classic-{seats}",
        seating=seating,
        places=places,
        ending="finished",
        reason="",
        moves=(0,) * seats,
        score=(0,) * seats,
        finished=tuple(p == 1 for p in places),
        think=(0.0,) * seats,
        longest=(0.0,) * seats,
        times=((),) * seats,
        cpu=((),) * seats,
    )


@pytest.mark.parametrize(
    ("seating", "places", "score"),
    [
        ((0, 1), (1, 2), 1.0),
        ((1, 0), (1, 1), 0.5),
        ((1, 0), (1, 2), 0.0),
        # Ahead of one of two, level with the other.
        ((1, 0, 2), (3, 2, 2), 0.75),
        # Behind the first, level with the second.
        ((1, 0, 2), (1, 2, 2), 0.25),
        ((2, 3, 4, 5, 0, 1), (2, 3, 4, 5, 1, 6), 1.0),
    ],
)
def test_a_game_scores_the_share_of_the_others_placed_behind(
    seating: tuple[int, ...], places: tuple[int, ...], score: float
) -> None:
    assert match.tested_score(_report(seating, places)) == score


def test_the_players_limits_reach_the_games() -> None:
    template = match.plan_sprt("classic-2", ["hard:nodes=400", "hard:nodes=100"], seed=2)
    first, second = match.round_tasks(template, 1)
    for task in (first, second):
        report = match.play_game(task)
        tested = report.seat_of(0)
        assert {s.nodes for s in report.searches[tested]} <= set(range(401))
        assert max(s.nodes for s in report.searches[tested]) > 100
        assert max(s.nodes for s in report.searches[1 - tested]) <= 100


@pytest.mark.parametrize(
    ("variant", "players", "message"),
    [
        ("classic-3", ["hard", "medium", "easy"], "needs two players"),
        ("classic-2", ["hard"], "needs two players"),
    ],
)
def test_a_sequential_test_needs_two_players(
    variant: str, players: list[str], message: str
) -> None:
    with pytest.raises(SternhalmaError, match=message):
        match.plan_sprt(variant, players, seed=1)


def test_the_test_stops_when_it_decides() -> None:
    template = match.plan_sprt("classic-2", ["medium", "easy"], seed=1)
    seen: list[int] = []
    state = match.run_sprt(template, Sprt(0, 100), 200, on_round=lambda s: seen.append(s.games))
    assert state.verdict == "H1"
    assert seen == list(range(2, state.games + 1, 2))
    assert state.games < 200
    assert state.wins + state.draws + state.losses == state.games == 2 * state.rounds.played


def test_the_test_plays_pairs_in_parallel_and_counts_whole_pairs() -> None:
    template = match.plan_sprt("classic-2", ["medium", "easy"], seed=1)
    alone = match.run_sprt(template, Sprt(0, 100), 200)
    together = match.run_sprt(template, Sprt(0, 100), 200, jobs=2)
    assert together.verdict == alone.verdict == "H1"
    assert together.games == 2 * together.rounds.played
    # Medium wins every game here, so the order pairs finish in does not matter.
    assert together.rounds == alone.rounds


def test_a_test_of_three_seats_counts_whole_rounds() -> None:
    template = match.plan_sprt("classic-3", ["medium", "easy"], seed=1)
    seen: list[int] = []
    state = match.run_sprt(
        template, Sprt(0, 100), 60, jobs=2, on_round=lambda s: seen.append(s.games)
    )
    assert state.verdict == "H1"
    assert seen == list(range(3, state.games + 1, 3))
    assert state.games == 3 * state.rounds.played
    assert state.wins == state.games  # Medium comes first against two Easy every time
    assert set(state.rounds.scores) == {1.0}
    with pytest.raises(SternhalmaError, match=r"at least one round \(3 games\)"):
        match.run_sprt(template, Sprt(0, 100), 2)


# -- the command ---------------------------------------------------------------------
def test_the_command_runs_a_tiny_test_to_its_verdict() -> None:
    arguments = ["match", "--players", "medium,easy", "--sprt", "0", "100", "--seed", "1"]
    result = CliRunner().invoke(main, [*arguments, "--max-games", "60"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("SPRT classic-2: medium against easy; H0 +0 Elo, H1 +100 Elo")
    assert "LLR bounds -2.94, 2.94" in lines[0]
    assert lines[1].startswith("pair    1: 2 games, W ")
    assert lines[-1].startswith(
        "H1 accepted: medium is nearer +100 than +0 Elo against easy, after "
    )
    assert "LLR " in lines[-1] and "Elo +" in lines[-1]


def test_the_command_tests_a_player_against_the_other_seats() -> None:
    arguments = ["match", "--variant", "classic-3", "--players", "medium,easy", "--sprt", "0"]
    result = CliRunner().invoke(main, [*arguments, "100", "--max-games", "60", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("SPRT classic-3: medium against 2 × easy; H0 +0 Elo")
    assert lines[1].startswith("round    1: 3 games, W 3 D 0 L 0, score 1.000 a game, LLR ")
    assert lines[-1].startswith("H1 accepted: medium is nearer +100 than +0 Elo against easy")


def test_the_command_stops_undecided_at_the_most_games() -> None:
    arguments = ["match", "--players", "medium,easy", "--sprt", "0", "100", "--max-games", "4"]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("no decision within 4 games, after 2 pairs")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--players", "hard,medium,easy", "--sprt", "0", "5"], "needs two players"),
        (["--variant", "classic-6", "--sprt", "0", "5", "--max-games", "5"], "one round (6 games)"),
        (["--sprt", "5", "0"], "ELO0 must be below ELO1"),
        (["--players", "hard:nodes=x,easy", "--sprt", "0", "5"], "nodes is a number"),
    ],
)
def test_a_test_that_does_not_fit_is_one_line(arguments: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["match", *arguments])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output
