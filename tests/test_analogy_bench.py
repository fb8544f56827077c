"""bench/analogy.py: the replies of a smaller proof, grown to a larger position of the same
shape, tried first; here 0*8.1a1a's losing option found from 0*2.1a1a's, by a real solve."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import analogy  # bench/analogy.py


def test_runs_of_empty_spots_and_shapes() -> None:
    assert analogy.zero_runs("0*21.1aAa|0*15.A.BC|BC") == [21, 15]
    assert analogy.zero_runs("0+0*34.A|0.1a1a.A") == [1, 34, 1]
    assert analogy.shape("0*21.1aAa|0*15.A.BC|BC", 6) == analogy.shape("0*15.1aAa|0*9.A.BC|BC", 6)
    assert analogy.shape("0*21.1aAa|0*15.A.BC|BC", 6) != analogy.shape("0*18.1aAa|0*18.A.BC|BC", 6)
    # letters and counts of lives are kept: only runs of empty spots are folded
    assert analogy.shape("0*7.1a1a", 6) != analogy.shape("0*7.1a2a", 6)


def test_a_larger_reply_is_found_by_the_smaller_ones_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    argv = ["0*8.1a1a", "--like", "0*2.1a1a", "--mod", "3", "--store", str(store)]
    assert analogy.main([*argv, "--dry-run"]) == 0
    planned = capsys.readouterr().err.splitlines()
    assert planned[0] == "0*8.1a1a after 0*2.1a1a: win, 1 to settle"
    candidates = json.loads(planned[1])["candidates"]
    assert candidates and {c for c, _ in candidates} <= set(analogy.GAME.children("0*8.1a1a"))
    assert analogy.main([*argv, "--quick", "30", "--budget", "60"]) == 0
    attempts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert attempts[-1] == {"position": "0*8.1a1a", "outcome": "W"}
    assert attempts[-2]["outcome"] == "L" and attempts[-2]["position"] in [c for c, _ in candidates]
    # the store now shows the target winning: one of its options nim-sums to 0
    children = analogy.GAME.children("0*8.1a1a")
    assert 0 in analogy.nim_sums(children, analogy.in_store(str(store))).values()
