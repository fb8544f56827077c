"""`export --root P [--misere]`: one position's pruned proof in one file, which imported
into a fresh store checks clean; nothing is written for an incomplete proof; and
`export --format spr` refuses a store with misère facts instead of dropping them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("root") / "store"
    done = run_cli("solve", "0*12", "--quiet", "--store", str(store), timeout=600)
    assert done.returncode == 0, done.stderr
    return store


def test_export_root_0x12_imports_and_checks_in_a_fresh_store(solved: Path, tmp_path: Path) -> None:
    out = tmp_path / "0x12.spdbx"
    done = run_cli("export", "--root", "0*12", "--out", str(out), "--store", str(solved), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    facts = report["counts"]["nimber"]
    assert report["proof"]["ok"] and report["proof"]["nimber"] == 0
    assert facts == report["proof"]["facts_used"] == sum(report["counts"].values())
    stats = json.loads(run_cli("stats", "--json", "--store", str(solved)).stdout)
    assert 0 < facts < stats["counts"]["nimber"]  # pruned: only the proof's facts
    fresh = tmp_path / "fresh"
    imported = run_cli("import", str(out), "--store", str(fresh), "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["inserted"] == facts
    check = run_cli("check", "--root", "0*12", "--store", str(fresh), "--json")
    assert check.returncode == 0, check.stdout + check.stderr
    checked = json.loads(check.stdout)
    assert checked["ok"] and checked["nimber"] == 0 and checked["facts_used"] == facts


def test_an_incomplete_proof_writes_nothing(solved: Path, tmp_path: Path) -> None:
    out = tmp_path / "none.spdbx"
    done = run_cli("export", "--root", "0*13", "--out", str(out), "--store", str(solved))
    assert done.returncode == 1
    assert done.stderr.startswith("sproutsdb export: not exported:")
    assert len(done.stderr.splitlines()) == 1 and not out.exists()
    bad = run_cli("export", "--misere", "--out", str(out), "--store", str(solved))
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
