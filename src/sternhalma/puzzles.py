"""Puzzles made from real positions and checked by the engine (docs/puzzles.md).

``make_puzzles`` plays computer-against-computer games with a fixed seed
(match.py), walks their positions and keeps the ones that make a puzzle with
one clear answer, each answer proved by the engine as it is made:

- **finish**: one seat alone (solo.py) late in the race fills its goal in N
  moves, N proved the fewest by the lower bound (IDA*: N - 1 impossible)
  and shown possible by a solution found by a depth-first search;
- **chain**: the move that gains the most rows toward the goal, checked by
  listing every move (at most two moves reach that gain);
- **block**: two players; the rival threatens a long move (at least
  ``CHAIN_ROWS`` rows), and exactly one of our moves cuts its longest reply
  shortest, by ``BLOCK_ROWS`` rows more than any other move (every reply
  listed after each of our moves). "Keeps the rival from finishing next
  move" never occurred in the seeded games (docs/puzzles.md);
- **crowd**: 3-6 players; Hard's search at a large allowance chooses the
  same move under three seeds (which order the moves it finds equal) and at
  a tenth of the allowance: a choice that is no near-tie.

A puzzle's **rating** is its difficulty on the Glicko-2 scale of rating.py:
a prior from its depth and the share of wrong first moves, not fitted to
solvers (there are none yet).

``check_puzzle`` re-checks one puzzle from its JSON alone, as the tests do.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from sternhalma import core
from sternhalma.analysis import replay
from sternhalma.game import Game
from sternhalma.match import GameTask, play_game
from sternhalma.notation import position_from_dict, position_to_dict
from sternhalma.players import Limit
from sternhalma.players.hard import HardPlayer
from sternhalma.players.rows import row_table
from sternhalma.position import Position
from sternhalma.records import read_record
from sternhalma.rules import find_variant
from sternhalma.rules.race import RaceRules
from sternhalma.solo import SoloMoves, lower_bound

#: The kinds of puzzle, in the order the page names them.
KINDS = ("finish", "chain", "block", "crowd")
#: The variants each kind is made for (star variants and Halma; no teams, no capture).
VARIANTS_BY_KIND: dict[str, tuple[str, ...]] = {
    "finish": ("classic-2", "classic-3", "classic-6", "longjump-2", "fifteen-2", "halma-2"),
    "chain": ("classic-2", "classic-4", "classic-6", "longjump-2", "fifteen-2", "halma-2"),
    "block": ("classic-2", "longjump-2", "fifteen-2", "halma-2"),
    "crowd": ("classic-3", "classic-4", "classic-6", "halma-4"),
}
#: Puzzles kept per kind and variant.
PER_VARIANT = 6
#: Games played per variant to find them.
GAMES = 6
#: Hard's nodes a move in the games (the same on any machine).
GAME_NODES = 300
#: Hard's nodes for the crowd's answer: a large allowance.
CROWD_NODES = 20_000
#: The seeds under which Hard must choose the crowd's answer (a seed orders the moves
#: its search finds equal, so a near-tie shows as a different choice).
CROWD_SEEDS = (0, 1, 2)
#: The rows by which the block's answer cuts the rival's longest reply more than any other.
BLOCK_ROWS = 2
#: The least rows the chain's answer gains.
CHAIN_ROWS = 5
#: The finish puzzles' lengths.
FINISH_MOVES = (2, 5)
#: The lower bound's node allowance when proving a finish (ample for N <= 5 from 3 marbles out).
FINISH_NODES = 20_000


class PuzzleError(ValueError):
    """A shipped puzzle whose answer the engine does not confirm."""


@dataclass(frozen=True)
class Ply:
    """One position of a played game: the referee before the move, and where it came from."""

    game: Game
    number: int
    ply: int


def games(variant: str, seed: int, count: int = GAMES) -> Iterator[list[Ply]]:
    """The positions of ``count`` seeded games of ``variant``: Hard against Medium, seats rotating."""
    rules = find_variant(variant)
    for number in range(count):
        levels = tuple("hard" if (s + number) % 2 == 0 else "medium" for s in range(rules.players))
        task = GameTask(
            number,
            variant,
            tuple(range(rules.players)),
            levels,
            seed,
            None,
            record=True,
            nodes=GAME_NODES,
        )
        report = play_game(task)
        assert report.record is not None
        game = read_record(report.record).game
        yield [Ply(before, number, ply) for ply, (before, _) in enumerate(replay(game))]


def _ends(rules: RaceRules, position: Position, seat: int) -> list[tuple[int, int]]:
    """(start, end) of every move of ``seat`` where ``position`` stands (the compiled core)."""
    return core.pairs(core.race_core(rules).moves(position.marbles, seat))


def _names(rules: RaceRules, pairs: list[tuple[int, int]]) -> list[list[str]]:
    names = rules.board.names
    return sorted([names[a], names[b]] for a, b in pairs)


def rating_of(depth: int, wrong: float) -> int:
    """A puzzle's difficulty: 1000 plus 150 a move of depth beyond the first, plus up to
    400 for the share of first moves that are wrong (a prior, docs/puzzles.md)."""
    return round(1000 + 150 * (depth - 1) + 400 * wrong)


def _ident(kind: str, variant: str, ply: Ply, seat: int) -> str:
    digest = hashlib.sha256(f"{kind}:{variant}:{ply.number}:{ply.ply}:{seat}".encode()).hexdigest()
    return f"{kind}-{variant}-{digest[:8]}"


# -- finish in N --------------------------------------------------------------------------
def solo_solution(
    rules: RaceRules, seat: int, own: int, moves: int
) -> list[tuple[int, int]] | None:
    """A way home for ``seat`` alone in at most ``moves`` moves, or None (depth-first)."""
    solo = SoloMoves(rules, seat)
    goal = solo.goal

    def search(marbles: int, left: int) -> list[tuple[int, int]] | None:
        if solo.finished(marbles):
            return []
        if (marbles & ~goal).bit_count() > left:
            return None
        for start, end in solo.ends(marbles):
            rest = search(marbles ^ start ^ end, left - 1)
            if rest is not None:
                return [(start.bit_length() - 1, end.bit_length() - 1), *rest]
        return None

    return search(own, moves)


def finish_puzzle(rules: RaceRules, ply: Ply, seat: int) -> dict[str, Any] | None:
    """A "finish in N" puzzle for ``seat``'s marbles alone, or None."""
    own = ply.game.position.marbles[seat]
    goal = rules.goals[seat]
    outside = (own & ~goal).bit_count()
    if not 1 <= outside <= 3:
        return None
    bound = lower_bound(rules, seat, own, FINISH_NODES)
    if not bound.exact or not FINISH_MOVES[0] <= bound.moves <= FINISH_MOVES[1]:
        return None
    if bound.moves == outside:  # every marble walks straight in: no puzzle
        return None
    solution = solo_solution(rules, seat, own, bound.moves)
    assert solution is not None and len(solution) == bound.moves
    solo = SoloMoves(rules, seat)
    firsts = list(solo.ends(own))
    # A first move is wrong when the rest cannot be done in N - 1 (proved by the bound).
    wrong = sum(
        lower_bound(rules, seat, own ^ a ^ b, FINISH_NODES).moves > bound.moves - 1
        for a, b in firsts
    )
    names = rules.board.names
    return {
        "id": _ident("finish", rules.id, ply, seat),
        "kind": "finish",
        "variant": rules.id,
        "seat": rules.seats[seat],
        "marbles": rules.board.names_of(own),
        "moves": bound.moves,
        "solution": [[names[a], names[b]] for a, b in solution],
        "rating": rating_of(bound.moves, wrong / len(firsts)),
        "source": {"game": ply.number, "ply": ply.ply},
    }


# -- the longest chain --------------------------------------------------------------------
def chain_answers(rules: RaceRules, position: Position) -> tuple[int, list[tuple[int, int]], int]:
    """(the most rows a move gains, the moves that gain it, how many moves there are)."""
    seat = position.turn
    rows = row_table(rules)[seat]
    moves = _ends(rules, position, seat)
    gains = [rows[b] - rows[a] for a, b in moves]
    best = max(gains, default=0)
    return best, [m for m, g in zip(moves, gains, strict=True) if g == best], len(moves)


def chain_puzzle(rules: RaceRules, ply: Ply) -> dict[str, Any] | None:
    position = ply.game.position
    best, answers, count = chain_answers(rules, position)
    if best < CHAIN_ROWS or len(answers) > 2 or count < 8:
        return None
    return _one_move("chain", rules, ply, answers, count, depth=1 + best // 4, extra={"rows": best})


def _one_move(
    kind: str,
    rules: RaceRules,
    ply: Ply,
    answers: list[tuple[int, int]],
    count: int,
    *,
    depth: int,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    position = ply.game.position
    return {
        "id": _ident(kind, rules.id, ply, position.turn),
        "kind": kind,
        "variant": rules.id,
        "seat": rules.seats[position.turn],
        "position": position_to_dict(position),
        "answers": _names(rules, answers),
        "rating": rating_of(depth, 1 - len(answers) / count),
        "source": {"game": ply.number, "ply": ply.ply},
        **(extra or {}),
    }


# -- block the rival ----------------------------------------------------------------------
def rival_best(rules: RaceRules, marbles: tuple[int, ...], rival: int) -> int:
    """The most rows one move of ``rival`` gains where ``marbles`` stand."""
    rows = row_table(rules)[rival]
    moves = core.pairs(core.race_core(rules).moves(marbles, rival))
    return max((rows[b] - rows[a] for a, b in moves), default=0)


def block_answers(rules: RaceRules, position: Position) -> dict[tuple[int, int], int]:
    """Every move of the seat to move, with the rival's longest reply (in rows) after it;
    a move that finishes the mover is left out (it needs no blocking)."""
    seat = position.turn
    rival = 1 - seat
    race = core.race_core(rules)
    needs: dict[tuple[int, int], int] = {}
    for a, b in _ends(rules, position, seat):
        after = race.apply(position.marbles, seat, a, b)
        if not race.finished(after, seat, True):
            needs[(a, b)] = rival_best(rules, after, rival)
    return needs


def block_puzzle(rules: RaceRules, ply: Ply) -> dict[str, Any] | None:
    """The one move that cuts the rival's longest next move short, by ``BLOCK_ROWS`` rows
    more than any other move does."""
    position = ply.game.position
    threat = rival_best(rules, position.marbles, 1 - position.turn)
    if threat < CHAIN_ROWS:
        return None
    replies = block_answers(rules, position)
    if len(replies) < 8:
        return None
    ranked = sorted(replies.items(), key=lambda item: item[1])
    (answer, left), (_, second) = ranked[0], ranked[1]
    if second - left < BLOCK_ROWS:
        return None
    return _one_move(
        "block",
        rules,
        ply,
        [answer],
        len(replies),
        depth=2,
        extra={"rival": rules.seats[1 - position.turn], "rows": [threat, left]},
    )


# -- the best move in a crowd -------------------------------------------------------------
def crowd_answer(rules: RaceRules, game: Game) -> tuple[int, int] | None:
    """Hard's move at ``CROWD_NODES`` when it is the same under every seed in
    ``CROWD_SEEDS`` and at a tenth of the allowance; None when the choice wavers.
    Hard's search is the compiled core's: without it (the pure-Python fallback chooses
    otherwise) a PuzzleError says so."""
    if not core.COMPILED:
        raise PuzzleError(
            "a crowd puzzle's answer is the compiled Hard's choice: it needs the compiled "
            "core (make setup builds it)"
        )
    chosen = set()
    for nodes in (CROWD_NODES, CROWD_NODES // 10):
        for seed in CROWD_SEEDS:
            limit = Limit(600.0, nodes)
            move = HardPlayer(seed=seed).choose(game.copy(), limit).move
            chosen.add((move[0], move[-1]))
            if len(chosen) > 1:
                return None
    return chosen.pop()


def _puzzle_game(rules: RaceRules, position: Position) -> Game:
    """The game a puzzle is judged in, by its maker and its check alike: the position
    alone, since Hard's root rules read a game's history (its last move, repetitions),
    which a puzzle does not carry, and no leaving deadline."""
    return Game(rules, start=position, deadline_rule=False)


def crowd_puzzle(rules: RaceRules, ply: Ply) -> dict[str, Any] | None:
    game = _puzzle_game(rules, ply.game.position)
    count = len(_ends(rules, game.position, game.position.turn))
    if len(game.in_play) < 3 or count < 10:
        return None
    answer = crowd_answer(rules, game)
    if answer is None:
        return None
    return _one_move("crowd", rules, ply, [answer], count, depth=3)


# -- the set --------------------------------------------------------------------------------
def _candidates(kind: str, rules: RaceRules, plies: list[Ply]) -> Iterator[dict[str, Any] | None]:
    players = rules.players
    if kind == "finish":
        for ply in plies[len(plies) // 2 :: players]:
            for seat in ply.game.in_play:
                yield finish_puzzle(rules, ply, seat)
    elif kind == "chain":
        for ply in plies[players * 3 :: 3]:
            yield chain_puzzle(rules, ply)
    elif kind == "block":
        for ply in plies[players * 4 :: 2]:
            yield block_puzzle(rules, ply)
    else:
        for ply in plies[players * 12 : -players * 4 : players * 2 + 1]:
            yield crowd_puzzle(rules, ply)


def make_puzzles(
    seed: int = 0,
    *,
    per_variant: int = PER_VARIANT,
    games_per_variant: int = GAMES,
    progress: Callable[[str, str, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Every kind's puzzles for its variants, from seeded games (the same seed, the same set).

    A puzzle per game at most for a kind and variant, so the set spreads over games.
    """
    puzzles: list[dict[str, Any]] = []
    for variant in sorted({v for vs in VARIANTS_BY_KIND.values() for v in vs}):
        rules = find_variant(variant)
        assert isinstance(rules, RaceRules)
        kinds = [k for k in KINDS if variant in VARIANTS_BY_KIND[k]]
        found: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
        for plies in games(variant, seed, games_per_variant):
            for kind in kinds:
                if len(found[kind]) >= per_variant:
                    continue
                for puzzle in _candidates(kind, rules, plies):
                    if puzzle is not None and not any(p["id"] == puzzle["id"] for p in puzzles):
                        found[kind].append(puzzle)
                        break
        for kind in kinds:
            puzzles.extend(found[kind])
            if progress is not None:
                progress(kind, variant, len(found[kind]))
    for puzzle in puzzles:
        check_puzzle(puzzle)
    return puzzles


def check_puzzle(puzzle: dict[str, Any]) -> None:
    """Re-check a puzzle's answer with the engine from its JSON alone; PuzzleError if wrong."""
    kind = puzzle.get("kind")
    rules = find_variant(str(puzzle.get("variant")))
    if not isinstance(rules, RaceRules):
        raise PuzzleError(f"{puzzle.get('id')}: not a race variant")
    board = rules.board
    ident = puzzle.get("id")
    if kind == "finish":
        seat = rules.seats.index(puzzle["seat"])
        own = board.mask_of_names(puzzle["marbles"])
        n = puzzle["moves"]
        bound = lower_bound(rules, seat, own, FINISH_NODES)
        if not bound.exact or bound.moves != n:
            raise PuzzleError(f"{ident}: the fewest moves are not {n} ({bound})")
        solo = SoloMoves(rules, seat)
        marbles = own
        for a, b in puzzle["solution"]:
            start, end = 1 << board.index_of[a], 1 << board.index_of[b]
            if (start, end) not in set(solo.ends(marbles)):
                raise PuzzleError(f"{ident}: {a}-{b} is not a move there")
            marbles ^= start ^ end
        if len(puzzle["solution"]) != n or not solo.finished(marbles):
            raise PuzzleError(f"{ident}: the solution does not finish in {n}")
        return
    position = position_from_dict(puzzle["position"])
    game = _puzzle_game(rules, position)
    answers = puzzle["answers"]
    names = board.names
    if kind == "chain":
        best, moves, _ = chain_answers(rules, position)
        expected = _names(rules, moves)
        if best != puzzle["rows"]:
            raise PuzzleError(f"{ident}: the longest gain is {best} rows")
    elif kind == "block":
        replies = block_answers(rules, position)
        least = min(replies.values())
        expected = _names(rules, [m for m, n in replies.items() if n == least])
        rest = sorted(replies.values())[1]
        if (
            rest - least < BLOCK_ROWS
            or [rival_best(rules, position.marbles, 1 - position.turn), least] != puzzle["rows"]
        ):
            raise PuzzleError(f"{ident}: the block is not clear")
    elif kind == "crowd":
        answer = crowd_answer(rules, game)
        if answer is None:
            raise PuzzleError(f"{ident}: Hard's choice wavers")
        expected = [[names[answer[0]], names[answer[1]]]]
    else:
        raise PuzzleError(f"{ident}: unknown kind {kind!r}")
    if expected != answers:
        raise PuzzleError(f"{ident}: the answers are {expected}, not {answers}")
