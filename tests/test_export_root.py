"""`export --root P [--misere]`: one position's pruned proof in one file, which imported
into a fresh store checks clean; nothing is written for an incomplete proof; and
`export --format spr` refuses a store with misère facts instead of dropping them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from cli_helpers import run_cli


class Solved(NamedTuple):
    """A solved root and the store its facts are in."""

    root: str
    store: Path


@pytest.fixture(scope="module", params=["0*8", pytest.param("0*12", marks=pytest.mark.slow)])
def solved(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Solved:
    """A store of `solve ROOT`, ROOT a normal-play loss: 0*8 in the fast suite, 0*12 (a few
    times the facts, and the solve most of these tests' time) as its slow twin."""
    root: str = request.param
    store = tmp_path_factory.mktemp("root") / "store"
    done = run_cli("solve", root, "--quiet", "--store", str(store), timeout=600)
    assert done.returncode == 0, done.stderr
    return Solved(root, store)


def test_export_root_imports_and_checks_in_a_fresh_store(solved: Solved, tmp_path: Path) -> None:
    root, store = solved
    out = tmp_path / "root.spdbx"
    done = run_cli("export", "--root", root, "--out", str(out), "--store", str(store), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    facts = report["counts"]["nimber"]
    assert report["proof"]["ok"] and report["proof"]["nimber"] == 0
    assert facts == report["proof"]["facts_used"] == sum(report["counts"].values())
    stats = json.loads(run_cli("stats", "--json", "--store", str(store)).stdout)
    assert 0 < facts < stats["counts"]["nimber"]  # pruned: only the proof's facts
    fresh = tmp_path / "fresh"
    imported = run_cli("import", str(out), "--store", str(fresh), "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["inserted"] == facts
    check = run_cli("check", "--root", root, "--store", str(fresh), "--json")
    assert check.returncode == 0, check.stdout + check.stderr
    checked = json.loads(check.stdout)
    assert checked["ok"] and checked["nimber"] == 0 and checked["facts_used"] == facts


def test_an_incomplete_proof_writes_nothing(solved: Solved, tmp_path: Path) -> None:
    """The root one spot larger than the solved one has no proof in the store."""
    root, store = solved
    larger = f"0*{int(root.removeprefix('0*')) + 1}"
    out = tmp_path / "none.spdbx"
    done = run_cli("export", "--root", larger, "--out", str(out), "--store", str(store))
    assert done.returncode == 1
    assert done.stderr.startswith("sproutsdb export: not exported:")
    assert len(done.stderr.splitlines()) == 1 and not out.exists()
    bad = run_cli("export", "--misere", "--out", str(out), "--store", str(store))
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1 and not out.exists()


def test_misere_root_export_round_trips_and_spr_refuses_misere_facts(tmp_path: Path) -> None:
    store = tmp_path / "m"
    done = run_cli("solve", "0*9", "--misere", "--quiet", "--store", str(store), timeout=600)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "0x9m.spdbx"
    done = run_cli(
        "export", "--root", "0*9", "--misere", "--out", str(out), "--store", str(store), "--json"
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["proof"]["play"] == "misere" and report["proof"]["outcome"] == "L"
    assert report["counts"]["misere"] == report["proof"]["facts_used"] > 0
    fresh = tmp_path / "fresh"
    assert run_cli("import", str(out), "--store", str(fresh)).returncode == 0
    check = run_cli("check", "--misere", "--root", "0*9", "--store", str(fresh), "--json")
    assert check.returncode == 0, check.stdout + check.stderr
    assert json.loads(check.stdout)["outcome"] == "L"

    spr = tmp_path / "m.spr"
    refused = run_cli("export", "--store", str(store), "--out", str(spr))
    assert refused.returncode == 2 and not spr.exists()
    assert refused.stderr.count("\n") == 1
    assert "spr format cannot hold misère facts" in refused.stderr
    assert "--format native" in refused.stderr
