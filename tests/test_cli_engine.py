"""`sternhalma moves` and `sternhalma bench`, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from sternhalma import core
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
    assert f"core: {core.NAME}" in result.output
    # Both cores' move lists a second, side by side, when the compiled one is in use.
    assert ("compiled core" in result.output) == core.COMPILED
