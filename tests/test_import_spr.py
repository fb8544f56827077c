""".spr imports: a file with no known section is refused without making a store, and
repeated lines are answered in the batch of their land (a transaction per batch, not per
line) with the same outcome as before: unchanged when equal, conflicts otherwise."""

from __future__ import annotations

import io
import json
from pathlib import Path

import zstandard

from cli_helpers import run_cli
from sproutsdb.formats.spr import read_staged
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.store import LmdbProofStore


def test_a_file_without_a_known_section_is_refused(tmp_path: Path) -> None:
    cases = {
        "only-unknown": "[Misere_Complex:Losing_Position+Rcts]\n0*5 3-1-L\n",
        "only-headers": "[Something]\n[Else]\n",
        "empty": "",
        "blank": "\n\n",
    }
    for name, text in cases.items():
        spr = tmp_path / f"{name}.spr"
        spr.write_text(text)
        done = run_cli("import", str(spr), "--store", str(tmp_path / name))
        assert done.returncode == 2, (name, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
        assert "[Positions+Nimber]" in done.stderr, done.stderr
        assert not (tmp_path / name).exists(), name


def test_an_empty_known_section_is_a_valid_empty_file(tmp_path: Path) -> None:
    spr = tmp_path / "empty.spr"
    spr.write_text("[Positions+Nimber]\n")
    done = run_cli("import", str(spr), "--store", str(tmp_path / "s"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["inserted"] == 0


def staged(lines: list[tuple[str, int]]) -> io.BytesIO:
    data = "".join(f"{land}\t{n}\n" for land, n in lines).encode()
    return io.BytesIO(zstandard.ZstdCompressor().compress(data))


def test_repeated_lines_stay_in_their_batch() -> None:
    lines = [("0*2", 0)] * 100_000
    batches = list(read_staged(staged(lines), batch=10_000))
    assert len(batches) == 10
    assert all(b.items == {"0*2": 0} and len(b.later) == 9_999 for b in batches)
    mixed = [("0*2", 0), ("0*3", 1), ("0*2", 1), ("0*2", 0), ("0*4", 0)]
    (batch,) = read_staged(staged(mixed))
    assert batch.items == {"0*2": 0, "0*3": 1, "0*4": 0}
    assert batch.later == [("0*2", 1), ("0*2", 0)]
    assert [len(b) for b in read_staged(staged(mixed), batch=2)] == [2, 2, 1]


def test_repeated_lines_are_unchanged_or_conflicts(tmp_path: Path) -> None:
    store = tmp_path / "s"
    with LmdbProofStore.open(store, game="sprouts", canon_version=CANON_VERSION) as db:
        db.put(FactKind.NIMBER, {"0*3": 0})  # a value the file contradicts
    spr = tmp_path / "rep.spr"
    lines = ["0*2 0"] * 60_000 + ["0*2 1"] * 3 + ["0*3 1"] * 4 + ["0*4 0"] * 40_000
    spr.write_text("[Positions+Nimber]\n" + "\n".join(lines) + "\n")
    done = run_cli("import", str(spr), "--store", str(store), "--json", "--quiet")
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    assert (report["inserted"], report["unchanged"], report["conflicts"]) == (2, 99_998, 7)
    examples = {(c["key"], c["stored"], c["offered"]) for c in report["conflict_examples"]}
    assert examples == {("0*2", "0", "1"), ("0*3", "0", "1")}
    assert report["seconds"] < 60  # one transaction per line took minutes on a loaded machine
    with LmdbProofStore.open(
        store, game="sprouts", canon_version=CANON_VERSION, readonly=True
    ) as db:
        assert dict(db.iter_facts(FactKind.NIMBER)) == {"0*2": 0, "0*3": 0, "0*4": 0}
        assert db.verified_count(FactKind.NIMBER) == 0  # imported facts are claims
