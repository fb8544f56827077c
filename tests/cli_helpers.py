"""Run the real `sproutsdb` command in a subprocess (no mocks), with a time limit."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

COMMAND = [sys.executable, "-m", "sproutsdb"]


def run_cli(
    *args: str,
    cwd: Path | None = None,
    stdin: str | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `sproutsdb ARGS…` and return the finished process (never left running)."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("SPROUTSDB_STORE", None)
    return subprocess.run(
        [*COMMAND, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
    )


def json_lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def committed_facts(store_dir: Path, kind: Any) -> int:
    """Facts of `kind` (a FactKind) a running solve has committed to the store at `store_dir`
    so far: 0 while the solver is still creating it. Read-only, so the solve goes on."""
    from sproutsdb.solver.sprouts.canon import CANON_VERSION
    from sproutsdb.store import LmdbProofStore
    from sproutsdb.store.errors import NotAStoreError

    if not (store_dir / "data.mdb").exists():
        return 0
    try:
        with LmdbProofStore.open(
            store_dir, game="sprouts", canon_version=CANON_VERSION, create=False, readonly=True
        ) as store:
            return int(store.count(kind))
    except NotAStoreError:
        return 0


def signal_after_first_commit(
    store_dir: Path,
    solve: list[str],
    kind: Any,
    sign: signal.Signals = signal.SIGINT,
    *,
    later: float = 0.0,
) -> subprocess.CompletedProcess[str]:
    """Run `sproutsdb SOLVE… --store STORE_DIR`, wait (bounded) for its first commit of
    facts of `kind` and `later` seconds more, stop it (so that it cannot end before the
    signal), send `sign` and let it go on: the finished process, its output captured
    (never left running)."""
    env = {k: v for k, v in os.environ.items() if k != "SPROUTSDB_STORE"}
    child = subprocess.Popen(
        [*COMMAND, *solve, "--store", str(store_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and child.poll() is None:
            if committed_facts(store_dir, kind):
                break
            time.sleep(0.05)
        time.sleep(later)
        assert child.poll() is None, "the run ended before the signal"
        os.kill(child.pid, signal.SIGSTOP)
        info = os.waitid(os.P_PID, child.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
        assert info is not None and info.si_code == os.CLD_STOPPED, "the run ended first"
        child.send_signal(sign)
        os.kill(child.pid, signal.SIGCONT)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate(timeout=30)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def copy_table_marks(marks: Path, cache: Path) -> Path:
    """A new cache at `cache` holding the marks (and the index of a large table) that the
    cache `marks` keeps, nothing else (no `tables` folder): what a user who re-derived the
    tables earlier has. Private to this user, as a trusted cache must be."""
    from sproutsdb.trusted_tables import INDEX_FOLDER, MARKS_FOLDER

    cache.mkdir(mode=0o700, parents=True)
    for name in (MARKS_FOLDER, INDEX_FOLDER):
        if (marks / name).is_dir():
            shutil.copytree(marks / name, cache / name, ignore=shutil.ignore_patterns(".*"))
            (cache / name).chmod(0o700)
    return cache
