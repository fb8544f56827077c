"""The gate through which every fact from outside enters a store as a claim: import (and the
checkpoints, which are exports), gRPC Insert and pull all store through `admit_claims`.

What one fact shows by itself is checked here, once for every door: a nimber in range, a
misère outcome L or W, content ids well formed, an RCT record's id the digest of its own
children. The facts are stored as claims only: this gate has no way to mark a fact verified.
Marks come from checks alone (ops.check, the server's verifier, ops.admission for the results
library, a table's re-derivation in trusted_tables), and tests/test_gate.py keeps it so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.facts import Provenance
from sproutsdb.solver.cgt.ident import CONTENT_ID_SYNTAX, is_content_id, nim_id, tree_id
from sproutsdb.solver.ports.proofstore import FactKind, PutResult, RctRecord
from sproutsdb.store import LmdbProofStore, schema

MAX_HEIGHT = 1_000_000  # no tree of any game a store can hold is this tall


class ClaimRefused(UserError):
    """Facts the gate refuses as a batch: none of them is stored."""


def content_id_problem(text: object, what: str = "content id") -> str:
    """Why `text` is not an RCT content id ("" when it is one)."""
    if is_content_id(text):
        return ""
    return f"{what} {text!r:.80} is not an RCT content id ({CONTENT_ID_SYNTAX})"


def record_problem(cid: str, record: RctRecord) -> str:
    """Why an RCT record cannot be stored under `cid` ("" when it can): ids well formed,
    children sorted and distinct, outcome L or W, and `cid` the record's own content id."""
    for child in record.children:
        if why := content_id_problem(child, "child"):
            return why
    if list(record.children) != sorted(record.children):
        return "the children must be sorted"
    if len(set(record.children)) != len(record.children):
        return "the children must be distinct"
    if record.plus1_of is not None and (why := content_id_problem(record.plus1_of, "plus1_of")):
        return why
    if record.outcome not in ("L", "W"):
        return f"outcome must be 'L' or 'W', got {record.outcome!r}"
    expected = nim_id(record.nim) if record.nim is not None else tree_id(record.children)
    if cid != expected:
        return (
            "the content id does not match the record: its children (and nim value) give "
            f"{expected}"
        )
    if record.nim is not None and record.children != tuple(
        sorted(nim_id(k) for k in range(record.nim))
    ):
        return f"the nim-heap *{record.nim} has the children *0..*{record.nim - 1}"
    if not 0 <= record.height <= MAX_HEIGHT:
        return f"height {record.height} is out of range"
    return ""


def fact_problem(kind: FactKind, key: str, value: Any) -> str:
    """Why one fact of `kind` cannot be taken as a claim ("" when it can), from the fact
    alone (the key's canonical form is the door's to read: it knows the game)."""
    if kind is FactKind.NIMBER:
        if not schema.is_int(value) or not 0 <= value <= schema.MAX_NIMBER:
            return f"a nimber is an int in 0..2**63-1, got {value!r:.40}"
    elif kind is FactKind.MISERE:
        if value not in ("L", "W"):
            return f"a misère outcome is 'L' or 'W', got {value!r:.40}"
    elif kind is FactKind.POS_RCT:
        return content_id_problem(value, "value")
    elif not isinstance(value, RctRecord):
        return f"an RCT fact's value is a record, got {type(value).__name__}"
    else:
        return content_id_problem(key, "key") or record_problem(key, value)
    return ""


def check_claims(kind: FactKind, facts: Iterable[tuple[str, Any]]) -> None:
    """ClaimRefused naming the first fact `fact_problem` refuses (and how many more)."""
    problems = [
        f"key {i} ({key!r:.60}): {why}"
        for i, (key, value) in enumerate(facts)
        if (why := fact_problem(kind, key, value))
    ]
    if problems:
        more = f" (and {len(problems) - 1:,} more)" if len(problems) > 1 else ""
        raise ClaimRefused(f"{kind.value} facts refused whole: {problems[0]}{more}")


def admit_claims(
    store: LmdbProofStore,
    kind: FactKind,
    facts: Mapping[str, Any],
    provenance: Provenance,
) -> PutResult:
    """Store `facts` (canonical keys of the store's game) as claims under `provenance`,
    all or none: ClaimRefused before any write when one of them is refused."""
    check_claims(kind, facts.items())
    return store.put(kind, dict(facts), provenance=provenance)
