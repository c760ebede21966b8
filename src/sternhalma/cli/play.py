"""``sternhalma match`` (computer against computer) and ``sternhalma play`` (you against it)."""

from __future__ import annotations

import math
import os
import random
import statistics
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from sternhalma import match as matches
from sternhalma.boards.base import bits
from sternhalma.cli.engine import fail, read_argument
from sternhalma.cli.values import SEED, Finite, count, seconds
from sternhalma.errors import SternhalmaError, shown
from sternhalma.game import Game
from sternhalma.notation import position_from_json
from sternhalma.players import LEVELS, Choice, Limit, foreseen, make_player
from sternhalma.position import Move, Position
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.rules.race import RaceRules
from sternhalma.sprt import Sprt
from sternhalma.table_view import HINT_LINE


@click.command()
@click.option(
    "--variant", default="classic-2", show_default=True, type=click.Choice(list(VARIANTS))
)
@click.option(
    "--players",
    "players_text",
    default="medium,easy",
    show_default=True,
    help="Players by participant, comma-separated; the last fills any remaining seats. "
    "Hard takes options: hard:nodes=20000, hard:seconds=0.5, hard:breadth=8 "
    "(a HardSettings field).",
)
@click.option(
    "--games",
    default=20,
    show_default=True,
    type=click.IntRange(max=1_000_000),
    help="How many games, each from the variant's start unless --openings.",
)
@click.option(
    "--openings",
    is_flag=True,
    help="Begin each round of games (one a seat, the players rotated) with random opening "
    "moves, those of the --sprt round of that number: two searching players otherwise "
    "play nearly the same game each time.",
)
@click.option("--seed", default=1, show_default=True, type=SEED, help="Seed of the whole match.")
@click.option(
    "--jobs",
    default=1,
    show_default=True,
    type=click.IntRange(max=256),
    help="Games played at once (0: one per core).",
)
@click.option(
    "--budget",
    type=seconds(0, 3600, above=True),
    default=None,
    help="Seconds a move for the searching level (Hard's default: 1).",
)
@click.option(
    "--nodes",
    type=count(1),
    default=None,
    help="Hard's search nodes a move, fixed: the same games on any machine "
    "(without --budget the clock is only a far cap).",
)
@click.option(
    "--record",
    "record_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write each game's record to this directory.",
)
@click.option("--no-deadline", is_flag=True, help="Switch the leaving-home deadline off.")
@click.option(
    "--sprt",
    nargs=2,
    type=Finite(-1000, 1000),
    default=None,
    metavar="ELO0 ELO1",
    help="Play rounds of games (one opening, the first player in each seat, the second "
    "in the others) until the sequential test decides between H0: the first player is "
    "ELO0 stronger and H1: ELO1 stronger.",
)
@click.option(
    "--alpha",
    type=Finite(0, 0.5, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="With --sprt: the chance of accepting H1 when H0 is true.",
)
@click.option(
    "--beta",
    type=Finite(0, 0.5, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="With --sprt: the chance of accepting H0 when H1 is true.",
)
@click.option(
    "--max-games",
    type=count(2, 1_000_000),
    default=1000,
    show_default=True,
    help="With --sprt: stop undecided after this many games.",
)
def match(
    variant: str,
    players_text: str,
    games: int,
    openings: bool,
    seed: int,
    jobs: int,
    budget: float | None,
    nodes: int | None,
    record_dir: Path | None,
    no_deadline: bool,
    sprt: tuple[float, float] | None,
    alpha: float,
    beta: float,
    max_games: int,
) -> None:
    """Computer-against-computer games: a table per game and a summary.

    Participants rotate through the seats from game to game, so each moves
    first equally often. Example: --variant classic-2 --players medium,easy.
    With --sprt, a sequential test of the first player against the second
    (in every other seat): --players hard:nodes=20000,hard:nodes=5000 --sprt 0 50.
    """
    levels = [level for level in players_text.split(",") if level.strip()]
    if sprt is not None:
        _sprt_match(
            variant,
            levels,
            seed,
            jobs,
            budget,
            nodes,
            not no_deadline,
            sprt,
            alpha,
            beta,
            max_games,
        )
        return
    try:
        tasks = matches.plan(
            variant,
            levels,
            games,
            seed,
            budget,
            deadline_rule=not no_deadline,
            record=record_dir is not None,
            nodes=nodes,
            openings=openings,
        )
        if jobs < 0:
            raise matches.MatchError("--jobs must be 0 (every core) or more")
        if record_dir is not None:
            record_dir.mkdir(parents=True, exist_ok=True)
    except (SternhalmaError, OSError) as error:
        fail(str(error))
        return
    workers = jobs or os.cpu_count() or 1
    levels = list(tasks[0].levels)
    console = Console()
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        bar = progress.add_task(f"{variant}: {', '.join(levels)}", total=len(tasks))

        def done(report: matches.GameReport) -> None:
            progress.advance(bar)
            if record_dir is not None and report.record is not None:
                path = record_dir / f"game-{report.number:03d}.txt"
                path.write_text(report.record, encoding="utf-8")

        reports = matches.run(tasks, workers, done)
    console.print(_games_table(reports, levels))
    console.print(_summary_table(reports, levels, budget))
    if record_dir is not None:
        console.print(f"Records written to {record_dir}/game-NNN.txt")


def _sprt_match(
    variant: str,
    levels: list[str],
    seed: int,
    jobs: int,
    budget: float | None,
    nodes: int | None,
    deadline_rule: bool,
    bounds: tuple[float, float],
    alpha: float,
    beta: float,
    max_games: int,
) -> None:
    """The sequential test: a line after each pair, then the verdict."""
    try:
        test = Sprt(bounds[0], bounds[1], alpha, beta)
        template = matches.plan_sprt(
            variant, levels, seed, budget, deadline_rule=deadline_rule, nodes=nodes
        )
        matches.most_rounds(template, max_games)
        if jobs < 0:
            raise matches.MatchError("--jobs must be 0 (every core) or more")
    except SternhalmaError as error:
        fail(str(error))
        return
    first, second = (str(c) for c in template.contestants[:2])
    seats = len(template.seating)
    unit = "pair" if seats == 2 else "round"
    console = Console(highlight=False, soft_wrap=True)
    against = second if seats == 2 else f"{seats - 1} × {second}"
    console.print(
        f"SPRT {template.variant}: {escape(first)} against {escape(against)}; "
        f"H0 {test.elo0:+g} Elo, H1 {test.elo1:+g} Elo, alpha {alpha:g}, beta {beta:g}; "
        f"LLR bounds {test.lower:.2f}, {test.upper:.2f}; at most {max_games} games"
    )

    def line(state: matches.SprtState) -> None:
        console.print(f"{unit} {state.rounds.played:>4}: {_sprt_figures(state, seats)}")

    state = matches.run_sprt(template, test, max_games, jobs or os.cpu_count() or 1, line)
    verdict = state.verdict
    if verdict is not None:
        near, far = (test.elo1, test.elo0) if verdict == "H1" else (test.elo0, test.elo1)
        said = f"{verdict} accepted: {first} is nearer {near:+g} than {far:+g} Elo against {second}"
    else:
        said = f"no decision within {max_games} games"
    console.print(f"{said}, after {state.rounds.played} {unit}s: {_sprt_figures(state, seats)}")


def _sprt_figures(state: matches.SprtState, seats: int) -> str:
    """Games, W/D/L, the pairs' counts (with more seats the mean score a game), LLR with
    its bounds and the Elo estimate."""
    elo, low, high = state.rounds.elo()
    if seats == 2:
        counts = " ".join(str(c) for c in state.rounds.pentanomial)
        spread = f"pairs 0/½/1/1½/2 {counts}"
    else:
        spread = f"score {state.rounds.moments()[1]:.3f} a game"
    return (
        f"{state.games} games, W {state.wins} D {state.draws} L {state.losses}, "
        f"{spread}, LLR {state.llr:.2f} "
        f"({state.test.lower:.2f}, {state.test.upper:.2f}), "
        f"Elo {_elo(elo)} [{_elo(low)}, {_elo(high)}]"
    )


def _elo(value: float) -> str:
    return f"{round(value):+d}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def _label(levels: list[str], participant: int) -> str:
    return f"{participant + 1} {levels[participant]}"


def _games_table(reports: list[matches.GameReport], levels: list[str]) -> Table:
    rules = find_variant(reports[0].variant)
    table = Table(title=f"{rules.id}: games (player number and level)")
    table.add_column("game", justify="right")
    table.add_column("moved first")
    table.add_column("winner")
    table.add_column("winner's moves", justify="right")
    table.add_column("others' marbles home" if isinstance(rules, RaceRules) else "captures")
    table.add_column("ending")
    for report in reports:
        winners = report.winners
        first = report.seating[0]
        if len(winners) == 1:
            winner = _label(levels, winners[0])
            seat = report.seat_of(winners[0])
            moves = str(report.moves[seat])
        else:
            winner = "draw: " + ", ".join(_label(levels, p) for p in winners)
            moves = "–"
        ending = report.ending
        if report.repeated_by is not None:
            ending += f" by {_label(levels, report.seating[report.repeated_by])}"
            ending += ", behind" if report.repeated_behind else ""
        if isinstance(rules, RaceRules):
            others = [p for p in range(len(levels)) if len(winners) != 1 or p != winners[0]]
            of = f" of {rules.marbles_per_seat}"
        else:  # everyone's captures
            others, of = list(range(len(levels))), ""
        home = ", ".join(
            f"{_label(levels, p)}: {report.score[report.seat_of(p)]}{of}" for p in others
        )
        table.add_row(
            str(report.number),
            f"{_label(levels, first)} ({rules.seats[0]})",
            winner,
            moves,
            home,
            ending,
        )
    return table


def _summary_table(
    reports: list[matches.GameReport], levels: list[str], budget: float | None
) -> Table:
    games = len(reports)
    title = f"summary: {games} games" + (f", budget {budget:g} s a move" if budget else "")
    table = Table(title=title)
    for column in (
        "player",
        "wins",
        "draws",
        "first %",
        "moves to finish (min–max, mean)",
        "think s/move (mean, median, max)",
        "3rd repetitions made (behind)",
    ):
        table.add_column(column, justify="left" if column == "player" else "right")
    for standing in matches.standings(reports, levels):
        moves = standing.finish_moves
        finish = (
            f"{min(moves)}–{max(moves)}, {statistics.fmean(moves):.1f} ({len(moves)} finished)"
            if moves
            else "–"
        )
        table.add_row(
            _label(levels, standing.participant),
            str(standing.wins),
            str(standing.draws),
            f"{100 * standing.first_rate:.0f}",
            finish,
            f"{standing.mean_think:.3f}, {standing.median_think:.3f}, {standing.longest_think:.3f}",
            f"{standing.repeated} ({standing.repeated_behind})",
        )
    return table


# -- sternhalma play ------------------------------------------------------------

#: Each seat colour's mark (told apart without colour too) and terminal style.
MARKS = {
    "white": ("○", "bold bright_white"),
    "red": ("◆", "bold red"),
    "blue": ("■", "bold bright_blue"),
    "black": ("●", "bold black on grey70"),
    "yellow": ("▲", "bold yellow"),
    "green": ("✚", "bold green"),
}
#: Capture pieces belong to nobody.
PIECE = ("●", "bold cyan")

HELP = """Type a move as the path of holes joined by '-': a step like l2-l3, or a jump
chain like m1-m3-k5 (capture: i7-i9-g11). Commands:
  moves   list your legal moves
  hint    the move Hard would play, and what it foresees
  undo    take back your last move (and the computer's replies)
  board   draw the board again
  help    this text
  quit    leave the game"""


def draw_board(position: Position, last: Move | None = None) -> Text:
    """The board as coloured text: every hole by its name, a marble as its mark + name.

    An empty hole shows its name dimmed, so every name can be found and typed;
    the last move's holes are underlined.
    """
    rules = position.rules
    board = rules.board
    owner: dict[int, tuple[str, str]] = {}
    for seat, marbles in enumerate(position.marbles):
        for hole in bits(marbles):
            owner[hole] = MARKS[rules.seats[seat]]
    for hole in bits(position.pieces):
        owner[hole] = PIECE
    moved = set(last or ())
    if board.kind == "square":
        side = max(b for _, b in board.cells)
        place = {hole: (side - b, 4 * (a - 1)) for hole, (a, b) in enumerate(board.cells)}
        labels = [str(side - line) for line in range(side)]
    else:  # the star: row r from the top, x = 2q + r half-holes (rules.md#the-star-board)
        top = max(r for _, r in board.cells)
        left = min(2 * q + r for q, r in board.cells)
        place = {hole: (top - r, 3 * (2 * q + r - left)) for hole, (q, r) in enumerate(board.cells)}
        labels = [str(top - line) for line in range(top)]
    lines: list[dict[int, int]] = [{} for _ in labels]
    for hole, (line, column) in place.items():
        lines[line][column] = hole
    text = Text()
    for label, holes in zip(labels, lines, strict=True):
        text.append(f"{label:>2} ", style="dim")
        at = 0
        for column in sorted(holes):
            hole = holes[column]
            text.append(" " * (column - at))
            name = board.names[hole]
            underline = " underline" if hole in moved else ""
            if hole in owner:
                mark, style = owner[hole]
                text.append(f"{mark}{name:<3}", style=style + underline)
            else:
                text.append(f" {name:<3}", style="dim" + underline)
            at = column + 4
        text.append("\n")
    return text


def _standing_line(game: Game) -> str:
    """Each seat's progress: marbles home (race) or captures."""
    rules = game.rules
    position = game.position
    if isinstance(rules, RaceRules):
        parts = [
            f"{MARKS[c][0]} {c} {rules.in_goal(position, s)}/{rules.marbles_per_seat} home"
            for s, c in enumerate(rules.seats)
        ]
    else:
        parts = [f"{c} {position.captured[s]} captured" for s, c in enumerate(rules.seats)]
    return " · ".join(parts)


def hint_text(game: Game, choice: Choice) -> str:
    """The hint and what Hard foresees, where its search keeps a line: in contact the
    replies it expects and its moves between them, else its plan of the player's moves."""
    rules = game.rules
    text = f"hint: {rules.format_move(choice.move)}"
    line = foreseen(game, choice)
    steps = line[:HINT_LINE]
    if not steps:
        return text
    more = " …" if len(line) > HINT_LINE else ""
    if choice.info.search == "alphabeta":
        expected = ", ".join(
            f"{rules.seats[seat]} {rules.format_move(move)}" for seat, move in steps
        )
        return f"{text}; expecting {expected}{more}"
    plan = " ".join(rules.format_move(move) for _, move in steps)
    return f"{text}; a plan of {len(line) + 1} moves, then {plan}{more}"


@click.command()
@click.option(
    "--variant", default="classic-2", show_default=True, type=click.Choice(list(VARIANTS))
)
@click.option(
    "--level",
    default="medium",
    show_default=True,
    type=click.Choice(list(LEVELS)),
    help="The computer's level.",
)
@click.option("--seat", default="white", show_default=True, help="Your colour (white moves first).")
@click.option("--seed", default=None, type=SEED, help="The computer's seed (random by default).")
@click.option(
    "--budget",
    type=seconds(0, 3600, above=True),
    default=None,
    help="Seconds a move for Hard and hints.",
)
@click.option("--no-deadline", is_flag=True, help="Switch the leaving-home deadline off.")
@click.option(
    "--position",
    "position_text",
    default=None,
    help="Start from this position (JSON, or - for stdin) instead of the beginning.",
)
@click.option(
    "--moves-made",
    default=None,
    help="With --position: each seat's moves so far, comma-separated (the deadline counts them).",
)
def play(
    variant: str,
    level: str,
    seat: str,
    seed: int | None,
    budget: float | None,
    no_deadline: bool,
    position_text: str | None,
    moves_made: str | None,
) -> None:
    """A game in the terminal against the computer; type moves like m1-m3-k5.

    The computer takes every other seat. Commands: moves, hint, undo, board, help, quit.
    With --position the game starts there (its variant wins over --variant).
    """
    try:
        start = position_from_json(read_argument(position_text)) if position_text else None
        rules = start.rules if start is not None else find_variant(variant)
        you = rules.seat_of(seat)
        if budget is not None and budget <= 0:
            raise ValueError("the think budget must be more than 0 seconds")
        made = None
        if moves_made is not None:
            try:
                made = [int(n) for n in moves_made.split(",")]
            except ValueError:
                raise ValueError(
                    f"--moves-made {shown(moves_made)}: write numbers like 30,29"
                ) from None
        game = Game(rules, start=start, deadline_rule=not no_deadline, moves_made=made)
    except ValueError as error:
        fail(str(error))
        return
    base = random.randrange(1 << 31) if seed is None else seed
    computers = {s: make_player(level, base + s) for s in range(rules.players) if s != you}
    adviser = make_player("hard", base)
    console = Console(highlight=False, soft_wrap=True)
    colour = rules.seats[you]
    console.print(
        f"{rules.title}: you are {MARKS[colour][0]} {colour}; the computer plays "
        f"{', '.join(rules.seats[s] for s in computers)} at level {level}. Type help for help."
    )
    last: Move | None = None
    show = True
    while game.turn is not None:
        turn = game.turn
        if turn != you:
            move = computers[turn].choose(game, Limit(budget)).move
            game.play(move, turn)
            last = move
            console.print(f"{rules.seats[turn]} plays {rules.format_move(move)}")
            show = True
            continue
        if show:
            console.print(draw_board(game.position, last))
            console.print(_standing_line(game))
            show = False
        try:
            command = click.prompt(
                f"{colour}, your move {game.moves_made(you) + 1}",
                default="",
                show_default=False,
                prompt_suffix="> ",
            ).strip()
        except click.Abort:
            console.print("\nGoodbye.")
            return
        word = command.lower()
        if not word:
            continue
        if word in ("quit", "exit", "q"):
            console.print("Goodbye.")
            return
        if word in ("help", "?"):
            console.print(HELP)
        elif word == "board":
            show = True
        elif word == "moves":
            texts = sorted(rules.format_move(m) for m in rules.distinct_moves(game.position))
            each = " (one path for each result)" if rules.moves_by_path else ""
            console.print(f"{len(texts)} moves{each}: " + "  ".join(texts))
        elif word == "hint":
            console.print(hint_text(game, adviser.choose(game, Limit(budget))))
        elif word == "undo":
            last = _undo(game, you, console)
            show = True
        else:
            played = _try_move(game, you, command, console)
            if played is not None:
                last = played
                show = True
    assert game.result is not None
    console.print(draw_board(game.position, last))
    console.print(_standing_line(game))
    place = game.result.places[you]
    verdict = (
        "You won!"
        if game.result.winners == (you,)
        else ("A draw." if you in game.result.winners else f"Your place: {place}.")
    )
    console.print(f"{game.result.reason} {verdict}")


def _try_move(game: Game, you: int, text: str, console: Console) -> Move | None:
    """Play the typed move; a bad one gets its reason and changes nothing."""
    rules = game.rules
    try:
        move = rules.parse_move(game.position, text)
        if game.would_put_out(move) and not click.confirm(
            f"{rules.format_move(move)} puts you out (leaving-home deadline). Play it anyway?",
            default=False,
        ):
            return None
        return game.play(move, you)
    except SternhalmaError as error:
        console.print(f"[red]{escape(str(error))}[/red]")
        return None


def _undo(game: Game, you: int, console: Console) -> Move | None:
    """Take back your last move and the computer's replies; the new last move or None."""
    mine = [i for i, turn in enumerate(game.turns) if turn.seat == you and turn.move is not None]
    if not mine:
        console.print("There is no move of yours to take back.")
        return game.moves[-1] if game.moves else None
    count = sum(1 for turn in game.turns[mine[-1] :] if turn.move is not None)
    taken = [game.rules.format_move(game.undo()) for _ in range(count)]
    console.print("Took back " + ", ".join(reversed(taken)) + ".")
    return game.moves[-1] if game.moves else None


__all__ = ["LEVELS", "draw_board", "match", "play"]
