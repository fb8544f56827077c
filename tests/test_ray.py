"""Ray fleets on a real local Ray instance (2 CPUs, no dashboard): `check --all --ray`
gives the totals and marks of `--jobs 1` and resumes; `fleet solve` against a real server
subprocess gives the single-process answers; a Ray check worker killed mid-check is
replaced and the check ends with the same result. Nothing mocked."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run_cli
from service_support import ServerProcess
from sproutsdb.ops.parallel_check import (
    Tally,
    check_batch,
    level_batches,
    lives_order,
    new_checker,
)
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore

pytest.importorskip("ray")
pytestmark = pytest.mark.timeout(300)

KILLED_WORKER = Path(__file__).with_name("ray_killed_worker.py")
TIMING = ("seconds", "facts_per_second", "jobs")


def _open(path: Path, *, readonly: bool = False) -> LmdbProofStore:
    return LmdbProofStore.open(
        path, game="sprouts", canon_version=CANON_VERSION, create=False, readonly=readonly
    )


def _solved(tmp_path: Path, spots: int, *more: str) -> Path:
    path = tmp_path / f"solved{spots}"
    assert run_cli("solve", f"0*{spots}", "--store", str(path), "--quiet", *more).returncode == 0
    return path


def _check_all(path: Path, *how: str) -> tuple[int, dict[str, Any]]:
    done = run_cli(
        "check", "--store", str(path), "--all", "--json", "--quiet", "--batch", "20", *how
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def _statuses(path: Path) -> dict[str, str]:
    with _open(path, readonly=True) as store:
        return {k: r.status.value for k, r in store.iter_records(FactKind.NIMBER)}


def _untimed(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in TIMING}


def test_ray_check_and_fleet_solve_match_one_process(tmp_path: Path) -> None:
    solved = _solved(tmp_path, 7)
    one = shutil.copytree(solved, tmp_path / "one")
    on_ray = shutil.copytree(solved, tmp_path / "ray")
    code1, report1 = _check_all(one, "--jobs", "1")
    code2, report2 = _check_all(on_ray, "--ray", "--jobs", "2")  # a new local instance
    assert code1 == code2 == 0
    assert report2["jobs"] == 2
    assert _untimed(report1) == _untimed(report2) and report2["verified_now"] > 100
    assert _statuses(on_ray) == _statuses(one)

    game = SproutsGame()
    positions = ["0*6", "2ab2ba", "0*3+0*4", "0.AB|AB"]
    expected: dict[str, tuple[str, int | None]] = {}
    for text in positions:
        key = game.canonical(text)
        solver = NormalSolver(game, MemoryProofStore())
        if len(game.components(key)) == 1:
            value = solver.nimber(key)
            expected[key] = ("L" if value == 0 else "W", value)
        else:
            expected[key] = (solver.outcome(key), None)
    with ServerProcess(tmp_path / "store", "--no-seed") as server:
        done = run_cli(
            "fleet",
            "solve",
            *positions,
            "--server",
            server.address,
            "--ray",
            "--jobs",
            "2",
            "--json",
            "--quiet",
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        got = {r["position"]: (r["outcome"], r["nimber"]) for r in report["positions"]}
        assert got == expected and report["workers"] == 2
        assert report["stored"] > 10

        # --options-of: the options on the fleet, then the root here from their facts
        root = run_cli(
            "fleet", "solve", "--options-of", "0*5", "--server", server.address,
            "--jobs", "2", "--json", "--quiet",
        )  # fmt: skip
        assert root.returncode == 0, root.stderr
        report = json.loads(root.stdout)
        five = NormalSolver(game, MemoryProofStore()).nimber(game.canonical("0*5"))
        assert report["root"]["nimber"] == five
        assert len(report["positions"]) == len(game.children(game.canonical("0*5")))


def test_a_local_instance_runs_its_workers_at_the_commands_priority() -> None:
    """Ray renices its workers by 15 unless told otherwise: beside other work they starved."""
    import os

    import ray

    from sproutsdb.ops.ray_session import ray_session

    @ray.remote
    def niceness() -> int:
        return os.nice(0)

    with ray_session(None, num_cpus=1):
        assert ray.get(niceness.remote()) == os.nice(0)


def test_ray_options_are_refused_where_they_mean_nothing(tmp_path: Path) -> None:
    solved = _solved(tmp_path, 4)
    for args in (
        ["check", "--store", str(solved), "--root", "0*4", "--ray"],
        ["fleet", "solve", "0*4", "--ray"],
        ["fleet", "solve", "--server", "127.0.0.1:1"],
    ):
        wrong = run_cli(*args)
        assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1, wrong.stderr
    assert (
        "--ray is for --all"
        in run_cli("check", "--store", str(solved), "--root", "0*4", "--ray").stderr
    )


def test_ray_that_cannot_start_or_be_reached_is_one_line(tmp_path: Path) -> None:
    """A local instance that cannot start (its temp dir is not a directory) and a cluster
    address where nothing listens: one line, exit code 2, at once (Ray itself would
    print a traceback, or retry joining for ever)."""
    solved = _solved(tmp_path, 4)
    check = ["check", "--store", str(solved), "--all", "--json", "--quiet"]
    local = run_cli(*check, "--ray", env={"RAY_TMPDIR": str(solved / "data.mdb")}, timeout=60)
    cluster = run_cli(*check, "--ray", "127.0.0.1:1", timeout=60)
    client = run_cli(*check, "--ray", "ray://127.0.0.1:1", timeout=60)
    for done, says in (
        (local, "cannot start a local Ray instance (2 tries): "),
        (cluster, "cannot join Ray cluster 127.0.0.1:1: nothing answers there"),
        (client, "cannot join Ray cluster ray://127.0.0.1:1: nothing answers there"),
    ):
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert says in done.stderr and "Traceback" not in done.stderr
    assert set(_statuses(solved).values()) == {"claimed"}  # nothing marked


@pytest.mark.slow
def test_ray_check_resumes(tmp_path: Path) -> None:
    solved = _solved(tmp_path, 6)
    code, first = _check_all(solved, "--ray", "--jobs", "2")
    assert code == 0 and first["verified_now"] == first["facts"] > 20
    code, again = _check_all(solved, "--ray", "--jobs", "1")
    assert code == 0 and again["already_verified"] == first["facts"]
    assert again["verified_now"] == 0


def test_a_killed_ray_worker_is_replaced_and_the_check_ends_alike(tmp_path: Path) -> None:
    """One worker is killed (SIGKILL) while batches are in flight: Ray restarts it, runs
    its batch again, and the totals and marks equal those of one process."""
    solved = _solved(tmp_path, 7)
    one = shutil.copytree(solved, tmp_path / "one")
    on_ray = shutil.copytree(solved, tmp_path / "ray")
    expected = Tally()
    with _open(one) as store, lives_order(store) as spill:
        checker = new_checker(store)
        for lands in level_batches(spill, 10):
            expected.add(store, lands, check_batch(checker, lands))

    done = subprocess.run(
        [sys.executable, str(KILLED_WORKER), str(on_ray), str(tmp_path / "report.json")],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["killed"] and report["replaced"]  # a new process took the batch
    tally = report["tally"]
    assert tally == expected.as_dict() | {"rechecked": tally["rechecked"]}
    assert _statuses(on_ray) == _statuses(one)
