"""One write transaction of the store: write-once puts, verified marks, refutations,
provenance ids.

The writer thread (server/store_writer.py) applies every operation of a group to one
WriteTxn, then writes the per-kind count deltas into `meta` in the same transaction, so
counts never disagree with the facts. Byte formats come from server/schema.py.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import lmdb

from sproutsdb.facts import Provenance, now_iso
from sproutsdb.server import schema
from sproutsdb.server.schema import DECODERS, FLAG_VERIFIED, EncodedFact, Refutation
from sproutsdb.server.store_errors import StoreFullError
from sproutsdb.solver.proofstore import Conflict, FactKind, FactValue, PutResult


@dataclass
class MarkResult:
    """Outcome of mark_verified: newly verified, already verified, and keys not stored."""

    verified: int = 0
    already: int = 0
    missing: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PutOp:
    """A validated, encoded batch of facts to store under one provenance."""

    table: str
    facts: Sequence[EncodedFact]
    provenance: Provenance
    verified: bool
    # filled by the writer: (key, its last refutation, new provenance id) of each inserted
    # fact whose key held a refuted claim, so the store can log both provenances
    replaced: list[tuple[str, Refutation, int]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.facts)


@dataclass(frozen=True)
class RefuteOp:
    """Move a claimed fact out of its table into `refuted`, if it still holds `claimed`."""

    table: str
    key: str
    claimed: Any
    evidence: str
    proven: Any
    provenance: Provenance  # the refuter's

    @property
    def size(self) -> int:
        return 1


@dataclass(frozen=True)
class MarkOp:
    """Stored facts to mark verified, with the provenance of the checker."""

    table: str
    keys: Sequence[str]
    provenance: Provenance

    @property
    def size(self) -> int:
        return len(self.keys)


def _as_kind(table: str) -> FactKind:
    """The FactKind of a table (the children cache keeps its plain name in Conflicts)."""
    try:
        return FactKind(table)
    except ValueError:
        return table  # type: ignore[return-value]


class WriteTxn:
    """One write transaction of the writer: facts, per-kind count deltas, provenance ids."""

    def __init__(
        self, txn: lmdb.Transaction[bytes], dbs: Mapping[str, Any], known: dict[bytes, int]
    ):
        self.txn = txn
        self.dbs = dbs
        self.known = known  # committed provenance JSON -> id (owned by the writer)
        self.new_provenance: dict[bytes, int] = {}
        self.counts: dict[str, int] = defaultdict(int)
        self.verified: dict[str, int] = defaultdict(int)
        self.refuted: dict[str, int] = defaultdict(int)

    def provenance_id(self, provenance: Provenance) -> int:
        """The id of a provenance record, storing it in this transaction if it is new."""
        blob = provenance.to_json()
        pid = self.known.get(blob) or self.new_provenance.get(blob)
        if pid is not None:
            return pid
        db = self.dbs[schema.PROVENANCE]
        for key, value in self.txn.cursor(db=db):  # another process may have stored it
            if value == blob:
                self.new_provenance[blob] = int(key)
                return int(key)
        meta = self.dbs[schema.META]
        pid = schema.decode_meta_int(self.txn.get(schema.META_PROVENANCE_NEXT, db=meta)) or 1
        if pid > schema.MAX_PROVENANCE_ID:
            raise StoreFullError("the store ran out of provenance ids")
        self.txn.put(schema.provenance_key(pid), blob, db=db)
        self.txn.put(schema.META_PROVENANCE_NEXT, schema.encode_meta_int(pid + 1), db=meta)
        self.new_provenance[blob] = pid
        return pid

    def stored(
        self, table: str, fact_key: str, skey: bytes, long_key: bytes | None
    ) -> bytes | None:
        """The committed record of a key, after checking a digest key really holds it."""
        raw = self.txn.get(skey, db=self.dbs[table])
        if raw is not None and long_key is not None:
            schema.check_long_key(raw, long_key, fact_key)
        return raw

    def apply_put(self, op: PutOp) -> PutResult:
        """Insert new facts; an equal stored value is unchanged (upgraded to verified if the
        batch is verified), a different one a Conflict that keeps the stored value."""
        txn, db, table = self.txn, self.dbs[op.table], op.table
        pid = self.provenance_id(op.provenance)
        verifier = pid if op.verified else None
        head = schema.record_head(pid, verifier)
        decode = DECODERS[table]
        put = txn.put
        result = PutResult()
        inserted = unchanged = 0
        refuted_db = self.dbs.get(schema.REFUTED)
        watch = refuted_db is not None and self.txn.stat(refuted_db)["entries"] > 0
        fresh: list[str] = []
        for fact in op.facts:
            if fact.long_key is None:
                if put(fact.skey, head + fact.payload, db=db, overwrite=False):
                    inserted += 1
                    if watch:
                        fresh.append(fact.key)
                    continue
            elif put(fact.skey, schema.pack_record(fact, pid, verifier), db=db, overwrite=False):
                inserted += 1
                if watch:
                    fresh.append(fact.key)
                continue
            raw = self.stored(table, fact.key, fact.skey, fact.long_key)
            assert raw is not None
            off = schema.payload_offset(raw)
            if raw[off:] == fact.payload or decode(raw, off) == fact.value:
                unchanged += 1
                if op.verified and not raw[0] & FLAG_VERIFIED:
                    put(fact.skey, schema.with_verifier(raw, pid), db=db)
                    self.verified[table] += 1
            else:
                # (the `children` cache's tuples travel in the same record type)
                result.conflicts.append(
                    Conflict(
                        _as_kind(table), fact.key, decode(raw, off), cast(FactValue, fact.value)
                    )
                )
        result.inserted, result.unchanged = inserted, unchanged
        self.counts[table] += inserted
        if op.verified:
            self.verified[table] += inserted
        for key in fresh:  # a key that held a refuted claim: the new value replaces it
            raw = txn.get(schema.refuted_key(table, key), db=refuted_db)
            entries = schema.decode_refutations(table, key, raw)
            if entries:
                op.replaced.append((key, entries[-1], pid))
        return result

    def apply_refute(self, op: RefuteOp) -> str:
        """Refute a claimed fact: delete its record from the fact table and append a
        refutation entry (claimer, refuter, evidence) to `refuted`, in this transaction.
        A verified fact is never touched (write-once), nor one whose value changed."""
        table = op.table
        skey, long_key = schema.storage_key(op.key)
        raw = self.stored(table, op.key, skey, long_key)
        if raw is None:
            return "missing"
        if raw[0] & FLAG_VERIFIED:
            return "verified"
        parts = schema.split_record(raw)
        if DECODERS[table](raw, parts.payload_offset) != op.claimed:
            return "changed"
        refuter = self.provenance_id(op.provenance)
        db = self.dbs[schema.REFUTED]
        rkey = schema.refuted_key(table, op.key)
        entries = schema.decode_refutations(table, op.key, self.txn.get(rkey, db=db))
        entries.append(
            Refutation(op.claimed, parts.provenance, refuter, op.evidence, op.proven, now_iso())
        )
        self.txn.put(rkey, schema.encode_refutations(table, op.key, entries), db=db)
        self.txn.delete(skey, db=self.dbs[table])
        self.counts[table] -= 1
        self.refuted[table] += 1
        return "refuted"

    def apply_mark(self, op: MarkOp) -> MarkResult:
        """Mark stored facts verified by the op's provenance; values never change."""
        txn, db, table = self.txn, self.dbs[op.table], op.table
        result = MarkResult()
        pid: int | None = None
        for key in op.keys:
            skey, long_key = schema.storage_key(key)
            raw = self.stored(table, key, skey, long_key)
            if raw is None:
                result.missing.append(key)
            elif raw[0] & FLAG_VERIFIED:
                result.already += 1
            else:
                if pid is None:
                    pid = self.provenance_id(op.provenance)
                txn.put(skey, schema.with_verifier(raw, pid), db=db)
                result.verified += 1
        self.verified[table] += result.verified
        return result

    def write_counts(self) -> None:
        """Add this transaction's per-kind fact and verified deltas to the counts in `meta`."""
        meta = self.dbs[schema.META]
        for deltas, key_of in (
            (self.counts, schema.meta_count_key),
            (self.verified, schema.meta_verified_key),
            (self.refuted, schema.meta_refuted_key),
        ):
            for table, delta in deltas.items():
                if delta:
                    key = key_of(table)
                    now = schema.decode_meta_int(self.txn.get(key, db=meta))
                    self.txn.put(key, schema.encode_meta_int(now + delta), db=meta)
