"""The referee, one scenario per rule of rules.md#finishing to rules.md#clocks-and-resigning.

Every test builds the position (or the short move list) its rule needs.
Positions only hold the marbles that matter; counts are not checked.
"""

from __future__ import annotations

import pytest
from helpers import position

from sternhalma.boards.base import bits
from sternhalma.clock import Clock
from sternhalma.errors import IllegalMoveError, InvalidMoveTextError
from sternhalma.game import ROUND_LIMIT, Game, GameError, Turn
from sternhalma.position import Position
from sternhalma.rules import find_variant

# White's goal (the N point) without h14, with a marble on h13 ready to fill it.
WHITE_ALMOST = "e14 f14 g14 e15 f15 g15 e16 f16 e17 h13"
# Black's goal (the S point) without m4, with a marble on m5 ready to fill it.
BLACK_ALMOST = "m1 l2 m2 k3 l3 m3 j4 k4 l4 m5"


def play_all(game: Game, *moves: str) -> None:
    for move in moves:
        game.play(move)


# -- leaving home in time ----------------------------------------------------------
def test_two_players_a_marble_left_home_at_the_30th_move_loses() -> None:
    start = position("classic-2", "white", white="m1 i8", black="h10")
    game = Game("classic-2", start=start, moves_made=[29, 29])
    assert game.would_put_out("i8-i7")  # the table would ask first
    game.play("i8-i7")
    assert game.result is not None
    assert game.result.places == (2, 1)
    assert game.result.ending == "out"
    assert game.result.seat == 0
    assert game.result.reason == (
        "White is out: a marble was still at home on m1 after its 30th move; black wins."
    )
    # With two players the marbles stay on the board.
    assert game.position.marbles[0] == find_variant("classic-2").board.mask_of_names(["m1", "i7"])


def test_before_the_30th_move_a_marble_may_stay_home() -> None:
    start = position("classic-2", "white", white="m1 i8", black="h10")
    game = Game("classic-2", start=start, moves_made=[28, 28])
    game.play("i8-i7")
    assert not game.is_over
    assert game.moves_made(0) == 29
    assert game.turn == 1


def test_four_players_out_takes_the_worst_place_and_the_marbles_leave() -> None:
    start = position("classic-4", "white", white="m1 i8", red="e5 f9", black="h10", yellow="k9")
    game = Game("classic-4", start=start, moves_made=[29, 29, 29, 29])
    game.play("i8-i7")
    assert game.status(0) == "out"
    assert game.places == {0: 4}
    assert game.position.marbles[0] == 0
    assert not game.is_over
    assert game.turn == 1
    assert "m1" in (game.why_out(0) or "")
    game.play("f9-f8")  # red's 30th move leaves e5 at home
    assert game.places == {0: 4, 1: 3}
    assert game.position.marbles[1] == 0
    assert game.in_play == [2, 3]
    game.play("h10-h11")
    game.play("k9-k8")
    # The round closed after yellow and white and red are skipped: black again.
    assert game.rounds_played == 1
    assert game.turn == 2
    game.resign(2)
    assert game.result is not None
    assert game.result.places == (4, 3, 2, 1)


def test_the_deadline_can_be_switched_off() -> None:
    start = position("classic-2", "white", white="m1 i8", black="h10")
    game = Game("classic-2", start=start, moves_made=[29, 29], deadline_rule=False)
    assert not game.would_put_out("i8-i7")
    game.play("i8-i7")
    assert not game.is_over


def test_a_locked_marble_may_stay_home_until_it_is_unlocked() -> None:
    # m1 cannot move: black marbles on l2 and m2, and k3, m3 behind them are taken.
    start = position("classic-2", "white", white="m1 i8", black="l2 m2 k3 m3 h10")
    game = Game("classic-2", start=start, moves_made=[29, 29])
    game.play("i8-i7")
    assert not game.is_over
    game.play("m3-m4")  # black opens m3, and m4 beside it gives a jump out: m1-m3-m5
    assert game.would_put_out("i7-i6")
    assert not game.would_put_out("m1-m3-m5")
    game.play("i7-i6")  # the marble was unlocked and is still home after the 31st move
    assert game.result is not None
    assert game.result.places == (2, 1)
    assert game.why_out(0) == "a marble was still at home on m1 after its 31st move"


def test_a_move_to_another_hole_of_the_home_is_not_a_way_out() -> None:
    # m1 can go to m2 or jump over l2 to k3: both inside the home, so it is locked.
    start = position("classic-2", "white", white="m1 i8", black="l2 h10")
    game = Game("classic-2", start=start, moves_made=[29, 29])
    assert {game.rules.format_move(m) for m in game.legal_moves() if m.start == 0} == {
        "m1-m2",
        "m1-k3",
    }
    game.play("i8-i7")
    assert not game.is_over


def test_a_marble_alone_at_home_without_neighbours_is_not_locked() -> None:
    # m1 has no move out of the home (only steps to l2 and m2), but no other
    # player's marble stands beside it, so it is not locked.
    start = position("classic-2", "white", white="m1 i8", black="h10")
    game = Game("classic-2", start=start, moves_made=[40, 40])
    assert game.would_put_out("i8-i7")


def test_moving_a_marble_back_home_after_the_deadline_puts_its_player_out() -> None:
    start = position("classic-2", "white", white="k5 i8", black="h10")
    game = Game("classic-2", start=start, moves_made=[30, 30])
    assert game.would_put_out("k5-k4")
    assert game.would_put_out("K5-K4")  # move text is case-insensitive
    assert not game.would_put_out("i8-i7")
    game.play("k5-k4")
    assert game.result is not None
    assert game.result.places == (2, 1)
    assert game.why_out(0) == "it moved a marble back into its home (k4) on its 31st move"


def test_before_the_deadline_a_marble_may_go_back_home() -> None:
    start = position("classic-2", "white", white="k5 i8", black="h10")
    game = Game("classic-2", start=start, moves_made=[10, 10])
    assert not game.would_put_out("k5-k4")
    game.play("k5-k4")
    assert not game.is_over


def test_completing_the_goal_while_breaking_the_deadline_is_out() -> None:
    # White fills its goal with h13-h14 on its 30th move, but m1 is still home.
    start = position(
        "classic-2", "white", white="e14 f14 g14 e15 f15 g15 e16 f16 h13 m1", black="e17 h10"
    )
    game = Game("classic-2", start=start, moves_made=[29, 29])
    game.play("h13-h14")
    assert game.result is not None
    assert game.result.ending == "out"
    assert game.result.places == (2, 1)
    assert game.status(0) == "out"


def test_would_put_out_checks_the_move_first() -> None:
    game = Game("classic-2")
    with pytest.raises(IllegalMoveError):
        game.would_put_out("m1-m5")


# -- two players: the last reply ---------------------------------------------------
def test_black_finishing_with_the_last_reply_is_a_draw() -> None:
    game = Game(
        "classic-2", start=position("classic-2", "white", white=WHITE_ALMOST, black=BLACK_ALMOST)
    )
    game.play("h13-h14")
    assert game.status(0) == "finished"
    assert not game.is_over
    assert game.turn == 1
    game.play("m5-m4")
    assert game.result is not None
    assert game.result.places == (1, 1)
    assert game.result.is_draw
    assert game.result.ending == "last-reply"
    assert game.result.reason == (
        "White finished first and black finished with the last reply: a draw."
    )


def test_white_wins_when_the_last_reply_does_not_finish() -> None:
    game = Game(
        "classic-2", start=position("classic-2", "white", white=WHITE_ALMOST, black=BLACK_ALMOST)
    )
    play_all(game, "h13-h14", "m5-l5")
    assert game.result is not None
    assert game.result.places == (1, 2)
    assert game.result.winners == (0,)
    assert game.result.ending == "last-reply"
    assert not game.result.is_draw


def test_black_finishing_first_wins_at_once() -> None:
    game = Game(
        "classic-2", start=position("classic-2", "white", white=WHITE_ALMOST, black=BLACK_ALMOST)
    )
    play_all(game, "h13-i12", "m5-m4")
    assert game.result is not None
    assert game.result.places == (2, 1)
    assert game.result.ending == "finished"
    assert game.result.reason == "Black finished first."


def test_black_who_cannot_reply_passes_and_white_wins() -> None:
    # Black's only marble sits in the SE corner: every step ends in another point.
    game = Game("classic-2", start=position("classic-2", "white", white=WHITE_ALMOST, black="q5"))
    game.play("h13-h14")
    assert game.result is not None
    assert game.result.places == (1, 2)
    assert game.result.ending == "last-reply"
    assert game.turns[-1] == Turn(1, None)
    assert "could not move" in game.result.reason


def test_white_finishing_on_its_150th_move_still_gets_black_a_reply() -> None:
    start = position("classic-2", "white", white=WHITE_ALMOST, black=BLACK_ALMOST)
    game = Game("classic-2", start=start, rounds_played=ROUND_LIMIT - 1)
    play_all(game, "h13-h14", "m5-m4")
    assert game.result is not None
    assert game.result.ending == "last-reply"
    assert game.result.places == (1, 1)


def test_a_player_can_finish_on_someone_elses_move() -> None:
    # Black steps back into its own home (e14) and so fills white's goal: on its 30th
    # move, from whose end its marbles count for white (the deadline is off, else the
    # step home would put black out).
    white = "f14 g14 h14 e15 f15 g15 e16 f16 e17 i8"
    start = position("classic-2", "black", white=white, black="e13 m5")
    game = Game("classic-2", start=start, moves_made=[29, 29], deadline_rule=False)
    game.play("e13-e14")
    assert game.status(0) == "finished"
    assert game.places == {0: 1}
    assert game.turn == 1  # white no longer moves; black has exactly one more turn
    game.play("m5-l5")
    assert game.result is not None
    assert game.result.ending == "last-reply"
    assert game.result.places == (1, 2)


# -- finishing: the goal's owner's marbles count once it is no longer leaving --------------
# White's goal is black's home (the N point). Black has stepped h14-h13 and white's marble on
# h12 can jump over it into h14: the goal is then full, 9 of black's marbles and 1 of white's.
OWNER_LEFT_ONE = {
    "white": "h12 m1",
    "red": "f9",
    "blue": "h10",
    "black": "e14 f14 g14 e15 f15 g15 e16 f16 e17 h13",
    "yellow": "k9",
    "green": "j8",
}


def six(black_made: int, **options: bool) -> Game:
    """The six-player position above, white to move on its 4th move; black has made
    ``black_made`` moves."""
    start = position("classic-6", "white", **OWNER_LEFT_ONE)
    return Game("classic-6", start=start, moves_made=[3, 3, 3, black_made, 3, 3], **options)


def test_a_jump_into_the_first_hole_the_owner_leaves_is_not_a_finish() -> None:
    # Issue 30: Hard "finished" a six-player game on its 4th move this way.
    game = six(3)
    assert not game.owner_counts(0)
    game.play("h12-h14")
    assert game.status(0) == "playing"
    assert game.places == {}
    assert game.turn == 1


def test_the_same_jump_after_the_owners_30th_move_finishes() -> None:
    game = six(30)
    assert game.owner_counts(0)
    game.play("h12-h14")
    assert game.status(0) == "finished"
    assert game.places == {0: 1}


def test_with_the_deadline_off_the_owners_marbles_still_wait_for_its_30th_move() -> None:
    game = six(29, deadline_rule=False)
    play_all(game, "h12-h14", "f9-f8", "h10-h9")
    assert game.status(0) == "playing"
    game.play("h13-h12")  # black's 30th move: from its end on, its marbles count for white
    assert game.moves_made(3) == 30
    assert game.status(0) == "finished"
    assert game.places == {0: 1}


def test_an_owner_that_is_out_counts_at_once() -> None:
    # Black starts without marbles, so it is out: white's goal is white's alone to fill.
    marbles = dict(OWNER_LEFT_ONE, black="")
    game = Game("classic-6", start=position("classic-6", "white", **marbles))
    assert game.status(3) == "out"
    assert game.owner_counts(0)
    assert not game.owner_counts(1)  # red's goal is yellow's home; yellow is playing


def test_an_owner_that_has_finished_counts_at_once() -> None:
    # Black's goal holds white's marble m1 (white has made 30 moves, so it counts for black).
    # Black left e17 in its home, white's goal; white steps into h14, the goal's last hole.
    def four(black_goal: str) -> Game:
        start = position(
            "classic-4",
            "white",
            white="m1 e14 f14 g14 e15 f15 g15 e16 f16 h13",
            red="f9",
            black=f"e17 {black_goal}",
            yellow="k9",
        )
        return Game("classic-4", start=start, moves_made=[30, 20, 20, 20])

    game = four("l2 m2 k3 l3 m3 j4 k4 l4 m4")
    assert game.status(2) == "finished"  # black made only 20 moves, but it has finished
    assert game.owner_counts(0)
    game.play("h13-h14")  # m1 is locked in by black: no deadline trouble
    assert game.status(0) == "finished"
    assert game.places == {2: 1, 0: 2}

    game = four("l2 m2 k3 l3 m3 j4 k4 l4 m5")  # black has not finished (m4 is empty)
    game.play("h13-h14")
    assert game.status(0) == "playing"


# Classic-2: black's marble on e17 is shut in by white's around it (locked: no deadline
# trouble); white's goal is full once h14 is filled.
WHITE_AROUND_E17 = "e14 f14 g14 e15 f15 g15 e16 f16 h13 i8"


def test_the_owners_30th_move_finishes_white_and_black_still_gets_its_last_reply() -> None:
    start = position("classic-2", "white", white=WHITE_AROUND_E17, black="e17 m5")
    game = Game("classic-2", start=start, moves_made=[29, 29])
    game.play("h13-h14")  # white's goal is full, but black has made only 29 moves
    assert game.status(0) == "playing"
    game.play("m5-l5")  # black's 30th move: e17 now counts for white, who finishes
    assert game.status(0) == "finished"
    assert not game.is_over
    assert game.turn == 1  # black's last reply
    game.play("l5-k5")
    assert game.result is not None
    assert game.result.ending == "last-reply"
    assert game.result.places == (1, 2)


def test_the_last_reply_when_white_finishes_with_the_owners_marble() -> None:
    start = position("classic-2", "white", white=WHITE_AROUND_E17, black=f"e17 {BLACK_ALMOST}")
    game = Game("classic-2", start=start, moves_made=[30, 30])
    game.play("h13-h14")
    assert game.status(0) == "finished"
    game.play("m5-m4")
    assert game.result is not None
    assert game.result.ending == "last-reply"
    assert game.result.places == (1, 1)


def test_two_players_a_move_that_finishes_both_is_a_draw() -> None:
    # Black's 30th move fills its goal (white's m1 counts: white has made 30 moves) and makes
    # its own e17 count for white, whose goal is full around it.
    start = position(
        "classic-2",
        "black",
        white="e14 f14 g14 h14 e15 f15 g15 e16 f16 m1",
        black="e17 l2 m2 k3 l3 m3 j4 k4 l4 m5",
    )
    game = Game("classic-2", start=start, moves_made=[30, 29])
    assert game.status(0) == "playing"
    game.play("m5-m4")
    assert game.result is not None
    assert game.result.places == (1, 1)
    assert game.result.is_draw
    assert game.result.ending == "finished"
    assert game.result.reason == "White and black finished with the same move: a draw."


def test_black_finishing_makes_its_marble_count_for_white_a_draw() -> None:
    # Black has made only 20 moves and left e17 at home; its finish makes e17 count for white.
    start = position(
        "classic-2",
        "black",
        white="e14 f14 g14 h14 e15 f15 g15 e16 f16 m1",
        black="e17 l2 m2 k3 l3 m3 j4 k4 l4 m5",
    )
    game = Game("classic-2", start=start, moves_made=[30, 20])
    game.play("m5-m4")
    assert game.result is not None
    assert game.result.places == (1, 1)
    assert game.result.ending == "finished"


# -- the limit, repetition, no moves, passes ------------------------------------------
def test_the_limit_ranks_by_distance() -> None:
    game = Game("classic-2", rounds_played=ROUND_LIMIT - 1)
    game.play("m3-m5")  # two steps of progress
    assert not game.is_over
    game.play("e14-e13")  # one step: the round (and the game) closes
    assert game.rounds_played == ROUND_LIMIT
    assert game.result is not None
    assert game.result.ending == "limit"
    assert game.result.places == (1, 2)
    assert game.result.reason == "The 150-round limit was reached: white wins."


def test_the_limit_with_equal_standing_is_a_draw_for_two() -> None:
    game = Game("classic-2", rounds_played=ROUND_LIMIT - 1)
    play_all(game, "m4-m5", "e14-e13")
    assert game.result is not None
    assert game.result.places == (1, 1)
    assert game.result.is_draw
    assert game.result.reason == "The 150-round limit was reached: a draw."


def test_the_limit_shares_places_as_in_sport() -> None:
    game = Game("classic-4", rounds_played=ROUND_LIMIT - 2)
    # Progress: white 2 + 2, red 2 + 1, black 1 + 2, yellow 1 + 1.
    play_all(game, "m3-m5", "g5-i5", "e14-e13", "l11-k11")
    play_all(game, "k3-k5", "h5-h6", "f15-f13", "k12-j12")
    assert game.result is not None
    assert game.result.places == (1, 2, 2, 4)
    assert game.result.winners == (0,)


def test_marbles_in_goal_rank_before_distance() -> None:
    # White has a marble in goal but the other one far away at home; blue and
    # yellow are much closer in distance with nothing in goal.
    start = position("classic-3", "white", white="e17 m1", blue="h10", yellow="k9")
    game = Game("classic-3", start=start, rounds_played=ROUND_LIMIT - 1)
    play_all(game, "m1-m2", "h10-h9", "k9-k8")
    assert game.result is not None
    rules = game.rules
    distance = [-rules.standing(game.position, s)[1] for s in range(3)]
    assert distance[0] > distance[1] and distance[0] > distance[2]
    assert game.result.places[0] == 1


def test_threefold_repetition_ends_the_game() -> None:
    start = position("classic-2", "white", white="e17 e16 i8", black="m1 h10")
    game = Game("classic-2", start=start)
    shuffle = ("i8-i7", "h10-h11", "i7-i8", "h11-h10")
    play_all(game, *shuffle)  # the start position for the second time
    play_all(game, *shuffle[:3])
    assert not game.is_over
    game.play(shuffle[3])  # and the third
    assert game.result is not None
    assert game.result.ending == "repetition"
    assert game.result.places == (1, 2)  # two marbles in goal against one
    assert len(game.moves) == 8


def test_a_player_without_a_move_passes() -> None:
    # Blue's only marble is on m1, in another point: every move from it would end there.
    start = position("classic-3", "white", white="i8", blue="m1", yellow="k9")
    game = Game("classic-3", start=start)
    game.play("i8-i7")
    assert game.turn == 2
    assert game.turns == [Turn(0, game.moves[0]), Turn(1, None)]
    assert game.moves_made(1) == 0
    game.play("k9-k8")
    assert game.rounds_played == 1
    assert game.turn == 0


def test_a_pass_can_close_a_round() -> None:
    start = position("classic-3", "white", white="i8", blue="h10", yellow="m1")
    game = Game("classic-3", start=start, rounds_played=ROUND_LIMIT - 1)
    game.play("i8-i7")
    assert not game.is_over
    game.play("h10-h9")  # yellow passes, which closes round 150
    assert game.result is not None
    assert game.result.ending == "limit"
    assert game.turns[-1] == Turn(2, None)


def test_nobody_can_move_ends_the_game_and_ranks() -> None:
    # White's marble is stuck in the SE corner, black's in the SW corner.
    start = position("classic-2", "white", white="q5", black="e5")
    game = Game("classic-2", start=start)
    assert game.is_over
    assert game.legal_moves() == []
    assert game.result is not None
    assert game.result.ending == "no-moves"
    # e5 is 5 steps from black's goal, q5 9 steps from white's.
    assert game.result.places == (2, 1)
    assert game.result.reason == "Nobody can move: black wins."


def test_capture_ends_when_no_jump_is_left() -> None:
    rules = find_variant("capture-2")
    pieces = rules.board.mask_of_names(["i8", "i9"])
    game = Game(rules, start=Position(rules, 0, (), pieces, (0, 1)))
    game.play("i8xi10")
    assert game.result is not None
    assert game.result.ending == "no-moves"
    assert game.result.places == (1, 1)  # one capture each: a draw
    assert game.result.is_draw


# -- resignation and flags ---------------------------------------------------------------
def test_two_players_resigning_loses_even_out_of_turn() -> None:
    game = Game("classic-2")
    game.resign(1)
    assert game.result is not None
    assert game.result.places == (1, 2)
    assert game.result.ending == "resignation"
    assert game.result.reason == "Black resigned: white wins."
    with pytest.raises(GameError, match="the game is over"):
        game.play("m3-m5")


def test_more_players_a_resignation_ends_the_game_for_everyone() -> None:
    start = position(
        "classic-4", "white", white=WHITE_ALMOST, red="f9", black="m1 h10", yellow="k9"
    )
    game = Game("classic-4", start=start)
    game.play("h13-h14")  # white finishes first
    game.resign("red")
    assert game.result is not None
    # White keeps first, red is last, black (a marble in goal) before yellow.
    assert game.result.places == (1, 4, 2, 3)
    assert game.result.seat == 1
    assert game.result.reason == "Red resigned: white wins."


def test_a_resignation_at_the_start_of_three_leaves_the_others_sharing() -> None:
    game = Game("classic-3")
    game.resign(1)
    assert game.result is not None
    assert game.result.places == (1, 3, 1)
    assert game.result.reason == "Blue resigned: a draw between white and yellow."


def test_a_finished_player_cannot_resign() -> None:
    game = Game(
        "classic-4",
        start=position(
            "classic-4", "white", white=WHITE_ALMOST, red="f9", black="h10", yellow="k9"
        ),
    )
    game.play("h13-h14")
    with pytest.raises(GameError, match="white has finished"):
        game.resign(0)


class FakeTime:
    """A time source for clocks that tests set by hand."""

    def __init__(self) -> None:
        self.ms = 0

    def __call__(self) -> int:
        return self.ms


def test_a_flag_loses_with_two_players() -> None:
    now = FakeTime()
    game = Game("classic-2", clock=Clock("1+2", 2, now=now))
    now.ms = 500
    game.play("m3-m5")
    assert game.clock is not None
    assert game.clock.remaining(0) == 60_000 - 500 + 2_000
    assert not game.check_time()
    now.ms = 500 + 60_000  # black's minute is gone
    assert game.check_time()
    assert game.result is not None
    assert game.result.places == (1, 2)
    assert game.result.ending == "flag"
    assert game.result.reason == "Black ran out of time: white wins."


def test_a_move_after_the_time_ran_out_is_refused_and_flags() -> None:
    now = FakeTime()
    game = Game("classic-2", clock=Clock("1+0", 2, now=now))
    now.ms = 60_000
    with pytest.raises(GameError, match="time ran out"):
        game.play("m3-m5")
    assert game.result is not None
    assert game.result.ending == "flag"
    assert game.moves == []


def test_a_flag_with_more_players_is_a_resignation() -> None:
    now = FakeTime()
    game = Game("classic-3", clock=Clock("1+0", 3, now=now))
    game.play("m3-m5")
    with pytest.raises(GameError, match="still has time"):
        game.flag(1)
    now.ms = 60_000
    game.flag("blue")
    assert game.result is not None
    assert game.result.places == (1, 3, 2)  # white made progress, yellow did not
    assert game.result.ending == "flag"


# -- pairs --------------------------------------------------------------------------------
def test_pairs_a_team_takes_its_place_when_the_second_partner_finishes() -> None:
    start = position(
        "pairs-4",
        "white",
        white=WHITE_ALMOST,
        red="m10 l11 m11 k12 l12 m12 k13 l13 m13 j12",  # yellow's home without j13
        black=BLACK_ALMOST,
        yellow="e5 f5 g5 e6 f6 g6 e7 f7 e8 h6",  # red's home without h5
    )
    game = Game("pairs-4", start=start)
    game.play("h13-h14")
    game.play("j12-j13")
    assert game.team_places == {}  # one partner each
    game.play("m5-m4")  # white+black both finished: the first team place
    assert game.result is not None  # and only yellow is still playing
    assert game.result.places == (1, 2, 3, 4)
    assert game.result.team_places == (1, 2)
    assert game.result.reason == "White+black finished first."
    assert game.result.winning_teams == (0,)


def test_pairs_a_finished_team_has_its_place_while_the_others_play_on() -> None:
    start = position(
        "pairs-6",
        "white",
        white=WHITE_ALMOST,
        red="f9",
        blue="h10",
        black=BLACK_ALMOST,
        yellow="k9",
        green="j8",
    )
    game = Game("pairs-6", start=start)
    play_all(game, "h13-h14", "f9-f8", "h10-h9")
    assert game.team_places == {}
    game.play("m5-m4")
    assert game.team_places == {0: 1}
    assert game.places == {0: 1, 3: 2}
    assert not game.is_over
    assert game.turn == 4


def test_pairs_a_partner_going_out_gives_the_team_the_worst_place() -> None:
    start = position("pairs-4", "white", white="m1 i8", red="f9", black="h10", yellow="k9")
    game = Game("pairs-4", start=start, moves_made=[29, 29, 29, 29])
    game.play("i8-i7")
    assert game.team_places == {0: 2}
    assert game.places == {0: 4}
    assert not game.is_over


def test_pairs_teams_are_ranked_by_their_partners_together() -> None:
    game = Game("pairs-4", rounds_played=ROUND_LIMIT - 1)
    # White and black jump (2 each), red and yellow step (1 each).
    play_all(game, "m3-m5", "h5-h6", "e15-e13", "k12-j12")
    assert game.result is not None
    assert game.result.team_places == (1, 2)
    assert game.result.places == (1, 3, 1, 3)
    assert game.result.reason == "The 150-round limit was reached: white+black win."


def test_halma_with_teams_ends_when_the_first_team_is_home() -> None:
    rules = find_variant("halma-4")
    board = rules.board
    marbles = list(rules.homes)
    steps = {}
    for seat in (0, 2):  # white and black one step from home, their opponents at home
        goal = rules.goals[seat]
        target = next(h for h in bits(goal) if any(not goal >> n & 1 for n in board.neighbours[h]))
        outside = next(n for n in board.neighbours[target] if not goal >> n & 1)
        marbles[seat] = (goal & ~(1 << target)) | (1 << outside)
        steps[seat] = f"{board.names[outside]}-{board.names[target]}"
    game = Game(rules, start=Position(rules, 0, tuple(marbles)))
    game.play(steps[0])
    game.play(game.legal_moves()[0])
    assert not game.is_over
    game.play(steps[2])
    assert game.result is not None
    assert game.result.ending == "finished"
    assert game.result.team_places == (1, 2)
    assert game.result.places[0] == 1
    assert game.result.places[2] == 2
    assert sorted((game.result.places[1], game.result.places[3])) in ([3, 4], [3, 3])


# -- what the referee refuses --------------------------------------------------------------
def test_a_move_from_the_wrong_seat_is_refused() -> None:
    game = Game("classic-2")
    with pytest.raises(GameError, match="it is white's turn, not black's"):
        game.play("e14-e13", seat=1)
    with pytest.raises(GameError, match="no seat 5"):
        game.play("m3-m5", seat=5)
    assert game.moves == []


def test_an_illegal_move_changes_nothing() -> None:
    game = Game("classic-2")
    before = game.position
    with pytest.raises(IllegalMoveError, match="m1-m5 is not legal for white"):
        game.play("m1-m5")
    with pytest.raises(InvalidMoveTextError):
        game.play("z9-m5")
    with pytest.raises(InvalidMoveTextError):
        game.play([0, 999])
    assert game.position == before
    assert game.moves == [] and game.turns == []


def test_any_legal_path_is_accepted_and_kept_as_played() -> None:
    game = Game("classic-2")
    board = game.rules.board
    path = [board.index(n) for n in ("m3", "m5")]
    played = game.play(path, seat=0)
    assert list(played) == path
    assert game.moves == [played]


def test_undo_takes_back_moves_and_finishes() -> None:
    game = Game(
        "classic-2", start=position("classic-2", "white", white=WHITE_ALMOST, black=BLACK_ALMOST)
    )
    play_all(game, "h13-h14", "m5-m4")
    assert game.is_over
    assert game.rules.format_move(game.undo()) == "m5-m4"
    assert not game.is_over
    assert game.turn == 1
    assert game.rules.format_move(game.undo()) == "h13-h14"
    assert game.position == game.start
    assert game.status(0) == "playing"
    assert game.places == {}
    with pytest.raises(GameError, match="no move to take back"):
        game.undo()


def test_a_resignation_cannot_be_taken_back() -> None:
    game = Game("classic-2")
    game.play("m3-m5")
    game.resign(0)
    with pytest.raises(GameError, match="resignation"):
        game.undo()


def test_undo_restores_the_repetition_count() -> None:
    start = position("classic-2", "white", white="e17 e16 i8", black="m1 h10")
    game = Game("classic-2", start=start)
    shuffle = ("i8-i7", "h10-h11", "i7-i8", "h11-h10")
    play_all(game, *shuffle, *shuffle[:3])
    game.undo()
    game.play(shuffle[2])
    assert not game.is_over
    game.play(shuffle[3])
    assert game.result is not None and game.result.ending == "repetition"


def test_a_copy_is_independent() -> None:
    game = Game("classic-2")
    game.play("m3-m5")
    other = game.copy()
    other.play("e14-e13")
    assert len(game.moves) == 1 and len(other.moves) == 2
    assert game.turn == 1 and other.turn == 0
    other.undo()
    assert other.position == game.position


def test_halma_repetition_is_a_draw() -> None:
    # White has a piece in its goal camp, yet a repeated position draws
    # (rules.md#the-end-of-the-game).
    start = position("halma-2", "white", white="a16 h8", black="j9")
    game = Game("halma-2", start=start)
    shuffle = ("h8-h7", "j9-j10", "h7-h8", "j10-j9")
    play_all(game, *shuffle, *shuffle)
    assert game.result is not None
    assert game.result.ending == "repetition"
    assert game.result.places == (1, 1)
    assert game.result.reason == "The same position came up for the third time: a draw."
