"""One gate for every fact (issue 72), kept by reading the package: facts from outside reach a
store only through ops.claims.admit_claims (as claims) or ops.admission.admit (the results
library, marked by its own check), and only the checks mark facts verified."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sproutsdb.facts import Provenance
from sproutsdb.ops.claims import ClaimRefused, admit_claims, fact_problem
from sproutsdb.solver.cgt.ident import tree_id
from sproutsdb.solver.ports.proofstore import FactKind, RctRecord
from sproutsdb.store import open_store

PACKAGE = Path(__file__).resolve().parent.parent / "sproutsdb"
# The modules that mark facts verified: each is a check that re-derived what it marks (or, for
# rekey, carries a store's own marks into its re-keyed copy).
MARKERS = {
    "ops/check.py",
    "ops/check_kinds.py",
    "ops/parallel_check.py",
    "ops/verifier.py",
    "ops/admission.py",  # the results library: marks only what its own check verified
    "ops/seed.py",  # a table, re-derived by trusted_tables.verified_table before it is stored
    "ops/rekey.py",
}
# The modules that put facts into a store: the gate, the markers (their own derived facts)
# and the engines (solver/, through the ProofStore port).
WRITERS = MARKERS | {"ops/claims.py", "ops/results.py"}  # results: a check's scratch store
MARKING_KEYWORDS = {"verified", "verified_by"}
# a pull's own put (through the gate), queues, and a fleet solver's RemoteProofStore (its
# put is the server's Insert, which admits claims through the server's own gate)
NOT_STORES = {"puller", "tasks", "inbox", "remote"}


def receiver(call: ast.Call) -> str:
    """The name the method is called on (`store` of store.put, `store` of self.store.put)."""
    target = call.func.value if isinstance(call.func, ast.Attribute) else call.func
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def calls(name: str) -> list[tuple[str, ast.Call]]:
    """Every call of a method `name` in the package outside solver/ and store/."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module.startswith(("solver/", "store/", "_proto")):
            continue
        for node in ast.walk(ast.parse(path.read_text(), module)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == name
            ):
                found.append((module, node))
    return found


def test_only_checks_mark_facts_verified() -> None:
    marking = {m for m, _ in calls("mark_verified")}
    marking |= {
        m for m, call in calls("put") if any(k.arg in MARKING_KEYWORDS for k in call.keywords)
    }
    assert marking <= MARKERS, f"these modules mark facts without a check: {marking - MARKERS}"


def test_doors_store_facts_only_through_the_gate() -> None:
    writers = {
        m
        for m, call in calls("put")
        if receiver(call) not in NOT_STORES
        and (any(k.arg == "provenance" for k in call.keywords) or len(call.args) >= 2)
    }
    doors = writers
    assert doors <= WRITERS, f"these modules store facts past ops.claims: {doors - WRITERS}"


@pytest.mark.parametrize(
    "kind, key, value, why",
    [
        (FactKind.NIMBER, "0*2", -1, "a nimber is an int"),
        (FactKind.NIMBER, "0*2", True, "a nimber is an int"),
        (FactKind.MISERE, "0*2", "X", "'L' or 'W'"),
        (FactKind.POS_RCT, "0*2", "2x3", "not an RCT content id"),
        (FactKind.RCT, "2x3", RctRecord(1, "L", ("*0",), nim=1), "not an RCT content id"),
        (FactKind.RCT, "*1", RctRecord(1, "L", ("*0",)), "does not match the record"),
        (FactKind.RCT, tree_id(["*0"]), RctRecord(1, "L", ("*1",)), "does not match"),
        (FactKind.RCT, "*2", RctRecord(1, "L", ("*1", "*0"), nim=2), "sorted"),
    ],
)
def test_the_gate_refuses_a_batch_whole(
    tmp_path: Path, kind: FactKind, key: str, value: object, why: str
) -> None:
    assert why in fact_problem(kind, key, value)
    good = {FactKind.NIMBER: ("0", 0), FactKind.MISERE: ("0*2", "W")}.get(kind)
    with open_store(tmp_path / "s", durable=False) as store:
        batch = {**dict([good] if good else []), key: value}
        with pytest.raises(ClaimRefused, match="refused whole"):
            admit_claims(store, kind, batch, Provenance(who="forger"))
        assert store.count(kind) == 0


def test_what_the_gate_takes_is_a_claim(tmp_path: Path) -> None:
    with open_store(tmp_path / "s", durable=False) as store:
        admit_claims(store, FactKind.RCT, {"*0": RctRecord(0, "W", (), nim=0)}, Provenance())
        assert store.count(FactKind.RCT) == 1
        assert store.verified_count(FactKind.RCT) == 0
