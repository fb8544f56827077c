"""One write transaction of the store: write-once puts, verified marks, refutations,
provenance ids.

The writer thread (store/writer.py) applies every operation of a group to one
WriteTxn, then writes the per-kind count deltas into `meta` in the same transaction, so
counts never disagree with the facts. Byte formats come from store/schema.py.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, cast

import lmdb

from sproutsdb.facts import Provenance, now_iso
from sproutsdb.solver.ports.proofstore import Conflict, FactKind, FactValue, PutResult
from sproutsdb.store import schema
from sproutsdb.store.errors import StoreFullError
from sproutsdb.store.schema import DECODERS, FLAG_VERIFIED, EncodedFact, Refutation

# A mark's provenance record says when the check marked; one record serves the marks of one
# checker for up to this many seconds (a busy server verifier would otherwise add a record
# per second), and never a mark of a fact whose own provenance is newer.
MARK_TIME_GRAIN = 600


@dataclass
class MarkResult:
    """Outcome of mark_verified: newly verified, already verified (`restamped`: of those,
    re-marked by this check), and keys not stored."""

    verified: int = 0
    already: int = 0
    missing: list[str] = field(default_factory=list)
    restamped: int = 0
    verifier: int | None = None  # the provenance id of the marks made (None: none made)


@dataclass
class MarkClock:
    """The writer's memory of mark provenances: per checker (its provenance without `when`),
    the last mark record (when, id); and the `when` of provenance ids read so far. Updated
    only from committed transactions."""

    recent: dict[bytes, tuple[str, int]] = field(default_factory=dict)
    whens: dict[int, str] = field(default_factory=dict)


def _instant(text: str) -> datetime | None:
    """A provenance `when` as a time (None if it is not ISO 8601 with a zone)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _later(a: str, b: str) -> str:
    """The later of two `when`s (an unreadable one counts as earliest)."""
    ta, tb = _instant(a), _instant(b)
    if tb is None:
        return a
    if ta is None:
        return b
    return b if tb > ta else a


@dataclass(frozen=True)
class PutOp:
    """A validated, encoded batch of facts to store under one provenance."""

    table: str
    facts: Sequence[EncodedFact]
    provenance: Provenance
    verified: bool
    verifier: Provenance | None = None  # the check's (see mark_pid); None: claims
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
    """Stored facts to mark verified, with the provenance of the checker; `restamp` also
    re-marks facts verified by another check (a recheck that re-derived them)."""

    table: str
    keys: Sequence[str]
    provenance: Provenance
    restamp: bool = False
    as_recorded: bool = False  # a copied mark (rekey): its record as it was, time included

    @property
    def size(self) -> int:
        return len(self.keys)


@dataclass(frozen=True)
class UnmarkOp:
    """Verified facts whose mark a recheck withdraws: they become claims (values kept)."""

    table: str
    keys: Sequence[str]

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
        self,
        txn: lmdb.Transaction[bytes],
        dbs: Mapping[str, Any],
        known: dict[bytes, int],
        clock: MarkClock | None = None,
    ):
        self.txn = txn
        self.dbs = dbs
        self.known = known  # committed provenance JSON -> id (owned by the writer)
        self.new_provenance: dict[bytes, int] = {}
        self.clock = clock if clock is not None else MarkClock()  # owned by the writer
        self.new_marks: dict[bytes, tuple[str, int]] = {}
        self.new_whens: dict[int, str] = {}
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

    def when_of(self, pid: int) -> str:
        """The `when` of a provenance record ("" if unknown)."""
        when = self.clock.whens.get(pid) or self.new_whens.get(pid)
        if when is None:
            raw = self.txn.get(schema.provenance_key(pid), db=self.dbs[schema.PROVENANCE])
            when = "" if raw is None else Provenance.from_json(bytes(raw)).when
            self.new_whens[pid] = when
        return when

    def mark_pid(self, checker: Provenance, fact_pids: Iterable[int]) -> int:
        """The provenance id to mark facts (stored under `fact_pids`) verified by `checker`:
        a record of `checker` whose `when` is the time of marking, and never earlier than
        any of those facts' own `when` (a checker's session may predate a fact it checks).
        A recent record of the same checker that satisfies both is reused."""
        newest = ""
        for pid in set(fact_pids):
            newest = _later(newest, self.when_of(pid))
        base = replace(checker, when="").to_json()
        cached = self.new_marks.get(base) or self.clock.recent.get(base)
        now = now_iso()
        if cached is not None and _later(cached[0], newest) == cached[0]:
            made, current = _instant(cached[0]), _instant(now)
            if made and current and (current - made).total_seconds() < MARK_TIME_GRAIN:
                return cached[1]
        when = _later(now, newest)
        pid = self.provenance_id(replace(checker, when=when))
        self.new_marks[base] = (when, pid)
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
        checker = op.verifier if op.verifier is not None else op.provenance
        verifier = self.mark_pid(checker, (pid,)) if op.verified else None
        head = schema.record_head(pid, verifier)
        decode = DECODERS[table]
        put = txn.put
        result = PutResult()
        inserted = unchanged = 0
        refuted_db = self.dbs.get(schema.REFUTED)
        watch = refuted_db is not None and self.txn.stat(refuted_db)["entries"] > 0
        fresh: list[str] = []
        upgrades: list[tuple[bytes, bytes]] = []
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
                    upgrades.append((fact.skey, raw))
            else:
                # (the `children` cache's tuples travel in the same record type)
                result.conflicts.append(
                    Conflict(
                        _as_kind(table), fact.key, decode(raw, off), cast(FactValue, fact.value)
                    )
                )
        if upgrades:  # marked now, by a mark no earlier than these older facts' provenance
            upid = self.mark_pid(checker, (schema.split_record(r).provenance for _, r in upgrades))
            for skey, raw in upgrades:
                put(skey, schema.with_verifier(raw, upid), db=db)
            self.verified[table] += len(upgrades)
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
        """Mark stored facts verified by the op's provenance (re-mark verified ones with
        `restamp`); values never change."""
        txn, db, table = self.txn, self.dbs[op.table], op.table
        result = MarkResult()
        todo: list[tuple[bytes, bytes]] = []
        for key in op.keys:
            skey, long_key = schema.storage_key(key)
            raw = self.stored(table, key, skey, long_key)
            if raw is None:
                result.missing.append(key)
                continue
            if raw[0] & FLAG_VERIFIED:
                result.already += 1
                if not op.restamp:
                    continue
            todo.append((skey, raw))
        if not todo:
            return result
        if op.as_recorded:
            pid = result.verifier = self.provenance_id(op.provenance)
        else:
            pid = result.verifier = self.mark_pid(
                op.provenance, (schema.split_record(raw).provenance for _, raw in todo)
            )
        for skey, raw in todo:
            if not raw[0] & FLAG_VERIFIED:
                txn.put(skey, schema.with_verifier(raw, pid), db=db)
                result.verified += 1
            elif schema.split_record(raw).verifier != pid:
                txn.put(skey, schema.restamped(raw, pid), db=db)
                result.restamped += 1
        self.verified[table] += result.verified
        return result

    def apply_unmark(self, op: UnmarkOp) -> int:
        """Withdraw the verified mark of stored facts (they become claims); the count."""
        txn, db, table = self.txn, self.dbs[op.table], op.table
        done = 0
        for key in op.keys:
            skey, long_key = schema.storage_key(key)
            raw = self.stored(table, key, skey, long_key)
            if raw is not None and raw[0] & FLAG_VERIFIED:
                txn.put(skey, schema.without_verifier(raw), db=db)
                done += 1
        self.verified[table] -= done
        return done

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
