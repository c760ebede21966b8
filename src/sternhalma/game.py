"""The referee: one game from its start to its result.

The rules it applies run from rules.md#finishing to rules.md#clocks-and-resigning.
A ``Game`` holds the history and never trusts its caller: a move from the
wrong seat, after the end, or an illegal one is refused with a reason. It
works for every ruleset through the ``Ruleset`` hooks (``deadline``,
``last_reply``, ``has_finished``, ``standing``, ``teams``,
``ends_at_first_finish``), never by testing variant ids.

After every move it applies rules.md#order-of-checks-after-each-move, in
order: (1) the mover's leaving-home deadline, (2) finishing for everyone still
in play, (3) the two-player last reply, or the end when at most one player is
still playing, (4) round close and the 150-round limit, (5) the next seat,
with automatic passes and the "no moves" end, (6) threefold repetition.

Finishing on the star needs what the position alone does not say: the marbles
of the goal's owner count only once the owner is no longer leaving (its own
move 30, or out, or finished: rules.md#finishing), so the referee tells the
rules (``owner_counts``). Games played before that rule can still be replayed
as they were played (``finish_rule="anytime"``, ``FINISH_RULES``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sternhalma.boards.base import bits
from sternhalma.clock import Clock
from sternhalma.errors import InvalidMoveTextError, SternhalmaError, shown
from sternhalma.position import Move, Position
from sternhalma.rules import find_variant
from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules

#: The most rounds a game lasts (rules.md#limit).
ROUND_LIMIT = 150
#: The same position this many times ends the game (rules.md#repetition).
REPETITIONS = 3

# A seat's state during the game.
PLAYING = "playing"
FINISHED = "finished"
OUT = "out"
RESIGNED = "resigned"
FLAGGED = "flagged"

#: How a game can end, with what each means (``Result.ending``).
ENDINGS: dict[str, str] = {
    "finished": "players finished: at most one is still playing, or with two players black "
    "finished first (a draw when one move finished both), or (Halma) the first player or "
    "team is home",
    "last-reply": "two players: white finished and black had its last reply "
    "(a draw if black finished with it, else white wins)",
    "limit": "the 150-round limit closed; the rest are ranked by marbles in goal, then distance",
    "repetition": "the same position (marbles and player to move) came up a third time; ranked",
    "no-moves": "no player still in play had a legal move; ranked",
    "resignation": "a player resigned: with two the other wins, with more the resigner is "
    "last and the rest are ranked",
    "flag": "a player ran out of time; counts as a resignation",
    "abandoned": "a player left an online game and another claimed it: counts as a resignation",
    "draw-claimed": "two players: one left an online game and the other called it a draw",
    "out": "a player broke the leaving-home deadline: with two players a loss; with more "
    "it is the ending when it leaves at most one player in play",
}


#: The finishing rule a game is refereed by (``Game.finish_rule``), with what it means.
#: Records and stored games made before the Decision (rules.md#finishing) on the owner's marbles
#: replay by the earlier one (records.py, docs/records.md).
OWNER_LEAVING = "owner-leaving"
ANYTIME = "anytime"
FINISH_RULES: dict[str, str] = {
    OWNER_LEAVING: "the goal's owner's marbles count for you only once the owner is no "
    "longer leaving: from the end of its own move 30 (40 with 15 marbles), or once it is "
    "out or has finished",
    ANYTIME: "the earlier rule: the goal's owner's marbles counted for you at any time",
}


class GameError(SternhalmaError):
    """A request the game cannot take now: wrong seat, game over, nothing to undo..."""


@dataclass(frozen=True)
class Result:
    """How a game ended: a place for every seat (and team) and why."""

    #: places[seat] = 1-based place; shared places are counted as in sport (1, 2, 2, 4).
    places: tuple[int, ...]
    #: team_places[team] for ``rules.teams``; () when nobody plays in teams.
    team_places: tuple[int, ...]
    #: One of ENDINGS.
    ending: str
    #: A short sentence for people, e.g. "White finished first."
    reason: str
    #: The seat the ending is about (who resigned, flagged or went out), else None.
    seat: int | None = None

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats in first place (more than one when the first place is shared)."""
        return tuple(seat for seat, place in enumerate(self.places) if place == 1)

    @property
    def winning_teams(self) -> tuple[int, ...]:
        return tuple(team for team, place in enumerate(self.team_places) if place == 1)

    @property
    def is_draw(self) -> bool:
        """Whether nobody won alone: first place shared (by teams, in a team game)."""
        firsts = self.team_places or self.places
        return sum(1 for place in firsts if place == 1) > 1


@dataclass(frozen=True)
class Turn:
    """One turn of the game: a seat's move, or its automatic pass (``move`` None)."""

    seat: int
    move: Move | None


@dataclass(frozen=True)
class _Saved:
    """What ``undo`` restores: the state before one move."""

    position: Position
    made: tuple[int, ...]
    status: tuple[str, ...]
    places: tuple[tuple[int, int], ...]
    team_places: tuple[tuple[int, int], ...]
    out_why: tuple[tuple[int, str], ...]
    rounds_played: int
    turns: int
    keys: int


class Game:
    """A game of any variant, refereed by the rules in rules.md.

    ``start`` is the position to begin from (the variant's initial one by
    default); ``moves_made`` and ``rounds_played`` say how far a game set up
    mid-way already is (own moves per seat, closed rounds), which the
    deadline and the limit count from. ``deadline_rule=False`` switches the
    leaving-home deadline off (casual tables). A ``clock`` starts running
    for the first seat to move at once. ``finish_rule`` is one of
    ``FINISH_RULES``: the rule of today, or (``"anytime"``) the earlier one, to
    replay a game played by it.
    """

    def __init__(
        self,
        rules: Ruleset | str,
        *,
        start: Position | None = None,
        deadline_rule: bool = True,
        clock: Clock | None = None,
        moves_made: Sequence[int] | None = None,
        rounds_played: int = 0,
        finish_rule: str = OWNER_LEAVING,
    ) -> None:
        self.rules: Ruleset = find_variant(rules) if isinstance(rules, str) else rules
        rules = self.rules
        self.start: Position = rules.initial() if start is None else start
        if self.start.rules is not rules:
            raise GameError(f"the start position is {self.start.rules.id}, not {rules.id}")
        self.deadline_rule = deadline_rule
        if finish_rule not in FINISH_RULES:
            raise GameError(
                f"unknown finishing rule {shown(finish_rule)}; known: {', '.join(FINISH_RULES)}"
            )
        #: How finishing is judged (FINISH_RULES): today's rule, or the earlier one.
        self.finish_rule = finish_rule
        #: The own move number from which no marble may stay at home; None: no deadline.
        self.deadline: int | None = rules.deadline if deadline_rule else None
        self._race: RaceRules | None = rules if isinstance(rules, RaceRules) else None
        if self.deadline is not None and self._race is None:
            raise TypeError(f"{rules.id} has a deadline but no homes to check it on")
        self.clock = clock
        if clock is not None and clock.seats != rules.players:
            raise GameError(f"the clock has {clock.seats} seats; {rules.id} has {rules.players}")
        made = [0] * rules.players if moves_made is None else list(moves_made)
        if len(made) != rules.players or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in made
        ):
            raise GameError(
                f"moves_made needs a whole number of at least 0 for each seat of {rules.id}"
            )
        if not isinstance(rounds_played, int) or not 0 <= rounds_played < ROUND_LIMIT:
            raise GameError(f"rounds_played must be between 0 and {ROUND_LIMIT - 1}")

        #: How far the game was before ``start`` (own moves per seat, closed rounds).
        self.start_moves_made: tuple[int, ...] = tuple(made)
        self.start_rounds = rounds_played
        self.position: Position = self.start
        #: The moves played, paths as played; passes are not moves.
        self.moves: list[Move] = []
        #: Every turn in order, passes included.
        self.turns: list[Turn] = []
        #: Closed rounds (rules.md#round).
        self.rounds_played = rounds_played
        self.result: Result | None = None
        self._made = made
        self._status = [PLAYING] * rules.players
        self._places: dict[int, int] = {}
        self._team_places: dict[int, int] = {}
        self._out_why: dict[int, str] = {}
        self._seen: dict[Position, int] = {}
        self._keys: list[Position] = []
        self._undo: list[_Saved] = []

        # A start set up mid-game: seats without marbles are out, finished ones finished.
        if self.start.marbles and rules.players >= 3:
            for seat, marbles in enumerate(self.start.marbles):
                if not marbles:
                    self._put_out(seat, "it has no marbles on the board")
        self._judge_finishing(self.start.turn)
        if not self._end_checks(None, self._finished(), None):
            first = self._next_in_play(self.start.turn - 1)
            assert first is not None  # _end_checks ends a game with nobody in play
            self._advance(first)
        if clock is not None and self.result is None:
            clock.start(self.position.turn)

    # -- what callers read --------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def turn(self) -> int | None:
        """The seat to move (after automatic passes); None when the game is over."""
        return None if self.result is not None else self.position.turn

    @property
    def in_play(self) -> list[int]:
        """Seats still playing: not finished, out, resigned or flagged."""
        return [seat for seat, status in enumerate(self._status) if status == PLAYING]

    @property
    def places(self) -> dict[int, int]:
        """Places given so far (finishing, out, resigning); everyone's once over."""
        return dict(self._places)

    @property
    def team_places(self) -> dict[int, int]:
        return dict(self._team_places)

    @property
    def round(self) -> int:
        """The round in progress, 1-based (the last one once the game is over)."""
        return min(self.rounds_played + 1, ROUND_LIMIT)

    def status(self, seat: int | str) -> str:
        """``playing``, ``finished``, ``out``, ``resigned`` or ``flagged``."""
        return self._status[self._seat(seat)]

    def why_out(self, seat: int | str) -> str | None:
        """Why a seat went out (the deadline), or None when it did not."""
        return self._out_why.get(self._seat(seat))

    def moves_made(self, seat: int | str) -> int:
        """The seat's own moves so far (what the deadline counts)."""
        return self._made[self._seat(seat)]

    def owner_counts(self, seat: int | str) -> bool:
        """Whether the marbles of the owner of ``seat``'s goal (the seat whose home it is)
        now count toward filling it (rules.md#finishing).

        They do once the owner is no longer leaving: from the end of its own move 30
        (40 with 15 marbles; moves before a set-up start count), deadline rule on or
        off, or once it no longer plays (out or finished). True where the goal has no
        owner or the game has no such rule (Halma, capture), and always by the
        earlier rule (``finish_rule="anytime"``).
        """
        index = self._seat(seat)
        race = self._race
        if self.finish_rule == ANYTIME or race is None or not race.anti_blocking:
            return True
        owner = race.goal_owners[index]
        if owner is None or race.leaving is None or self._status[owner] != PLAYING:
            return True
        return self._made[owner] >= race.leaving

    def times_seen(self, position: Position) -> int:
        """How often ``position`` (marbles and the player to move) has stood so far: a
        third time ends the game (rules.md#repetition)."""
        return self._seen.get(position, 0)

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move; [] when the game is over."""
        if self.result is not None:
            return []
        return self.rules.legal_moves(self.position)

    def would_put_out(self, move: Move | Sequence[int] | str) -> bool:
        """Whether playing ``move`` now would put its player out (rules.md#leaving-home-in-time).

        A table asks the player to confirm such a move. The move must be legal.
        """
        seat = self._expect_turn(None)
        played = self._validate(move)
        after = self.rules.apply_unchecked(self.position, played)
        return self._deadline_break(after, seat, played, self._made[seat] + 1) is not None

    # -- what callers do ----------------------------------------------------
    def play(self, move: Move | Sequence[int] | str, seat: int | str | None = None) -> Move:
        """Play ``move`` for the seat to move (``seat``, if given, must be that seat).

        Returns the move as played (the path given). Raises GameError (game
        over, wrong seat, time ran out), InvalidMoveTextError or
        IllegalMoveError; a refused move changes nothing, except that a move
        arriving after the mover's time ran out ends the game by flag.
        """
        mover = self._expect_turn(seat)
        self._check_time_before_move(mover)
        played = self._validate(move)
        if self.clock is not None and not self.clock.punch(mover):
            self._give_up(mover, FLAGGED, "flag")
            raise GameError(f"{self._name(mover)}'s time ran out before the move; the game is over")
        self._undo.append(self._save())
        self._move(mover, played)
        if self.clock is not None:
            if self.result is None:
                self.clock.start(self.position.turn)
            else:
                self.clock.stop()
        return played

    def resign(self, seat: int | str) -> None:
        """``seat`` resigns while in play; the game ends (rules.md#clocks-and-resigning)."""
        self._give_up(self._expect_playing(seat, "resign"), RESIGNED, "resignation")

    def abandon(self, seat: int | str) -> None:
        """``seat`` left an online game and another player claimed it: it counts as a
        resignation (rules.md#clocks-and-resigning), recorded as ``abandoned``."""
        self._give_up(self._expect_playing(seat, "leave"), RESIGNED, "abandoned")

    def call_draw(self, seat: int | str) -> None:
        """Two players: ``seat`` left an online game and the other called it a draw."""
        index = self._expect_playing(seat, "leave")
        if self.rules.players != 2:
            raise GameError("only a two-player game can be called a draw")
        self._end("draw-claimed", index)
        if self.clock is not None:
            self.clock.stop()

    def flag(self, seat: int | str) -> None:
        """``seat`` ran out of time: a loss with two players, a resignation with more.

        With a clock attached the game checks that the seat's time is really
        gone; without one the table's own clock is trusted.
        """
        index = self._expect_playing(seat, "flag")
        if self.clock is not None and not self.clock.is_out_of_time(index):
            raise GameError(f"{self._name(index)} still has time on the clock")
        self._give_up(index, FLAGGED, "flag")

    def check_time(self) -> bool:
        """Flag the seat to move if its time has run out; whether that ended the game."""
        seat = self.turn
        if seat is None or self.clock is None or not self.clock.is_out_of_time(seat):
            return False
        self._give_up(seat, FLAGGED, "flag")
        return True

    def undo(self) -> Move:
        """Take back the last move (and the passes after it); returns that move.

        A finished game can be taken back into play; a resignation or a flag cannot.
        """
        if self.result is not None and self.result.ending in (
            "resignation",
            "flag",
            "abandoned",
            "draw-claimed",
        ):
            raise GameError(f"the game ended by {self.result.ending}; that cannot be taken back")
        if not self._undo:
            raise GameError("there is no move to take back")
        saved = self._undo.pop()
        move = self.moves.pop()
        self.position = saved.position
        self._made = list(saved.made)
        self._status = list(saved.status)
        self._places = dict(saved.places)
        self._team_places = dict(saved.team_places)
        self._out_why = dict(saved.out_why)
        self.rounds_played = saved.rounds_played
        del self.turns[saved.turns :]
        for key in self._keys[saved.keys :]:
            self._seen[key] -= 1
        del self._keys[saved.keys :]
        self.result = None
        if self.clock is not None:
            self.clock.start(self.position.turn)
        return move

    def copy(self, *, with_clock: bool = False) -> Game:
        """An independent copy (players search on copies); without the clock unless asked."""
        other = Game.__new__(Game)
        other.rules = self.rules
        other.start = self.start
        other.deadline_rule = self.deadline_rule
        other.finish_rule = self.finish_rule
        other.start_moves_made = self.start_moves_made
        other.start_rounds = self.start_rounds
        other.deadline = self.deadline
        other._race = self._race
        other.clock = self.clock.copy() if with_clock and self.clock is not None else None
        other.position = self.position
        other.moves = list(self.moves)
        other.turns = list(self.turns)
        other.rounds_played = self.rounds_played
        other.result = self.result
        other._made = list(self._made)
        other._status = list(self._status)
        other._places = dict(self._places)
        other._team_places = dict(self._team_places)
        other._out_why = dict(self._out_why)
        other._seen = dict(self._seen)
        other._keys = list(self._keys)
        other._undo = list(self._undo)
        return other

    # -- one move, in the order of rules.md#order-of-checks-after-each-move --
    def _move(self, mover: int, move: Move) -> None:
        after = self.rules.apply_unchecked(self.position, move)
        self.moves.append(move)
        self.turns.append(Turn(mover, move))
        self._made[mover] += 1
        finished_before = self._finished()
        self.position = after
        why = self._deadline_break(after, mover, move, self._made[mover])  # (1)
        if why is not None:
            self._put_out(mover, why)
        self._judge_finishing(mover)  # (2)
        if self._end_checks(mover, finished_before, why):  # (3)
            return
        if self._close_round(mover):  # (4)
            return
        following = self._next_in_play(mover)
        assert following is not None  # (3) ends a game with nobody in play
        self._advance(following)  # (5) and (6)

    def _deadline_break(self, after: Position, seat: int, move: Move, made: int) -> str | None:
        """Why the seat's ``made``-th move puts it out, or None (rules.md#leaving-home-in-time)."""
        if self.deadline is None or made < self.deadline or self._race is None:
            return None
        race = self._race
        names = race.board.names
        home = race.homes[seat]
        if home >> move.end & 1 and not home >> move.start & 1:
            return (
                f"it moved a marble back into its home ({names[move.end]}) "
                f"on its {_ordinal(made)} move"
            )
        for hole in bits(after.marbles[seat] & home):
            if not self._locked(race, after, seat, hole):
                return (
                    f"a marble was still at home on {names[hole]} after its {_ordinal(made)} move"
                )
        return None

    @staticmethod
    def _locked(race: RaceRules, position: Position, seat: int, hole: int) -> bool:
        """rules.md#locked: no move out of the home, and another player's marble beside it."""
        others = position.occupied & ~position.marbles[seat]
        if not race.board.neighbour_mask[hole] & others:
            return False
        home = race.homes[seat]
        return all(home >> move.end & 1 for move in race.moves_of(position, seat, 1 << hole))

    def _put_out(self, seat: int, why: str) -> None:
        """Out: the worst free place; with 3 or more players the marbles leave the board."""
        self._status[seat] = OUT
        self._out_why[seat] = why
        self._places[seat] = self._worst_free(self._places, self.rules.players)
        self._place_team_last(seat)
        if self.rules.players >= 3 and self.position.marbles:
            marbles = list(self.position.marbles)
            marbles[seat] = 0
            p = self.position
            self.position = Position(p.rules, p.turn, tuple(marbles), p.pieces, p.captured)

    def _judge_finishing(self, mover: int) -> None:
        """Everyone still in play who has finished takes the best free place, mover first.

        A seat that finishes makes its marbles count for the seat whose goal is its
        home (rules.md#finishing), which may finish that seat on the same move: the
        seats are judged again until nobody more finishes.
        """
        players = self.rules.players
        finishing = True
        while finishing:
            finishing = False
            for offset in range(players):
                seat = (mover + offset) % players
                if self._status[seat] != PLAYING:
                    continue
                if not self.rules.has_finished(
                    self.position, seat, owner_counts=self.owner_counts(seat)
                ):
                    continue
                finishing = True
                self._status[seat] = FINISHED
                self._places[seat] = self._best_free(self._places)
                team = self.rules.team_of(seat)
                if (
                    team is not None
                    and team not in self._team_places
                    and all(self._status[s] == FINISHED for s in self.rules.teams[team])
                ):
                    self._team_places[team] = self._best_free(self._team_places)

    def _end_checks(self, seat: int | None, finished_before: set[int], out_why: str | None) -> bool:
        """Step (3): the two-player rules, or the end when at most one is still playing."""
        rules = self.rules
        two = rules.players == 2
        if out_why is not None and two:
            self._end("out", seat)
            return True
        if rules.last_reply and two:
            first, second = 0, 1
            first_done = self._status[first] == FINISHED
            second_done = self._status[second] == FINISHED
            if second_done and not first_done:
                self._end("finished")
            elif first_done and second_done:
                self._places = {first: 1, second: 1}
                self._end("last-reply" if first in finished_before else "finished")
            elif first_done and seat == second and first in finished_before:
                self._end("last-reply")
            return self.result is not None
        if rules.ends_at_first_finish:
            units = rules.teams or tuple((s,) for s in range(rules.players))
            if any(all(self._status[s] == FINISHED for s in unit) for unit in units):
                self._end("finished")
                return True
        if len(self.in_play) <= 1:
            if out_why is not None:
                self._end("out", seat)
            else:
                self._end("finished")
            return True
        return False

    def _replying(self, seat: int) -> bool:
        """Whether ``seat``'s turn is black's last reply (two players, white finished)."""
        return (
            self.rules.last_reply
            and self.rules.players == 2
            and seat == 1
            and self._status[0] == FINISHED
            and self._status[1] == PLAYING
        )

    def _close_round(self, seat: int) -> bool:
        """Step (4): after ``seat``'s turn, close the round if it was the last in play."""
        following = self._next_in_play(seat)
        if following is None or following <= seat:
            self.rounds_played += 1
            if self.rounds_played >= ROUND_LIMIT:
                self._end("limit")
                return True
        return False

    def _advance(self, seat: int) -> None:
        """Steps (5) and (6): give the turn to ``seat`` or the next who can move."""
        can_move: dict[int, bool] = {}

        def able(s: int) -> bool:
            if s not in can_move:
                can_move[s] = self.rules.has_move(self.position.with_turn(s))
            return can_move[s]

        if not any(able(s) for s in self.in_play):
            if self._replying(seat):  # rules.md#finishing: black cannot reply, white wins
                self.turns.append(Turn(seat, None))
                self._end("last-reply")
            else:
                self._end("no-moves")
            return
        while not able(seat):
            self.turns.append(Turn(seat, None))  # a turn, not a move (rules.md#passing)
            if self._end_checks(seat, self._finished(), None) or self._close_round(seat):
                return
            following = self._next_in_play(seat)
            assert following is not None
            seat = following
        self.position = self.position.with_turn(seat)
        key = self.position
        self._seen[key] = self._seen.get(key, 0) + 1
        self._keys.append(key)
        if self._seen[key] >= REPETITIONS:
            self._end("repetition")

    def _give_up(self, seat: int, status: str, ending: str) -> None:
        """Resignation or flag: the worst free place, and the game ends for everyone."""
        self._status[seat] = status
        self._places[seat] = self._worst_free(self._places, self.rules.players)
        self._place_team_last(seat)
        self._end(ending, seat)
        if self.clock is not None:
            self.clock.stop()

    # -- the end --------------------------------------------------------------
    def _end(self, ending: str, seat: int | None = None) -> None:
        """Rank everyone without a place (rules.md#ranking) and write the result."""
        rules = self.rules
        standing = {s: rules.standing(self.position, s) for s in range(rules.players)}
        if (ending == "repetition" and rules.repetition_is_draw) or ending == "draw-claimed":
            standing = dict.fromkeys(standing, ())  # everyone still playing shares a place
        playing = {s: standing[s] for s in self.in_play}
        self._places.update(_rank(playing, self._best_free(self._places)))
        if rules.teams:
            unplaced = {
                team: _add(standing[s] for s in members)
                for team, members in enumerate(rules.teams)
                if team not in self._team_places
            }
            self._team_places.update(_rank(unplaced, self._best_free(self._team_places)))
        places = tuple(self._places[s] for s in range(rules.players))
        team_places = tuple(self._team_places[t] for t in range(len(rules.teams)))
        self.result = Result(
            places, team_places, ending, self._reason(ending, seat, places, team_places), seat
        )

    def _reason(
        self, ending: str, seat: int | None, places: tuple[int, ...], team_places: tuple[int, ...]
    ) -> str:
        outcome = self._outcome(places, team_places)
        who = self._name(seat).capitalize() if seat is not None else ""
        if ending == "finished":
            firsts = (
                [self._team_name(t) for t, p in enumerate(team_places) if p == 1]
                if team_places
                else [self._name(s) for s, p in enumerate(places) if p == 1]
            )
            if len(firsts) == 1:
                return f"{firsts[0].capitalize()} finished first."
            if self.rules.last_reply and self.rules.players == 2:
                first, second = self._name(0), self._name(1)
                return f"{first.capitalize()} and {second} finished with the same move: a draw."
            return f"{outcome.capitalize()}."
        if ending == "last-reply":
            first, second = self._name(0), self._name(1)
            if places[1] == 1:
                return (
                    f"{first.capitalize()} finished first and {second} finished "
                    "with the last reply: a draw."
                )
            if self.turns and self.turns[-1].move is None:
                return (
                    f"{first.capitalize()} finished first and {second} could not move "
                    f"for its last reply: {first} wins."
                )
            return (
                f"{first.capitalize()} finished first and {second}'s last reply "
                f"did not finish: {first} wins."
            )
        if ending == "limit":
            return f"The {ROUND_LIMIT}-round limit was reached: {outcome}."
        if ending == "repetition":
            return f"The same position came up for the third time: {outcome}."
        if ending == "no-moves":
            return f"Nobody can move: {outcome}."
        if ending == "resignation":
            return f"{who} resigned: {outcome}."
        if ending == "flag":
            return f"{who} ran out of time: {outcome}."
        if ending == "abandoned":
            return f"{who} left the game: {outcome}."
        if ending == "draw-claimed":
            return f"{who} left the game and it was called a draw."
        if ending == "out" and seat is not None:
            return f"{who} is out: {self._out_why[seat]}; {outcome}."
        return f"{outcome.capitalize()}."  # pragma: no cover - every ending is named above

    def _outcome(self, places: tuple[int, ...], team_places: tuple[int, ...]) -> str:
        if team_places:
            firsts = [self._team_name(t) for t, p in enumerate(team_places) if p == 1]
            if len(firsts) == 1:
                return f"{firsts[0]} win"
        else:
            firsts = [self._name(s) for s, p in enumerate(places) if p == 1]
            if len(firsts) == 1:
                return f"{firsts[0]} wins"
        if len(firsts) == len(team_places or places):
            return "a draw"
        return f"a draw between {', '.join(firsts[:-1])} and {firsts[-1]}"

    # -- small helpers ----------------------------------------------------------
    def _name(self, seat: int | None) -> str:
        return self.rules.seats[seat] if seat is not None else "nobody"

    def _team_name(self, team: int) -> str:
        return "+".join(self.rules.seats[s] for s in self.rules.teams[team])

    def _finished(self) -> set[int]:
        return {s for s, status in enumerate(self._status) if status == FINISHED}

    def _next_in_play(self, seat: int) -> int | None:
        """The first seat in play after ``seat`` in seat order (``seat`` itself last)."""
        players = self.rules.players
        for offset in range(1, players + 1):
            other = (seat + offset) % players
            if self._status[other] == PLAYING:
                return other
        return None

    @staticmethod
    def _best_free(given: dict[int, int]) -> int:
        taken = set(given.values())
        place = 1
        while place in taken:
            place += 1
        return place

    @staticmethod
    def _worst_free(given: dict[int, int], count: int) -> int:
        taken = set(given.values())
        return max(p for p in range(1, count + 1) if p not in taken)

    def _place_team_last(self, seat: int) -> None:
        team = self.rules.team_of(seat)
        if team is not None and team not in self._team_places:
            self._team_places[team] = self._worst_free(self._team_places, len(self.rules.teams))

    def _seat(self, seat: int | str) -> int:
        """A seat index from an index or a colour; GameError if there is no such seat."""
        if isinstance(seat, str):
            try:
                return self.rules.seat_of(seat)
            except ValueError as error:
                raise GameError(str(error)) from None
        if (
            isinstance(seat, bool)
            or not isinstance(seat, int)
            or not 0 <= seat < self.rules.players
        ):
            raise GameError(f"there is no seat {seat!r} in {self.rules.id}")
        return seat

    def _expect_turn(self, seat: int | str | None) -> int:
        if self.result is not None:
            raise GameError(f"the game is over: {self.result.reason}")
        turn = self.position.turn
        if seat is None:
            return turn
        asked = self._seat(seat)
        if asked != turn:
            if self._status[asked] != PLAYING:
                raise GameError(
                    f"{self._name(asked)} has {self._status[asked]} and no longer moves"
                )
            raise GameError(f"it is {self._name(turn)}'s turn, not {self._name(asked)}'s")
        return turn

    def _expect_playing(self, seat: int | str, action: str) -> int:
        if self.result is not None:
            raise GameError(f"the game is over: {self.result.reason}")
        index = self._seat(seat)
        if self._status[index] != PLAYING:
            raise GameError(
                f"{self._name(index)} has {self._status[index]} and cannot {action} any more"
            )
        return index

    def _check_time_before_move(self, mover: int) -> None:
        if self.clock is not None and self.clock.is_out_of_time(mover):
            self._give_up(mover, FLAGGED, "flag")
            raise GameError(f"{self._name(mover)}'s time ran out; the game is over")

    def _validate(self, move: Move | Sequence[int] | str) -> Move:
        """The legal move meant by ``move`` for the seat to move, or why not."""
        if isinstance(move, str):
            return self.rules.parse_move(self.position, move)
        path = list(move)
        size = self.rules.board.size
        if not all(isinstance(h, int) and not isinstance(h, bool) and 0 <= h < size for h in path):
            raise InvalidMoveTextError(f"{shown(move)} is not a path of holes of the board")
        return self.rules.check_path(self.position, path)

    def _save(self) -> _Saved:
        return _Saved(
            self.position,
            tuple(self._made),
            tuple(self._status),
            tuple(self._places.items()),
            tuple(self._team_places.items()),
            tuple(self._out_why.items()),
            self.rounds_played,
            len(self.turns),
            len(self._keys),
        )

    def __repr__(self) -> str:
        state = self.result.reason if self.result else f"{self._name(self.position.turn)} to move"
        return f"<Game {self.rules.id}: {len(self.moves)} moves, {state}>"


def _rank(standing: dict[int, tuple[int, ...]], first: int) -> dict[int, int]:
    """Places from ``first`` on, larger standing better, equal shared as in sport (2, 2, 4)."""
    return {
        key: first + sum(1 for other in standing.values() if other > value)
        for key, value in standing.items()
    }


def _add(standings: Iterable[tuple[int, ...]]) -> tuple[int, ...]:
    """Partners' standings added up field by field (a team's marbles in goal, distance)."""
    return tuple(sum(column) for column in zip(*standings, strict=True))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


__all__ = [
    "ANYTIME",
    "ENDINGS",
    "FINISH_RULES",
    "OWNER_LEAVING",
    "REPETITIONS",
    "ROUND_LIMIT",
    "Game",
    "GameError",
    "Result",
    "Turn",
]
