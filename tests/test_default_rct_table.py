"""Which RCT table a misère solve uses when none is given (ops.rct_tables.default_misere_table):
the named table a store's earlier solves ran on (a rerun and a check read it again), S7 for
a root of 0*18's lives or more on a new store, else the store's RCTs or the shipped S6."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run_cli
from sproutsdb.ops.rct_tables import LARGE_MISERE_LIVES, default_misere_table
from sproutsdb.ops.stores import open_local_store
from sproutsdb.solver.sprouts.game import SproutsGame


def cache_env(tmp_path: Path) -> dict[str, str]:
    return {"SPROUTSDB_CACHE": str(tmp_path / "cache")}


def test_large_roots_on_a_new_store_take_s7_and_small_ones_s6(tmp_path: Path) -> None:
    assert SproutsGame().size("0*18") == LARGE_MISERE_LIVES  # the threshold is 0*18's
    new = open_local_store(tmp_path / "new")
    try:
        said: list[str] = []
        assert default_misere_table(new, "0*18", notice=said.append) == "s7"
        assert "solved on S7" in said[0] and "--rct-table s6" in said[0]
        assert default_misere_table(new, "0*17") is None  # the shipped S6
    finally:
        new.close()
    # a store already seeded with S6 (a default solve of a small root) stays on S6
    small = run_cli("solve", "0*5", "--misere", "--store", str(tmp_path / "s6"), "--quiet")
    assert small.returncode == 0, small.stderr
    seeded = open_local_store(tmp_path / "s6")
    try:
        assert default_misere_table(seeded, "0*18") is None
    finally:
        seeded.close()


def test_a_large_root_goes_to_s7_and_a_forged_s7_in_the_cache_is_refused(
    tmp_path: Path,
) -> None:
    forged = tmp_path / "cache" / "tables" / "s7.rcttable"
    forged.parent.mkdir(parents=True)
    forged.write_bytes(b"not an RCT table\n")
    done = run_cli(
        "solve", "0*18", "--misere", "--store", str(tmp_path / "store"),
        env=cache_env(tmp_path),
    )  # fmt: skip
    assert done.returncode == 2, done.stdout
    assert "0*18 has 54 lives" in done.stderr and "solved on S7" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_rerun_and_a_check_read_the_table_the_store_was_solved_on(tmp_path: Path) -> None:
    env = cache_env(tmp_path)
    store = str(tmp_path / "store")
    cached = tmp_path / "cache" / "tables" / "s4.rcttable"
    first = run_cli(
        "solve", "0*8", "--misere", "--rct-table", "s4", "--json", "--quiet", "--store", store,
        env=env,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    rerun = run_cli("solve", "0*9", "--misere", "--json", "--quiet", "--store", store, env=env)
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    assert report["outcome"] == "L"  # A164950
    assert report["rct_table"]["where"] == str(cached.resolve())
    assert "warning" not in rerun.stderr  # no second table in the store
    check = run_cli("check", "--misere", "--root", "0*9", "--json", "--store", store, env=env)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "solved on s4: checking with it" in check.stderr
    checked = json.loads(check.stdout)
    assert checked["ok"] is True and checked["rct_source"] == "file"


def test_a_check_does_not_build_the_table_the_store_names(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    built = run_cli(
        "solve", "0*6", "--misere", "--rct-table", "s4", "--quiet", "--store", store,
        env=cache_env(tmp_path / "here"),
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    elsewhere = cache_env(tmp_path / "elsewhere")  # a machine without the cached S4
    bare = run_cli("check", "--misere", "--root", "0*6", "--store", store, env=elsewhere)
    assert bare.returncode == 1 and "(--rct-table s4 finds or builds it)" in bare.stdout
    assert not (tmp_path / "elsewhere" / "cache").exists()


def test_an_imported_checkpoint_keeps_the_table_its_solves_ran_on(tmp_path: Path) -> None:
    """A checkpoint exported from a store solved on s4 and imported into a new store still
    names s4: the resumed solve and the check read s4 without being told (they took the
    shipped S6 before, mixing two tables in one proof)."""
    env = cache_env(tmp_path)
    solved, resumed = str(tmp_path / "solved"), str(tmp_path / "resumed")
    out = str(tmp_path / "checkpoint.spdbx")
    steps = [
        ("solve", "0*7", "--misere", "--rct-table", "s4", "--quiet", "--store", solved),
        ("export", "--store", solved, "--kind", "misere", "--out", out),
        ("import", out, "--store", resumed),
    ]
    for step in steps:
        done = run_cli(*step, env=env)
        assert done.returncode == 0, done.stderr
    rerun = run_cli("solve", "0*8", "--misere", "--json", "--quiet", "--store", resumed, env=env)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["outcome"] == "L"  # A164950: 8 mod 5 = 3
    assert json.loads(rerun.stdout)["rct_table"]["where"].endswith("s4.rcttable")
    pruned, proof = str(tmp_path / "pruned"), str(tmp_path / "proof.spdbx")
    check = run_cli(
        "check", "--misere", "--root", "0*8", "--json", "--store", resumed, "--prune", pruned,
        env=env,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    assert "solved on s4: checking with it" in check.stderr
    assert json.loads(check.stdout)["rct_table_file"].startswith("s4.rcttable (sha256 ")
    # the pruned proof, exported and imported alone, still names s4 (a certificate's check)
    for step in [
        ("export", "--store", pruned, "--kind", "misere", "--out", proof),
        ("import", proof, "--store", str(tmp_path / "alone")),
    ]:
        done = run_cli(*step, env=env)
        assert done.returncode == 0, done.stderr
    alone = run_cli(
        "check", "--misere", "--root", "0*8", "--json", "--store", str(tmp_path / "alone"),
        env=env,
    )  # fmt: skip
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert "solved on s4: checking with it" in alone.stderr
    assert json.loads(alone.stdout)["outcome"] == "L"
