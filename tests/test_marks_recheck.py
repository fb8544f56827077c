"""`check --all --recheck` trusts no earlier mark, and `check --all` covers misère nodes,
RCT records and pos_rct entries (issue 26), reporting the kinds and the real job count
(issue 31). Real stores made by `solve`, forged through the store API, the real command."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run_cli
from sproutsdb.facts import CHECK_ALL, CHECK_RECHECK, Provenance, Status
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.misere.rctsearch import RctSearch
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.store import LmdbProofStore, open_store

pytestmark = pytest.mark.timeout(300)

MALLORY = Provenance(who="mallory@elsewhere", tool="sproutsdb", version="0.0.1")


def _check_all(path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    done = run_cli("check", "--store", str(path), "--all", "--json", "--quiet", *extra)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def _kind(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(k for k in report["kinds"] if k["kind"] == name)


def _received(source: Path, target: Path, kind: FactKind, key: str, value: Any) -> None:
    """A store "received from elsewhere": every fact of `source`, `key` set to a false
    `value`, all of them marked verified by someone else's "check --all"."""
    with open_store(source, create=False, readonly=True) as store:
        facts = dict(store.iter_facts(kind))
    assert key in facts and facts[key] != value
    facts[key] = value
    with open_store(target) as forged:
        forged.put(kind, facts, provenance=MALLORY)
        marked = forged.mark_verified(kind, list(facts), provenance=MALLORY, check=CHECK_ALL)
        assert marked.verified == len(facts)


def _status(path: Path, kind: FactKind, key: str) -> Status:
    with open_store(path, create=False, readonly=True) as store:
        return store.get_records(kind, [key])[key].status


def test_recheck_catches_a_false_nimber_marked_verified(tmp_path: Path) -> None:
    solved = tmp_path / "solved"
    assert run_cli("solve", "0*7", "--store", str(solved), "--quiet").returncode == 0
    with open_store(solved, create=False, readonly=True) as store:
        true_value = store.get(FactKind.NIMBER, ["0*4"])["0*4"]
    forged = tmp_path / "forged"
    _received(solved, forged, FactKind.NIMBER, "0*4", true_value + 1)

    # plain check --all trusts marks: the false fact passes, but the report says whose
    # marks it trusted and how many
    code, plain = _check_all(forged)
    assert code == 0 and plain["ok"] and plain["already_verified"] == plain["facts"]
    assert plain["trusted_marks"] == {CHECK_ALL: plain["facts"]}

    code, recheck = _check_all(forged, "--recheck", "--jobs", "2")
    assert code == 1 and not recheck["ok"] and recheck["recheck"]
    assert recheck["jobs"] == 2 and recheck["already_verified"] == 0
    named = [h["needed_by"] for h in recheck["missing"]] + [
        i["land"] for i in recheck["inconsistent"]
    ]
    assert "0*4" in named
    assert recheck["withdrawn"] >= 1 and "0*4" in recheck["withdrawn_first"]
    assert recheck["verified_now"] == recheck["facts"] - recheck["unproven"] - len(
        {i["land"] for i in recheck["inconsistent"]}
    )
    assert _status(forged, FactKind.NIMBER, "0*4") is Status.CLAIMED  # no longer served
    with open_store(forged, create=False, readonly=True) as store:
        labels = store.marks_by_check(FactKind.NIMBER)
    assert set(labels) == {f"{CHECK_RECHECK} (sproutsdb {labels and _version()}, canon v2)"}

    # the false fact is a claim now: a plain check no longer passes the store
    code, after = _check_all(forged)
    assert code == 1 and not after["ok"]
    text = run_cli("check", "--store", str(forged), "--all", "--recheck", "--quiet")
    assert text.returncode == 1 and "0*4" in text.stdout and "NOT ALL FACTS VERIFIED" in text.stdout


def _version() -> str:
    from sproutsdb import __version__

    return __version__


def test_one_job_and_two_jobs_recheck_alike(tmp_path: Path) -> None:
    solved = tmp_path / "solved"
    assert run_cli("solve", "0*7", "--store", str(solved), "--quiet").returncode == 0
    with open_store(solved, create=False, readonly=True) as store:
        true_value = store.get(FactKind.NIMBER, ["0*4"])["0*4"]
    one, two = tmp_path / "one", tmp_path / "two"
    _received(solved, one, FactKind.NIMBER, "0*4", true_value + 2)
    _received(solved, two, FactKind.NIMBER, "0*4", true_value + 2)
    code1, report1 = _check_all(one, "--recheck", "--jobs", "1", "--batch", "7")
    code2, report2 = _check_all(two, "--recheck", "--jobs", "2", "--batch", "7")
    assert code1 == code2 == 1
    untimed = ("seconds", "facts_per_second", "jobs")
    assert {k: v for k, v in report1.items() if k not in untimed} == {
        k: v for k, v in report2.items() if k not in untimed
    }
    assert (report1["jobs"], report2["jobs"]) == (1, 2)


def test_misere_nodes_are_checked_and_a_forged_one_is_caught(tmp_path: Path) -> None:
    solved = tmp_path / "solved"
    done = run_cli("solve", "0*6", "--misere", "--no-rct-table", "--store", str(solved), "--quiet")
    assert done.returncode == 0, done.stderr
    # plain check --all now looks at the misère nodes (they used to be skipped)
    code, report = _check_all(solved)
    assert code == 0 and report["ok"]
    misere = _kind(report, "misere")
    assert misere["facts"] > 100 and misere["verified_now"] == misere["facts"]
    with open_store(solved, create=False, readonly=True) as store:
        assert store.verified_count(FactKind.MISERE) == store.count(FactKind.MISERE)
        assert set(store.marks_by_check(FactKind.MISERE)) == {
            f"{CHECK_ALL} (sproutsdb {_version()}, canon v2)"
        }

    # 0*6 is a misère win: a store claiming it a loss, marked by someone else
    with open_store(solved, create=False, readonly=True) as store:
        nodes = dict(store.iter_facts(FactKind.MISERE))
    assert "0*6" not in nodes
    forged = tmp_path / "forged"
    with open_store(forged) as store:
        store.put(FactKind.MISERE, {**nodes, "0*6": "L"}, provenance=MALLORY)
        store.mark_verified(FactKind.MISERE, [*nodes, "0*6"], provenance=MALLORY, check=CHECK_ALL)
    code, plain = _check_all(forged)
    assert code == 0 and _kind(plain, "misere")["already_verified"] == len(nodes) + 1
    code, recheck = _check_all(forged, "--recheck")
    assert code == 1 and not recheck["ok"]
    misere = _kind(recheck, "misere")
    assert not misere["ok"] and misere["withdrawn"] == 1
    assert misere["verified_now"] == len(nodes)
    assert any(bad["land"] == "0*6" for bad in misere["inconsistent"]) or misere["unproven"] == 1
    assert _status(forged, FactKind.MISERE, "0*6") is Status.CLAIMED

    # an unmarked false claim is caught by a plain check too
    claimed = tmp_path / "claimed"
    with open_store(claimed) as store:
        store.put(FactKind.MISERE, {**nodes, "0*6": "L"})
    code, plain = _check_all(claimed)
    assert code == 1 and _kind(plain, "misere")["verified_now"] == len(nodes)
    assert _status(claimed, FactKind.MISERE, "0*6") is Status.CLAIMED


def _rct_store(path: Path, forged_land: str | None) -> dict[str, str]:
    """A store holding the RCTs of the lands of 0*2 and 0*3's trees (records re-derived
    here from the rules) and their position → RCT entries; `forged_land` mapped to the
    RCT of another land."""
    game = SproutsGame()
    algebra = Algebra()
    search = RctSearch(game, algebra, via_lands=True)
    lands = ["0", "0*2", "0*3", "0.AB|AB", "0.1a1a"]
    entries = {land: algebra.content_id(search.rct(game.canonical(land))) for land in lands}
    entries = {game.canonical(land): cid for land, cid in entries.items()}
    if forged_land is not None:
        others = sorted({cid for land, cid in entries.items() if cid != entries[forged_land]})
        entries[forged_land] = others[0]
    with open_store(path) as store:
        store.put(FactKind.RCT, dict(algebra.records()))
        store.put(FactKind.POS_RCT, entries)
    return entries


def test_rct_records_and_pos_rct_entries_are_rederived(tmp_path: Path) -> None:
    honest = tmp_path / "honest"
    entries = _rct_store(honest, None)
    code, report = _check_all(honest)
    assert code == 0, report
    assert [k["kind"] for k in report["kinds"]] == ["nimber", "rct", "pos_rct", "misere"]
    pos = _kind(report, "pos_rct")
    assert pos["facts"] == pos["verified_now"] == len(entries) and pos["ok"]
    assert _kind(report, "rct")["verified_now"] == _kind(report, "rct")["facts"] > 0
    text = run_cli("check", "--store", str(honest), "--all", "--quiet").stdout
    assert "RCT records" in text and "pos_rct entries" in text and "misère nodes" in text

    forged = tmp_path / "forged"
    _rct_store(forged, "0*3")
    code, report = _check_all(forged)
    assert code == 1 and not report["ok"]
    pos = _kind(report, "pos_rct")
    assert [bad["land"] for bad in pos["inconsistent"]] == ["0*3"]
    assert "forged RCT claim" in pos["inconsistent"][0]["reason"]
    assert pos["verified_now"] == len(entries) - 1
    assert _status(forged, FactKind.POS_RCT, "0*3") is Status.CLAIMED


def test_lands_too_large_are_reported_not_checked(tmp_path: Path) -> None:
    path = tmp_path / "large"
    entries = _rct_store(path, None)
    big = "0*7"  # 21 lives: more than the 18 re-derived from scratch
    with open_store(path, create=False) as store:
        store.put(FactKind.POS_RCT, {big: entries["0*3"]})
    code, report = _check_all(path)
    pos = _kind(report, "pos_rct")
    assert code == 1 and pos["not_checked"] == 1 and pos["not_checked_first"] == [big]
    assert _status(path, FactKind.POS_RCT, big) is Status.CLAIMED


def test_jobs_reports_the_processes_used(tmp_path: Path) -> None:
    solved = tmp_path / "solved"
    assert run_cli("solve", "0*6", "--store", str(solved), "--quiet").returncode == 0
    code, two = _check_all(solved, "--jobs", "2")
    assert code == 0 and two["jobs"] == 2
    text = run_cli("check", "--store", str(solved), "--all", "--jobs", "2", "--quiet").stdout
    assert "2 jobs" in text
    code, default = _check_all(solved)  # a small store: no workers by default
    assert code == 0 and default["jobs"] == 1
    bad = run_cli("check", "--store", str(solved), "--root", "0*6", "--recheck")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_stats_labels_the_children_cache_and_counts_marks(tmp_path: Path) -> None:
    solved = tmp_path / "solved"
    assert run_cli("solve", "0*6", "--store", str(solved), "--quiet").returncode == 0
    assert _check_all(solved)[0] == 0
    done = run_cli("stats", "--store", str(solved), "--marks")
    assert done.returncode == 0, done.stderr
    assert "cache of children, not facts" in done.stdout
    assert f"by {CHECK_ALL} (sproutsdb" in done.stdout
    data = json.loads(run_cli("stats", "--store", str(solved), "--marks", "--json").stdout)
    assert sum(data["marks"]["nimber"].values()) == data["verified"]["nimber"]
    with LmdbProofStore.open(
        solved, game="sprouts", canon_version=2, create=False, readonly=True
    ) as store:
        assert store.verified_count(FactKind.NIMBER) == store.count(FactKind.NIMBER)


def test_check_root_marks_say_check_root(tmp_path: Path) -> None:
    from sproutsdb.facts import CHECK_ROOT

    solved, pruned = tmp_path / "solved", tmp_path / "pruned"
    assert run_cli("solve", "0*5", "--store", str(solved), "--quiet").returncode == 0
    done = run_cli("check", "--store", str(solved), "--root", "0*5", "--prune", str(pruned))
    assert done.returncode == 0, done.stderr
    for path in (solved, pruned):
        with open_store(path, create=False, readonly=True) as store:
            labels = store.marks_by_check(FactKind.NIMBER)
            assert set(labels) == {f"{CHECK_ROOT} (sproutsdb {_version()}, canon v2)"}, path
            mark = store.marks(FactKind.NIMBER, ["0*5"])["0*5"]
            fact = store.get_records(FactKind.NIMBER, ["0*5"])["0*5"]
            own = store.provenance_records()[fact.provenance]
            assert mark.provenance is not None and mark.provenance.when >= own.when


def test_a_seeded_store_shows_its_rct_facts_verified(tmp_path: Path) -> None:
    """`solve --misere` seeds the shipped S6 table into a store with no RCT: its records
    and positions are stored verified (re-derived), and `stats` and `check --all` say so."""
    path = tmp_path / "seeded"
    done = run_cli("solve", "0*3", "--misere", "--store", str(path), "--quiet")
    assert done.returncode == 0, done.stderr
    data = json.loads(run_cli("stats", "--store", str(path), "--json").stdout)
    assert data["counts"]["pos_rct"] == data["verified"]["pos_rct"] == 226_809
    assert data["counts"]["rct"] == data["verified"]["rct"] > 0
    code, report = _check_all(path)
    assert code == 0, report
    pos = _kind(report, "pos_rct")
    assert pos["already_verified"] == pos["facts"] == 226_809 and pos["checked"] == 0


def test_ray_recheck_matches_one_process(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    solved = tmp_path / "solved"
    assert run_cli("solve", "0*7", "--store", str(solved), "--quiet").returncode == 0
    with open_store(solved, create=False, readonly=True) as store:
        true_value = store.get(FactKind.NIMBER, ["0*4"])["0*4"]
    one, on_ray = tmp_path / "one", tmp_path / "ray"
    _received(solved, one, FactKind.NIMBER, "0*4", true_value + 1)
    _received(solved, on_ray, FactKind.NIMBER, "0*4", true_value + 1)
    code1, report1 = _check_all(one, "--recheck", "--jobs", "1", "--batch", "10")
    code2, report2 = _check_all(on_ray, "--recheck", "--ray", "--jobs", "2", "--batch", "10")
    assert code1 == code2 == 1 and report2["jobs"] == 2
    untimed = ("seconds", "facts_per_second", "jobs")
    assert {k: v for k, v in report1.items() if k not in untimed} == {
        k: v for k, v in report2.items() if k not in untimed
    }
    assert _status(on_ray, FactKind.NIMBER, "0*4") is Status.CLAIMED


def test_recheck_catches_a_forged_pos_rct_marked_verified(tmp_path: Path) -> None:
    forged = tmp_path / "forged"
    entries = _rct_store(forged, "0*3")
    with open_store(forged, create=False) as store:
        for kind in (FactKind.RCT, FactKind.POS_RCT):
            keys = [key for key, _ in store.iter_facts(kind)]
            store.mark_verified(kind, keys, provenance=MALLORY, check=CHECK_ALL)
    code, plain = _check_all(forged)
    assert code == 0 and _kind(plain, "pos_rct")["already_verified"] == len(entries)
    code, recheck = _check_all(forged, "--recheck")
    assert code == 1
    pos = _kind(recheck, "pos_rct")
    assert [bad["land"] for bad in pos["inconsistent"]] == ["0*3"] and pos["withdrawn"] == 1
    assert _kind(recheck, "rct")["ok"]  # the records themselves are true
    assert _status(forged, FactKind.POS_RCT, "0*3") is Status.CLAIMED
    assert _status(forged, FactKind.POS_RCT, "0*2") is Status.VERIFIED


def test_recheck_names_a_forged_rct_record_and_keeps_the_true_ones(tmp_path: Path) -> None:
    path = tmp_path / "forged"
    entries = _rct_store(path, None)
    with open_store(path, create=False, readonly=True) as store:
        records = dict(store.iter_facts(FactKind.RCT))
    # a record whose outcome is flipped, written over the true one in a new store
    victim = sorted(cid for cid, r in records.items() if r.children)[0]
    record = records[victim]
    forged_record = dataclasses.replace(record, outcome="W" if record.outcome == "L" else "L")
    received = tmp_path / "received"
    with open_store(received) as store:
        store.put(FactKind.RCT, {**records, victim: forged_record}, provenance=MALLORY)
        store.put(FactKind.POS_RCT, entries, provenance=MALLORY)
        for kind in (FactKind.RCT, FactKind.POS_RCT):
            keys = [key for key, _ in store.iter_facts(kind)]
            store.mark_verified(kind, keys, provenance=MALLORY, check=CHECK_ALL)
    assert _check_all(received)[0] == 0  # every mark trusted
    code, recheck = _check_all(received, "--recheck")
    assert code == 1
    rct = _kind(recheck, "rct")
    named = {bad["land"] for bad in rct["inconsistent"]}
    assert victim in named and rct["withdrawn"] == len(named)
    assert rct["verified_now"] == len(records) - len(named) > 0
    assert _status(received, FactKind.RCT, victim) is Status.CLAIMED
    pos = _kind(recheck, "pos_rct")
    assert pos["verified_now"] + len(pos["inconsistent"]) + pos["unproven"] == len(entries)
