"""`check --misere` with no table flag, as a new user meets it: each shipped misère
certificate, imported into a fresh store on a machine with an empty table cache, checks on
the shipped S6 table (the table `solve --misere` defaults to, and the certificates' own),
saying so on its first line, and proves the outcome of OEIS A164950."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.facts import Provenance
from sproutsdb.ops.check import misere_rct_source
from sproutsdb.ops.exchange import import_into
from sproutsdb.ops.solved_on import solved_on_comment
from sproutsdb.ops.stores import open_local_store
from sproutsdb.shipped import shipped_table
from sproutsdb.solver.ports.proofstore import FactKind

PACKAGE = Path(__file__).resolve().parents[1] / "sproutsdb"
RESULTS = PACKAGE / "data" / "results"
CI_SPOTS = range(1, 13)
TWIN_SPOTS = (1, 2, 7, 12)  # W, L, L, W: the default run's twin of CI_SPOTS (slow)
SLOW_SPOTS = range(13, 22)


def _outcomes() -> dict[int, str]:
    """Misère outcomes of 0*n: A164950 as literature.json records it (n = 1..20); 0*21 is
    past those terms, so its outcome is the results manifest's statement."""
    literature = json.loads((PACKAGE / "data" / "literature.json").read_text())
    known = {entry["n"]: entry["outcome"] for entry in literature["misere_outcomes"]}
    manifest = json.loads((RESULTS / "manifest.json").read_text())
    for entry in manifest["results"]:
        if entry["play"] == "misere" and entry.get("game", "sprouts") == "sprouts":
            spots = int(entry["position"].removeprefix("0*"))
            known.setdefault(spots, entry["statement"]["outcome"])
    return known


OUTCOMES = _outcomes()


@pytest.fixture(scope="module")
def empty_cache(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A table cache with nothing in it (no mark of S6): the first check re-derives S6."""
    folder = tmp_path_factory.mktemp("empty-cache")
    return {"SPROUTSDB_CACHE": str(folder / "cache")}


def _import(spots: int, store: Path) -> None:
    """The shipped certificate imported into a new store at `store` by the library call
    `sproutsdb import` makes (import_into; no table is read): what is tested here is the
    check, so only the checks are processes of their own."""
    totals, conflicts = import_into(RESULTS / f"misere-0x{spots}.spdbx", str(store))
    assert not conflicts and (store / "data.mdb").is_file(), (totals, conflicts)


def _check_certificate(spots: int, where: Path, env: dict[str, str]) -> list[str]:
    """Import the certificate of 0*`spots` into a fresh store and check it with no flag
    but --quiet: the lines it prints, after asserting it proves A164950's outcome."""
    store = where / f"misere-{spots}"
    _import(spots, store)
    done = run_cli(
        "check", "--misere", "--root", f"0*{spots}", "--store", str(store), "--quiet",
        env=env, timeout=1800,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[0].startswith(f"RCTs: the shipped S6 RCT table {_shipped()}: "), lines[0]
    assert "the store names no table" in lines[0] and "solve --misere" in lines[0]
    assert lines[1].split(": ")[1] == OUTCOMES[spots], (spots, lines[1])
    assert "proof complete and consistent" in lines[1]
    return lines


def _shipped() -> Path:
    path = shipped_table()
    assert path is not None, "this install lacks the shipped S6 table"
    return path.resolve()


def test_published_outcomes_cover_every_certificate() -> None:
    assert set(OUTCOMES) >= set(CI_SPOTS) | set(SLOW_SPOTS)
    assert [OUTCOMES[n] for n in range(1, 8)] == ["W", "L", "L", "L", "W", "W", "L"]


def test_certificates_of_0x1_0x2_0x7_and_0x12_check_on_the_shipped_table_by_default(
    tmp_path: Path,
) -> None:
    """The smaller twin of the test below (a process per check, the table cache empty
    at first, so the first check re-derives S6): four certificates of both outcomes, the
    largest of CI's among them, and the same --json report of 0*12."""
    _certificates_check_on_the_shipped_table_by_default(
        TWIN_SPOTS, tmp_path, {"SPROUTSDB_CACHE": str(tmp_path / "empty-cache")}
    )


@pytest.mark.slow
def test_certificates_of_0x1_to_0x12_check_on_the_shipped_table_by_default(
    tmp_path: Path, empty_cache: dict[str, str]
) -> None:
    _certificates_check_on_the_shipped_table_by_default(CI_SPOTS, tmp_path, empty_cache)


def _certificates_check_on_the_shipped_table_by_default(
    spots_checked: Sequence[int], tmp_path: Path, empty_cache: dict[str, str]
) -> None:
    assert spots_checked[-1] == 12
    for spots in spots_checked:
        _check_certificate(spots, tmp_path, empty_cache)
    # --json names the table it used, its file (a pruned proof repeats it) and why
    done = run_cli(
        "check", "--misere", "--root", "0*12", "--store", str(tmp_path / "misere-12"),
        "--json", env=empty_cache,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["rct_source"] == "shipped" and report["outcome"] == "W"
    table = report["rct_table"]
    assert (table["source"], table["where"], table["default"]) == (
        "shipped",
        str(_shipped()),
        True,
    )
    assert table["file"] == report["rct_table_file"]
    assert table["file"].startswith("s6.rcttable (sha256 ")


@pytest.mark.slow
@pytest.mark.parametrize("spots", SLOW_SPOTS)
def test_large_certificates_check_on_the_shipped_table_by_default(
    spots: int, tmp_path: Path, empty_cache: dict[str, str]
) -> None:
    started = time.perf_counter()
    _check_certificate(spots, tmp_path, empty_cache)
    print(f"0*{spots}: import and check in {time.perf_counter() - started:.1f} s")


def test_text_lists_twenty_holes_then_counts_the_rest(tmp_path: Path) -> None:
    """0*13's losing nodes keyed by S6, checked with the rules alone: over a hundred holes;
    the text names 20 and counts the rest, --json lists every one."""
    store = tmp_path / "store"
    _import(13, store)
    args = ("check", "--misere", "--root", "0*13", "--store", str(store), "--no-rct-table")
    text, as_json = run_cli(*args), run_cli(*args, "--json")
    assert text.returncode == as_json.returncode == 1
    missing = json.loads(as_json.stdout)["missing"]
    assert len(missing) > 20
    lines = text.stdout.splitlines()
    assert lines[0] == "RCTs: none: --no-rct-table"
    assert sum(line.startswith("  missing: ") for line in lines) == 20
    assert f"  … and {len(missing) - 20:,} more missing (--json lists all)" in lines
    assert "the same --rct-table FILE" not in text.stdout  # the user chose the rules alone
    assert json.loads(as_json.stdout)["rct_table"]["default"] is False


def test_the_table_flags_are_refused_together_and_outside_misere(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    both = run_cli(
        "check", "--misere", "--root", "0*5", "--store", store, "--rct-table", "s6",
        "--no-rct-table",
    )  # fmt: skip
    assert both.returncode == 2 and "not both" in both.stderr
    normal = run_cli("check", "--root", "0*5", "--store", store, "--no-rct-table")
    assert normal.returncode == 2 and "add --misere" in normal.stderr


def test_a_store_naming_a_table_it_lacks_is_checked_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose facts name a table this machine lacks (a check builds none) is not
    checked on S6, which keys nodes otherwise: no table, and the reason names the file."""
    monkeypatch.setenv("SPROUTSDB_CACHE", str(tmp_path / "cache"))  # no s5 built here
    named = "s5.rcttable (sha256 " + "0" * 64 + ")"
    with open_local_store(tmp_path / "store") as store:
        who = Provenance(tool="sproutsdb solve", comment=solved_on_comment(named))
        store.put(FactKind.MISERE, {"0*2": "L"}, provenance=who)
        choice = misere_rct_source(store, None, 0)
    assert (choice.source, choice.rcts, choice.default) == ("none", None, True)
    assert named in choice.why and "builds no table" in choice.why
    assert not (tmp_path / "cache").exists()  # not even S6 was re-derived for it
