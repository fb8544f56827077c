"""The crash soak of bench/crash_soak.py, 8 trials (20 under the `slow` marker): kill -9 of a served store under Insert
and InsertStream writers and of an embedded solve; nothing acknowledged lost, nothing torn,
every restart clean, every fact of a killed solve re-derived by check. (On demand, the
bench runs 1 000 trials.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from service_support import ROOT, child_env


@pytest.mark.parametrize("trials", [8, pytest.param(20, marks=pytest.mark.slow)])
def test_crash_trials_lose_and_tear_nothing(tmp_path: Path, trials: int) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "crash_soak.py"),
            "--trials",
            str(trials),
            "--seed",
            "20",
            "--max-kill-delay",
            "0.3",
            "--max-solve-delay",
            "1.2",
            "--work",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=child_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["trials"] == trials
    assert report["facts_acknowledged"] > 0
    assert (report["facts_lost"], report["torn_batches"], report["phantom_facts"]) == (0, 0, 0)
    assert (report["restarts_failed"], report["reopens_failed"]) == (0, 0)
    assert report["solves_killed"] + report["solves_finished"] == trials
    assert report["solve_checks_failed"] == report["solve_wrong_answers"] == 0
    assert report["solve_facts_rederived"] == report["solve_facts_stored"]
    assert not list(tmp_path.iterdir()), "the soak left files behind"
