"""Helpers of the tests that run the server's verifier in process on a real LMDB store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def open_store(path: Path) -> Any:
    """A Sprouts store at `path` (created when missing), without fsync per commit."""
    from sproutsdb.solver.sprouts.canon import CANON_VERSION
    from sproutsdb.store import LmdbProofStore

    return LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION, durable=False)


def drain(verifier: Any, steps: int) -> None:
    """Step the verifier until it has nothing left to do; fail after `steps` steps."""
    for _ in range(steps):
        if not verifier.step():
            return
    pytest.fail("the verifier did not settle")
