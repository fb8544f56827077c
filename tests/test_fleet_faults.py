"""Faults of `fleet solve --ray` (ops/jobs/ray_helpers.py) on small roots, each run by
bench/fleet_faults.py in a process of its own (Ray must start before gRPC threads): a Ray
worker node lost mid-run, and the server killed and restarted mid-run on the same port and
store. The answer is one process's, every fact a solver acknowledged is on the server, and
`check --root` of the server's store proves the answer. Nothing mocked."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service_support import ROOT, child_env

pytest.importorskip("ray")
pytestmark = pytest.mark.timeout(660)

BENCH = ROOT / "bench" / "fleet_faults.py"
# 0*n is lost for the player to move iff n mod 6 is 0, 1 or 2 (proven far beyond 13)
OUTCOME = {"0*13": "L", "0*14": "L"}
NODE_LOSS_RUNS = 4  # runs of the node loss tried for one in which the fault is made


def _fault_run(fault: str, root: str, work: Path, after_facts: int | None = None) -> dict[str, Any]:
    """bench/fleet_faults.py --fault FAULT in its own session: on a timeout every process
    it started (Ray's daemons, the server) is killed with it."""
    more = [] if after_facts is None else ["--after-facts", str(after_facts)]
    proc = subprocess.Popen(
        [sys.executable, str(BENCH), "--fault", fault, "--root", root, "--work", str(work), *more],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, err[-3000:]
    report: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return report


def _same_answer_nothing_lost(report: dict[str, Any]) -> None:
    assert report["made"] is not None, f"the fault was never made: the run ended first {report}"
    assert report["error"] is None, report
    assert report["outcome"] == OUTCOME[report["root"]], report
    assert report["watch_error"] is None, report
    # every fact a solver told the hub (the server's Insert had returned OK) is stored,
    # with that value, and so is every fact the driver's search could rely on
    assert report["acknowledged"] > 0
    assert report["acknowledged_missing"] == 0, report
    assert report["driver_known"] > 0
    assert report["driver_known_missing"] == 0, report
    assert report["check_rc"] == 0, report["check"]
    assert " 0 unproven" in report["check"], report["check"]


def test_a_lost_worker_node_changes_neither_the_answer_nor_the_facts(tmp_path: Path) -> None:
    """Two Ray nodes, a helper on each; the worker node is removed without grace once its
    helper has acknowledged facts (holding a couple if the watcher catches it so: a short
    run's helpers hold couples only in moments): those facts are on the server, Ray runs
    the helper again, and the driver's answer is one process's."""
    # A run in which the worker node's helper acknowledged nothing before the end proves
    # nothing either way, so it is run again on a fresh store, a bounded number of times.
    for attempt in range(NODE_LOSS_RUNS):
        report = _fault_run("node", "0*13", tmp_path / f"run-{attempt}", after_facts=30)
        if report["made"] is not None:
            break
        assert (report["error"], report["outcome"]) == (None, OUTCOME["0*13"]), report
    _same_answer_nothing_lost(report)
    assert report["made"]["killed"] == "worker node"
    assert report["acknowledged_by_victim"] > 0
    assert report["victim_missing"] == 0, report
    restarted = [h for h in report["helpers"] if h["helper"] == report["made"]["helper"]]
    assert [h["starts"] for h in restarted] in ([2], []), report["helpers"]


def test_the_couple_a_lost_helper_held_goes_first_to_the_next_helper() -> None:
    """The hub's side of a lost node, in this process: the couple a helper held when its
    worker died goes first in the queue when that helper says hello again, to whichever
    helper asks next, and its root child is free to be claimed again."""
    from sproutsdb.ops.jobs.parallel_normal import FREE, HELPER
    from sproutsdb.ops.jobs.ray_helpers import FleetHub

    hub = FleetHub()
    held, other = (0, "0*5", 0, 1), (1, "0*4", 0, 1)
    hub.offer([held, other])
    assert hub.hello(1, 101) == 1
    assert hub.take(1) == held
    assert hub.claims[0] == HELPER and hub.helpers()[1] == (101, True)
    assert hub.hello(1, 102) == 2  # Ray ran helper 1 again in a new worker
    assert hub.claims[0] == FREE and list(hub.queue) == [held, other]
    assert hub.helpers()[1] == (102, False)
    assert hub.hello(2, 201) == 1
    assert hub.take(2) == held


def test_a_couple_said_done_late_leaves_the_next_one_held() -> None:
    """The hub in this process: a helper says a couple is done once its facts are
    committed, which may come after it took its next couple. That late word releases the
    old couple only, so the new one is still held: were the helper's worker lost now, that
    couple would be queued again for the next helper."""
    from sproutsdb.ops.jobs.parallel_normal import DONE, HELPER
    from sproutsdb.ops.jobs.ray_helpers import FleetHub

    hub = FleetHub()
    first, second = (0, "0*5", 0, 1), (1, "0*4", 0, 1)
    hub.offer([first, second])
    hub.hello(1, 101)
    assert hub.take(1) == first
    assert hub.take(1) == second  # taken before the first one's facts were committed
    hub.done(1, first)
    assert hub.claims == {0: DONE, 1: HELPER}
    assert hub.helpers() == {1: (101, True)}
    hub.hello(1, 102)  # its worker was lost and Ray ran it again
    assert list(hub.queue) == [second] and hub.take(2) == second


def test_a_restarted_server_finds_the_solvers_where_they_were(tmp_path: Path) -> None:
    """The server is killed (SIGKILL) and started again on the same port and store: the
    solvers wait for it, their batches go in once it is back, no helper is lost."""
    report = _fault_run("server", "0*13", tmp_path)
    _same_answer_nothing_lost(report)
    assert report["server_starts"] == 2
    assert report["lost_helpers"] == 0, report
    assert all(h["starts"] == 1 for h in report["helpers"]), report["helpers"]
    assert report["outages"] >= 1, report  # someone met the server down and waited
