"""Native export/import: round trips keep every fact byte for byte, imports are
idempotent and write-once, and damaged files are refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.formats.exchange import FRAME, KINDS, MAGIC, ExchangeFormatError, read_stream
from sproutsdb.ops import export_store, import_file
from sproutsdb.solver.cgt.ident import tree_id
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, RctRecord
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore

TWO = tree_id(("*1",))  # the tree whose one move leads to *1 (its id is its children's digest)
RCTS = {
    "*0": RctRecord(0, "W", (), nim=0),
    "*1": RctRecord(1, "L", ("*0",), nim=1),
    TWO: RctRecord(2, "W", ("*1",)),
}


def lmdb(path: Path) -> LmdbProofStore:
    return LmdbProofStore.open(path, game="sprouts", canon_version=CANON_VERSION, durable=False)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A store with facts of every kind: nimbers from the solver, made-up RCT records."""
    path = tmp_path / "source"
    with lmdb(path) as store:
        solver = NormalSolver(SproutsGame(), store)
        solver.nimber("0*5")
        solver.flush()
        store.put(FactKind.RCT, RCTS)
        store.put(FactKind.POS_RCT, {"0*2": TWO, "0": "*1"})
        store.put(FactKind.MISERE, {"0*2+1": "L"})  # canonical: imports canonicalise keys
    return path


def all_facts(path: Path) -> dict[FactKind, list[tuple[str, object]]]:
    with lmdb(path) as store:
        return {kind: list(store.iter_facts(kind)) for kind in KINDS}


def chunks(path: Path) -> list[object]:
    return [data for frame, data in read_stream(path) if frame == "C"]


def export(store_path: Path, out: Path) -> None:
    with lmdb(store_path) as store:
        export_store(store, out)


def test_round_trip_is_identical_in_its_facts(source: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.spdbx", tmp_path / "b.spdbx"
    export(source, first)
    with lmdb(tmp_path / "copy") as copy:
        totals, conflicts = import_file(first, copy)
    assert conflicts == [] and totals["conflicts"] == 0
    assert totals["inserted"] == sum(len(v) for v in all_facts(source).values())
    assert all_facts(tmp_path / "copy") == all_facts(source)
    export(tmp_path / "copy", second)
    assert chunks(first) == chunks(second)
    assert raw_chunk_frames(first) == raw_chunk_frames(second) != b""


def raw_chunk_frames(path: Path) -> bytes:
    """The bytes of a stream's chunk frames (the header, with times and who, differs)."""
    data = path.read_bytes()
    at = len(MAGIC)
    chunk_bytes = b""
    while at < len(data):
        kind, length, _ = FRAME.unpack_from(data, at)
        end = at + FRAME.size + length
        if kind == b"C":
            chunk_bytes += data[at:end]
        at = end
    return chunk_bytes


def test_import_is_idempotent_and_never_overwrites(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.spdbx"
    export(source, out)
    target = tmp_path / "target"
    with lmdb(target) as store:
        store.put(FactKind.NIMBER, {"0*5": 0})  # a wrong value already there
        first, conflicts = import_file(out, store)
        again, _ = import_file(out, store)
        assert store.get(FactKind.NIMBER, ["0*5"]) == {"0*5": 0}
    assert first["conflicts"] == 1 and conflicts[0].key == "0*5" and conflicts[0].offered == 1
    assert again["inserted"] == 0 and again["unchanged"] == first["inserted"]


def _damaged(good: bytes) -> dict[str, bytes]:
    flipped = bytearray(good)
    flipped[len(good) // 2] ^= 0x40
    return {
        "truncated": good[: len(good) - 7],
        "no trailer": good[: good.rindex(b"T")],
        "flipped byte": bytes(flipped),
        "not an export": b"land nimber\n0*2 0\n",
        "empty": b"",
        "extra data": good + b"x",
    }


def test_damaged_files_are_refused_and_nothing_is_written(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "a.spdbx"
    export(source, out)
    for name, data in _damaged(out.read_bytes()).items():
        bad = tmp_path / f"{name}.spdbx"
        bad.write_bytes(data)
        with lmdb(tmp_path / f"store-{name}") as store:
            with pytest.raises(ExchangeFormatError):
                import_file(bad, store)
            assert all(store.count(kind) == 0 for kind in KINDS), name
        done = run_cli("import", str(bad), "--store", str(tmp_path / f"cli-{name}"))
        assert done.returncode == 2, (name, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
        assert not (tmp_path / f"cli-{name}").exists(), name


def test_cli_export_import(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.spdbx"
    done = run_cli("export", "--store", str(source), "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["counts"]["rct"] == len(RCTS)
    assert run_cli("export", "--store", str(source), "--out", str(out)).returncode == 2
    done = run_cli("import", str(out), "--store", str(tmp_path / "t"), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["conflicts"] == 0
    assert all_facts(tmp_path / "t") == all_facts(source)
    assert not list(tmp_path.glob("*.partial"))


def test_cli_export_of_one_kind_carries_a_misere_run_into_a_new_store(tmp_path: Path) -> None:
    """`export --kind misere` writes the losing nodes alone (the seeded RCT table stays
    behind); imported into a new store, they spare a rerun the search they record."""
    first = tmp_path / "first"
    done = run_cli("solve", "0*9", "--misere", "--store", str(first), "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    fresh = json.loads(done.stdout)
    out = tmp_path / "losing.spdbx"
    done = run_cli("export", "--store", str(first), "--kind", "misere", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)["counts"]
    assert counts == {"nimber": 0, "misere": fresh["stored"], "rct": 0, "pos_rct": 0}
    second = tmp_path / "second"
    assert run_cli("import", str(out), "--store", str(second), "--quiet").returncode == 0
    done = run_cli("solve", "0*9", "--misere", "--store", str(second), "--json", "--quiet")
    rerun = json.loads(done.stdout)
    assert rerun["outcome"] == fresh["outcome"] == "L"  # A164950
    assert rerun["stored"] == 0 and rerun["nodes"] < fresh["nodes"]


def test_cli_export_kind_is_refused_with_root_or_spr(source: Path, tmp_path: Path) -> None:
    for out, more in ((tmp_path / "x.spdbx", ("--root", "0*2")), (tmp_path / "x.spr", ())):
        done = run_cli(
            "export", "--store", str(source), "--kind", "misere", *more, "--out", str(out)
        )
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--kind" in done.stderr
        assert not out.exists()
