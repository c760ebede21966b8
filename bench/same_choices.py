"""Whether Hard still chooses the moves an earlier commit's Hard chose (issue 26's
non-regression). Where every choice is the same, the two play the same games, so the
change costs no strength and no match is needed to show it; where some differ, the
list says where, and a sequential test (``sternhalma match --sprt``) has to decide.
It also prints each side's CPU time a move on those positions, measured in the same run
(the machine is shared: the ratio of the two means is the figure that holds).

    nice .venv/bin/python bench/same_choices.py --commit 51c1571 --finish-rule anytime
    .venv/bin/python bench/same_choices.py --commit HEAD~3 --variant classic-2 --games 2

The commit is checked out beside the project (``build/commits/<commit>``, a git
worktree, kept for the next run until ``git worktree remove`` takes it away) and its
compiled core built there with cmake; both sides must run on a compiled core. Each side
chooses in a child process of this Python, the commit's side with the commit's sources
first on the path, and either engine API (``choose(game, Limit)``, or the older
``choose(game, budget)`` with ``nodes``). The two are asked a position at a time, in
turn, each first every other position.

The positions of a variant: ``--positions`` seeded mid-game positions
(``benchmark.sample_positions``, the same in every version), and every position of
``--games`` games today's Hard played against Medium, where the history counts (a rival
that races, the leaving deadline). Both sides search each variant's default allowance
on the compiled core (``hard.nodes_per_second`` for one second), fixed, so the clock
never decides. ``--finish-rule anytime`` referees today's side by the rule from before
issue 30 (the goal owner's marbles count at any time), as commits before it play.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VARIANTS = ["classic-2", "classic-3", "classic-6", "halma-2"]


# -- the child: one version's choices, a position at a time ---------------------------------
def chooser() -> Any:
    """``choose(request)``: for a source of positions (``{"source": ...}``) how many it
    has, for one of them (``{"source": ..., "index": i}``) Hard's move there (a list of
    holes; None where the game is over) and its CPU seconds, with whichever version of the
    package is on the path. A source is seeded positions or the positions of a game."""
    import time

    from sternhalma import core
    from sternhalma.benchmark import sample_positions
    from sternhalma.game import Game
    from sternhalma.players.hard import HardPlayer
    from sternhalma.rules import VARIANTS

    if not core.COMPILED:
        raise SystemExit(f"{core.NAME}: this comparison needs the compiled core")
    import sternhalma.players

    # Before the one engine API (issue 26) there was no Limit: HardPlayer took the nodes
    # and choose the seconds. Typed as Any, since it is whichever version is on the path.
    limit: Any = getattr(sternhalma.players, "Limit", None)
    hard: Any = HardPlayer

    def choice(game: Any, nodes: int) -> tuple[list[int] | None, float]:
        if game.is_over:
            return None, 0.0
        began = time.process_time()
        if limit is None:
            move = hard(1, nodes=nodes).choose(game, budget=60)
        else:
            move = hard(1).choose(game, limit(nodes=nodes)).move
        return list(move), time.process_time() - began

    def games(source: dict[str, Any]) -> list[Any]:
        rules = VARIANTS[source["variant"]]
        rule = {"finish_rule": source["finish_rule"]} if source.get("finish_rule") else {}
        if "moves" not in source:
            starts = sample_positions(rules, source["count"], seed=source["seed"])
            return [Game(rules, start=start, **rule) for start in starts]
        again = Game(rules, **rule)
        before = []
        for text in source["moves"]:
            if again.is_over:  # sooner by the rule asked for than as the game was played
                break
            before.append(again.copy())
            again.play(text)
        return before

    made: dict[str, list[Any]] = {}

    def choose(request: dict[str, Any]) -> Any:
        key = json.dumps(request["source"], sort_keys=True)
        if key not in made:
            made[key] = games(request["source"])
        if "index" not in request:
            return {"count": len(made[key])}
        return choice(made[key][request["index"]], request["source"]["nodes"])

    return choose


def child(src: str | None) -> None:
    """Answers requests (a JSON line each, on standard input) with a JSON line each."""
    if src:
        # The commit's sources, not this checkout's editable install.
        sys.meta_path = [
            finder
            for finder in sys.meta_path
            if not any(word in type(finder).__module__.lower() for word in ("editable", "scikit"))
        ]
        sys.path.insert(0, src)
    choose = chooser()
    for line in sys.stdin:
        print(json.dumps(choose(json.loads(line))), flush=True)


# -- the parent -----------------------------------------------------------------------------
def built_commit(commit: str) -> tuple[Path, Path]:
    """The commit's worktree and its compiled core, made once under build/commits/."""
    sha = run(["git", "-C", str(ROOT), "rev-parse", "--short=12", commit]).strip()
    tree = ROOT / "build" / "commits" / sha
    if not tree.exists():
        run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), sha])
    build = tree / "build-core"
    cmake = ["cmake", "-S", str(tree), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"]
    run([*cmake, f"-DPython_EXECUTABLE={sys.executable}"])
    run(["cmake", "--build", str(build), "-j2"])
    return tree, next(build.glob("_native*.so"))


class Side:
    """One version's child process, asked a position at a time, so that the two sides'
    positions interleave and a drift in the machine's speed falls on both alike."""

    def __init__(self, tree: Path | None, core_file: Path | None) -> None:
        env = dict(os.environ)
        env.pop("STERNHALMA_PURE", None)
        if core_file is not None:
            env["STERNHALMA_CORE_FILE"] = str(core_file)
        command = [sys.executable, __file__, "--child", str(tree / "src") if tree else ""]
        self.errors = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (close() closes it)
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
            env=env,
        )

    def ask(self, request: dict[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            self.errors.seek(0)
            raise SystemExit(f"a child stopped:\n{self.errors.read()[-3000:]}")
        return json.loads(line)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()
        self.errors.close()


def run(command: list[str], **options: Any) -> str:
    """``command``'s output; on failure, exit saying which command failed and why."""
    done = subprocess.run(command, capture_output=True, text=True, check=False, **options)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} failed:\n{done.stderr[-3000:]}")
    return str(done.stdout)


def played_games(variant: str, games: int, seed: int, nodes: int) -> list[list[str]]:
    """The moves (as text) of games of today's Hard against Medium, the seats rotating,
    at ``nodes`` a move (none for 0 games)."""
    if games == 0:
        return []
    from sternhalma import match
    from sternhalma.records import read_record

    tasks = match.plan(variant, ["hard", "medium"], games, seed, record=True, nodes=nodes)
    played = [read_record(report.record).game for report in match.run(tasks) if report.record]
    return [[game.rules.format_move(move) for move in game.moves] for game in played]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--commit", default="51c1571", help="The earlier Hard (default: issue 26's)."
    )
    parser.add_argument(
        "--variant", action="append", default=[], help="Default: classic-2, -3, -6, halma-2."
    )
    parser.add_argument("--positions", type=int, default=30, help="Seeded positions a variant.")
    parser.add_argument("--games", type=int, default=2, help="Games against Medium a variant.")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--finish-rule", choices=["anytime"], help="Referee today's side by it.")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child or None)
        return

    from sternhalma.players.hard import HardSettings, nodes_per_second
    from sternhalma.rules import VARIANTS

    tree, core_file = built_commit(args.commit)
    print(f"== Hard's choices: this checkout against {args.commit} ({tree.name}), compiled cores")
    sides = Side(None, None), Side(tree, core_file)  # now, then
    total_same = total = 0
    total_seconds = [0.0, 0.0]
    for variant in args.variant or DEFAULT_VARIANTS:
        nodes = nodes_per_second(HardSettings(), VARIANTS[variant])
        sources: list[dict[str, Any]] = [
            {"variant": variant, "nodes": nodes, "count": args.positions, "seed": args.seed}
        ]
        for moves in played_games(variant, args.games, args.seed, nodes):
            sources.append({"variant": variant, "nodes": nodes, "moves": moves})
        same = differ = 0
        seconds = [0.0, 0.0]  # now, then: over the positions both chose at
        for number, source in enumerate(sources):
            # Today's side refereed by the rule asked for; the commit's by its own.
            asked = [{**source, "finish_rule": args.finish_rule}, source]
            counts = [
                side.ask({"source": s})["count"] for side, s in zip(sides, asked, strict=True)
            ]
            if counts[0] != counts[1]:
                print(f"   {variant} game {number}: {counts[0]} positions now, {counts[1]} then")
            for ply in range(min(counts)):
                # Each side first every other time.
                order = (0, 1) if ply % 2 == 0 else (1, 0)
                answers: list[Any] = [None, None]
                for i in order:
                    answers[i] = sides[i].ask({"source": asked[i], "index": ply})
                (a, a_seconds), (b, b_seconds) = answers
                if a is None:
                    continue
                seconds[0] += a_seconds
                seconds[1] += b_seconds
                if a == b:
                    same += 1
                    continue
                differ += 1
                where = f"position {ply}" if number == 0 else f"game {number}, ply {ply}"
                print(f"   {variant} {where}: now {a}, then {b}")
        positions = same + differ
        cpu = (
            f"; CPU a move now {seconds[0] / positions:.3f} s, then {seconds[1] / positions:.3f} s, "
            f"now / then {seconds[0] / seconds[1]:.2f}"
            if positions and seconds[1]
            else ""
        )
        print(f"{variant:>10}: {same} of {positions} the same at {nodes:,} nodes a move{cpu}")
        total_same += same
        total += positions
        total_seconds = [t + s for t, s in zip(total_seconds, seconds, strict=True)]
    for side in sides:
        side.close()
    ratio = (
        f"; CPU now / then {total_seconds[0] / total_seconds[1]:.2f}" if total_seconds[1] else ""
    )
    print(f"{'in all':>10}: {total_same} of {total} the same{ratio}")
    print(f"   {args.commit}'s checkout and build stay in {tree} for the next run;")
    print(f"   `git worktree remove --force {tree}` removes them")


if __name__ == "__main__":
    main()
