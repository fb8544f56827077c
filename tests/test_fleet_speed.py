"""`fleet solve --ray` as `solve --jobs` over Ray (ops/jobs/ray_helpers.py), on a real local
Ray instance and a real server process on 127.0.0.1: the answers of one process, facts on
the server that `check --root` proves again, and a helper whose worker is killed mid-run
does not change the answer. Nothing mocked."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from service_support import ServerProcess, child_env, run_cli
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame

pytest.importorskip("ray")
pytestmark = pytest.mark.timeout(120)

# the outcomes of 0*n for the player to move (lost iff n mod 6 is 0, 1 or 2; proven far
# beyond these)
OUTCOMES = {"0*8": "L", "0*9": "W", "0*10": "W", "0*11": "W"}


def _fleet(server: ServerProcess, *args: str) -> dict[str, object]:
    done = run_cli(
        "fleet", "solve", *args, "--server", server.address, "--ray", "--jobs", "2",
        "--json", "--quiet", timeout=110,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_the_fleet_gives_one_process_outcomes_and_facts_that_check(tmp_path: Path) -> None:
    """The smaller twin of the test below: a loss and a win, the win's facts checked."""
    _the_fleet_gives_one_process_outcomes_and_facts_that_check(
        tmp_path, {p: OUTCOMES[p] for p in ("0*8", "0*11")}
    )


@pytest.mark.slow
def test_the_fleet_gives_one_process_outcomes_of_four_roots_and_facts_that_check(
    tmp_path: Path,
) -> None:
    _the_fleet_gives_one_process_outcomes_and_facts_that_check(tmp_path, OUTCOMES)


def _the_fleet_gives_one_process_outcomes_and_facts_that_check(
    tmp_path: Path, outcomes: dict[str, str]
) -> None:
    """The roots `outcomes` names (0*11 among them) in one fleet run: each one's outcome,
    a helper each, and the server's facts prove 0*11."""
    store = tmp_path / "store"
    with ServerProcess(store, "--no-seed", "--no-results") as server:
        report = _fleet(server, *outcomes, "--outcome-only")
        server.stop()
    positions = report["positions"]
    assert isinstance(positions, list)
    assert {p["position"]: p["outcome"] for p in positions} == outcomes
    assert report["workers"] == 2
    for p in positions:  # the driver's main search and one Ray helper each
        assert len(p["helpers"]) == 1 and p["lost_helpers"] == 0
        assert p["visits"] >= p["main_visits"] > 0
    assert isinstance(report["stored"], int) and report["stored"] > 100
    checked = run_cli("check", "--store", str(store), "--root", "0*11", "--outcome-only")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "W" in checked.stdout, checked.stdout


def test_the_fleet_gives_one_process_nimbers(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "store", "--no-seed", "--no-results") as server:
        positions = _fleet(server, "0*6", "0*7", "0*3+0*4")["positions"]
    assert isinstance(positions, list)
    game = SproutsGame()
    expected = []
    for text in ("0*6", "0*7"):  # a single land: its nimber
        value = NormalSolver(game, MemoryProofStore()).nimber(game.canonical(text))
        expected.append(("L" if value == 0 else "W", value))
    sum_ = NormalSolver(game, MemoryProofStore()).outcome(game.canonical("0*3+0*4"))
    expected.append((sum_, None))  # a sum: its outcome only
    assert [(p["outcome"], p["nimber"]) for p in positions] == expected


KILL_A_HELPER = textwrap.dedent(
    """
    import json, os, signal, sys, threading, time
    from sproutsdb.ops.ray_session import ray_session

    with ray_session(None, num_cpus=2):
        import ray
        from sproutsdb.ops.jobs.ray_fleet import ServerSpec
        from sproutsdb.ops.jobs.ray_helpers import solve_with_helpers

        killed = []

        def kill_when_busy(run):
            def watch():
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    helpers = ray.get(run.hub.helpers.remote())
                    for pid, holding in helpers.values():
                        if holding and pid:
                            time.sleep(0.3)
                            os.kill(pid, signal.SIGKILL)
                            killed.append(pid)
                            return
                    time.sleep(0.05)
            threading.Thread(target=watch, daemon=True).start()

        result = solve_with_helpers(
            ServerSpec(sys.argv[1]), "0*11", 1, search="dfpn", outcome_only=True,
            on_run=kill_when_busy,
        )
    print(json.dumps({"killed": killed, "result": result}))
    """
)


def test_a_killed_helper_does_not_change_the_answer(tmp_path: Path) -> None:
    """The helper's worker is SIGKILLed while it holds a couple: Ray runs the helper again
    (the couple queued again), and the driver's answer is the one of one process."""
    with ServerProcess(tmp_path / "store", "--no-seed", "--no-results") as server:
        done = subprocess.run(
            [sys.executable, "-c", KILL_A_HELPER, server.address],
            capture_output=True,
            text=True,
            timeout=110,
            env=child_env(),
        )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["result"]["outcome"] == "W"
    assert report["killed"], "the helper was never seen holding a couple"
    helpers = report["result"]["helpers"]
    # run again by Ray (a second start) unless its retry was still starting at the end
    assert [h["starts"] for h in helpers] in ([2], []), helpers


def test_helpers_join_the_main_searchs_child_one_at_a_time_and_last() -> None:
    """A helper with no root child left joins the one the main search is in only once no
    other helper works: helpers that ran out early all searched the main search's subtree
    beside it, which is what raised the total visits of 8 and 16 oversubscribed workers."""
    from sproutsdb.ops.jobs.parallel_normal import HELPER, MAIN
    from sproutsdb.ops.jobs.ray_helpers import FleetHub

    hub = FleetHub()
    other, kept = (0, "0*4", 0, 1), (1, "0*5", 0, 1)
    hub.offer([other, kept])
    hub.entering(1)  # the main search is in the child held back for it
    assert hub.take(1) == other
    assert hub.take(2) is None  # helper 1 still works: helper 2 waits
    assert hub.claims[1] == MAIN
    hub.done(1, other)
    assert hub.take(2) == kept  # nobody else works now: helper 2 joins the main search
    assert hub.claims[1] == HELPER
    assert hub.take(1) is None  # one joins at a time
