"""`fleet solve --misere POS --ray --jobs 2` (ops/jobs/ray_misere_helpers.py: the misère
`--jobs` design over Ray) against a real server process with the shipped S6 table: the
outcome of one process (the results library's), and `check --misere --root` proves it
from the server's store afterwards. Nothing mocked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service_support import ServerProcess, run_cli

pytest.importorskip("ray")
pytestmark = pytest.mark.timeout(300)


def test_the_misere_fleet_gives_the_lone_outcome_and_a_proof_that_checks(tmp_path: Path) -> None:
    store = tmp_path / "store"
    # the results library not seeded: its certificate of 0*9 would answer for the fleet
    with ServerProcess(store, "--no-results") as server:
        done = run_cli(
            "fleet", "solve", "--misere", "0*9", "--server", server.address, "--ray",
            "--jobs", "2", "--json", "--quiet", timeout=280,
        )  # fmt: skip
        server.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["play"] == "misere" and report["workers"] == 2
    [position] = report["positions"]
    assert position["outcome"] == "L"  # A164950, and the results library's misère 0*9
    assert position["worker"].endswith("(driver)")
    # one Ray helper: it reported, or the main search ended while it was still starting
    assert len(position["helpers"]) + position["lost_helpers"] == 1, position
    checked = run_cli("check", "--misere", "--store", str(store), "--root", "0*9", "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
