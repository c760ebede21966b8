"""Computer players: Easy and Medium, Hard's search, one interface.

Easy and Medium as docs/players.md#easy-and-medium defines them.
"""

from __future__ import annotations

import pickle
import random

import pytest
from helpers import position

from sternhalma import core
from sternhalma.benchmark import sample_positions
from sternhalma.boards.base import bits
from sternhalma.errors import SternhalmaError
from sternhalma.game import Game, GameError
from sternhalma.players import (
    LEVELS,
    EasyPlayer,
    HardPlayer,
    Limit,
    MediumPlayer,
    UnknownLevelError,
    make_player,
)
from sternhalma.players.base import careful_moves
from sternhalma.players.evaluate import unpack
from sternhalma.players.hard import HardSettings
from sternhalma.players.history import races, repetition_result
from sternhalma.players.rows import row_gain, row_table
from sternhalma.position import Move, Position
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.rules.capture import CaptureRules
from sternhalma.rules.race import RaceRules

#: A small fixed search for Hard: quick and reproducible in tests (the others ignore it).
SMALL = Limit(nodes=300)


def small_hard(seed: int = 0) -> HardPlayer:
    """Hard, to be asked with ``SMALL``."""
    return HardPlayer(seed)


def players(seed: int = 0) -> list[EasyPlayer | MediumPlayer | HardPlayer]:
    return [EasyPlayer(seed), MediumPlayer(seed), small_hard(seed)]


def rows_of(variant: str, colour: str, name: str) -> int:
    rules = find_variant(variant)
    return row_table(rules)[rules.seat_of(colour)][rules.board.index(name)]


# -- the levels by name --------------------------------------------------------


def test_make_player_builds_every_level_by_name() -> None:
    assert LEVELS == ("easy", "medium", "hard")
    assert isinstance(make_player("easy", 3), EasyPlayer)
    assert isinstance(make_player(" Medium "), MediumPlayer)
    hard = make_player("hard", 7)
    assert isinstance(hard, HardPlayer) and hard.seed == 7


def test_an_unknown_level_is_a_readable_value_error() -> None:
    with pytest.raises(UnknownLevelError, match=r"unknown level 'expert'.*easy, medium, hard"):
        make_player("expert")
    assert issubclass(UnknownLevelError, SternhalmaError)


# -- progress rows ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("colour", "home_tip", "goal_tip"),
    [
        ("white", "m1", "e17"),
        ("black", "e17", "m1"),
        ("red", "e5", "m13"),
        ("yellow", "m13", "e5"),
        ("blue", "a13", "q5"),
        ("green", "q5", "a13"),
    ],
)
def test_row_index_runs_from_1_at_the_home_tip_to_17_at_the_goal_tip(
    colour: str, home_tip: str, goal_tip: str
) -> None:
    assert rows_of("classic-6", colour, home_tip) == 1
    assert rows_of("classic-6", colour, goal_tip) == 17
    assert rows_of("classic-6", colour, "i9") == 9


def test_halma_row_index_is_the_anti_diagonal_toward_the_goal_corner() -> None:
    # The source documents' rule: white (bottom-right camp) (17 - column) + row - 1, black mirrored.
    assert rows_of("halma-2", "white", "p1") == 1
    assert rows_of("halma-2", "white", "a16") == 31
    assert rows_of("halma-2", "white", "c5") == (17 - 3) + 5 - 1
    assert rows_of("halma-2", "black", "a16") == 1
    assert rows_of("halma-2", "black", "c5") == 3 + (17 - 5) - 1


def test_capture_has_no_rows() -> None:
    with pytest.raises(ValueError, match="belong to nobody"):
        row_table(find_variant("capture-2"))


# -- one interface, every variant ----------------------------------------------------


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_level_returns_a_legal_move_in_every_variant(variant: str) -> None:
    rules = find_variant(variant)
    starts = [rules.initial(), *sample_positions(rules, 2, seed=5)]
    for start in starts:
        game = Game(rules, start=start)
        if game.is_over:
            continue
        for player in players(seed=11):
            move = player.choose(game, Limit(5.0, 300)).move
            assert rules.is_legal(game.position, move), (variant, type(player).__name__)


@pytest.mark.parametrize("variant", ["classic-3", "pairs-4", "halma-2", "capture-2"])
def test_levels_play_a_whole_game_of_legal_moves(variant: str) -> None:
    rules = find_variant(variant)
    game = Game(rules)
    seats = [MediumPlayer(1) if seat % 2 else EasyPlayer(2) for seat in range(rules.players)]
    while game.turn is not None:
        game.play(seats[game.turn].choose(game).move)  # play() refuses anything illegal
    assert game.result is not None
    assert len(game.moves) > rules.players


def test_the_same_seed_gives_the_same_move_and_a_rebuilt_player_agrees() -> None:
    rules = find_variant("classic-2")
    for start in sample_positions(rules, 3, seed=2):
        game = Game(rules, start=start)
        for player in players(seed=4):
            first = player.choose(game, Limit(5.0, 300)).move
            assert player.choose(game, Limit(5.0, 300)).move == first
            rebuilt = pickle.loads(pickle.dumps(player))
            assert rebuilt.choose(game, Limit(5.0, 300)).move == first


def test_easy_seeds_make_different_games() -> None:
    game = Game("classic-2")
    chosen = {EasyPlayer(seed).choose(game).move for seed in range(20)}
    assert len(chosen) > 3


def test_choose_after_the_end_is_refused() -> None:
    game = Game("classic-2")
    game.resign("white")
    for player in players():
        with pytest.raises(GameError, match="game is over"):
            player.choose(game)


# -- Easy and Medium (docs/players.md#easy-and-medium) -----------------------------


def test_easy_picks_only_moves_that_raise_the_marbles_row() -> None:
    rules = find_variant("classic-2")
    for start in sample_positions(rules, 6, seed=9):
        game = Game(rules, start=start)
        seat = start.turn
        moves = rules.legal_moves(start)
        if not any(row_gain(rules, seat, m[0], m[-1]) > 0 for m in moves):
            continue
        for seed in range(5):
            move = EasyPlayer(seed).choose(game).move
            assert row_gain(rules, seat, move[0], move[-1]) > 0


def test_easy_falls_back_to_any_move_when_none_goes_forward() -> None:
    # White's last marble sits at the goal tip: every move goes back.
    pos = position("classic-2", "white", white="e17", black="m1")
    game = Game(pos.rules, start=pos)
    move = EasyPlayer(1).choose(game).move
    assert pos.rules.is_legal(pos, move)
    assert row_gain(pos.rules, 0, move[0], move[-1]) < 0


def test_medium_picks_the_move_that_raises_the_row_the_most() -> None:
    rules = find_variant("classic-2")
    for start in sample_positions(rules, 8, seed=3):
        game = Game(rules, start=start)
        seat = start.turn
        best = max(row_gain(rules, seat, m[0], m[-1]) for m in rules.legal_moves(start))
        move = MediumPlayer(5).choose(game).move
        assert row_gain(rules, seat, move[0], move[-1]) == best


def test_medium_breaks_ties_at_random() -> None:
    game = Game("classic-2")  # at the start several moves gain 2 rows
    assert len({MediumPlayer(seed).choose(game).move for seed in range(20)}) > 1


def test_in_capture_medium_takes_the_longest_chain_and_easy_any_legal_one() -> None:
    rules = find_variant("capture-2")
    for start in sample_positions(rules, 4, seed=1):
        game = Game(rules, start=start)
        if game.is_over:
            continue
        longest = max(len(m) for m in rules.distinct_moves(start))
        assert len(MediumPlayer(2).choose(game).move) == longest
        assert rules.is_legal(start, EasyPlayer(2).choose(game).move)


# -- deadline care (docs/players.md#easy-and-medium) -------------------------------------

#: White on its 28th move with one marble still at home (m4) and a big jump elsewhere.
NEAR_DEADLINE = position(
    "classic-2",
    "white",
    white="m4 h8 h10 g12 e14 f14 g14 e15 f15 e16",
    black="i9 i11 g13 l2 m2 k3 l3 m3 j4 k4",
)


def test_near_the_deadline_the_simple_levels_move_a_marble_out_of_home() -> None:
    rules = NEAR_DEADLINE.rules
    assert isinstance(rules, RaceRules)
    game = Game(rules, start=NEAR_DEADLINE, moves_made=(27, 27))
    home = rules.homes[0]
    for player in (EasyPlayer(1), MediumPlayer(1), small_hard(1)):
        move = player.choose(game, SMALL).move
        assert home >> move[0] & 1 and not home >> move[-1] & 1, type(player).__name__


def test_well_before_the_deadline_medium_plays_its_greedy_move() -> None:
    rules = NEAR_DEADLINE.rules
    game = Game(rules, start=NEAR_DEADLINE, moves_made=(10, 10))
    moves = rules.legal_moves(NEAR_DEADLINE)
    from_home = max(
        row_gain(rules, 0, m[0], m[-1]) for m in moves if m[0] == rules.board.index("m4")
    )
    move = MediumPlayer(1).choose(game).move
    assert row_gain(rules, 0, move[0], move[-1]) > from_home


def test_no_level_puts_itself_out_while_another_move_exists() -> None:
    # White's 31st move: l5 may not go back home (l4, m4 would put white out).
    pos = position(
        "classic-2",
        "white",
        white="l5 h8 h10 g12 e14 f14 g14 e15 f15 e16",
        black="i9 i11 g13 l2 m2 k3 l3 m3 j4 k4",
    )
    game = Game(pos.rules, start=pos, moves_made=(30, 30))
    moves = pos.rules.legal_moves(pos)
    assert any(game.would_put_out(m) for m in moves)
    safe = careful_moves(game, 0, moves)
    assert safe and not any(game.would_put_out(m) for m in safe)
    for player in players(3):
        for _ in range(3):
            assert not game.would_put_out(player.choose(game, SMALL).move)


def test_without_the_deadline_rule_there_is_no_care() -> None:
    game = Game(NEAR_DEADLINE.rules, start=NEAR_DEADLINE, moves_made=(27, 27), deadline_rule=False)
    moves = NEAR_DEADLINE.rules.legal_moves(NEAR_DEADLINE)
    assert careful_moves(game, 0, moves) == moves


# -- Hard --------------------------------------------------------------------------


def test_hard_finishes_when_one_move_finishes() -> None:
    # Nine white marbles in the goal; e13-e14 fills the last hole.
    pos = position(
        "classic-2",
        "white",
        white="e13 f14 g14 h14 e15 f15 g15 e16 f16 e17",
        black="i5 j5 k5 l5 i6 j6 k6 i7 j7 i8",
    )
    game = Game(pos.rules, start=pos)
    move = HardPlayer(0).choose(game, Limit(nodes=200)).move
    game.play(move)
    assert game.status("white") == "finished"  # black still has its last reply


def test_hards_search_sees_a_finish_only_where_the_referee_gives_one() -> None:
    # White's goal holds black's e17; e13-e14 fills its last hole. The owner's marble counts
    # only from the end of black's 30th move (rules.md#finishing).
    from sternhalma.players.evaluate import WIN
    from sternhalma.players.race import DuelSettings

    # Far ahead, Hard would plan on the rival's racing moves: alpha-beta keeps a score.
    hard = HardPlayer(0, settings=HardSettings(duel=DuelSettings(race_lead=0)))
    pos = position(
        "classic-2",
        "white",
        white="e13 f14 g14 h14 e15 f15 g15 e16 f16 i8",
        black="e17 i5 j5 k5 l5 i6 j6 k6 i7 j7",
    )
    for black_made, finishes in ((29, False), (30, True)):
        game = Game(pos.rules, start=pos, moves_made=[29, black_made])
        choice = hard.choose(game, Limit(nodes=200))
        assert choice.info.search == "alphabeta"
        assert choice.info.score is not None and (choice.info.score >= WIN - 1) is finishes
        game.play(choice.move)
        assert (game.status("white") == "finished") is finishes


def test_hard_climbs_the_ladder() -> None:
    # A ladder of black marbles carries white's marble from k4 up to k8 or k10;
    # everything else gains at most 2 rows.
    pos = position(
        "classic-2",
        "white",
        white="m1 l2 m2 k3 l3 m3 j4 k4 l4 m4",
        black="k5 k7 k9 e14 f14 g14 h14 e15 f15 g15",
    )
    game = Game(pos.rules, start=pos)
    move = HardPlayer(0).choose(game, Limit(nodes=2000)).move
    assert pos.rules.format_move(move) in ("k4-k6-k8", "k4-k6-k8-k10")


def test_hard_beats_medium_in_a_short_match() -> None:
    from sternhalma import match

    tasks = match.plan("classic-2", ["hard", "medium"], 2, seed=3, nodes=600, budget=10.0)
    reports = match.run(tasks)
    assert all(report.winners == (0,) for report in reports)
    moves = [report.moves[report.seat_of(0)] for report in reports]
    assert max(moves) < 50  # Medium needs about 55 against Easy


def test_hard_plays_capture_to_win_the_captures() -> None:
    rules = find_variant("capture-2")
    rng = random.Random(4)
    start = rules.initial()
    for _ in range(6):  # a few random captures into the game
        start = rules.apply_unchecked(start, rng.choice(rules.distinct_moves(start)))
    game = Game(rules, start=start)
    hard, medium = HardPlayer(1), MediumPlayer(1)
    seats = {game.turn: hard, 1 - (game.turn or 0): medium}
    while game.turn is not None:
        game.play(seats[game.turn].choose(game, Limit(10.0, 400)).move)
    assert game.result is not None
    hard_seat = next(s for s, p in seats.items() if p is hard)
    assert game.result.places[hard_seat] == 1


def test_the_capture_search_sees_the_game_end_at_its_horizon() -> None:
    from sternhalma.players.capture import WIN, CaptureSearch
    from sternhalma.players.search import Limits

    # h7-h5 captures one and leaves no jump anywhere: the game ends, won 1-0. h6-h8-h10
    # captures two but leaves a jump, so the game goes on. One ply deep, a leaf without a
    # jump is the game's end (a win), not a lead of one.
    rules = find_variant("capture-2")
    start = Position(rules, 0, (), rules.board.mask_of_names(["g11", "h6", "h7", "h9"]), (0, 0))
    win, longer = rules.parse_move(start, "h7-h5"), rules.parse_move(start, "h6-h8-h10")
    assert not rules.has_move(rules.apply_unchecked(start, win))
    assert rules.has_move(rules.apply_unchecked(start, longer))
    search = CaptureSearch(rules, 0, [0, 1], Limits.of(10_000, None), max_depth=1)
    assert search.choose(start, [longer, win]) == win
    assert search.score == WIN - 1


def three_ply_value(rules: CaptureRules, start: Position, me: int) -> int:
    """By brute force, three plies of the capture search with three or more players
    (players/capture.py): our move, the reply of any rival worst for us, then the best
    line move for our lead, credited to the seat whose turn it is; every chain weighed."""
    from sternhalma.players.capture import WIN

    def lead(p: Position) -> int:
        return p.captured[me] - max(c for s, c in enumerate(p.captured) if s != me)

    def final(p: Position, ply: int) -> int:
        return WIN - ply if lead(p) > 0 else -WIN + ply if lead(p) < 0 else 0

    def line(p: Position) -> int:
        after = [rules.apply_unchecked(p, move) for move in rules.distinct_moves(p)]
        return max(
            (lead(q) if rules.has_move(q) else final(q, 3) for q in after),
            default=final(p, 2),
        )

    def reply(p: Position) -> int:
        return min(
            (
                line(rules.apply_unchecked(p.with_turn(rival), move))
                for move in rules.distinct_moves(p)
                for rival in range(rules.players)
                if rival != me
            ),
            default=final(p, 1),
        )

    return max(reply(rules.apply_unchecked(start, move)) for move in rules.distinct_moves(start))


def test_with_three_players_the_capture_search_weighs_every_chain() -> None:
    from sternhalma.players.capture import CaptureSearch
    from sternhalma.players.search import Limits

    # Between several rivals the longest chains are not the only ones that matter: where
    # a line move's captures go to a rival, the best is a short one. Three plies deep the
    # search finds the brute-force value over every chain.
    rules = find_variant("capture-3")
    assert isinstance(rules, CaptureRules)
    rng = random.Random(6)  # its first position's value needs a chain beyond the 8 longest
    holes = list(bits(rules.initial().pieces))
    checked = 0
    while checked < 3:  # under a third of the pieces left, each seat some captured
        pieces = sum(1 << h for h in rng.sample(holes, 18))
        captured = tuple(rng.randint(0, 4) for _ in range(3))
        start = Position(rules, rng.randrange(3), (), pieces, captured)
        options = rules.distinct_moves(start)
        if len(options) < 4:
            continue
        search = CaptureSearch(rules, start.turn, [0, 1, 2], Limits.of(10**7, None), max_depth=3)
        search.choose(start, options)
        assert search.depth_reached == 3
        assert search.score == three_ply_value(rules, start, start.turn)
        checked += 1


# -- Hard's search against the engine and against plain minimax ------------------------


@pytest.mark.parametrize("variant", [v for v, r in VARIANTS.items() if isinstance(r, RaceRules)])
def test_the_searches_move_ends_are_the_engines_moves(variant: str) -> None:
    # The fallback search lists moves without their paths: the same moves, in order.
    rules = find_variant(variant)
    assert isinstance(rules, RaceRules)
    for start in sample_positions(rules, 8, seed=12):
        for seat in range(rules.players):
            ends = rules.move_ends(start.occupied, seat, start.marbles[seat])
            moves = rules.moves_of(start, seat, start.marbles[seat])
            assert ends == [(m[0], m[-1]) for m in moves] and moves


# -- Hard in Halma: no anti-blocking rule, repetition is a draw --------------------------


def test_hard_never_shuts_a_rival_piece_in_its_goal() -> None:
    from sternhalma.players.hard import _sensible

    # Black's a16 stands in white's goal; its only way forward is the step to b16.
    start = position("halma-2", "white", white="a15 b15 a14 c14 c16 c15 h8", black="a16 p8")
    game = Game(start.rules, start=start)
    moves = start.rules.legal_moves(start)
    shut = start.rules.parse_move(start, "c15-b16")
    assert shut in moves
    kept = _sensible(game, 0, moves)
    assert shut not in kept and len(kept) == len(moves) - 1
    assert HardPlayer(0).choose(game, Limit(nodes=300)).move != shut


def test_hard_ahead_in_halma_does_not_repeat_a_position_a_third_time() -> None:
    from sternhalma.players.hard import _sensible

    # White has two pieces in its goal, black none: at the round limit white is ranked first.
    start = position("halma-2", "black", white="a16 b16 h8", black="c3")
    game = Game(start.rules, start=start)
    for text in ["c3-c4", "h8-h9", "c4-c3", "h9-h8", "c3-c4", "h8-h9", "c4-c3"]:
        game.play(text)
    back = start.rules.parse_move(game.position, "h9-h8")  # the start position, a third time
    moves = start.rules.legal_moves(game.position)
    assert back in moves and back not in _sensible(game, 0, moves)
    assert HardPlayer(0).choose(game, Limit(nodes=300)).move != back


# -- Hard and the game's history on the star: a third repetition ends the game ranked ----

#: White's marble shuffles round a triangle j4-j5-i5 and black's round e14-e13-f13, so the
#: position after ``lead`` comes back every six moves; white's i5-j4 brings it the third
#: time, and the move it goes back on is not the reverse of its last (j5-i5).
TRIANGLES = ["e14-e13", "j4-j5", "e13-f13", "j5-i5", "f13-e14", "i5-j4"]


def triangles(lead: list[str]) -> tuple[Game, Move]:
    """A classic-2 game after ``lead`` and two turns of the triangles but white's last move,
    and that move (it makes the third repetition)."""
    game = Game("classic-2")
    for text in [*lead, *TRIANGLES, *TRIANGLES[:-1]]:
        game.play(text)
    third = game.rules.parse_move(game.position, TRIANGLES[-1])
    result = repetition_result(game, third)
    assert result is not None and result.ending == "repetition"
    return game, third


def test_hard_behind_never_makes_the_third_repetition() -> None:
    # Black's jump f15-h13 leads; white's m4 went out and back: the ranking puts black first.
    game, third = triangles(["m4-m5", "f15-h13", "m5-m4"])
    trial = game.copy()
    trial.play(third)
    assert trial.result is not None and trial.result.winners == (1,)
    from sternhalma.players.hard import _sensible

    assert third not in _sensible(game, 0, game.legal_moves())
    for seed in range(4):
        assert HardPlayer(seed).choose(game, Limit(nodes=300)).move != third


def test_hard_ahead_ends_the_game_with_the_third_repetition() -> None:
    # White's jump k3-k5 leads: the repetition ranks white first, a win at once.
    game, third = triangles(["k3-k5"])
    for seed in range(4):
        move = HardPlayer(seed).choose(game, Limit(nodes=300)).move
        assert move == third
    game.play(move)
    assert game.result is not None and game.result.ending == "repetition"
    assert game.result.winners == (0,)


def test_hard_does_not_step_straight_back_while_a_move_gains_a_row() -> None:
    from sternhalma.players.hard import _sensible

    game = Game("classic-2")
    for text in ["j4-j5", "e14-e13"]:
        game.play(text)
    back = game.rules.parse_move(game.position, "j5-j4")
    moves = game.legal_moves()
    assert back in moves and back not in _sensible(game, 0, moves)
    # White's last marble went into the goal's tip; no move gains a row from there, and
    # going straight back is as good as any other.
    start = position("classic-2", "white", white="e16", black="i9")
    game = Game(start.rules, start=start)
    for text in ["e16-e17", "i9-i8"]:
        game.play(text)
    back = game.rules.parse_move(game.position, "e17-e16")
    assert back in _sensible(game, 0, game.legal_moves())


def test_hard_reads_whether_its_rival_has_been_racing() -> None:
    game = Game("classic-2")
    medium, easy = MediumPlayer(3), EasyPlayer(4)
    for _ in range(5):  # white plays anything, black races (the biggest gain in rows)
        game.play(easy.choose(game).move)
        game.play(medium.choose(game).move)
    assert races(game, 1, 5) and not races(game, 1, 6)  # six moves not made yet
    game.play(easy.choose(game).move)
    gains = {m: row_gain(game.rules, 1, m[0], m[-1]) for m in game.legal_moves()}
    game.play(next(m for m, gain in gains.items() if gain < max(gains.values())))
    assert not races(game, 1, 1) and not races(game, 1, 5)
    game.play(easy.choose(game).move)
    game.play(medium.choose(game).move)
    assert races(game, 1, 1) and not races(game, 1, 2)


def test_hard_plans_on_the_moves_of_a_rival_that_races() -> None:
    # Black races for 8 moves (Medium); white, Hard, then plans on black's racing moves,
    # at any lead. After one black move that does not race, white guards again.
    game = Game("classic-2")
    easy, medium = EasyPlayer(5), MediumPlayer(6)
    for _ in range(8):
        game.play(easy.choose(game).move)
        game.play(medium.choose(game).move)
    hard = HardPlayer(0)
    assert hard.choose(game, Limit(nodes=2_000)).info.search == "forecast"
    game.play(easy.choose(game).move)
    gains = {m: row_gain(game.rules, 1, m[0], m[-1]) for m in game.legal_moves()}
    game.play(next(m for m, gain in gains.items() if gain < max(gains.values())))
    assert hard.choose(game, Limit(nodes=2_000)).info.search == "alphabeta"


#: classic-6, white to move (blue and yellow where classic-3 seats them, the others
#: empty). White's i8 can jump over blue's i9 and its own i11 now (i8-i10-i12, +4 rows),
#: but i9 is about to leave: jumping over j9 to k9 is blue's racing move (its only 2-row
#: gain). White's g8 has a bigger jump, g8-g10-g12-g14 (+6), which nobody can take away.
CROWD = position("classic-6", "white", white="i8 i11 g8 g9 g11 g13", blue="i9 j9", yellow="m12")


def test_in_a_crowd_hard_takes_the_rung_a_racing_rival_is_about_to_take_away() -> None:
    # Playing the next moves out with the rivals racing, Hard sees that the bigger jump
    # will still be there next move and the jump over i9 will not.
    for seed in range(3):
        game = Game(CROWD.rules, start=CROWD)
        greedy = MediumPlayer(seed).choose(game).move
        assert game.rules.format_move(greedy) == "g8-g10-g12-g14"
        choice = HardPlayer(seed).choose(game, Limit(nodes=5_000))
        move = choice.move
        assert choice.info.search == "playout"
        assert game.rules.format_move(move) == "i8-i10-i12"


@pytest.mark.parametrize(("variant", "search"), [("classic-3", "solo"), ("classic-6", "playout")])
def test_three_who_never_meet_head_on_plan_their_own_race(variant: str, search: str) -> None:
    # Classic-3's goals are empty points: its rivals only cross our way, so Hard plans
    # its own race with their marbles standing (solo); where seats meet head on, playouts.
    game = Game(variant)
    players = [MediumPlayer(seat) for seat in range(game.rules.players)]
    while game.moves_made(0) < 6 or game.turn != 0:
        game.play(players[game.turn].choose(game).move)
    assert HardPlayer(0).choose(game, Limit(nodes=3_000)).info.search == search


def _line_game(search: str) -> tuple[Game, HardPlayer]:
    """A game where Hard (to move) runs ``search``."""
    from sternhalma.players.race import DuelSettings

    variant = "classic-3" if search == "solo" else "classic-2"
    game = Game(variant)
    levels = [
        EasyPlayer(seat) if search == "alphabeta" else MediumPlayer(seat) for seat in (0, 1, 2)
    ]
    while game.moves_made(0) < 9 or game.turn != 0:
        game.play(levels[game.turn].choose(game).move)
    # Far behind or not, in contact Hard guards against its rival (no forecast).
    duel = DuelSettings(race_lead=0, racer_moves=0 if search == "alphabeta" else 8)
    return game, HardPlayer(3, settings=HardSettings(duel=duel))


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "fallback"])
@pytest.mark.parametrize("search", ["alphabeta", "forecast", "solo"])
def test_hards_principal_line_begins_with_its_move_and_is_legal_where_played(
    search: str, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Alpha-beta's line is both players' moves in turn; the beam's is Hard's own plan, the
    # rivals' marbles standing (solo) or after their racing moves (the forecast). The
    # compiled core and the fallback keep it alike.
    from sternhalma.players.fallback import racing_move
    from sternhalma.players.rows import row_table

    if compiled and not core.COMPILED:
        pytest.skip("no compiled core here")
    if not compiled:
        monkeypatch.setattr(core, "native_race_core", lambda rules: None)
    game, hard = _line_game(search)
    choice = hard.choose(game, Limit(nodes=20_000 if compiled else 4_000))
    info = choice.info
    assert info.search == search
    assert info.line[0] == choice.move
    assert len(info.line) >= (3 if search == "alphabeta" else 8)
    assert len(info.line) <= info.depth + 1
    rules = game.rules
    marbles = list(game.position.marbles)
    seat = 0
    for number, move in enumerate(info.line):
        if number and search == "forecast":
            racing = racing_move(rules, [-row for row in row_table(rules)[1]], tuple(marbles), 1)
            if racing is not None:
                marbles[1] ^= (1 << racing[0]) | (1 << racing[1])
        here = Position(rules, seat, tuple(marbles))
        assert move in rules.moves_of(here, seat, 1 << move[0]), (number, move)
        marbles[seat] ^= (1 << move[0]) | (1 << move[-1])
        if search == "alphabeta":
            seat = 1 - seat


def test_a_setting_its_search_cannot_use_is_refused() -> None:
    from sternhalma.players.race import CrowdSettings, DuelSettings, SoloSettings

    with pytest.raises(ValueError, match="reply_breadth is at least 1, not 0"):
        DuelSettings(reply_breadth=0)
    with pytest.raises(ValueError, match="race_lead is at least 0"):
        DuelSettings(race_lead=-1)
    with pytest.raises(ValueError, match="playout_moves is at least 1"):
        CrowdSettings(playout_moves=0)
    with pytest.raises(ValueError, match="beam_depth is at least 1"):
        SoloSettings(beam_depth=0)


def test_in_pairs_the_playouts_hinder_only_the_other_team() -> None:
    from sternhalma.players.race import RaceSearch
    from sternhalma.players.search import Limits

    rules = find_variant("pairs-4")  # white and black against red and yellow
    assert isinstance(rules, RaceRules)
    search = RaceSearch(rules, rules.seat_of("white"), range(4), Limits.of(100, None))
    assert sorted(rules.seats[s] for s in search.opponents) == ["red", "yellow"]


# -- Hard's deadline care cannot trap itself ------------------------------------------

#: White's 28th move, one marble at home (l3). Its own marbles stand on every hole just
#: outside the home (i5-m5) and black's behind them (h6-m6) close every jump: no move
#: takes l3 out, and no black marble is beside a home hole, so it is never locked.
TRAP = position(
    "classic-2",
    "white",
    white="l3 i5 j5 k5 l5 m5 g10 h10 g11 h11",
    black="h6 i6 j6 k6 l6 m6 e14 f14 g14 h14",
)


def play_to_the_deadline(player: HardPlayer | MediumPlayer) -> Game:
    """White (``player``) from TRAP past its 30th move; black shuffles far away."""
    game = Game(TRAP.rules, start=TRAP, moves_made=(27, 10))
    shuffle = ["e14-e13", "e13-e14"]
    while game.moves_made("white") <= TRAP.rules.deadline and not game.is_over:
        game.play(player.choose(game, SMALL).move)
        if not game.is_over:
            game.play(shuffle[game.moves_made("black") % 2])
    return game


def test_the_simple_care_shuffles_inside_the_home_until_the_deadline_puts_it_out() -> None:
    game = play_to_the_deadline(MediumPlayer(1))  # the source documents' care, kept as defined
    assert game.status("white") == "out"


def test_hard_moves_its_own_marble_out_of_the_way_and_leaves_home_in_time() -> None:
    for seed in range(3):
        game = play_to_the_deadline(HardPlayer(seed))
        assert game.status("white") == "playing", game.why_out("white")
        rules = TRAP.rules
        assert isinstance(rules, RaceRules)
        assert not game.position.marbles[0] & rules.homes[0]


def test_hard_begins_the_care_at_once_when_a_marble_at_home_is_shut_in() -> None:
    game = Game(TRAP.rules, start=TRAP, moves_made=(10, 10))
    assert TRAP.rules.deadline is not None
    assert HardPlayer(0).deadline_margin(game, 0) > TRAP.rules.deadline


def test_bound_only_by_the_clock_the_fallbacks_beam_plans_its_whole_depth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In the browser only the clock bounds Hard (browser.UNBOUNDED_NODES). The beam's
    plies then share the nodes the time left allows at the pace so far, so its plan
    reaches its depth; spread over a billion nodes, the width let it end after a few
    plies as a breadth-first search."""
    from types import SimpleNamespace

    from sternhalma.browser import UNBOUNDED_NODES
    from sternhalma.players import fallback, search
    from sternhalma.players.race import RaceSearch

    readings = iter(range(10**9))  # a clock a millisecond later at each reading
    clock = SimpleNamespace(perf_counter=lambda: next(readings) / 1000)
    monkeypatch.setattr(search, "time", clock)
    monkeypatch.setattr(fallback, "time", clock)
    rules = find_variant("classic-2")
    alone = Position(rules, 0, (rules.initial().marbles[0], 0))
    racer = RaceSearch(rules, 0, [0], search.Limits.of(UNBOUNDED_NODES, 0.1), compiled=False)
    move = racer.choose(alone, rules.legal_moves(alone))
    assert racer.mode == "solo" and move in rules.legal_moves(alone)
    assert racer.depth_reached == racer.beam_depth


def test_far_ahead_hard_plans_on_the_rivals_racing_moves() -> None:
    """Two players: well ahead, Hard searches its own moves with the rival's forecast
    between them (the rival's biggest gain in rows, as Medium plays; a rival with several
    such moves stays where it is); otherwise alpha-beta, where the rival may block."""
    from sternhalma.players.evaluate import race_evaluation
    from sternhalma.players.fallback import PlainSearch
    from sternhalma.players.race import RaceSearch
    from sternhalma.players.search import Limits

    rules = find_variant("classic-2")
    assert isinstance(rules, RaceRules)
    lead_needed = HardSettings().duel.race_lead
    evaluation = race_evaluation(rules)
    rows = row_table(rules)
    modes = set()
    for start in sample_positions(rules, 40, seed=11):
        me, rival = start.turn, 1 - start.turn
        search = RaceSearch(rules, me, range(2), Limits.of(300, None))
        if search.separated(start.marbles):
            continue
        search.choose(start, rules.legal_moves(start))
        sums = tuple(x for s in (0, 1) for x in evaluation.sums(s, start.marbles[s]))
        far_ahead = sums[2 * rival + 1] - sums[2 * me + 1] >= lead_needed  # rows to go
        assert search.mode == ("forecast" if far_ahead else "alphabeta")
        modes.add(search.mode)
        # The fallback's forecast, against the engine's moves: the rival's one biggest gain
        # in rows.
        forecaster = PlainSearch(RaceSearch(rules, me, range(2), Limits.of(10, None)))
        after, _, reply = forecaster._racing(start.marbles, sums, rival)
        theirs = rules.moves_of(start, rival, start.marbles[rival])
        gains = [rows[rival][m[-1]] - rows[rival][m[0]] for m in theirs]
        best = [m for m, gain in zip(theirs, gains, strict=True) if gain == max(gains)]
        if len(best) == 1:
            expected = list(start.marbles)
            expected[rival] ^= (1 << best[0][0]) | (1 << best[0][-1])
            assert after == tuple(expected)
            assert unpack(reply) == (best[0][0], best[0][-1])
        else:
            assert after == start.marbles and reply == 0
    assert modes == {"forecast", "alphabeta"}


def test_on_the_halma_board_hard_weighs_rows_not_steps_to_the_goal() -> None:
    """Two-player Halma's evaluation leaves out the star's steps to the nearest goal hole
    (a sideways king's move there is as many steps as one toward the tip); the setting
    that brings them back (``duel.halma_weights``) leaves the star's alone."""
    from sternhalma.players.evaluate import race_costs
    from sternhalma.players.race import DuelSettings, RaceSearch
    from sternhalma.players.search import Limits

    halma, star = find_variant("halma-2"), find_variant("classic-2")
    assert isinstance(halma, RaceRules) and isinstance(star, RaceRules)
    steps_back = DuelSettings(halma_weights=DuelSettings().weights)
    weight = DuelSettings().weights.steps
    for seat in (0, 1):
        cost = RaceSearch(halma, seat, range(2), Limits.of(100, None)).evaluation.costs[seat]
        before = RaceSearch(halma, seat, range(2), Limits.of(100, None), duel=steps_back)
        steps = halma.distance_to_goal[seat]
        assert [b - c for b, c in zip(before.evaluation.costs[seat], cost, strict=True)] == [
            weight * n for n in steps
        ]
    on_star = RaceSearch(star, 0, range(2), Limits.of(100, None), duel=steps_back)
    assert on_star.evaluation.costs == race_costs(star)


@pytest.mark.skipif(not core.COMPILED, reason="thirty searches of 20,000 nodes: compiled core")
def test_racing_alone_the_beam_finishes_near_the_proven_minimum() -> None:
    """Racing alone from the start (the crossing puzzle, 27 moves at best), the beam's
    plans finish in at most two moves more (depth-first search on the same nodes took
    31 to 33, docs/measurements.md)."""
    from sternhalma.players.hard import race_search
    from sternhalma.players.search import Limits

    rules = find_variant("classic-2")
    assert isinstance(rules, RaceRules)
    alone = Position(rules, 0, (rules.initial().marbles[0], 0))
    moves = 0
    while not rules.has_finished(alone, 0) and moves < 60:
        search = race_search(rules, 0, [0], Limits.of(20_000, None), HardSettings())
        after = rules.apply(alone, search.choose(alone, rules.legal_moves(alone)))
        assert search.mode == "solo"
        alone, moves = Position(rules, 0, after.marbles), moves + 1
    assert 27 <= moves <= 29
