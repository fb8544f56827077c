"""A solver killed with SIGKILL mid-run loses at most its last batch and resumes.

The run commits every second, so its first commit comes seconds before its end (with the
default 5 s a 0*12 could commit first at its end and exit between the poll that saw the
commit and the kill); it is stopped (SIGSTOP) before the kill, and a stopped process
cannot end on its own: the kill finds it running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from cli_helpers import COMMAND, run_cli
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.store import LmdbProofStore
from sproutsdb.store.errors import NotAStoreError


def stored_nimbers(store_dir: Path, *, creating: bool = False) -> int:
    """Nimber facts in the store; while the solver may still be creating it, a store
    without its meta data yet counts as empty."""
    if not (store_dir / "data.mdb").exists():
        return 0
    if creating:
        try:
            return stored_nimbers(store_dir)
        except NotAStoreError:
            return 0
    with LmdbProofStore.open(
        store_dir, game="sprouts", canon_version=CANON_VERSION, create=False, readonly=True
    ) as store:
        return store.count(FactKind.NIMBER)


def pause(child: subprocess.Popen[bytes]) -> bool:
    """Stop the child (SIGSTOP; it must not be reaped yet) and wait until it is stopped:
    True, or False if it ended first (then left for Popen to reap)."""
    os.kill(child.pid, signal.SIGSTOP)
    info = os.waitid(os.P_PID, child.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
    return info is not None and info.si_code == os.CLD_STOPPED


def test_killed_solve_keeps_committed_facts_and_resumes(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    env = {k: v for k, v in os.environ.items() if k != "SPROUTSDB_STORE"}
    solve = ["solve", "--spots", "12", "--quiet", "--json", "--flush-seconds", "1"]
    child = subprocess.Popen(
        [*COMMAND, *solve, "--store", str(store_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        deadline = time.monotonic() + 120
        committed = 0
        while time.monotonic() < deadline and child.poll() is None:
            committed = stored_nimbers(store_dir, creating=True)
            if committed:
                break
            time.sleep(0.2)
        # poll() reaps an ended run, so pause() is only called on one not reaped yet.
        assert child.poll() is None and pause(child), "the run ended before it could be killed"
        assert committed > 0, "no batch was committed within the time limit"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
    assert child.returncode == -signal.SIGKILL

    survived = stored_nimbers(store_dir)
    assert survived >= committed
    # Every fact that survived is re-derived from the rules by the checker.
    check = run_cli("check", "--all", "--quiet", "--json", "--store", str(store_dir), timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr

    # Rerunning continues from the store and finishes with the published answer.
    done = run_cli(
        "solve", "--spots", "12", "--json", "--quiet", "--store", str(store_dir), timeout=600
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["outcome"], report["nimber"]) == ("L", 0)
    assert stored_nimbers(store_dir) == survived + report["stored"]
