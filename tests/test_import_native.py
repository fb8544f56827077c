"""Native imports keep the store's invariants: every key is stored canonical (a forged file
of respelled keys is canonicalised, keys that become one with different values are
conflicts and neither is stored), a pos_rct fact naming an RCT nobody holds refuses the
file, imported facts are claims, and a file changed between the check and the import is
refused before its changed chunk is stored."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run_cli
from sproutsdb.formats.exchange import KINDS, ExchangeFormatError, ExportWriter
from sproutsdb.formats.rcttable import load_table
from sproutsdb.ops import (
    canonical_key_function,
    export_store,
    import_file,
    plan_import,
)
from sproutsdb.solver.misere.keys import join_node_key, split_node_key
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore

GAME = SproutsGame()
S6 = Path(__file__).resolve().parent.parent / "data" / "s6.rcttable"
_PLAIN = re.compile(r"[0-2a-zA-Z]+")


def lmdb(path: Path, **options: Any) -> LmdbProofStore:
    return LmdbProofStore.open(
        path, game="sprouts", canon_version=CANON_VERSION, durable=False, **options
    )


def write_export(
    path: Path, facts: dict[FactKind, Iterable[tuple[str, Any]]], game: str = "sprouts"
) -> None:
    """A native export at this canonical-form version holding exactly `facts`."""
    lists = {kind: list(items) for kind, items in facts.items()}
    with open(path, "wb") as handle:
        writer = ExportWriter(
            handle,
            {
                "schema": 1,
                "game": game,
                "canon_version": CANON_VERSION,
                "counts": {kind.value: len(lists.get(kind, [])) for kind in KINDS},
                "provenance": {"exported_by": {"who": "a forger", "when": "now"}},
            },
        )
        for kind in KINDS:
            writer.write_facts(kind, lists.get(kind, []), chunk=500)
        writer.close()


def respell(key: str, check: bool = True) -> str:
    """Another spelling of the same position: lands and regions in reverse order, plain
    boundaries rotated by one spot (with `check`, the parser confirms it is the same
    position, else the key is kept)."""
    if key == "!":
        return key
    lands = []
    for land in reversed(key.split("+")):
        regions = []
        for region in reversed(land.split("|")):
            bounds = [b[1:] + b[0] if _PLAIN.fullmatch(b) else b for b in region.split(".")]
            regions.append(".".join(bounds))
        lands.append("|".join(regions))
    text = "+".join(lands)
    return text if not check or GAME.canonical(text) == GAME.canonical(key) else key


def respell_node(key: str) -> str:
    part, parity, cids = split_node_key(key)
    return " ".join([respell(part), *(["*1"] if parity else []), *cids])


def stored(path: Path) -> dict[FactKind, dict[str, Any]]:
    with lmdb(path, create=False) as store:
        return {kind: dict(store.iter_facts(kind)) for kind in KINDS}


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> dict[FactKind, dict[str, Any]]:
    """Real facts: the nimbers of 0*7, misère nodes, and RCTs with positions from S6."""
    table = load_table(S6)
    path = tmp_path_factory.mktemp("real") / "store"
    with lmdb(path) as store:
        solver = NormalSolver(GAME, store)
        solver.nimber("0*7")
        solver.flush()
    facts = stored(path)
    positions = sorted(table.positions)[:3000]
    facts[FactKind.POS_RCT] = {p: table.rct_id_of(p) for p in positions}
    wanted = set(facts[FactKind.POS_RCT].values())
    facts[FactKind.RCT] = {cid: r for cid, r in table.records() if cid in wanted or cid[0] == "*"}
    facts[FactKind.MISERE] = {
        join_node_key(p, parity, ()): "LW"[parity] for p in positions[1:200] for parity in (0, 1)
    }
    return facts


def test_respelled_keys_are_stored_canonical(
    tmp_path: Path, real: dict[FactKind, dict[str, Any]]
) -> None:
    forged: dict[FactKind, list[tuple[str, Any]]] = {
        FactKind.NIMBER: [(respell(k), v) for k, v in real[FactKind.NIMBER].items()],
        FactKind.POS_RCT: [(respell(k), v) for k, v in real[FactKind.POS_RCT].items()],
        FactKind.MISERE: [(respell_node(k), v) for k, v in real[FactKind.MISERE].items()],
        FactKind.RCT: list(real[FactKind.RCT].items()),
    }
    respelled = sum(
        a != b
        for kind, pairs in forged.items()
        for (a, _), b in zip(pairs, real[kind], strict=True)
    )
    assert respelled > 1000
    path = tmp_path / "forged.spdbx"
    write_export(path, forged)
    done = run_cli("import", str(path), "--store", str(tmp_path / "s"), "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["conflicts"] == 0 and report["recanonicalised"] == respelled
    assert stored(tmp_path / "s") == real  # every key back to its canonical form


def test_keys_that_become_one_with_different_values_are_conflicts(tmp_path: Path) -> None:
    path = tmp_path / "clash.spdbx"
    write_export(
        path,
        {
            FactKind.NIMBER: [("0.BA|BA", 1), ("0*3", 1), ("AB|0.AB", 0), ("0.0.0", 1)],
            FactKind.MISERE: [("0.BA|BA *1", "W"), ("0.AB|AB *1", "L")],
        },
    )
    done = run_cli("import", str(path), "--store", str(tmp_path / "s"), "--json", "--quiet")
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    assert report["conflicts"] == 2 and report["inserted"] == 1  # 0*3 (twice, one value)
    keys = {example["key"] for example in report["conflict_examples"]}
    assert keys == {"0.AB|AB", "0.AB|AB *1"}
    assert all(example["stored"] is None for example in report["conflict_examples"])
    facts = stored(tmp_path / "s")
    assert facts[FactKind.NIMBER] == {"0*3": 1} and facts[FactKind.MISERE] == {}


def test_a_conflict_with_the_store_keeps_the_stored_value(tmp_path: Path) -> None:
    path = tmp_path / "other.spdbx"
    write_export(path, {FactKind.NIMBER: [("0.BA|BA", 1)]})
    with lmdb(tmp_path / "s") as store:
        store.put(FactKind.NIMBER, {"0.AB|AB": 0})
        totals, conflicts = import_file(path, store)
        assert store.get(FactKind.NIMBER, ["0.AB|AB", "0.BA|BA"]) == {"0.AB|AB": 0}
    assert totals["conflicts"] == 1 and conflicts[0].key == "0.AB|AB"


@pytest.mark.parametrize(
    ("kind", "key", "value", "says"),
    [
        (FactKind.NIMBER, "0*2+0*3", 1, "not one land"),
        (FactKind.NIMBER, "!", 0, "not one land"),
        (FactKind.NIMBER, "0.A", 1, "no key of its kind"),
        (FactKind.POS_RCT, "0*2+A", "*1", "no key of its kind"),
        (FactKind.MISERE, "0*2 *1 *1", "W", "twice"),
        (FactKind.MISERE, "0.A *1", "W", "no key of its kind"),
        (FactKind.MISERE, "*1 0*2", "W", "position part"),
    ],
)
def test_a_key_that_is_no_key_refuses_the_file(
    tmp_path: Path, kind: FactKind, key: str, value: Any, says: str
) -> None:
    path = tmp_path / "bad.spdbx"
    write_export(path, {FactKind.NIMBER: [("0*2", 0), ("0*3", 1)], kind: [(key, value)]})
    done = run_cli("import", str(path), "--store", str(tmp_path / "s"))
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "s").exists()


def test_a_pos_rct_naming_an_rct_nobody_holds_is_refused(
    tmp_path: Path, real: dict[FactKind, dict[str, Any]]
) -> None:
    position, cid = next((p, c) for p, c in real[FactKind.POS_RCT].items() if c[0] != "*")
    path = tmp_path / "orphan.spdbx"
    write_export(path, {FactKind.NIMBER: [("0*2", 0)], FactKind.POS_RCT: [(position, cid)]})
    done = run_cli("import", str(path), "--store", str(tmp_path / "s"))
    assert done.returncode == 2, done.stderr
    assert position in done.stderr and cid in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "s").exists()
    with lmdb(tmp_path / "t") as store:
        store.put(FactKind.NIMBER, {"0*4": 3})
        with pytest.raises(ExchangeFormatError, match="neither the file nor the store"):
            import_file(path, store)
        assert store.count(FactKind.NIMBER) == 1 and store.count(FactKind.POS_RCT) == 0
        # once the store holds that RCT (and the trees below it), the same file imports
        below = dict(real[FactKind.RCT])
        store.put(FactKind.RCT, below)
        totals, _ = import_file(path, store)
        assert totals["inserted"] == 2
        assert store.get(FactKind.POS_RCT, [position]) == {position: cid}


def test_imported_facts_are_claims_whatever_the_source(
    tmp_path: Path, real: dict[FactKind, dict[str, Any]]
) -> None:
    with lmdb(tmp_path / "source") as source:
        for kind in KINDS:
            source.put(kind, real[kind])
            source.mark_verified(kind, list(real[kind]))
            assert source.verified_count(kind) == len(real[kind])
        export_store(source, tmp_path / "all.spdbx")
    for target in (tmp_path / "fresh", tmp_path / "source"):
        done = run_cli("import", str(tmp_path / "all.spdbx"), "--store", str(target), "--quiet")
        assert done.returncode == 0, done.stderr
    with lmdb(tmp_path / "fresh", create=False) as store:
        assert all(store.verified_count(kind) == 0 for kind in KINDS)
        assert all(store.count(kind) == len(real[kind]) for kind in KINDS)
    with lmdb(tmp_path / "source", create=False) as store:  # marks already there stay
        assert all(store.verified_count(kind) == len(real[kind]) for kind in KINDS)


def test_a_file_changed_after_its_check_is_refused_before_the_change(tmp_path: Path) -> None:
    path = tmp_path / "a.spdbx"
    write_export(path, {FactKind.NIMBER: [("0*2", 0), ("0*3", 1)]})
    plan = plan_import(path)
    write_export(path, {FactKind.NIMBER: [("0.0", 0), ("0*3", 1)]})  # respelled since
    with lmdb(tmp_path / "s") as store:
        with pytest.raises(ExchangeFormatError, match="changed while it was imported"):
            import_file(path, store, plan=plan)
        assert store.count(FactKind.NIMBER) == 0


def test_the_fast_canonical_form_is_the_parsers(real: dict[FactKind, dict[str, Any]]) -> None:
    canonical = canonical_key_function(GAME)
    table = load_table(S6)
    keys = list(table.positions)
    assert all(canonical(FactKind.POS_RCT, k) == k for k in keys)
    for key in keys[::491]:
        other = respell(key)
        assert canonical(FactKind.POS_RCT, other) == GAME.canonical(other) == key
    for key in real[FactKind.NIMBER]:
        assert canonical(FactKind.NIMBER, respell(key)) == key


def test_a_file_of_another_game_is_refused_before_a_store_is_made(tmp_path: Path) -> None:
    path = tmp_path / "nim.spdbx"
    write_export(path, {FactKind.NIMBER: [("3", 3)]}, game="nim")
    done = run_cli("import", str(path), "--store", str(tmp_path / "s"))
    assert done.returncode == 2 and "'nim' facts" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "s").exists()


def test_an_honest_misere_store_round_trips_unchanged(tmp_path: Path) -> None:
    """A real misère proof's node keys (with *1 and RCT ids) are canonical already: the
    plan moves none, and the import stores exactly the exported facts."""
    table, store, out = tmp_path / "t4.rcttable", tmp_path / "a", tmp_path / "a.spdbx"
    assert run_cli("rct-table", "build", "0*4", "--out", str(table), "--quiet").returncode == 0
    done = run_cli("solve", "0*8", "--misere", "--rct-table", str(table), "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert run_cli("export", "--store", str(store), "--out", str(out)).returncode == 0
    plan = plan_import(out)
    assert all(not moved for moved in plan.moved.values())
    nodes = stored(store)[FactKind.MISERE]
    assert any(" " in key for key in nodes)  # nodes with *1 or RCT parts
    done = run_cli("import", str(out), "--store", str(tmp_path / "b"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert stored(tmp_path / "b") == stored(store)
