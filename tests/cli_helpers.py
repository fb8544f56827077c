"""Run the real `sproutsdb` command in a subprocess (no mocks), with a time limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    from sproutsdb.server.store import LmdbProofStore
    from sproutsdb.server.store.errors import NotAStoreError
    from sproutsdb.solver.sprouts.canon import CANON_VERSION

    if not (store_dir / "data.mdb").exists():
        return 0
    try:
        with LmdbProofStore.open(
            store_dir, game="sprouts", canon_version=CANON_VERSION, create=False, readonly=True
        ) as store:
            return int(store.count(kind))
    except NotAStoreError:
        return 0
