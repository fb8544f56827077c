"""Cram in the results library (issue #77): certificates of empty boards' nimbers beside
Lemoine & Viennot's table, each checked in a fresh store of the game cram, listed by
`sproutsdb results` in a section of their own, and seeded only into a store of their game
(a Sprouts store never gets a Cram fact, nor a Cram store a Sprouts one). Real stores,
real files, the real CLI; nothing mocked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.ops.admission import admit
from sproutsdb.ops.results import (
    ManifestEntry,
    check_library,
    literature,
    outcome_of,
    read_manifest,
    sha256_of,
    shipped_library,
    write_manifest,
)
from sproutsdb.ops.seed import seed_library, seed_results
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import open_store

LEMOINE_VIENNOT = {"4x7": 3, "5x6": 2, "4x9": 1, "5x8": 1}  # LV2012 §6.2, the nimbers
QUICK = ("4x7", "5x6")  # re-derived here in about a CPU second together


def cram_entries() -> dict[str, ManifestEntry]:
    return {e.position: e for e in read_manifest(shipped_library()) if e.game == "cram"}


def test_the_library_ships_lemoine_and_viennots_cram_nimbers() -> None:
    entries = cram_entries()
    for board, nimber in LEMOINE_VIENNOT.items():
        entry = entries[board]
        assert entry.play == "normal" and entry.statement == {"nimber": nimber}
        assert entry.file == f"cram-normal-{board}.spdbx" and entry.requires is None
        assert sha256_of(shipped_library() / entry.file) == entry.sha256
        assert entry.solve_cpu_seconds and entry.solve_max_rss_kb  # what its solve cost
        assert "--game cram" in entry.command and entry.facts > 0
        assert (shipped_library() / entry.file).stat().st_size < 100_000  # small files
    said = {row["board"]: row for row in literature()["cram"]["boards"]}
    for board, entry in entries.items():  # every certificate agrees with what is published
        if board in said and "nimber" in said[board]:
            assert entry.statement["nimber"] == said[board]["nimber"], board
        if board in said and "outcome" in said[board]:
            assert outcome_of(entry.statement) == said[board]["outcome"], board
    assert said["6x7"]["nimber_above"] == 3 and said["5x9"]["outcome"] == "W"
    assert said["7x7"]["outcome"] == "W"
    assert "6.2" in literature()["sources"]["LV2012-cram"]


def test_sprouts_entries_are_written_as_before(tmp_path: Path) -> None:
    """A Sprouts entry has no `game` in the file (nor a changed checksum): the manifest the
    package ships is byte for byte what write_manifest makes of its entries."""
    shipped = (shipped_library() / "manifest.json").read_text()
    write_manifest(tmp_path, read_manifest(shipped_library()))
    assert (tmp_path / "manifest.json").read_text() == shipped
    data = json.loads(shipped)["results"]
    assert all("game" not in e for e in data if e["file"].startswith(("normal-", "misere-")))
    assert {e["game"] for e in data if e["file"].startswith("cram-")} == {"cram"}


@pytest.mark.parametrize("board", QUICK)
def test_a_cram_certificate_re_derives_alone_in_a_fresh_cram_store(board: str) -> None:
    check = admit(shipped_library(), cram_entries()[board]).check
    assert check.ok, check.message
    assert check.facts == cram_entries()[board].facts


def test_the_file_alone_checks_clean_with_check_root(tmp_path: Path) -> None:
    """What a reader does by hand: import the file (its header names the game: a new store
    of cram), then `check --root` on it."""
    entry = cram_entries()["4x7"]
    fresh = str(tmp_path / "fresh")
    done = run_cli("import", str(shipped_library() / entry.file), "--store", fresh)
    assert done.returncode == 0, done.stderr
    done = run_cli("check", "--store", fresh, "--root", "4x7", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"] and report["nimber"] == 3
    assert report["facts_used"] == report["facts_verified"] == entry.facts


def test_a_cram_certificate_named_sprouts_is_refused(tmp_path: Path) -> None:
    entry = cram_entries()["4x7"]
    shutil.copy(shipped_library() / entry.file, tmp_path / entry.file)
    lying = ManifestEntry(**{**entry.__dict__, "game": "sprouts"})
    check = admit(tmp_path, lying).check
    assert not check.ok and "'cram' facts" in check.message


def mixed_library(folder: Path) -> Path:
    """Sprouts 0*6 (normal) and Cram 4x7 from the shipped library, in one manifest."""
    folder.mkdir()
    chosen = [
        e
        for e in read_manifest(shipped_library())
        if (e.game, e.play, e.position) in {("sprouts", "normal", "0*6"), ("cram", "normal", "4x7")}
    ]
    assert len(chosen) == 2
    for entry in chosen:
        shutil.copy(shipped_library() / entry.file, folder / entry.file)
    write_manifest(folder, chosen)
    return folder


def test_seeding_puts_a_games_certificates_only_into_a_store_of_that_game(
    tmp_path: Path,
) -> None:
    library = mixed_library(tmp_path / "lib")
    by_game = {e.game: e for e in read_manifest(library)}
    with open_store(tmp_path / "sprouts", durable=False) as sprouts:
        seeds = seed_results(sprouts, library)
        assert [(s.position, s.action) for s in seeds] == [("0*6", "seeded")]
        assert sprouts.count(FactKind.NIMBER) == by_game["sprouts"].facts
        assert "4x7" not in sprouts.get(FactKind.NIMBER, ["4x7"])
        assert seed_library(sprouts, library)[0].action == "present"  # serve's way, same
        refused = admit(library, by_game["cram"], into=sprouts)  # asked directly: refused
        assert not refused.check.ok and "not for a store of sprouts" in refused.check.message
        assert sprouts.count(FactKind.NIMBER) == by_game["sprouts"].facts
    with open_store(tmp_path / "cram", durable=False, game="cram") as cram:
        seeds = seed_library(cram, library)
        assert [(s.position, s.action) for s in seeds] == [("4x7", "seeded")]
        assert cram.count(FactKind.NIMBER) == by_game["cram"].facts
        assert cram.get(FactKind.NIMBER, ["4x7"]) == {"4x7": 3}
        assert not admit(library, by_game["sprouts"], into=cram).check.ok
        assert cram.count(FactKind.NIMBER) == by_game["cram"].facts


def test_results_json_lists_the_cram_certificates_in_their_own_section() -> None:
    done = run_cli("results", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert all(r["game"] == "sprouts" for r in report["results"])  # 0*n only there
    rows = {r["position"]: r for r in report["cram"]}
    for board, nimber in LEMOINE_VIENNOT.items():
        row = rows[board]
        assert row["statement"] == {"nimber": nimber} and row["game"] == "cram"
        assert row["file"] == f"data/results/cram-normal-{board}.spdbx"
        assert row["literature"]["nimber"] == nimber and row["agrees"] is True
        assert row["literature"]["sources"] == ["LV2012-cram"]
    assert rows["6x7"]["literature"]["nimber_above"] == 3  # open: literature only, or proved
    assert rows["5x9"]["literature"]["outcome"] == rows["7x7"]["literature"]["outcome"] == "W"
    assert all(r["agrees"] is not False for r in report["cram"])
    assert report["certificates"] == len(read_manifest(shipped_library()))
    assert "LV2012-cram" in report["sources"]
    text = run_cli("results", "--play", "normal").stdout
    assert "Cram, normal play" in text and "4x7" in text and "nimber > 3" in text


@pytest.mark.slow
def test_every_cram_certificate_re_derives() -> None:
    """All of them in fresh cram stores, as `results --check` does (about 10 CPU s)."""
    checks = check_library(only=lambda entry: entry.game == "cram")
    assert len(checks) >= len(LEMOINE_VIENNOT)
    assert all(c.ok for c in checks), [c.message for c in checks if not c.ok]
