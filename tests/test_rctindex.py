"""A verified RCT table opened in place (formats.rctindex via trusted_tables.verified_rcts):
the same RCT for every position as the table loaded whole, the same misère search, and an
index that was changed after it was written is never used."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.formats.rctindex import IndexedRcts, index_digest, write_index
from sproutsdb.formats.rcttable import load_table, make_header, table_from_positions, write_table
from sproutsdb.ops.stores import open_local_store
from sproutsdb.shipped import shipped_table
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.misere.rctsearch import game_tree_rcts
from sproutsdb.solver.misere.solver import MisereSolver, TableRcts, largest_with_rct
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore
from sproutsdb.trusted_tables import (
    MARKS_FOLDER,
    cache_dir,
    cached_index_files,
    file_digest,
    read_mark,
    verified_rcts,
    verified_table,
    write_cached_mark,
)


@pytest.fixture(scope="module")
def s4_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    game = SproutsGame()
    search = game_tree_rcts(game, game.canonical("0*4"))
    table = table_from_positions(search.algebra, search.positions())
    path = tmp_path_factory.mktemp("index") / "s4.rcttable"
    write_table(path, table, make_header(table, game="sprouts", root="0*4"))
    return path


def _index_of(table: Path) -> Path:
    return cached_index_files(file_digest(table))[0]


def test_every_position_has_the_rct_of_the_whole_table(s4_file: Path) -> None:
    indexed = verified_rcts(s4_file, lazy_from=0)
    assert isinstance(indexed, IndexedRcts)
    whole = load_table(s4_file)
    assert len(indexed) == len(whole.positions)
    found = indexed.lookup(list(whole.positions))
    assert found.keys() == whole.positions.keys()
    for position, handle in found.items():
        assert indexed.algebra.content_id(handle) == whole.rct_id_of(position)
    assert indexed.lookup(["0*9", "0*4.0*4"]) == {}  # positions the table lacks
    small = verified_rcts(s4_file)  # below the default threshold: loaded whole
    assert isinstance(small, TableRcts)


@pytest.mark.parametrize("stride", [1, 2, 3, 7, 64, 10**6])
def test_a_lookup_finds_what_the_table_has_whatever_the_sample(s4_file: Path, stride: int) -> None:
    verified_rcts(s4_file, lazy_from=0)  # writes the index into the cache
    indexed = IndexedRcts(_index_of(s4_file), stride=stride)
    whole = load_table(s4_file)
    positions = sorted(whole.positions)
    found = indexed.lookup(positions)
    assert {p: indexed.algebra.content_id(h) for p, h in found.items()} == {
        p: whole.rct_id_of(p) for p in positions
    }
    # keys around each one (before the first, after the last, between two) are absent
    near = {"", "~", *(p[:-1] for p in positions), *(p + "!" for p in positions)}
    assert indexed.lookup(sorted(near - whole.positions.keys())) == {}


def test_a_misere_search_is_the_same_on_the_index(s4_file: Path) -> None:
    game = SproutsGame()
    results = []
    for rcts in (verified_rcts(s4_file, lazy_from=0), verified_rcts(s4_file)):
        solver = MisereSolver(game, MemoryProofStore(), rcts)
        results.append((solver.outcome(game.canonical("0*8")), solver.stats.nodes))
    assert results[0] == results[1]
    assert results[0][0] == "L"  # A164950: 0*8 is a misère loss


def test_the_index_knows_its_largest_position_and_an_older_one_learns_it(
    s4_file: Path,
) -> None:
    """A land larger than every position of the table is known absent without a search
    (most lands a large misère search meets); an index written before the bound existed is
    written again with it, and the mark follows."""
    game = SproutsGame()
    largest = max(game.size(p) for p in load_table(s4_file).positions)
    assert largest == 12  # the lives of 0*4, the tree's root
    indexed = verified_rcts(s4_file, lazy_from=0)
    assert isinstance(indexed, IndexedRcts) and indexed.max_size == largest
    assert largest_with_rct(indexed) == largest
    digest = file_digest(s4_file)
    mark = read_mark(digest)
    assert mark is not None
    mark["index_blake2b"] = write_index(s4_file, _index_of(s4_file), digest)  # no bound
    write_cached_mark(cache_dir() / MARKS_FOLDER / f"{digest}.json", mark)
    assert IndexedRcts(_index_of(s4_file)).max_size is None
    again = verified_rcts(s4_file, lazy_from=0)
    assert isinstance(again, IndexedRcts) and again.max_size == largest
    assert (read_mark(digest) or {})["index_blake2b"] == index_digest(_index_of(s4_file))


def test_a_changed_index_is_written_again_not_used(s4_file: Path) -> None:
    verified_rcts(s4_file, lazy_from=0)
    index = _index_of(s4_file)
    data = bytearray(index.read_bytes())
    at = data.rindex(b"\t0\n")  # a position line's RCT number: point it elsewhere
    data[at + 1 : at + 2] = b"1"
    index.write_bytes(bytes(data))
    notices: list[str] = []
    indexed = verified_rcts(s4_file, lazy_from=0, notice=notices.append)
    assert any("writing an index" in notice for notice in notices)
    assert index.read_bytes() != bytes(data)
    whole = load_table(s4_file)
    found = indexed.lookup(list(whole.positions))
    assert all(indexed.algebra.content_id(h) == whole.rct_id_of(p) for p, h in found.items())


def test_a_changed_snapshot_is_written_again_not_used(s4_file: Path) -> None:
    verified_rcts(s4_file, lazy_from=0)
    trees = _index_of(s4_file).with_suffix(".trees")
    data = bytearray(trees.read_bytes())
    data[-1] ^= 1
    trees.write_bytes(bytes(data))
    notices: list[str] = []
    indexed = verified_rcts(s4_file, lazy_from=0, notice=notices.append)
    assert any("writing an index" in notice for notice in notices)
    whole = load_table(s4_file)
    found = indexed.lookup(list(whole.positions))
    assert all(indexed.algebra.content_id(h) == whole.rct_id_of(p) for p, h in found.items())


def test_an_algebra_snapshot_gives_back_the_same_trees_and_sums(s4_file: Path) -> None:
    whole = load_table(s4_file)
    again = Algebra.from_snapshot(whole.algebra.snapshot())
    assert list(again.records()) == list(whole.algebra.records())
    assert [again.label(h) for h in again.handles()] == [
        whole.algebra.label(h) for h in whole.algebra.handles()
    ]
    handles = sorted(set(whole.positions.values()))[:40]
    for a in handles[:8]:
        for b in handles:
            assert again.content_id(again.add(a, b)) == whole.algebra.content_id(
                whole.algebra.add(a, b)
            )
    with pytest.raises(ValueError, match="not an algebra snapshot"):
        Algebra.from_snapshot(b"\x00junk")


def test_a_mark_naming_no_snapshot_gets_one(s4_file: Path) -> None:
    """A mark written before snapshots existed (index digest only) is completed, not trusted
    to mean an absent snapshot is fine."""
    verified_rcts(s4_file, lazy_from=0)
    digest = file_digest(s4_file)
    mark = read_mark(digest)
    assert mark is not None
    del mark["trees_blake2b"]
    write_cached_mark(cache_dir() / MARKS_FOLDER / f"{digest}.json", mark)
    _index_of(s4_file).with_suffix(".trees").unlink()
    indexed = verified_rcts(s4_file, lazy_from=0)
    assert isinstance(indexed, IndexedRcts)
    assert "trees_blake2b" in (read_mark(digest) or {})


def test_a_table_built_here_needs_no_check_on_first_use(tmp_path: Path) -> None:
    """`rct-table build` derives every entry from the rules and reads the file back, so it
    leaves the verified mark itself: the first command that uses the table does not spend
    the whole check again (17 CPU minutes for S7)."""
    built = tmp_path / "s3.rcttable"
    done = run_cli("rct-table", "build", "0*3", "--out", str(built), "--quiet")
    assert done.returncode == 0, done.stderr
    mark = read_mark(file_digest(built))
    assert mark is not None and mark["derived_by"].startswith("rct-table build")
    notices: list[str] = []
    table = verified_table(built, notice=notices.append)
    assert notices == [] and table.header["verified"]["how"] == "cached mark"


def test_a_check_without_the_solves_table_says_which_option_it_lacks(tmp_path: Path) -> None:
    """A store solved with --rct-table FILE holds no RCTs of its own: its check without the
    table cannot read its nodes, and names the file the solve used (its provenance does);
    a store that names none is checked on the shipped S6, as `solve --misere` would take
    (its nodes were solved on a copy of it, so the check passes)."""
    shipped = shipped_table()
    assert shipped is not None
    table = str(tmp_path / "own.rcttable")  # not a name a check finds by itself (s6, s7)
    shutil.copyfile(shipped, table)
    store = str(tmp_path / "store")
    assert (
        run_cli("solve", "0*7", "--misere", "--rct-table", table, "--store", store).returncode == 0
    )
    bare = run_cli("check", "--misere", "--root", "0*7", "--store", store)
    named = f"proven on own.rcttable (sha256 {file_digest(table)}): check with --rct-table"
    assert bare.returncode == 1 and named in bare.stdout
    as_json = run_cli("check", "--misere", "--root", "0*7", "--store", store, "--json")
    assert json.loads(as_json.stdout)["solved_on_tables"] == [
        f"own.rcttable (sha256 {file_digest(table)})"
    ]
    unnamed = str(tmp_path / "unnamed")
    with (
        LmdbProofStore.open(unnamed, game="sprouts", canon_version=CANON_VERSION) as copy,
        open_local_store(store, readonly=True) as solved,
    ):
        copy.put(FactKind.MISERE, dict(solved.iter_facts(FactKind.MISERE)))
    general = run_cli("check", "--misere", "--root", "0*7", "--store", unnamed)
    assert general.returncode == 0 and "the shipped S6 RCT table" in general.stdout
    again = run_cli("check", "--misere", "--root", "0*7", "--store", store, "--rct-table", table)
    assert again.returncode == 0, again.stdout + again.stderr
