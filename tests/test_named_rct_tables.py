"""`--rct-table sN`: a table named by its game tree, built once from the rules into the cache
(sproutsdb.ops.rct_tables) and used by `solve --misere` and `check --misere` alike; a file
in the cache earns no trust by its place. Each test has a cache of its own, so each build
is a real first build (S3 and S4: about a second); the S6 test's cache starts with the
session's mark of the shipped table, which no test here is about re-deriving."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import copy_table_marks, run_cli
from sproutsdb.shipped import shipped_table
from test_check_table import body_lines, reframe


def cache_env(tmp_path: Path) -> dict[str, str]:
    return {"SPROUTSDB_CACHE": str(tmp_path / "cache")}


def test_a_named_table_is_built_once_and_solve_and_check_use_it(tmp_path: Path) -> None:
    env = cache_env(tmp_path)
    cached = tmp_path / "cache" / "tables" / "s4.rcttable"
    first, second = str(tmp_path / "first"), str(tmp_path / "second")
    solve = ("solve", "0*8", "--misere", "--rct-table", "s4", "--json", "--quiet")
    done = run_cli(*solve, "--store", first, env=env)
    assert done.returncode == 0, done.stderr
    assert f"building the RCT table of 0*4 into {cached}" in done.stderr
    report = json.loads(done.stdout)
    assert report["outcome"] == "L"  # A164950
    assert report["rct_table"]["where"] == str(cached.resolve())
    assert cached.is_file() and not list(cached.parent.glob(".*partial"))
    again = run_cli(*solve, "--store", second, env=env)
    assert again.returncode == 0, again.stderr
    assert "building" not in again.stderr and "re-deriving" not in again.stderr
    assert json.loads(again.stdout)["outcome"] == "L"
    check = ("check", "--misere", "--root", "0*8", "--rct-table", "s4", "--json", "--quiet")
    checked = run_cli(*check, "--store", first, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["ok"] is True
    # the same tree as `rct-table build 0*4` writes (the header's counts)
    info = run_cli("rct-table", "info", str(cached), "--json", env=env)
    built = tmp_path / "s4.rcttable"
    assert run_cli("rct-table", "build", "0*4", "--out", str(built), "--quiet").returncode == 0
    mine = run_cli("rct-table", "info", str(built), "--json")
    assert json.loads(info.stdout)["counts"] == json.loads(mine.stdout)["counts"]


def test_s6_names_the_shipped_table(tmp_path: Path, shipped_table_marks: Path) -> None:
    # the cache is this test's own but holds the session's mark of S6 (tests/conftest.py):
    # naming the shipped table is not about an empty cache, and S6 is re-derived once a run
    copy_table_marks(shipped_table_marks, tmp_path / "cache")
    done = run_cli(
        "solve", "0*6", "--misere", "--rct-table", "S6", "--json", "--quiet",
        "--store", str(tmp_path / "store"), env=cache_env(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shipped = shipped_table()
    assert shipped is not None
    assert json.loads(done.stdout)["rct_table"]["where"] == str(shipped.resolve())
    assert not (tmp_path / "cache" / "tables").exists()


def test_seed_results_on_s7_is_refused_before_any_build(tmp_path: Path) -> None:
    store = tmp_path / "store"
    done = run_cli(
        "solve", "0*9", "--misere", "--seed-results", "--rct-table", "s7",
        "--store", str(store), env=cache_env(tmp_path),
    )  # fmt: skip
    assert done.returncode == 2
    assert "a search on s7 (the table of 0*7) would take them as proven" in done.stderr
    assert not store.exists() and not (tmp_path / "cache" / "tables").exists()


def test_a_missing_table_is_one_line_exit_2_naming_the_names(tmp_path: Path) -> None:
    for command in (("solve", "0*5", "--misere"), ("check", "--misere", "--root", "0*5")):
        done = run_cli(
            *command, "--rct-table", "s8", "--store", str(tmp_path / "store"),
            env=cache_env(tmp_path),
        )  # fmt: skip
        assert done.returncode == 2
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "s8: no such file" in lines[0]
        assert "s1 .. s7" in lines[0]


def test_a_file_put_in_the_cache_is_re_derived_and_refused_when_forged(tmp_path: Path) -> None:
    """The cache is a place, not a proof: a table file swapped in under a named table's name
    (one position given another tree, under a valid checksum) has no mark and is re-derived
    whole before use, so solve refuses it instead of searching with a false tree."""
    env = cache_env(tmp_path)
    solve = ("solve", "0*5", "--misere", "--rct-table", "s3", "--quiet")
    assert run_cli(*solve, "--store", str(tmp_path / "a"), env=env).returncode == 0
    cached = tmp_path / "cache" / "tables" / "s3.rcttable"
    lines = body_lines(cached)
    rcts = int(lines[0].split("\t")[1])
    for at in range(rcts + 2, len(lines) - 1):
        position, index = lines[at].split("\t")
        if position != "!":
            lines[at] = f"{position}\t{(int(index) + 1) % rcts}"
            break
    reframe(cached, "\n".join(lines).encode())
    done = run_cli(*solve, "--store", str(tmp_path / "b"), env=env)
    assert done.returncode == 2, done.stdout
    assert "do not re-derive from their children" in done.stderr
    assert "the table is refused" in done.stderr.strip().splitlines()[-1]


def test_quiet_hides_the_build_counter_and_keeps_its_notice(tmp_path: Path) -> None:
    # a plain line is due at every update (S4's build updates every 1,000 positions)
    often = {"SPROUTSDB_PROGRESS_SECONDS": "0.000001"}
    quiet = run_cli(
        "solve", "0*5", "--misere", "--rct-table", "s4", "--quiet",
        "--store", str(tmp_path / "quiet"), env=cache_env(tmp_path / "a") | often,
    )  # fmt: skip
    assert quiet.returncode == 0, quiet.stderr
    assert "building the RCT table of 0*4" in quiet.stderr  # the cost is still said
    assert " positions" not in quiet.stderr
    for command in (("solve", "0*5", "--misere"), ("check", "--misere", "--root", "0*5")):
        shown = run_cli(
            *command, "--rct-table", "s4", "--store", str(tmp_path / "quiet"),
            env=cache_env(tmp_path / command[0]) | often,
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert " positions" in shown.stderr
