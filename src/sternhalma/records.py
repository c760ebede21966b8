"""Game records: a text file with tags and numbered moves (docs/records.md).

Writing a game and reading it back gives the same game: reading replays
every move with the referee, so a record that breaks a rule is refused with
the move number and the reason (``move 14: j5-j7 is not legal for red: j6 is
empty``). Passes are not written; replaying makes the same passes.

A record made before the Decision (rules.md#finishing) on the goal owner's marbles (issue 30)
may only replay by the earlier finishing rule: one that today's rule cannot
replay to its recorded end is read by the earlier rule, and the game says so
(``Game.finish_rule == "anytime"``); written again it carries
``[Finishing "anytime"]``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sternhalma.boards.star import COLOURS
from sternhalma.clock import TimeControl, parse_time_control
from sternhalma.errors import SternhalmaError, shown
from sternhalma.game import ANYTIME, ENDINGS, FINISH_RULES, OWNER_LEAVING, Game, Result
from sternhalma.notation import position_from_json, position_to_json
from sternhalma.rules import find_variant
from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules


class RecordError(SternhalmaError):
    """A game record that cannot be read or whose moves break the rules."""


_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]$')
#: A move number (ASCII digits: ``\d`` would take other scripts' digits, which int() reads).
_NUMBER = re.compile(r"^([0-9]+)\.(.*)$")
#: A whole number in a tag (MovesMade, RoundsPlayed): ASCII digits, at most six.
_COUNT = re.compile(r"[0-9]{1,6}")
#: One seat's (or team's) place in Result and TeamResult: ``white 1``, ``white+black 2``.
_PLACE = re.compile(r"([a-z]+(?:\+[a-z]+)*)\s+([0-9]{1,2})")
#: Tags the format defines besides the players' (one per seat colour).
_DEFINED = (
    "Variant",
    "Date",
    "Clock",
    "Deadline",
    "Finishing",
    "Position",
    "MovesMade",
    "RoundsPlayed",
    "Result",
    "TeamResult",
    "Ending",
    "Resigned",
    "Flagged",
    "Left",
    "Reason",
)
#: Where the game's ending names a seat, the tag that records it.
_SEAT_TAG = {
    "resignation": "Resigned",
    "flag": "Flagged",
    "abandoned": "Left",
    "draw-claimed": "Left",
}


@dataclass
class Record:
    """A game read from (or ready to be written to) a record."""

    game: Game
    #: Player names by seat colour (only the seats the record names).
    players: dict[str, str] = field(default_factory=dict)
    #: The date as written, normally ISO (``2024-05-01``).
    date: str | None = None
    time_control: TimeControl | None = None
    #: Tags the format does not define, kept as they were.
    extra: dict[str, str] = field(default_factory=dict)

    def text(self) -> str:
        return write_record(
            self.game,
            players=self.players,
            date=self.date,
            time_control=self.time_control,
            extra=self.extra,
        )


def write_record(
    game: Game,
    *,
    players: Mapping[str, str] | Sequence[str] = (),
    date: str | datetime.date | None = None,
    time_control: TimeControl | None = None,
    extra: Mapping[str, str] | None = None,
) -> str:
    """The record of ``game`` (finished or not) as text.

    ``players`` are names by colour or in seat order; the time control is the
    game's clock's unless given.
    """
    rules = game.rules
    tags: dict[str, str] = {"Variant": rules.id}
    if date is not None:
        tags["Date"] = date.isoformat() if isinstance(date, datetime.date) else date
    for colour, name in _players_by_colour(rules, players).items():
        tags[colour.capitalize()] = name
    control = time_control or (game.clock.control if game.clock is not None else None)
    if control is not None:
        tags["Clock"] = str(control)
    if not game.deadline_rule and rules.deadline is not None:
        tags["Deadline"] = "off"
    if game.finish_rule != OWNER_LEAVING:
        tags["Finishing"] = game.finish_rule
    if game.start != rules.initial():
        tags["Position"] = position_to_json(game.start)
    if any(game.start_moves_made):
        tags["MovesMade"] = " ".join(str(n) for n in game.start_moves_made)
    if game.start_rounds:
        tags["RoundsPlayed"] = str(game.start_rounds)
    result = game.result
    if result is None:
        tags["Result"] = "*"
    else:
        tags["Result"] = format_places(rules.seats, result.places)
        if rules.teams:
            tags["TeamResult"] = format_places(_team_names(rules), result.team_places)
        tags["Ending"] = result.ending
        if result.ending in _SEAT_TAG and result.seat is not None:
            tags[_SEAT_TAG[result.ending]] = rules.seats[result.seat]
        tags["Reason"] = result.reason
    for name, value in (extra or {}).items():
        if (
            name in tags
            or name in _DEFINED
            or name.lower() in COLOURS
            or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name)
        ):
            raise RecordError(f"{shown(name)} cannot be an extra tag")
        tags[name] = value
    lines = [f'[{name} "{_escape(value)}"]' for name, value in tags.items()]
    lines.append("")
    lines.extend(f"{n}. {rules.format_move(move)}" for n, move in enumerate(game.moves, 1))
    return "\n".join(lines) + "\n"


def read_record(text: str) -> Record:
    """Read a record and replay it; RecordError says which line or move is wrong."""
    if re.search("[\ud800-\udfff]", text):
        raise RecordError("the record is not UTF-8 text (it has a lone surrogate)")
    tags, moves = _parse(text)
    if "Variant" not in tags:
        raise RecordError('the record has no Variant tag (like [Variant "classic-2"])')
    try:
        rules = find_variant(tags["Variant"])
    except SternhalmaError as error:
        raise RecordError(f"Variant: {error}") from None
    players: dict[str, str] = {}
    extra: dict[str, str] = {}
    for name, value in tags.items():
        if name in _DEFINED:
            continue
        if name.lower() in rules.seats:
            players[name.lower()] = value
        elif name.lower() in COLOURS:
            raise RecordError(
                f"the record names a {name.lower()} player, who has no seat in {rules.id}"
            )
        else:
            extra[name] = value
    control = None
    if tags.get("Clock", "-") != "-":
        try:
            control = parse_time_control(tags["Clock"])
        except SternhalmaError as error:
            raise RecordError(f"Clock: {error}") from None
    named = tags.get("Finishing")
    if named is not None and named not in FINISH_RULES:
        raise RecordError(f"Finishing must be one of {', '.join(FINISH_RULES)}, not {shown(named)}")
    try:
        game = _replayed(rules, tags, moves, named or OWNER_LEAVING)
    except RecordError:
        # Made before today's finishing rule (docs/records.md): read as it was played,
        # else today's error is the one to tell.
        earlier = None if named is not None else _by_the_earlier_rule(rules, tags, moves)
        if earlier is None:
            raise
        game = earlier
    # Players are kept in seat order, whatever order the record listed them.
    ordered = {c: players[c] for c in rules.seats if c in players}
    return Record(game, ordered, tags.get("Date"), control, extra)


def earlier_rule_note(game: Game) -> str | None:
    """A sentence for people when ``game`` is refereed by the earlier finishing rule."""
    if game.finish_rule == OWNER_LEAVING:
        return None
    return (
        "Played by the earlier finishing rule: the goal's owner's marbles counted for "
        "you at any time. Today they count only once the owner is no longer leaving "
        "(its own move 30, or out, or finished), and this game might have gone otherwise."
    )


def format_places(names: Sequence[str], places: Sequence[int]) -> str:
    """``white 1, black 2``: each seat (or team) with its place, in seat order."""
    return ", ".join(f"{name} {place}" for name, place in zip(names, places, strict=True))


def result_text(rules: Ruleset, result: Result) -> str:
    """The places of a result as a record writes them (teams added for pairs)."""
    text = format_places(rules.seats, result.places)
    if rules.teams:
        text += f"; teams: {format_places(_team_names(rules), result.team_places)}"
    return text


# -- reading ------------------------------------------------------------------
def _parse(text: str) -> tuple[dict[str, str], list[str]]:
    """Tags and move texts; checks the syntax and the move numbers only."""
    tags: dict[str, str] = {}
    moves: list[str] = []
    in_moves = False
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        line = raw.strip()
        if not line.startswith("["):
            line = line.split(";", 1)[0].strip()  # a comment runs to the end of the line
        if not line:
            continue
        if line.startswith("["):
            if in_moves:
                raise RecordError(f"line {number}: tags must come before the moves")
            match = _TAG.match(line)
            if not match:
                raise RecordError(f'line {number}: a tag must look like [Name "value"]')
            name, value = match.group(1), _unescape(match.group(2))
            if name in tags:
                raise RecordError(f"line {number}: the {name} tag is given twice")
            tags[name] = value
            continue
        in_moves = True
        for token in line.split():
            numbered = _NUMBER.match(token)
            if numbered:
                expected = len(moves) + 1
                if numbered.group(1).lstrip("0") != str(expected):
                    raise RecordError(
                        f"line {number}: move number {numbered.group(1)} "
                        f"where move {expected} was expected"
                    )
                token = numbered.group(2)
                if not token:
                    continue
            moves.append(token)
    return tags, moves


def _finishing_differs(rules: Ruleset) -> bool:
    """Whether the earlier finishing rule can judge a game of ``rules`` otherwise: where a
    goal is another seat's home and the anti-blocking rule counts that seat's marbles."""
    return (
        isinstance(rules, RaceRules)
        and rules.anti_blocking
        and any(owner is not None for owner in rules.goal_owners)
    )


def _by_the_earlier_rule(rules: Ruleset, tags: dict[str, str], moves: list[str]) -> Game | None:
    """The record's game by the earlier finishing rule, or None where that rule judges
    the same or the record does not replay by it either."""
    if not _finishing_differs(rules):
        return None
    try:
        return _replayed(rules, tags, moves, ANYTIME)
    except RecordError:
        return None


def _replayed(rules: Ruleset, tags: dict[str, str], moves: list[str], finish_rule: str) -> Game:
    """The game of the record by ``finish_rule``: set up, every move replayed, the
    recorded ending applied and the result checked."""
    game = _new_game(rules, tags, finish_rule)
    for number, move in enumerate(moves, 1):
        try:
            game.play(move)
        except SternhalmaError as error:
            raise RecordError(f"move {number}: {error}") from None
    _finish(game, tags, len(moves))
    return game


def _new_game(rules: Ruleset, tags: dict[str, str], finish_rule: str = OWNER_LEAVING) -> Game:
    deadline = tags.get("Deadline", "on").strip().lower()
    if deadline not in ("on", "off"):
        raise RecordError(f'Deadline must be "on" or "off", not {shown(tags["Deadline"])}')
    start = None
    if "Position" in tags:
        try:
            start = position_from_json(tags["Position"])
        except SternhalmaError as error:
            raise RecordError(f"Position: {error}") from None
        if start.rules is not rules:
            raise RecordError(f"Position: the start position is {start.rules.id}, not {rules.id}")
    made = None
    if "MovesMade" in tags:
        parts = tags["MovesMade"].split()
        if len(parts) != rules.players or not all(_COUNT.fullmatch(p) for p in parts):
            raise RecordError(
                f"MovesMade needs {rules.players} whole numbers (own moves per seat before the record)"
            )
        made = [int(p) for p in parts]
    rounds = 0
    if "RoundsPlayed" in tags:
        if not _COUNT.fullmatch(tags["RoundsPlayed"].strip()):
            raise RecordError("RoundsPlayed must be a whole number, like 12")
        rounds = int(tags["RoundsPlayed"])
    try:
        return Game(
            rules,
            start=start,
            deadline_rule=deadline == "on",
            moves_made=made,
            rounds_played=rounds,
            finish_rule=finish_rule,
        )
    except SternhalmaError as error:
        raise RecordError(str(error)) from None


def _finish(game: Game, tags: dict[str, str], count: int) -> None:
    """Apply a recorded resignation or flag, then check the recorded result."""
    rules = game.rules
    ending = tags.get("Ending")
    if ending is not None and ending not in ENDINGS:
        raise RecordError(f"unknown Ending {shown(ending)}; known: {', '.join(ENDINGS)}")
    if ending in _SEAT_TAG:
        tag = _SEAT_TAG[ending]
        if tag not in tags:
            raise RecordError(f"the game ended by {ending} but the record has no {tag} tag")
        if game.is_over:
            raise RecordError(
                f"the record says {tags[tag]} ended it by {ending}, but the game was already "
                f"over after move {count}: {game.result.reason if game.result else ''}"
            )
        try:
            if ending == "resignation":
                game.resign(tags[tag])
            elif ending == "abandoned":
                game.abandon(tags[tag])
            elif ending == "draw-claimed":
                game.call_draw(tags[tag])
            else:
                game.flag(tags[tag])
        except SternhalmaError as error:
            raise RecordError(f"{tag}: {error}") from None
    recorded = tags.get("Result")
    if recorded is None:
        return
    result = game.result
    if recorded.strip() == "*":
        if result is not None:
            raise RecordError(
                f"the record says the game is still going (*), but after its {count} moves "
                f"it is over: {result.reason}"
            )
        return
    if result is None:
        raise RecordError(
            f"the record gives a result ({recorded}), but after its {count} moves "
            "the game is not over"
        )
    actual = format_places(rules.seats, result.places)
    if _places("Result", recorded, rules.seats) != _places("Result", actual, rules.seats):
        raise RecordError(f"the record's result ({recorded}) does not match its moves ({actual})")
    if rules.teams and "TeamResult" in tags:
        names = _team_names(rules)
        teams = format_places(names, result.team_places)
        if _places("TeamResult", tags["TeamResult"], names) != _places("TeamResult", teams, names):
            raise RecordError(
                f"the record's team result ({tags['TeamResult']}) does not match its moves ({teams})"
            )
    if ending is not None and ending != result.ending:
        raise RecordError(
            f"the record's ending ({ending}) does not match its moves ({result.ending})"
        )


# -- small helpers ---------------------------------------------------------------
def _players_by_colour(
    rules: Ruleset, players: Mapping[str, str] | Sequence[str]
) -> dict[str, str]:
    if isinstance(players, Mapping):
        named = {}
        for colour, name in players.items():
            try:
                seat = rules.seat_of(colour)
            except ValueError as error:
                raise RecordError(str(error)) from None
            named[seat] = name
        return {rules.seats[s]: named[s] for s in sorted(named)}
    if isinstance(players, str) or len(players) > rules.players:
        raise RecordError(f"give at most {rules.players} player names, in seat order")
    return dict(zip(rules.seats, players, strict=False))


def _team_names(rules: Ruleset) -> list[str]:
    return ["+".join(rules.seats[s] for s in team) for team in rules.teams]


def _places(tag: str, text: str, names: Sequence[str]) -> dict[str, int]:
    """The place of each seat (or team) in a Result (TeamResult) tag, in any order."""
    places: dict[str, int] = {}
    for part in text.lower().split(","):
        match = _PLACE.fullmatch(part.strip())
        if not match or match.group(1) not in names or match.group(1) in places:
            raise RecordError(
                f"{tag} must give each of {', '.join(names)} once with its place, "
                f"like {format_places(names, range(1, len(names) + 1))!r}; not {text[:80]!r}"
            )
        places[match.group(1)] = int(match.group(2))
    if len(places) != len(names):
        missing = [name for name in names if name not in places]
        raise RecordError(f"{tag} gives no place for {', '.join(missing)}")
    return places


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


__all__ = [
    "Record",
    "RecordError",
    "earlier_rule_note",
    "format_places",
    "read_record",
    "result_text",
    "write_record",
]
