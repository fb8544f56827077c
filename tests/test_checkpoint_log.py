"""bench/checkpoint_log.py: a record run's entries kept beside its checkpoint, from a real
solve's JSON and a `/usr/bin/time -v` file, summed by --show."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.ops.results import read_manifest, shipped_library

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import checkpoint_log  # bench/checkpoint_log.py

TIME_FILE = """\tCommand being timed: "sproutsdb solve 0*7"
\tUser time (seconds): 1.50
\tSystem time (seconds): 0.25
\tMaximum resident set size (kbytes): 51200
"""


def test_two_runs_are_kept_and_summed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (entry,) = [e for e in read_manifest(shipped_library()) if e.key == ("normal", "0*7")]
    checkpoint = tmp_path / "normal-0x7.spdbx"
    shutil.copy(shipped_library() / entry.file, checkpoint)
    store = tmp_path / "store"
    done = run_cli("solve", "0*7", "--outcome-only", "--store", str(store), "--json")
    assert done.returncode == 0, done.stderr
    solved = tmp_path / "run.json"
    solved.write_text(done.stdout)
    timed = tmp_path / "run.time"
    timed.write_text(TIME_FILE)
    for _ in range(2):
        assert (
            checkpoint_log.main(
                [
                    str(checkpoint),
                    "--solve-json",
                    str(solved),
                    "--time",
                    str(timed),
                    "--command",
                    "solve 0*7",
                ]
            )
            == 0
        )
    record = json.loads((tmp_path / "normal-0x7.runs.json").read_text())
    visits = json.loads(done.stdout)["nodes"]
    assert [r["visits"] for r in record["runs"]] == [visits, visits]
    assert record["runs"][0]["cpu_seconds"] == 1.75 and record["runs"][0]["max_rss_kb"] == 51200
    assert record["facts"] == {"nimber": entry.facts}
    capsys.readouterr()
    assert checkpoint_log.main([str(checkpoint), "--show"]) == 0
    shown = capsys.readouterr().out
    assert f"2 run(s): {2 * visits:,} visits, 4 CPU s, outcome L" in shown


def test_a_bad_solve_json_is_one_line_and_exit_2(tmp_path: Path) -> None:
    checkpoint = tmp_path / "c.spdbx"
    checkpoint.write_bytes(b"")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SystemExit) as stopped:
        checkpoint_log.main([str(checkpoint), "--solve-json", str(bad)])
    assert stopped.value.code == 2


def test_a_run_that_decided_the_root_at_once_leaves_no_open_options_shown() -> None:
    """A resumed run may answer before it lists the root's options (normal 0*36 after 0*33's
    proof was seeded): --show then says the outcome, not "0 of 0" settled."""
    undecided = {"outcome": None, "visits": 10, "cpu_seconds": 1.0, "root_options": [["a", None]]}
    decided = {"outcome": "L", "visits": 40, "cpu_seconds": 2.0, "root_options": []}
    record = {
        "checkpoint": "c.spdbx",
        "bytes": 1,
        "facts": {"nimber": 1},
        "runs": [undecided, decided],
    }
    lines = checkpoint_log.summary(record)
    assert lines[1] == "2 run(s): 50 visits, 3 CPU s, outcome L"
    assert not any("settled" in line or "open" in line for line in lines)


def test_a_guided_run_is_summed_from_its_log_and_keeps_the_roots_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (entry,) = [e for e in read_manifest(shipped_library()) if e.key == ("normal", "0*7")]
    checkpoint = tmp_path / "normal-0x7.spdbx"
    shutil.copy(shipped_library() / entry.file, checkpoint)
    before = {"outcome": None, "visits": 10, "cpu_seconds": 1.0, "root_options": [["a", None]]}
    checkpoint_log.record_path(checkpoint).write_text(json.dumps({"runs": [before]}))
    log = tmp_path / "guide.log"
    solves = [
        {"position": "p", "outcome": None, "visits": 100, "cpu_s": 2.5, "wall_s": 3.0},
        {"position": "q", "outcome": "L", "visits": 50, "cpu_s": 1.0, "wall_s": 1.5},
    ]
    log.write_text("".join(json.dumps(s) + "\n" for s in solves))
    argv = [str(checkpoint), "--guide-log", str(log), "--command", "analogy.py"]
    assert checkpoint_log.main(argv) == 0
    guided = json.loads(checkpoint_log.record_path(checkpoint).read_text())["runs"][-1]
    assert (guided["visits"], guided["cpu_seconds"], guided["guided_losses"]) == (150, 3.5, 1)
    assert guided["root_options"] == [["a", None]] and guided["outcome"] is None
    timed = tmp_path / "guide.time"
    timed.write_text(TIME_FILE)  # the bench's own time file: its solves' CPU is in it
    assert checkpoint_log.main([*argv, "--time", str(timed)]) == 0
    record = json.loads(checkpoint_log.record_path(checkpoint).read_text())
    assert record["runs"][-1]["cpu_seconds"] == 1.75
    assert "3 run(s): 310 visits, 6 CPU s, undecided" in capsys.readouterr().out
    bad = tmp_path / "bad.log"
    bad.write_text("{not json\n")
    with pytest.raises(SystemExit) as stopped:
        checkpoint_log.main([str(checkpoint), "--guide-log", str(bad)])
    assert stopped.value.code == 2
