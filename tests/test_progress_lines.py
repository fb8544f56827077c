"""Progress that says how far and when (issue 31): plain lines when stderr is not a
terminal, totals and the time left where the total is known, and a Ctrl-C that says what
was kept."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cli_helpers import COMMAND
from sproutsdb import progress


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPROUTSDB_")}
    return {**env, **extra}


def _progress_lines(log: Path, command: str) -> list[str]:
    return [
        line
        for line in log.read_text().splitlines()
        if line.startswith(f"sproutsdb {command}: ") and "nodes" in line
    ]


def test_solve_with_stderr_in_a_file_writes_progress_lines_while_it_runs(tmp_path: Path) -> None:
    """`solve --spots 13 2>log`: lines appear in the log before the solve ends; Ctrl-C
    then says how many facts it kept and that a rerun resumes."""
    log = tmp_path / "log"
    with open(log, "w") as stderr:
        process = subprocess.Popen(
            [*COMMAND, "solve", "--spots", "13", "--store", str(tmp_path / "store")],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=_env(SPROUTSDB_PROGRESS_SECONDS="0.5"),
        )
        try:
            deadline = time.monotonic() + 120
            while len(_progress_lines(log, "solve")) < 2 and time.monotonic() < deadline:
                assert process.poll() is None, "the solve ended before writing progress"
                time.sleep(0.1)
            seen_while_running = _progress_lines(log, "solve")
            assert len(seen_while_running) >= 2
            process.send_signal(signal.SIGINT)
            process.communicate(timeout=60)
        finally:
            process.kill()
            process.wait()
    assert process.returncode == 130
    first = seen_while_running[0]
    assert "stored" in first and "nodes/s" in first, first
    last = log.read_text().strip().splitlines()[-1]
    assert last.startswith("sproutsdb solve: interrupted: "), last
    assert "new facts proven so far are stored in" in last
    assert "run the same command again to resume" in last


def test_the_default_interval_is_a_few_seconds_and_can_be_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(progress.ENV_SECONDS, raising=False)
    assert progress.plain_seconds() == progress.PLAIN_SECONDS <= 10
    monkeypatch.setenv(progress.ENV_SECONDS, "2.5")
    assert progress.plain_seconds() == 2.5
    monkeypatch.setenv(progress.ENV_SECONDS, "soon")
    assert progress.plain_seconds() == progress.PLAIN_SECONDS


def test_a_known_total_gives_a_percentage_and_the_time_left() -> None:
    text = progress.count_text(25_000, "facts", 100_000, 10.0)
    assert text == "25,000 of 100,000 facts (25.0%) in 10 s, 2,500 facts/s, about 30 s left"
    assert (
        progress.count_text(500, "positions", None, 2.0) == "500 positions in 2 s, 250 positions/s"
    )
    assert progress.duration(3 * 3600 + 7 * 60) == "3 h 07 min"
    assert progress.duration(125) == "2 min 05 s"


def test_a_counter_off_a_terminal_writes_plain_lines_with_its_total(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = io.StringIO()  # not a terminal
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setenv(progress.ENV_SECONDS, "1e-9")
    progress.set_command("check")
    with progress.counter_bar("facts", total=400) as bar:
        for done in (100, 200):
            time.sleep(0.01)
            bar.update_to(done)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("sproutsdb check: 100 of 400 facts (25.0%) in ")
    assert "left" in lines[0]
    with progress.counter_bar("facts", enabled=False, total=400) as bar:
        bar.update_to(300)  # --quiet: nothing
    assert len(stream.getvalue().splitlines()) == 2


def test_a_status_line_off_a_terminal_is_throttled(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setenv(progress.ENV_SECONDS, "3600")
    progress.set_command("solve")
    with progress.status_line() as line:
        for n in range(100):
            line.show(f"{n} nodes")
    assert stream.getvalue() == ""  # the first line is due only after the interval
    monkeypatch.setenv(progress.ENV_SECONDS, "1e-9")
    with progress.status_line() as line:
        time.sleep(0.01)
        line.show("7 nodes")
    assert stream.getvalue() == "sproutsdb solve: 7 nodes\n"
