"""The library verbs (sproutsdb.ops) called directly give what the command gives: a root
check, a whole-store check, pruning, a misère root check, export and import. Real LMDB
stores in a temp dir, filled by the real solvers; the command runs as a process."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run_cli
from sproutsdb import ops
from sproutsdb.errors import UsageError, UserError
from sproutsdb.solver.misere.solver import MisereSolver
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore

GAME = SproutsGame()
# differ from run to run; `store` (how the command opened its store) names its copy
TIMINGS = {"seconds", "facts_per_second", "pruned", "store"}


def lmdb(path: Path, create: bool = True) -> LmdbProofStore:
    return LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION, create=create)


def solved(path: Path, spots: int, misere: bool = False) -> Path:
    """A store at `path` holding the solver's proof of 0*spots."""
    with lmdb(path) as store:
        if misere:
            solver: Any = MisereSolver(GAME, store)
            solver.outcome(f"0*{spots}")
        else:
            solver = NormalSolver(GAME, store)
            solver.nimber(f"0*{spots}")
        solver.flush()
    return path


def timeless(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key not in TIMINGS}


def command_json(*args: str) -> dict[str, Any]:
    done = run_cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_a_root_check_and_its_prune_match_the_command(tmp_path: Path) -> None:
    ours = solved(tmp_path / "ours", 6)
    theirs = shutil.copytree(ours, tmp_path / "theirs")
    with lmdb(ours, create=False) as store:
        check = ops.check_root(store, "0*6", cycles=2, seed=3)
        assert check.ok and check.report.outcome == "L"  # 0*6 is a normal-play loss
        with lmdb(tmp_path / "pruned") as pruned:
            ops.write_pruned(check, pruned)
            assert pruned.count(FactKind.NIMBER) == len(check.report.used)
    cli = command_json(
        "check", "--store", str(theirs), "--root", "0*6", "--cycles", "2", "--seed", "3"
    )
    assert timeless(check.as_dict(0.0)) == timeless(cli)
    with lmdb(tmp_path / "pruned", create=False) as pruned:
        whole = ops.check_all(pruned, jobs=1)
    assert whole.ok and whole.report["facts"] == cli["facts_used"]


def test_a_whole_store_check_matches_the_command(tmp_path: Path) -> None:
    ours = solved(tmp_path / "ours", 7)
    theirs = shutil.copytree(ours, tmp_path / "theirs")
    with lmdb(ours, create=False) as store:
        result = ops.check_all(store, quiet=True)
    cli = command_json("check", "--store", str(theirs), "--all", "--quiet")
    assert result.ok and result.report["verified_now"] == result.report["facts"] > 0
    assert timeless(result.report) == timeless(cli)
    assert len(result.timings) == len(result.report["kinds"])


def test_a_misere_root_check_matches_the_command(tmp_path: Path) -> None:
    ours = solved(tmp_path / "ours", 4, misere=True)
    theirs = shutil.copytree(ours, tmp_path / "theirs")
    with lmdb(ours, create=False) as store:
        check = ops.check_misere_root(store, "0*4")
    assert check.ok and check.play == "misere" and check.report.outcome == "L"
    cli = command_json("check", "--misere", "--store", str(theirs), "--root", "0*4")
    assert timeless(check.as_dict(0.0)) == timeless(cli)


def test_a_bad_root_or_a_missing_file_is_a_user_error_and_creates_nothing(
    tmp_path: Path,
) -> None:
    with lmdb(tmp_path / "store") as store, pytest.raises(UserError):
        ops.check_root(store, "bad(")
    with pytest.raises(UsageError, match="no such file"):
        ops.import_into(tmp_path / "absent.spdbx", str(tmp_path / "new"))
    assert not (tmp_path / "new").exists()


def test_export_then_import_gives_the_same_facts_and_again_changes_nothing(
    tmp_path: Path,
) -> None:
    source = solved(tmp_path / "source", 6)
    out = tmp_path / "facts.spdbx"
    with lmdb(source, create=False) as store:
        counts = ops.export_store(store, out)
        facts = {kind: dict(store.iter_facts(kind)) for kind in FactKind}
    assert ops.validate(out)["counts"] == counts
    target = str(tmp_path / "target")
    totals, conflicts = ops.import_into(out, target)
    assert totals["inserted"] == sum(counts.values()) > 0 and not conflicts
    again, _ = ops.import_into(out, target)
    assert again["inserted"] == 0 and again["unchanged"] == totals["inserted"]
    with lmdb(Path(target), create=False) as store:
        assert {kind: dict(store.iter_facts(kind)) for kind in FactKind} == facts
