"""One gate for every fact (issue #72): a certificate of the results library is admitted
whole or not at all, from the very bytes its checksum and check saw, and a cache mark is
believed only in a cache nobody else can write. Real LMDB stores, the real command, forged
files written with the project's own writer."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run_cli
from sproutsdb import __version__, trusted_tables
from sproutsdb.formats.rcttable import RctTableError
from sproutsdb.ops import admission
from sproutsdb.ops import check as check_ops
from sproutsdb.ops.results import (
    ManifestEntry,
    certificate_keys,
    check_certificate_file,
    read_manifest,
    sha256_of,
    shipped_library,
    write_manifest,
)
from sproutsdb.ops.seed import ResultSeed, seed_library, seed_results, seed_results_below
from sproutsdb.shipped import shipped_table
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore, open_store
from sproutsdb.trusted_tables import (
    CANON_VERSION,
    MARKS_FOLDER,
    TABLE_CHECK,
    cache_dir,
    file_digest,
    read_mark,
    verified_table,
)
from test_misere_trust import forged_table  # noqa: F401 (a fixture: a table with a lying entry)
from test_results import flip_root_nimber, rewrite_certificate, small_library

# A normal certificate of `position` with one extra misère fact whose key its normal check
# verifies as a nimber (truth: a misère win). 0*6.AB|AB is an option of 0*7, so believing it
# makes misère 0*7 (a loss) a win; 0*12 is itself a misère win.
KIND_CONFUSIONS = [("0*14", "0*6.AB|AB"), ("0*12", "0*12")]


def append_chunk(path: Path, kind: FactKind, facts: list[tuple[str, Any]]) -> None:
    """Rewrite a certificate, valid checksums and all, with one more chunk of facts."""
    rewrite_certificate(path, extra=(kind, facts))


def bless(library: Path) -> list[ManifestEntry]:
    """Give every manifest entry the SHA-256 its file has now (what a forger does)."""
    entries = [
        type(e)(**{**e.__dict__, "sha256": sha256_of(library / e.file)})
        for e in read_manifest(library)
    ]
    write_manifest(library, entries)
    return entries


def kind_confused_library(folder: Path, position: str, misere_key: str) -> Path:
    """The shipped normal certificates of 0*7 and `position`, the latter with the extra
    misère fact `misere_key` = L, the manifest blessing both."""
    library = small_library(folder, ("0*7", position))
    forged = next(e for e in read_manifest(library) if e.position == position)
    append_chunk(library / forged.file, FactKind.MISERE, [(misere_key, "L")])
    bless(library)
    return library


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache of marks of this test only, private to this user."""
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("SPROUTSDB_CACHE", str(folder))
    # and no table re-derived earlier in this process: a test's marks are its own
    monkeypatch.setattr(trusted_tables, "_verified", {})
    yield folder


def stored(store: LmdbProofStore, kind: FactKind, keys: list[str]) -> dict[str, Any]:
    return store.get(kind, keys)


# --- (a) kind confusion ---------------------------------------------------------------------


@pytest.mark.parametrize(("position", "misere_key"), KIND_CONFUSIONS)
def test_a_normal_certificate_with_a_misere_fact_is_refused_by_results_check(
    tmp_path: Path, position: str, misere_key: str
) -> None:
    library = kind_confused_library(tmp_path / "lib", position, misere_key)
    done = run_cli("results", "--check", "--library", str(library))
    assert done.returncode == 1, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("sproutsdb results:")]
    assert line.startswith(f"sproutsdb results: FAILED normal {position}: ")
    assert "refused whole: 1 of its facts" in line and f"misere {misere_key!r} = 'L'" in line
    assert "FAILED normal 0*7" not in done.stderr


@pytest.mark.parametrize(("position", "misere_key"), KIND_CONFUSIONS)
def test_serves_seeding_and_seed_results_refuse_it_and_store_nothing_of_it(
    tmp_path: Path, private_cache: Path, position: str, misere_key: str
) -> None:
    """`serve`'s verb (seed_library, which LibrarySeeder runs) and `solve --seed-results`'s
    (seed_results_below) refuse the forged certificate whole, the second even beside a
    hand-made mark of this user's own cache saying it passed, and seed the honest one."""
    library = kind_confused_library(tmp_path / "lib", position, misere_key)
    forged = next(e for e in read_manifest(library) if e.position == position)
    name = forged.file.removesuffix(".spdbx")
    mark = private_cache / "verified-results" / f"{forged.sha256}-{name}.json"
    with open_store(tmp_path / "serve", durable=False) as store:
        seeds = {s.position: s for s in seed_library(store, library)}
        assert_refused_whole(store, seeds, position)
    assert not mark.exists()  # a refusal leaves no mark
    write_mark_by_hand(mark, forged)
    with open_store(tmp_path / "solve", durable=False) as store:
        below = seed_results_below(store, SproutsGame(), "0*16", "normal", directory=library)
        assert_refused_whole(store, {s.position: s for s in below}, position)


def assert_refused_whole(
    store: LmdbProofStore, seeds: dict[str, ResultSeed], position: str
) -> None:
    """The honest 0*7 seeded, the forged certificate refused with nothing of it stored."""
    assert seeds["0*7"].action == "seeded"
    assert seeds[position].action == "refused"
    assert "refused whole: 1 of its facts" in seeds[position].message
    assert store.count(FactKind.MISERE) == 0
    assert stored(store, FactKind.NIMBER, [position, "0*6.AB|AB"]) == {}


def write_mark_by_hand(path: Path, entry: ManifestEntry) -> None:
    """What a forger writes: a results mark of this version for `entry`'s file."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    body = {
        "sha256": entry.sha256,
        "tool_version": __version__,
        "made_by": "results check",
        "play": entry.play,
        "position": entry.position,
        "statement": entry.statement,
        "requires": entry.requires,
    }
    path.write_text(json.dumps(body))
    path.chmod(0o600)


# --- (b) the bytes checked are the bytes stored ---------------------------------------------


def test_a_file_swapped_during_the_check_is_not_what_is_stored(
    tmp_path: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is replaced by a forgery (0*7 given nimber 1) after its bytes were hashed,
    before its check, and again before it is stored: the check and the store read the
    gate's own copy, so the true nimber 0 is stored, verified."""
    library = small_library(tmp_path / "lib", ("0*7",))
    (entry,) = read_manifest(library)
    source = library / entry.file
    forgery = tmp_path / "forgery.spdbx"
    forgery.write_bytes(source.read_bytes())
    flip_root_nimber(forgery, "0*7")
    real_check, real_put = admission.check_certificate_file, admission._put_certificate
    seen: list[Path] = []

    def swap() -> None:
        source.write_bytes(forgery.read_bytes())

    def check_after_swap(path: Path, *args: Any, **kwargs: Any) -> Any:
        swap()
        seen.append(path)
        return real_check(path, *args, **kwargs)

    def put_after_swap(*args: Any) -> Any:
        swap()
        return real_put(*args)

    monkeypatch.setattr(admission, "check_certificate_file", check_after_swap)
    monkeypatch.setattr(admission, "_put_certificate", put_after_swap)
    with open_store(tmp_path / "store", create=True, durable=False) as store:
        (seed,) = seed_results(store, library)
        assert seed.action == "seeded", seed.message
        verified: set[str] = set()
        assert store.get(FactKind.NIMBER, ["0*7"], verified_out=verified) == {"0*7": 0}
        assert verified == {"0*7"}
    assert seen and all(path != source for path in seen)
    assert sha256_of(source) != entry.sha256  # the swap did happen
    # the swapped file, read next time, is refused at its checksum, before anything else
    with open_store(tmp_path / "other", create=True, durable=False) as store:
        (seed,) = seed_results(store, library)
        assert seed.action == "refused" and "SHA-256" in seed.message
        assert store.count(FactKind.NIMBER) == 0
    done = run_cli("results", "--check", "--library", str(library))
    assert done.returncode == 1 and "its SHA-256 is not the manifest's" in done.stderr


# --- (c) marks nobody else can have written -------------------------------------------------


@pytest.mark.parametrize("loose", ["folder", "file"])
def test_a_forged_mark_anyone_could_write_is_not_trusted(
    tmp_path: Path,
    private_cache: Path,
    caplog: pytest.LogCaptureFixture,
    loose: str,
) -> None:
    """A forged certificate (0*7 given nimber 1, the manifest blessing it) and a hand-made
    mark for it in a folder writable by others (or a mark file writable by others): the
    mark is ignored, said once, and the certificate re-derived and refused."""
    library = small_library(tmp_path / "lib", ("0*7",))
    (entry,) = read_manifest(library)
    flip_root_nimber(library / entry.file, "0*7")
    (entry,) = bless(library)
    mark = private_cache / "verified-results" / f"{entry.sha256}-normal-0x7.json"
    write_mark_by_hand(mark, entry)
    if loose == "folder":
        mark.parent.chmod(0o777)
    else:
        mark.chmod(0o666)
    with caplog.at_level(logging.WARNING), open_store(tmp_path / "store", durable=False) as store:
        for _ in range(2):
            (seed,) = seed_results(store, library)
            assert seed.action == "refused" and "does not check" in seed.message
        assert stored(store, FactKind.NIMBER, ["0*7"]) == {}
    said = [r.getMessage() for r in caplog.records if "not trusting the cache" in r.getMessage()]
    assert len(said) == 1 and "writable by group or others" in said[0]


def test_table_marks_name_their_check_and_need_a_private_cache(
    tmp_path: Path,
    private_cache: Path,
    forged_table: tuple[Path, str],  # noqa: F811 (the fixture imported above)
) -> None:
    """A table's mark says which check made it. A hand-made one for a forged table is
    believed in a cache only this user can write (the cache is as trusted as its owner),
    never by `recheck` or `rct-table info --check`, and not at all in a group-writable
    cache or without saying which check made it."""
    forged, victim = forged_table
    digest = file_digest(forged)
    verified_table(forged.with_name("s3.rcttable"))  # the genuine table: a real mark
    made = read_mark(file_digest(forged.with_name("s3.rcttable")))
    assert made is not None and made["made_by"] == TABLE_CHECK and made["tool_version"]
    mark = cache_dir() / MARKS_FOLDER / f"{digest}.json"
    mark.write_text(json.dumps({**made, "sha256": digest}))
    mark.chmod(0o600)
    assert read_mark(digest) is not None
    with pytest.raises(RctTableError, match="do not re-derive"):
        verified_table(forged, recheck=True)
    done = run_cli("rct-table", "info", str(forged), "--check")
    assert done.returncode != 0 and victim in done.stdout + done.stderr
    mark.parent.chmod(0o775)
    assert read_mark(digest) is None
    args = ("solve", "0*3", "--misere", "--rct-table", str(forged))
    done = run_cli(*args, "--store", str(tmp_path / "store"))
    assert done.returncode != 0 and "do not re-derive" in done.stderr
    assert done.stderr.count("not trusting the cache") == 1
    mark.parent.chmod(0o700)
    unnamed = {k: v for k, v in made.items() if k != "made_by"}
    mark.write_text(json.dumps({**unnamed, "sha256": digest}))
    assert read_mark(digest) is None


def test_results_check_recheck_believes_no_mark(tmp_path: Path, private_cache: Path) -> None:
    """`--recheck` is for `--check`; with it the RCT table under a misère certificate is
    re-derived whatever its mark says (a hand-made one here, believed without it)."""
    done = run_cli("results", "--recheck")
    assert done.returncode == 2 and "--recheck is for --check" in done.stderr
    library = tmp_path / "lib"
    library.mkdir()
    (entry,) = [e for e in read_manifest(shipped_library()) if e.key == ("misere", "0*7")]
    (library / entry.file).write_bytes((shipped_library() / entry.file).read_bytes())
    write_manifest(library, [entry])
    table = shipped_table()
    assert table is not None
    digest = file_digest(table)
    mark = private_cache / MARKS_FOLDER / f"{digest}.json"
    mark.parent.mkdir(mode=0o700)
    body = {"sha256": digest, "tool_version": __version__, "canon_version": CANON_VERSION}
    mark.write_text(json.dumps({**body, "made_by": TABLE_CHECK, "cpu_seconds": -1}))
    mark.chmod(0o600)
    for recheck, seconds in (((), -1), (("--recheck",), 0)):
        done = run_cli("results", "--check", *recheck, "--library", str(library), "--json")
        assert done.returncode == 0 and json.loads(done.stdout)["ok"] is True, done.stderr
        made = json.loads(mark.read_text())
        assert made["made_by"] == TABLE_CHECK and (made["cpu_seconds"] > 0) == (seconds == 0)


def test_a_table_swapped_after_it_is_hashed_is_not_what_is_used(
    tmp_path: Path,
    private_cache: Path,
    forged_table: tuple[Path, str],  # noqa: F811 (the fixture imported above)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The table's bytes are read once: hashed, then verified and used from memory. A forged
    table put in the genuine one's place right after the read (the seam where a second read
    would take it) changes nothing: the genuine table is verified and marked, never the
    forgery."""
    forged, _victim = forged_table
    genuine = forged.with_name("s3.rcttable")
    target = tmp_path / "table.rcttable"
    target.write_bytes(genuine.read_bytes())
    real = trusted_tables.table_from_bytes

    def swapped_first(name: str, data: bytes, **options: Any) -> Any:
        target.write_bytes(forged.read_bytes())  # the swap, after the one read
        return real(name, data, **options)

    monkeypatch.setattr(trusted_tables, "table_from_bytes", swapped_first)
    table = verified_table(target, recheck=True)
    assert table.header["verified"]["sha256"] == file_digest(genuine)
    assert read_mark(file_digest(forged)) is None
    assert file_digest(target) == file_digest(forged)  # the swap did happen on disk


def test_a_verified_tables_trees_are_kept_and_believed_only_by_their_digest(
    private_cache: Path,
    forged_table: tuple[Path, str],  # noqa: F811 (the fixture imported above)
) -> None:
    """After a clean check, the table's trees are kept beside its mark and a later load takes
    them instead of re-deriving every record; a snapshot that differs from the one the mark
    names, or that lacks a record of the file, is not used: the records are re-derived and
    the snapshot written again."""
    from sproutsdb.formats.rctindex import index_digest, write_trees
    from sproutsdb.solver.cgt import Algebra

    genuine = forged_table[0].with_name("s3.rcttable")
    digest = file_digest(genuine)
    first = verified_table(genuine)
    by_id = {p: first.algebra.content_id(h) for p, h in first.positions.items()}
    mark = read_mark(digest)
    assert mark is not None and isinstance(mark.get("trees_blake2b"), str)
    trees = trusted_tables.cached_index_files(digest)[1]
    assert index_digest(trees) == mark["trees_blake2b"]

    def fresh_load() -> dict[str, str]:
        trusted_tables._verified.clear()  # a new command: nothing loaded in this process
        table = verified_table(genuine)
        assert table.header["verified"]["how"] == "cached mark"
        return {p: table.algebra.content_id(h) for p, h in table.positions.items()}

    assert fresh_load() == by_id
    trees.write_bytes(trees.read_bytes()[:-1] + b"\0")  # not the snapshot the mark names
    assert fresh_load() == by_id
    again = read_mark(digest)
    assert again is not None and index_digest(trees) == again["trees_blake2b"]
    # a snapshot the mark does name (written by hand) that lacks the file's trees
    empty = write_trees(trees, Algebra().snapshot())
    trusted_tables._write_mark(digest, {**again, "trees_blake2b": empty})
    assert fresh_load() == by_id
    rewritten = read_mark(digest)
    assert rewritten is not None and rewritten["trees_blake2b"] != empty
    assert index_digest(trees) == rewritten["trees_blake2b"]


# --- (d) a fact the root's path did not reach -------------------------------------------------


def misere_library(folder: Path, position: str, extra: list[tuple[str, Any]]) -> Path:
    """The shipped misère certificate of `position` with the losing nodes `extra` appended
    and the manifest blessing the result."""
    folder.mkdir()
    (entry,) = [e for e in read_manifest(shipped_library()) if e.key == ("misere", position)]
    shutil.copy(shipped_library() / entry.file, folder / entry.file)
    write_manifest(folder, [entry])
    append_chunk(folder / entry.file, FactKind.MISERE, extra)
    bless(folder)
    return folder


def certificate_facts(position: str, play: str = "misere") -> list[tuple[str, Any]]:
    (entry,) = [e for e in read_manifest(shipped_library()) if e.key == (play, position)]
    return [fact for _, facts in certificate_keys(shipped_library() / entry.file) for fact in facts]


def test_true_facts_the_roots_path_skips_are_rederived_on_their_own_and_admitted(
    tmp_path: Path,
) -> None:
    """How the S6 algebra was loaded (re-derived, or its verified snapshot) changes which
    nodes a misère check walks through, so a shipped proof's node may lie off the path (0*18,
    0*20, 0*21 were refused so). Misère 0*8's proof with 0*10's 54 losing nodes appended:
    none of those is on 0*8's path, each is re-derived as its own root, all are admitted."""
    extra = certificate_facts("0*10")
    library = misere_library(tmp_path / "lib", "0*8", extra)
    (entry,) = read_manifest(library)
    skipped, _ = check_certificate_file(library / entry.file, "0*8", "misere", tmp_path / "w")
    assert {key for key, _ in extra} - set(skipped.report.verified)  # off the root's path
    admitted = admission.admit(library, entry)
    assert admitted.check.ok, admitted.check.message
    done = run_cli("results", "--check", "--play", "misere", "--library", str(library))
    assert done.returncode == 0, done.stderr


def test_a_false_fact_off_the_roots_path_still_refuses_the_certificate(tmp_path: Path) -> None:
    """The same re-derivation refutes a forged loss the root's path never reaches: misère
    0*10 is a win, so a 0*8 certificate claiming it lost is refused whole, naming it."""
    library = misere_library(tmp_path / "lib", "0*8", [("0*10", "L")])
    (entry,) = read_manifest(library)
    refused = admission.admit(library, entry)
    assert not refused.check.ok
    assert "refused whole: 1 of its facts" in refused.check.message
    assert "misere '0*10' = 'L'" in refused.check.message


def test_past_the_limit_facts_off_the_path_are_refused_unchecked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file padded with more facts than LEFTOVER_CHECKS off the root's path is refused
    without checking each: the gate's work stays bounded by the proof it is shown."""
    monkeypatch.setattr(check_ops, "LEFTOVER_CHECKS", 3)
    library = misere_library(tmp_path / "lib", "0*8", certificate_facts("0*10"))
    (entry,) = read_manifest(library)
    refused = admission.admit(library, entry)
    assert not refused.check.ok and "refused whole" in refused.check.message


def test_normal_facts_off_the_roots_path_are_rederived_and_false_ones_refuse(
    tmp_path: Path,
) -> None:
    """The same for normal play: 0*7's certificate with 0*9's nimbers appended is admitted
    (each re-derived), and with one of those 0*7 cannot reach (more lives than its 21) off
    by one, it is refused whole, naming it."""
    size = SproutsGame().size
    extra = sorted(certificate_facts("0*9", "normal"), key=lambda fact: size(fact[0]))
    assert size(extra[-1][0]) > size("0*7")
    library = small_library(tmp_path / "lib", ("0*7",))
    (entry,) = read_manifest(library)
    append_chunk(library / entry.file, FactKind.NIMBER, extra)
    (blessed,) = bless(library)
    admitted = admission.admit(library, blessed)
    assert admitted.check.ok, admitted.check.message
    key, value = extra[-1]
    forged = small_library(tmp_path / "forged", ("0*7",))
    append_chunk(forged / entry.file, FactKind.NIMBER, [*extra[:-1], (key, value + 1)])
    (entry,) = bless(forged)
    refused = admission.admit(forged, entry)
    assert not refused.check.ok and "refused whole: 1 of its facts" in refused.check.message
    assert f"nimber {key!r} = {value + 1}" in refused.check.message
