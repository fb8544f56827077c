"""`--game cram` on the command line: canon, children, nimber and solve on a store that
records its game; a store of the other game is refused in one line."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_helpers import json_lines, run_cli
from sproutsdb.store.opening import peek_identity


def one_line_error(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    """The command failed with exit code 2 and one line on stderr naming every needle."""
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_nimber_of_4x5_is_2_in_a_cram_store(tmp_path: Path) -> None:
    store = str(tmp_path / "cram")
    result = run_cli("nimber", "--game", "cram", "4x5", "--store", store, "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "4x5: nimber 2 (the player to move wins)\n"
    identity = peek_identity(store)
    assert (identity.game, identity.canon_version) == ("cram", 1)
    # without --game the store's own game is used; a turned board is the same land
    again = run_cli("nimber", "5x4", "..#/...", "--store", store, "--quiet", "--json")
    assert again.returncode == 0, again.stderr
    assert json_lines(again.stdout) == [
        {"position": "4x5", "nimber": 2},
        {"position": "#../...", "nimber": 0},
    ]


def test_solve_prints_outcome_and_nimber(tmp_path: Path) -> None:
    store = str(tmp_path / "cram")
    result = run_cli("solve", "--game", "cram", "3x7", "--store", store, "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "3x7: W (the player to move wins), nimber 1"
    summed = run_cli("solve", "3x7+1x2", "--store", store, "--quiet", "--json")
    assert json_lines(summed.stdout)[0]["outcome"] == "L"  # *1 + *1
    one_line_error(
        run_cli("solve", "--game", "cram", "--spots", "4", "--store", store),
        "--spots is not offered for cram",
    )


def test_a_sprouts_store_is_refused_for_cram_and_back(tmp_path: Path) -> None:
    sprouts, cram = str(tmp_path / "sprouts"), str(tmp_path / "cram")
    assert run_cli("nimber", "0*3", "--store", sprouts, "--quiet").returncode == 0
    assert run_cli("nimber", "--game", "cram", "2x2", "--store", cram, "--quiet").returncode == 0
    one_line_error(
        run_cli("nimber", "--game", "cram", "4x5", "--store", sprouts, "--quiet"),
        "--game cram disagrees with the store at",
        "which holds sprouts positions",
    )
    one_line_error(
        run_cli("solve", "--game", "sprouts", "0*3", "--store", cram, "--quiet"),
        "--game sprouts disagrees with the store at",
        "which holds cram positions",
    )
    assert peek_identity(sprouts).game == "sprouts" and peek_identity(cram).game == "cram"


def test_canon_and_children(tmp_path: Path) -> None:
    result = run_cli("canon", "--game", "cram", "5x4", "#../...", "...+#.#/...", "--json")
    assert result.returncode == 0, result.stderr
    assert json_lines(result.stdout) == [
        {"input": "5x4", "position": "4x5", "lands": ["4x5"], "lives": 20},
        {"input": "#../...", "position": "#../...", "lands": ["#../..."], "lives": 5},
        {
            "input": "...+#.#/...",
            "position": "#.#/...+1x3",
            "lands": ["#.#/...", "1x3"],
            "lives": 7,
        },
    ]
    children = run_cli("children", "--game", "cram", "2x3")
    assert children.returncode == 0, children.stderr
    assert children.stdout.split() == ["##./...", "2x2", "1x2+1x2"]


def test_bad_boards_are_one_line(tmp_path: Path) -> None:
    one_line_error(
        run_cli("canon", "--game", "cram", "../.x"),
        "row 2, column 2: 'x' is neither '.' (a free cell) nor '#' (a filled cell)",
    )
    one_line_error(
        run_cli("nimber", "--game", "cram", "0*4", "--store", str(tmp_path / "c")),
        "'0*4' is not a board",
    )
    bad = run_cli("canon", "--game", "chess", "4x5")
    assert bad.returncode == 2 and "invalid choice: 'chess'" in bad.stderr
