"""`sternhalma moves` and `sternhalma bench`, run as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from sternhalma.cli import main
from sternhalma.notation import position_to_json
from sternhalma.rules import find_variant

START = position_to_json(find_variant("classic-2").initial())


def test_moves_lists_every_legal_move_sorted() -> None:
    result = CliRunner().invoke(main, ["moves", "--position", START])
    assert result.exit_code == 0
    lines = result.output.split()
    assert len(lines) == 14 and lines == sorted(lines)
    assert "m1-m3-k5" not in lines and "m3-k5" in lines


def test_moves_reads_standard_input_and_prints_json() -> None:
    result = CliRunner().invoke(main, ["moves", "--position", "-", "--json"], input=START)
    assert result.exit_code == 0
    assert json.loads(result.output)[0] == "j4-i5"


def test_bad_position_one_line_on_stderr_exit_2() -> None:
    bad = START.replace('"m1"', '"z9"')
    done = subprocess.run(
        [sys.executable, "-m", "sternhalma", "moves", "--position", bad],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == ["error: white's marbles: unknown hole 'z9'"]


def test_bench_prints_figures_for_a_variant() -> None:
    result = CliRunner().invoke(main, ["bench", "--variant", "classic-2", "--seconds", "0.05"])
    assert result.exit_code == 0
    assert "classic-2" in result.output and "positions/s" in result.output


def test_moves_of_a_variants_start_need_no_position() -> None:
    by_variant = CliRunner().invoke(main, ["moves", "--variant", "classic-2"])
    by_position = CliRunner().invoke(main, ["moves", "--position", START])
    assert by_variant.exit_code == 0, by_variant.output
    assert by_variant.output == by_position.output
    halma = CliRunner().invoke(main, ["moves", "--variant", "halma-2", "--json"])
    assert "p5-p6" in json.loads(halma.output)


def test_moves_without_position_or_variant_and_a_mismatch_say_so() -> None:
    neither = CliRunner().invoke(main, ["moves"])
    assert neither.exit_code == 2
    assert "give --position JSON or --variant" in neither.output
    both = CliRunner().invoke(main, ["moves", "--position", START, "--variant", "halma-2"])
    assert both.exit_code == 2
    assert "--variant halma-2 but the position is classic-2" in both.output


def test_start_prints_the_starting_position_that_moves_reads() -> None:
    for variant in ("classic-2", "capture-3-longjump", "halma-4"):
        printed = CliRunner().invoke(main, ["start", "--variant", variant])
        assert printed.exit_code == 0, printed.output
        assert printed.output == position_to_json(find_variant(variant).initial()) + "\n"
    longjump = CliRunner().invoke(main, ["start", "--variant", "capture-2-longjump"])
    assert json.loads(longjump.output)["options"] == ["longjump"]
    listed = CliRunner().invoke(main, ["moves", "--position", "-"], input=longjump.output)
    assert listed.exit_code == 0 and listed.output.count("\n") > 10


def test_the_readme_command_line_example_can_be_pasted(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    example = readme.split("`sternhalma start` prints one to edit. For example:")[1]
    lines = example.split("```sh\n")[1].split("```")[0].strip().splitlines()
    assert len(lines) == 3
    bin_dir = str(Path(sys.executable).parent)
    for line in lines:
        done = subprocess.run(
            ["bash", "-ec", line],
            cwd=tmp_path,
            env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, (line, done.stderr)
    assert json.loads(done.stdout)[0] == "j4-i5"
