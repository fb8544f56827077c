"""`sproutsdb check` end to end: solve, check, prune, exit codes and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run_cli
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.store import LmdbProofStore


def _open(path: Path) -> LmdbProofStore:
    return LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION, create=False)


def test_solve_check_prune_cycles(tmp_path: Path) -> None:
    store, pruned = tmp_path / "store", tmp_path / "pruned"
    assert run_cli("solve", "0*6", "--store", str(store), "--quiet").returncode == 0
    done = run_cli(
        "check",
        "--store",
        str(store),
        "--root",
        "0*6",
        "--prune",
        str(pruned),
        "--cycles",
        "3",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["nimber"] == 0 and report["outcome"] == "L"
    assert report["facts_used"] == min(report["cycle_sizes"])
    assert report["missing"] == [] and report["inconsistent"] == []
    with _open(pruned) as small:
        assert small.count(FactKind.NIMBER) == report["facts_used"]
        assert small.verified_count(FactKind.NIMBER) == report["facts_used"]
    with _open(store) as big:
        assert big.verified_count(FactKind.NIMBER) >= report["facts_used"]
        assert big.get_records(FactKind.NIMBER, ["0*6"])["0*6"].status.value == "verified"
    again = run_cli("check", "--store", str(pruned), "--root", "0*6", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["facts_used"] <= report["facts_used"]


def test_a_root_check_says_how_far_it_is_on_stderr_unless_quiet(tmp_path: Path) -> None:
    """Plain lines (stderr is not a terminal): facts checked so far and the cycle; a
    misère check of 0*20 runs for an hour, and a silent hour looks like a hang."""
    store = tmp_path / "store"
    assert run_cli("solve", "0*8", "--store", str(store), "--quiet").returncode == 0
    every_line = {"SPROUTSDB_PROGRESS_SECONDS": "1e-9"}
    args = ("check", "--store", str(store), "--root", "0*8", "--cycles", "2")
    done = run_cli(*args, env=every_line)
    assert done.returncode == 0, done.stderr
    lines = [x for x in done.stderr.splitlines() if x.startswith("sproutsdb check: ")]
    assert lines and all(" facts in " in x and "facts/s" in x for x in lines), done.stderr
    assert "(cycle=1 of 2)" in lines[0] and "(cycle=2 of 2)" in lines[-1]
    quiet = run_cli(*args, "--quiet", env=every_line)
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert quiet.stdout.splitlines()[0] == done.stdout.splitlines()[0]  # the same proof


def test_a_hole_exits_1_and_names_the_position(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("solve", "0*2", "--store", str(store), "--quiet").returncode == 0
    done = run_cli("check", "--store", str(store), "--root", "0*3", "--prune", str(tmp_path / "p"))
    assert done.returncode == 1
    assert "missing" in done.stdout and "0*3" in done.stdout and "Traceback" not in done.stderr
    assert not (tmp_path / "p").exists()


def test_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("solve", "0*2", "--store", str(store), "--quiet").returncode == 0
    cases = [
        ("check", "--store", str(store), "--root", "0.A"),
        ("check", "--store", str(tmp_path / "none"), "--root", "0*2"),
        ("check", "--store", str(store), "--all", "--misere"),
        ("check", "--store", str(store), "--root", "0*2", "--rct-table", str(store)),
        ("check", "--store", str(store), "--root", "0*2", "--cycles", "0"),
        ("check", "--store", str(store), "--root", "0*2", "--prune", str(store)),
    ]
    for args in cases:
        done = run_cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "none").exists()


def test_check_all_streams_in_batches_and_resumes(tmp_path: Path) -> None:
    from sproutsdb.ops import check_store
    from sproutsdb.solver.normal.solver import NormalSolver
    from sproutsdb.solver.sprouts.game import SproutsGame

    path = tmp_path / "store"
    with LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION) as store:
        solver = NormalSolver(SproutsGame(), store)
        solver.nimber("0*5")
        solver.flush()
        keys = [k for k, _ in store.iter_facts(FactKind.NIMBER)]
        first = check_store(store, batch=10)  # later batches trust what earlier ones marked
        assert first["verified_now"] + first["already_verified"] == first["facts"] == len(keys)
        assert first["unproven"] == 0 and first["verified_now"] >= 10
    with LmdbProofStore.open(
        tmp_path / "wrong", game="sprouts", canon_version=CANON_VERSION
    ) as wrong:
        with _open(path) as store:
            facts = dict(store.iter_facts(FactKind.NIMBER))
        wrong.put(FactKind.NIMBER, {**facts, "0*4": 0})
        half = keys[: len(keys) // 2]  # as if an interrupted run had checked these
        wrong.mark_verified(FactKind.NIMBER, [k for k in half if k != "0*4"])
        report = check_store(wrong, batch=7)
        # trusted: the marks of the interrupted run, and those of this run's earlier batches
        assert report["already_verified"] >= len([k for k in half if k != "0*4"])
        assert report["verified_now"] + report["already_verified"] < len(keys)
        assert wrong.get_records(FactKind.NIMBER, ["0*4"])["0*4"].status.value == "claimed"
        assert any(i["land"] == "0*4" for i in report["inconsistent"]) or report["unproven"]
    done = run_cli("check", "--store", str(path), "--all", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["already_verified"] == len(keys)
    done = run_cli("check", "--store", str(tmp_path / "wrong"), "--all", "--json")
    assert done.returncode == 1 and not json.loads(done.stdout)["ok"]
    assert run_cli("check", "--store", str(path), "--all", "--root", "0*5").returncode == 2
    assert run_cli("check", "--store", str(path)).returncode == 2
