"""The misère mutation fuzzer (issue 26), a seeded sample: a real misère proof mutated one
fact at a time (losing nodes, position → RCT entries, RCT records), and a few multi-fact
corruptions of the complete misère table of a small tree; not one false acceptance. The
proof is 0*11's, and 0*12's behind the slow marker (the same cases on a larger proof).
bench/misere_fuzz.py --all runs every mutation (figures in its report)."""

from __future__ import annotations

import random

import pytest

from misere_mutations import (
    ACCEPTED_TRUE,
    FALSE_ACCEPTANCE,
    REFUSED,
    Fuzzer,
    Mutation,
    Overlay,
    Tally,
    TreeFuzzer,
    build_proof,
    claim_mutations,
    fake_world,
    fake_world_targets,
    fuzz_claims,
    fuzz_nodes,
    fuzz_records,
    fuzz_tree,
    node_mutations,
    shipped_table,
    tree_table,
)
from sproutsdb.formats.rcttable import RctTable
from sproutsdb.solver.ports.proofstore import FactKind

SEED = 26
FIELDS = ("height", "outcome", "nim", "plus1_of", "drop-child", "add-child")


@pytest.fixture(scope="module")
def table() -> RctTable:
    return shipped_table()


# the least losing nodes and position → RCT entries of each root's pruned proof
PROOF_SIZES = {"0*11": (40, 40), "0*12": (400, 1000)}


@pytest.fixture(scope="module", params=["0*11", pytest.param("0*12", marks=pytest.mark.slow)])
def fuzzer(table: RctTable, request: pytest.FixtureRequest) -> Fuzzer:
    """A root's proof as `check --misere --prune` writes it, ready to be mutated: 0*11's
    (about 50 losing nodes, 50 position → RCT entries, 22 000 records) runs in the fast
    suite; 0*12's (about 450, 1 600 and 24 500), a few times the work, is its slow twin."""
    root: str = request.param
    proof = build_proof(root, table)
    assert proof.outcome == "W"  # OEIS A164950
    nodes, claims = PROOF_SIZES[root]
    assert len(proof.nodes) > nodes and len(proof.claims) > claims
    assert len(proof.records) > 20_000
    return Fuzzer(proof)


def _assert_no_false(tally: Tally) -> None:
    assert tally.total_false == 0, "\n".join(tally.false)
    for row in tally.rows():
        assert row["refused"] + row["accepted_true"] == row["tried"], row


def test_mutated_losing_nodes_are_refused_or_harmless(fuzzer: Fuzzer) -> None:
    tally = Tally()
    fuzz_nodes(fuzzer, tally, 4, SEED)
    _assert_no_false(tally)
    kinds = {"node/delete", "node/value-W", "node/parity", "node/to-child", "node/swap-id"}
    assert set(tally.tried) == kinds and all(tally.tried[k] == 4 for k in kinds)
    # most nodes are needed: their loss, or a winning child claimed lost, fails the check
    assert sum(tally.verdicts[k, REFUSED] for k in kinds) >= 12


def test_mutated_claims_are_refused(fuzzer: Fuzzer) -> None:
    tally = Tally()
    fuzz_claims(fuzzer, tally, 3, SEED)
    _assert_no_false(tally)
    for kind in ("pos_rct/other-outcome", "pos_rct/same-outcome", "pos_rct/unknown-id"):
        assert tally.tried[kind] == 3
        looked_up = tally.tried[kind] - tally.hows[kind, f"{ACCEPTED_TRUE}: claim never looked up"]
        assert tally.verdicts[kind, REFUSED] == looked_up
    assert tally.tried["pos_rct/delete"] == 3


def test_a_refuted_claim_fails_the_whole_check_naming_the_land(fuzzer: Fuzzer) -> None:
    """The per-land settlement the fuzzer uses for retargeted claims agrees with whole
    checks (fresh claims, fresh engine), which name the forged land."""
    rng = random.Random(SEED)
    retargets = [
        m
        for m in claim_mutations(fuzzer, rng)
        if m.kind in ("pos_rct/other-outcome", "pos_rct/same-outcome")
        and m.target in fuzzer.baseline.handed
    ]
    for m in rng.sample(retargets, 2):
        facts = Overlay(fuzzer.proof.facts, m.changes)
        assert fuzzer.settle_claim(m, facts).verdict == REFUSED
        run = fuzzer.check_fresh(facts, fuzzer.proof.root)
        assert run.report is not None and not run.report.ok and run.refuted == 1
        assert any(
            bad.land == m.target and "forged RCT claim" in bad.reason
            for bad in run.report.inconsistent
        )
        assert fuzzer.judge(m, run, fuzzer.proof.outcome).verdict == REFUSED


def test_a_deleted_claim_is_checked_as_a_whole_fresh_check_does(fuzzer: Fuzzer) -> None:
    """The fuzzer checks a deleted entry with a fresh engine only where the land is met
    (HybridEngine); a whole fresh check, as the CLI runs it, concludes the same."""
    rng = random.Random(SEED + 2)
    deleted = [
        m
        for m in claim_mutations(fuzzer, rng)
        if m.kind == "pos_rct/delete" and m.target in fuzzer.baseline.handed
    ]
    for m in rng.sample(deleted, 3):
        facts = Overlay(fuzzer.proof.facts, m.changes)
        hybrid = fuzzer.check_deleted_claims(facts, fuzzer.proof.root, [m.target]).report
        whole = fuzzer.check_fresh(facts, fuzzer.proof.root).report
        assert hybrid is not None and whole is not None
        assert (hybrid.ok, hybrid.outcome, set(hybrid.used), len(hybrid.missing)) == (
            whole.ok,
            whole.outcome,
            set(whole.used),
            len(whole.missing),
        )


def test_a_false_loss_is_never_used(fuzzer: Fuzzer) -> None:
    """A losing node renamed to one of its children (a winning node claimed lost): when the
    check meets it, it is refused; a check that says ok never used it."""
    rng = random.Random(SEED + 1)
    renamed = [m for m in node_mutations(fuzzer, rng) if m.kind == "node/to-child"]
    met = 0
    for m in renamed[:16]:
        run = fuzzer.check_nodes(Overlay(fuzzer.proof.facts, m.changes), fuzzer.proof.root)
        assert run.report is not None
        if run.report.ok:
            assert not (m.false_nodes & set(run.report.used))
        met += any(bad.land in m.false_nodes for bad in run.report.inconsistent)
        assert fuzzer.judge(m, run, fuzzer.proof.outcome).verdict != FALSE_ACCEPTANCE
    assert met > 0


def test_corrupted_and_deleted_records_are_refused_on_load(fuzzer: Fuzzer) -> None:
    tally = Tally()
    fuzz_records(fuzzer, tally, 60, SEED, end_to_end=2)
    _assert_no_false(tally)
    for field in FIELDS:
        kind = f"rct/{field}"
        builtin = tally.hows[kind, f"{ACCEPTED_TRUE}: built into every algebra: never loaded"]
        assert (
            tally.tried[kind] > 0 and tally.verdicts[kind, REFUSED] == tally.tried[kind] - builtin
        )
    assert tally.verdicts["rct/delete", REFUSED] >= 58
    assert tally.verdicts["rct/end-to-end", REFUSED] == 2  # whole checks, fresh algebra


def test_a_corrupted_record_fails_a_whole_check(fuzzer: Fuzzer) -> None:
    """Through the real load path: a fresh algebra, the records read by StoreRcts."""
    proof = fuzzer.proof
    cid = next(c for c in proof.claims.values() if c.startswith("rct1:"))
    record = proof.records[cid]
    from dataclasses import replace

    bad = replace(record, outcome="L" if record.outcome == "W" else "W")
    m = Mutation("rct/outcome", cid, ((FactKind.RCT, cid, bad),))
    run = fuzzer.check_fresh(Overlay(proof.facts, m.changes), proof.root, fresh_algebra=True)
    assert run.report is None and "RctRecordError" in run.error and cid in run.error
    assert "outcome is stored as" in run.error


def test_a_world_wrong_in_one_land_only_is_refused(fuzzer: Fuzzer) -> None:
    """A liar solves the root again believing one land (12 lives at most) has a real RCT of
    the other outcome, and stores its losing nodes and its forged entry: the check refutes
    the entry."""
    land, cid = fake_world_targets(fuzzer, 1, random.Random(SEED), max_lives=12)[0]
    m = fake_world(fuzzer, land, cid)
    assert m.false_claims == {land: cid} and len(m.changes) > 1
    run = fuzzer.check_fresh(Overlay(fuzzer.proof.facts, m.changes), fuzzer.proof.root)
    assert run.report is not None and not run.report.ok and run.refuted == 1
    assert run.handed[land] != cid  # the land's true RCT, never the forged one
    assert fuzzer.judge(m, run, fuzzer.proof.outcome).verdict == REFUSED


@pytest.mark.parametrize("mode", ["plain", "rct"])
def test_multi_fact_corruptions_of_a_complete_tree_table(table: RctTable, mode: str) -> None:
    """Corruptions of k = 2..5 facts of the complete misère table of the tree of 0*4 (the
    bench takes 0*5), each checked for roots that meet them and a few at random."""
    tree = tree_table("0*4", table)
    assert len(tree.plain) > 100 and tree.facts[FactKind.POS_RCT]
    tree_fuzzer = TreeFuzzer(tree, table)
    tally = Tally()
    fuzz_tree(tree_fuzzer, tally, 12, 8, SEED, mode=mode)
    _assert_no_false(tally)
    assert sum(tally.tried.values()) >= 60
    assert sum(n for (_, verdict), n in tally.verdicts.items() if verdict == REFUSED) > 0
