"""Helper process for the killed-Ray-worker test: checks a store on a new local Ray
instance, kills one worker (SIGKILL) once 50 facts are done, writes the totals as JSON to REPORT
(not to stdout, where Ray tells of the dead worker).

Usage: python ray_killed_worker.py STORE REPORT. It runs in a process of its own because Ray
must start before its process has gRPC threads (sproutsdb/ops/ray_session.py), and the test
process may have opened gRPC channels in other tests.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from sproutsdb.ops.parallel_check import Tally, level_batches, lives_order
from sproutsdb.ops.ray_check import RayCheckPool
from sproutsdb.ops.ray_session import ray_session
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.store import LmdbProofStore


def main(path: str, report: str) -> None:
    tally = Tally()
    killed: list[int] = []
    with (
        ray_session(None, num_cpus=2),
        LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION) as store,
        lives_order(store) as spill,
        RayCheckPool(str(store.path), 2) as pool,
    ):

        def done(lands: list[str], digest: object) -> None:
            tally.add(store, lands, digest)  # type: ignore[arg-type]
            if not killed and tally.facts > 50:
                victim = pool.pids()[0]
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        pool.run(level_batches(spill, 10, 2), done)
        replaced = bool(killed) and killed[0] not in pool.pids()
    result = {"tally": tally.as_dict(), "killed": bool(killed), "replaced": replaced}
    Path(report).write_text(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
