"""GLOP / SPOTS `.spr` nimber databases: both dialects and both notations are read and
re-canonicalised, other sections are skipped, bad lines write nothing, and a store
exported to `.spr` and read back checks clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore

GAME = SproutsGame()


def facts(path: Path) -> dict[str, int]:
    with LmdbProofStore.open(
        path, game="sprouts", canon_version=CANON_VERSION, create=False
    ) as store:
        return dict(store.iter_facts(FactKind.NIMBER))


def test_spr_round_trip_checks_clean(tmp_path: Path) -> None:
    a, b, spr = tmp_path / "a", tmp_path / "b", tmp_path / "a.spr"
    assert run_cli("solve", "0*5", "--store", str(a), "--quiet").returncode == 0
    assert run_cli("export", "--store", str(a), "--out", str(spr)).returncode == 0
    lines = spr.read_text().splitlines()
    assert lines[0] == "[Positions+Nimber]" and len(lines) == 1 + len(facts(a))
    done = run_cli("import", str(spr), "--store", str(b), "--json")
    assert done.returncode == 0, done.stderr
    assert facts(b) == facts(a)
    assert run_cli("check", "--store", str(b), "--root", "0*5").returncode == 0


def test_both_dialects_and_notations_are_recanonicalised(tmp_path: Path) -> None:
    spr = tmp_path / "mixed.spr"
    spr.write_text(
        "[Positions+Nimber]\n"
        "0.AB.}AB.}]! 1\n"  # GLOP 1.x
        "0.BA|BA 1\n"  # 2.x, not canonical: same land, same value
        "An(25)|An(25) 1\n"  # SPOTS: n(k) for uppercase letters beyond Y
        "AZ(26)|AZ(26) 1\n"  # GLOP: Z(k)
        "0*3+0*2 1\n"  # a sum: not one land's fact
        "[Misere_Complex:Losing_Position+Rcts]\n"
        "0*5 3-1-L\n"
        "\n"
    )
    done = run_cli("import", str(spr), "--store", str(tmp_path / "s"), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["lines"], report["sums_skipped"], report["other_sections_skipped"]) == (5, 1, 1)
    assert facts(tmp_path / "s") == {GAME.canonical("0.AB|AB"): 1, GAME.canonical("AB|AB"): 1}
    assert report["inserted"] == 2 and report["unchanged"] == 2


def test_bad_lines_write_nothing(tmp_path: Path) -> None:
    cases = {
        "bad-position": "[Positions+Nimber]\n0*3 1\n0.A 2\n",
        "no-nimber": "[Positions+Nimber]\n0*3\n",
        "not-a-number": "[Positions+Nimber]\n0*3 one\n",
        "no-section": "0*3 1\n",
        "terminal": "[Positions+Nimber]\n! 2\n",
        "binary": "[Positions+Nimber]\n0*3 1\n\xff\n",
    }
    for name, text in cases.items():
        spr = tmp_path / f"{name}.spr"
        spr.write_bytes(text.encode("latin-1"))
        done = run_cli("import", str(spr), "--store", str(tmp_path / name))
        assert done.returncode == 2, (name, done.stderr)
        assert "line" in done.stderr and "Traceback" not in done.stderr, name
        assert len(done.stderr.strip().splitlines()) == 1, name
        assert not (tmp_path / name).exists(), name


def test_contradicting_lines_are_conflicts_not_overwrites(tmp_path: Path) -> None:
    spr = tmp_path / "c.spr"
    spr.write_text("[Positions+Nimber]\n0*2 0\n0*2 1\n")
    done = run_cli("import", str(spr), "--store", str(tmp_path / "s"), "--json")
    assert done.returncode == 3
    assert json.loads(done.stdout)["conflicts"] == 1
    assert facts(tmp_path / "s") == {"0*2": 0}


def test_rct_sections_become_content_ids(tmp_path: Path) -> None:
    from sproutsdb.formats.rcttable import load_table

    table_file = tmp_path / "s3.rcttable"
    assert run_cli("rct-table", "build", "0*3", "--out", str(table_file), "--quiet").returncode == 0
    table = load_table(table_file)
    algebra = table.algebra
    handles = table.handles()

    def label(handle: int) -> str:
        return algebra.label(handle, "short")

    lines = ["[Rct+Rcts_children]"]
    for handle in handles:
        kids = sorted(algebra.children(handle))
        lines.append(" ".join([label(handle), *(label(k) for k in kids)]))
    lines.append("[Position+Rct]")
    lines += [f"{position} {label(handle)}" for position, handle in table.positions.items()]
    spr = tmp_path / "rct.spr"
    spr.write_text("\n".join(lines) + "\n")
    done = run_cli("import", str(spr), "--store", str(tmp_path / "s"), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["rct_positions"] == len(table.positions)
    with LmdbProofStore.open(
        tmp_path / "s", game="sprouts", canon_version=CANON_VERSION, create=False
    ) as store:
        stored = dict(store.iter_facts(FactKind.POS_RCT))
        assert stored == {p: table.rct_id_of(p) for p in table.positions}
        records = dict(store.iter_facts(FactKind.RCT))
    assert {cid for cid, _ in table.records()} <= set(records)
    # exported again with this store's own labels, read back to the same content ids
    again = tmp_path / "again.spr"
    assert run_cli("export", "--store", str(tmp_path / "s"), "--out", str(again)).returncode == 0
    assert "[Rct+Rcts_children]" in again.read_text()
    done = run_cli("import", str(again), "--store", str(tmp_path / "s2"))
    assert done.returncode == 0, done.stderr
    with LmdbProofStore.open(
        tmp_path / "s2", game="sprouts", canon_version=CANON_VERSION, create=False
    ) as store:
        assert dict(store.iter_facts(FactKind.POS_RCT)) == stored
        assert dict(store.iter_facts(FactKind.RCT)) == records
    # a label whose outcome contradicts its children is refused, nothing written
    bad = next(line for line in lines if "-" in line.split(" ")[0])
    head = bad.split(" ")[0]
    flipped = head[:-1] + ("W" if head.endswith("L") else "L")
    spr.write_text("\n".join(lines).replace(head, flipped) + "\n")
    done = run_cli("import", str(spr), "--store", str(tmp_path / "t"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "t").exists()


def test_an_interrupted_staging_resumes_to_the_same_facts(tmp_path: Path) -> None:
    import io
    from typing import BinaryIO

    from sproutsdb.formats.spr import Canonicalizer, read_staged, stage

    positions = [f"0*{n}" for n in range(1, 8)] + ["1a1a", "2ab2ba", "0.AB|AB", "0.A|0.A"]
    text = "[Positions+Nimber]\n" + "".join(f"{p} {i % 3}\n" for i, p in enumerate(positions))
    text += "[Rct+Rcts_children]\n2 0 1\n"

    class Interrupt(Exception):
        pass

    class Failing(Canonicalizer):
        def lands(self, position: str) -> tuple[str, ...]:
            if position == "1a1a":
                raise Interrupt
            return super().lands(position)

    def run(
        canon: Canonicalizer, staging: BinaryIO, resume: dict | None, states: list[dict]
    ) -> object:
        return stage(
            io.BytesIO(text.encode()),
            staging,
            canon,
            name="t.spr",
            resume=resume,
            save=states.append,
            every=3,
        )

    with open(tmp_path / "whole", "w+b") as whole, open(tmp_path / "part", "w+b") as staging:
        expected = run(Canonicalizer(GAME), whole, None, [])
        states: list[dict] = []
        with pytest.raises(Interrupt):
            run(Failing(GAME), staging, None, states)
        assert states and states[-1]["line"] == 6
        resumed = run(Canonicalizer(GAME), staging, states[-1], [])
        assert resumed == expected
        whole.seek(0)
        staging.seek(0)
        assert list(read_staged(staging)) == list(read_staged(whole))


def test_staging_dir_is_emptied_after_an_import(tmp_path: Path) -> None:
    spr, staging = tmp_path / "a.spr", tmp_path / "staging"
    staging.mkdir()
    spr.write_text("[Positions+Nimber]\n0*2 0\n0*3 1\n")
    done = run_cli(
        "import", str(spr), "--store", str(tmp_path / "s"), "--staging-dir", str(staging)
    )
    assert done.returncode == 0, done.stderr
    assert facts(tmp_path / "s") == {"0*2": 0, "0*3": 1}
    assert list(staging.iterdir()) == []


def test_a_nim_heap_line_with_wrong_children_is_refused(tmp_path: Path) -> None:
    spr = tmp_path / "nim.spr"
    spr.write_text("[Rct+Rcts_children]\n0\n1 0\n2 0 1\n3 0 2\n[Position+Rct]\n0*2 3\n")
    done = run_cli("import", str(spr), "--store", str(tmp_path / "s"))
    assert done.returncode == 2 and "nim-heap" in done.stderr, done.stderr
    assert not (tmp_path / "s").exists()
    spr.write_text("[Rct+Rcts_children]\n0\n1 0\n2 0 1\n3 0 1 2\n[Position+Rct]\n0*2 3\n")
    assert run_cli("import", str(spr), "--store", str(tmp_path / "t")).returncode == 0
