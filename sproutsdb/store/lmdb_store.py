"""LmdbProofStore: the ProofStore port on one LMDB environment, write-once, group-committed.

Reads run in the caller's thread on short read transactions. Writes are validated and
encoded in the caller's thread, then queued to a single writer thread that drains every
pending batch into one write transaction (group commit) and wakes each caller only once
that transaction has committed. Byte formats live in store/schema.py, not here.

This module is the facade; each job lives in a module of its own in this package:
opening (directory, environment, sub-databases, identity checks), writer (the writer
thread), txn (what one write transaction does), reads (read paths) and errors (the
StoreError family).
"""

from __future__ import annotations

import logging
import os
import weakref
from collections import Counter
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lmdb

from sproutsdb.facts import UNKNOWN_CHECK, Provenance, Status
from sproutsdb.games import DEFAULT_GAME, get_game
from sproutsdb.solver.ports.proofstore import Conflict, FactKind, PutResult
from sproutsdb.store import reads as store_reads
from sproutsdb.store import schema
from sproutsdb.store.errors import (
    NotAStoreError,
    ReadOnlyStoreError,
    SchemaVersionError,
    StoreClosedError,
    StoreError,
    StoreFullError,
    StoreInUseError,
    StoreMismatchError,
    StoreNotFoundError,
)
from sproutsdb.store.opening import DEFAULT_MAP_SIZE, StoreIdentity, open_environment
from sproutsdb.store.schema import (
    DECODERS,
    FLAG_VERIFIED,
    FactRecord,
    InvalidFactError,
    Refutation,
    table_name,
)
from sproutsdb.store.txn import MarkOp, MarkResult, PutOp, RefuteOp, UnmarkOp
from sproutsdb.store.writer import Barrier, GroupCommitWriter, shutdown

CANON_VERSION = get_game().canon_version

log = logging.getLogger(__name__)

__all__ = [
    "FactRecord",
    "InvalidFactError",
    "LmdbProofStore",
    "Mark",
    "MarkResult",
    "NotAStoreError",
    "Provenance",
    "ReadOnlyStoreError",
    "SchemaVersionError",
    "Status",
    "StoreClosedError",
    "StoreError",
    "StoreFullError",
    "StoreInUseError",
    "StoreMismatchError",
    "StoreNotFoundError",
]

LOGGED_CONFLICTS = 20  # per put; the rest are summarised in one line

Kind = FactKind | str


@dataclass(frozen=True)
class Mark:
    """Who verified a fact: the provenance record of its verified mark (`check` says which
    kind of check; "" for a mark made before marks said it: `label` reads it)."""

    pid: int
    provenance: Provenance | None  # None: a dangling id (never written by this store)

    @property
    def label(self) -> str:
        """The kind of check, for people ("an unknown, older check" for old marks)."""
        return UNKNOWN_CHECK if self.provenance is None else self.provenance.check_label()

    @property
    def summary(self) -> str:
        """The check with the tool and canonical-form versions that ran it."""
        record = self.provenance
        if record is None or not record.check:
            return UNKNOWN_CHECK
        canon = "" if record.canon_version is None else f", canon v{record.canon_version}"
        return f"{record.check} ({record.tool} {record.version}{canon})"

    def as_dict(self) -> dict[str, Any]:
        """The mark for JSON reports (`query --json`): the record's fields, `check` spelled
        out, and `described`, one line for people."""
        if self.provenance is None:
            return {"id": self.pid, "check": UNKNOWN_CHECK, "described": UNKNOWN_CHECK}
        return self.provenance.mark_dict(self.pid)


def _refuse_bare_string(keys: object) -> None:
    """A str is an iterable of one-letter keys: almost surely a caller's mistake."""
    if isinstance(keys, str | bytes):
        raise InvalidFactError(f"expected a sequence of keys, got the single string {keys!r:.80}")


class LmdbProofStore:
    """The persistent ProofStore: one LMDB environment, write-once facts, group commit."""

    def __init__(
        self,
        path: Path,
        env: lmdb.Environment,
        dbs: dict[str, Any],
        identity: StoreIdentity,
        *,
        readonly: bool,
        durable: bool,
        provenance: Provenance,
    ) -> None:
        """Use `LmdbProofStore.open`; this wires an already-validated environment."""
        self.path = path
        self.identity = identity
        self.readonly = readonly
        self.durable = durable
        self.provenance = provenance
        self._env: lmdb.Environment | None = env
        self._dbs = dbs
        self._writer = None if readonly else GroupCommitWriter(env, dbs, str(path))
        # read without LMDB's lock file (this user may not write it: see opening._open_env)
        self.lockless = readonly and not env.flags()["lock"]
        self._finalizer = weakref.finalize(self, shutdown, self._writer, env)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        game: str,
        canon_version: int,
        create: bool = True,
        readonly: bool = False,
        provenance: Provenance | None = None,
        durable: bool = True,
        map_size: int = DEFAULT_MAP_SIZE,
    ) -> LmdbProofStore:
        """Open (or create) the store at `path` (see server.location) for one game and canon.

        Refuses, with a StoreError saying what to do, a store of another game, another
        canon_version or another schema. `provenance` describes this session's writes
        (default: user@host, sproutsdb, its version, now). `durable=False` skips fsync per
        commit (for scratch stores; flush() then syncs).
        """
        opened = open_environment(
            path,
            game=game,
            canon_version=canon_version,
            create=create,
            readonly=readonly,
            durable=durable,
            map_size=map_size,
        )
        try:
            return cls(
                opened.path,
                opened.env,
                opened.dbs,
                opened.identity,
                readonly=readonly,
                durable=durable,
                provenance=provenance if provenance is not None else Provenance(),
            )
        except BaseException:  # e.g. the writer thread could not start: free the env
            opened.env.close()
            raise

    # --- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> LmdbProofStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._env is None else ("read-only" if self.readonly else "open")
        return f"<LmdbProofStore {self.path} game={self.identity.game!r} {state}>"

    def access(self) -> dict[str, Any]:
        """How this store is open, for the `store` object of JSON reports: its path,
        whether read-only, and whether read without its lock file (no write access)."""
        return {"path": str(self.path), "read_only": self.readonly, "lockless": self.lockless}

    def close(self) -> None:
        """Commit every queued write, stop the writer and close LMDB; idempotent."""
        if self._env is not None:
            self._env = None
            self._finalizer()

    def flush(self) -> None:
        """Return once every put accepted so far is committed and on disk."""
        env = self._require_env()
        if self._writer is not None:
            self._writer.submit(Barrier()).result()
            if not self.durable:
                env.sync(True)

    def backup(self, dest: str | os.PathLike[str]) -> Path:
        """A compacted, consistent copy of the store in `dest` (a new or empty directory)."""
        env = self._require_env()
        target = Path(dest).expanduser().absolute()
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise StoreError(f"backup destination {target} must be a new or empty directory")
        target.mkdir(parents=True, exist_ok=True)
        self.flush()
        env.copy(str(target), compact=True)
        return target

    # --- reads ------------------------------------------------------------------------------

    def get(
        self,
        kind: Kind,
        keys: Iterable[str],
        *,
        verified_only: bool = False,
        verified_out: set[str] | None = None,
        marked_by: Container[int] | None = None,
    ) -> dict[str, Any]:
        """The stored values of those keys that are known (missing keys are absent); with
        `verified_only`, claimed facts are absent too. Refuted claims are never stored.
        `verified_out`, when given, receives the keys whose fact is marked verified (a
        whole-store check learns values and marks in one read); with `marked_by`, only
        those marked by one of these provenance ids (a recheck trusts its own marks only)."""
        table = table_name(kind)
        decode = DECODERS[table]
        out: dict[str, Any] = {}
        if marked_by is not None:
            return self._get_marked_by(table, keys, marked_by, verified_only, verified_out)
        for key, raw in self._fetch(table, keys):
            verified = raw[0] & FLAG_VERIFIED
            if verified_only and not verified:
                continue
            if verified and verified_out is not None:
                verified_out.add(key)
            out[key] = decode(raw, 5 if raw[0] == 0 else schema.payload_offset(raw))
        return out

    def _get_marked_by(
        self,
        table: str,
        keys: Iterable[str],
        marked_by: Container[int],
        verified_only: bool,
        verified_out: set[str] | None,
    ) -> dict[str, Any]:
        """`get` counting as verified only the marks of `marked_by`."""
        decode = DECODERS[table]
        out: dict[str, Any] = {}
        for key, raw in self._fetch(table, keys):
            parts = schema.split_record(raw)
            verified = parts.verifier is not None and parts.verifier in marked_by
            if verified_only and not verified:
                continue
            if verified and verified_out is not None:
                verified_out.add(key)
            out[key] = decode(raw, parts.payload_offset)
        return out

    def marks(self, kind: Kind, keys: Iterable[str]) -> dict[str, Mark]:
        """Who verified each of those keys that is stored and verified: its Mark (the
        check, tool and version, canonical-form version, time). For `query --json`."""
        table = table_name(kind)
        pids = {
            key: parts.verifier
            for key, raw in self._fetch(table, keys)
            if (parts := schema.split_record(raw)).verifier is not None
        }
        if not pids:
            return {}
        records = self.provenance_records()
        return {key: Mark(pid, records.get(pid)) for key, pid in pids.items()}

    def mark_ids(self, kind: Kind, keys: Iterable[str]) -> dict[str, int]:
        """The provenance id of the verified mark of each of those keys that is verified."""
        table = table_name(kind)
        out: dict[str, int] = {}
        for key, raw in self._fetch(table, keys):
            if raw[0] & FLAG_VERIFIED:
                verifier = schema.split_record(raw).verifier
                if verifier is not None:
                    out[key] = verifier
        return out

    def marks_by_check(self, kind: Kind) -> Counter[str]:
        """How many facts of a kind each check verified, by `Mark.summary` (a scan of the
        table: for `stats --marks`, not for hot paths)."""
        table = table_name(kind)
        records = self.provenance_records()
        by_pid: Counter[int] = Counter()
        for _, raw in self._scan(table, None):
            if raw[0] & FLAG_VERIFIED:
                verifier = schema.split_record(raw).verifier
                if verifier is not None:
                    by_pid[verifier] += 1
        out: Counter[str] = Counter()
        for pid, n in by_pid.items():
            out[Mark(pid, records.get(pid)).summary] += n
        return out

    def get_records(
        self, kind: Kind, keys: Iterable[str], *, refuted: bool = False
    ) -> dict[str, FactRecord]:
        """Stored facts with their status and provenance ids (missing keys are absent).
        With `refuted`, a key with no fact but a refuted claim gets a REFUTED record: its
        value is the refused claim (never a fact), `refutation` says why."""
        table = table_name(kind)
        wanted = keys if not refuted or isinstance(keys, (list, tuple)) else list(keys)
        out = {key: schema.decode_record(table, raw) for key, raw in self._fetch(table, wanted)}
        if refuted:
            absent = [k for k in wanted if k not in out]
            for key, entries in self.refutations(table, absent).items():
                last = entries[-1]
                out[key] = FactRecord(
                    last.claimed, Status.REFUTED, last.provenance, last.refuted_by, last
                )
        return out

    def refutations(self, kind: Kind, keys: Iterable[str]) -> dict[str, list[Refutation]]:
        """Every refutation of those keys that have any, oldest first."""
        table = table_name(kind)
        env = self._require_env()
        _refuse_bare_string(keys)
        return store_reads.refutations(env, self._dbs.get(schema.REFUTED), table, keys)

    def verified_view(self) -> VerifiedFacts:
        """This store as a read-only ProofStore that serves verified facts only."""
        return VerifiedFacts(self)

    def get_children(self, keys: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The cached canonical children of positions (sorted), for those that are cached."""
        return self.get(schema.CHILDREN, keys)

    def _fetch(self, table: str, keys: Iterable[str]) -> list[tuple[str, bytes]]:
        env = self._require_env()
        _refuse_bare_string(keys)
        return store_reads.fetch(env, self._dbs[table], keys)

    def count(self, kind: Kind) -> int:
        """Number of facts of a kind (kept in meta, in the same transaction as the facts)."""
        return self._meta_int(schema.meta_count_key(table_name(kind)))

    def verified_count(self, kind: Kind) -> int:
        """Number of verified facts of a kind."""
        return self._meta_int(schema.meta_verified_key(table_name(kind)))

    def _meta_int(self, key: bytes) -> int:
        return store_reads.meta_int(self._require_env(), self._dbs[schema.META], key)

    def iter_records(
        self, kind: Kind, start_after: str | None = None
    ) -> Iterator[tuple[str, FactRecord]]:
        """(key, record) in store order, strictly after `start_after` if given.

        Store order is UTF-8 byte order of the keys, then keys longer than 511 bytes in
        digest order; it is stable, so `start_after=<last key seen>` resumes an export.
        Facts are read in chunks on fresh read transactions: nothing is pinned while the
        consumer works, and facts committed meanwhile may appear (facts are never removed).
        """
        table = table_name(kind)
        for key, raw in self._scan(table, start_after):
            yield key, schema.decode_record(table, raw)

    def iter_facts(self, kind: Kind, start_after: str | None = None) -> Iterator[tuple[str, Any]]:
        """(key, value) in store order; see iter_records for the order and resumption."""
        table = table_name(kind)
        decode = DECODERS[table]
        for key, raw in self._scan(table, start_after):
            yield key, decode(raw, schema.payload_offset(raw))

    def _scan(self, table: str, start_after: str | None) -> Iterator[tuple[str, bytes]]:
        return store_reads.scan(self._require_env, self._dbs[table], start_after)

    def provenance_records(self) -> dict[int, Provenance]:
        """Every provenance record of the store by id."""
        return store_reads.provenance_records(self._require_env(), self._dbs[schema.PROVENANCE])

    def stats(self) -> dict[str, Any]:
        """Counts per kind, identity, and LMDB/writer figures for reports and Stats RPCs."""
        env = self._require_env()
        counts, verified, provenance, refuted = store_reads.fact_counts(env, self._dbs)
        info, stat = env.info(), env.stat()
        data_file = self.path / "data.mdb"
        return {
            "path": str(self.path),
            "game": self.identity.game,
            "canon_version": self.identity.canon_version,
            "schema_version": self.identity.schema_version,
            "created": self.identity.created,
            "readonly": self.readonly,
            "store": self.access(),
            "counts": counts,
            "verified": verified,
            "refuted": refuted,
            "provenance_records": provenance,
            "map_size": info["map_size"],
            "used_bytes": (info["last_pgno"] + 1) * stat["psize"],
            "file_bytes": data_file.stat().st_size if data_file.exists() else 0,
            "readers": {"used": info["num_readers"], "max": info["max_readers"]},
            "writer": None
            if self._writer is None
            else {
                "commits": self._writer.commits,
                "operations": self._writer.operations,
                "pending": self._writer.pending,
            },
        }

    # --- writes -----------------------------------------------------------------------------

    def put(
        self,
        kind: Kind,
        items: Mapping[str, Any],
        *,
        provenance: Provenance | None = None,
        verified: bool = False,
        verified_by: Provenance | None = None,
    ) -> PutResult:
        """Store a batch atomically; return after its transaction committed.

        Every item is validated first: one bad key or value raises InvalidFactError and
        nothing is written. An identical re-put is `unchanged` (and, with verified=True,
        upgrades a claimed fact to verified); a different value is a Conflict, logged, and
        the stored value is kept. `verified_by` (implies verified) is the check that
        re-derived the batch, e.g. `provenance.for_check(SEED_REDERIVED)`; without it the
        mark names `provenance` with its tool as the check.
        """
        table = table_name(kind)
        writer = self._require_writer()
        facts, errors = schema.encode_facts(table, items)
        if errors:
            more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
            raise InvalidFactError(
                f"rejected a batch of {len(items)} {table} facts, nothing written: "
                + "; ".join(errors[:3])
                + more
            )
        if not facts:
            return PutResult()
        who = provenance if provenance is not None else self.provenance
        verifier = None
        if verified or verified_by is not None:
            verifier = self._mark_provenance(verified_by if verified_by is not None else who)
        op = PutOp(table, facts, who, verifier is not None, verifier)
        result: PutResult = writer.submit(op).result()
        self._log_conflicts(table, result.conflicts)
        if op.replaced:
            self._log_replaced(table, op)
        return result

    def _log_replaced(self, table: str, op: PutOp) -> None:
        """Say, with both provenances, that inserts replaced refuted claims."""
        records = self.provenance_records()
        for key, refutation, pid in op.replaced[:LOGGED_CONFLICTS]:
            claimer = records.get(refutation.provenance)
            log.warning(
                "store %s: %s %r: refuted claim %r (by %s) replaced by %r (by %s)",
                self.path,
                table,
                key,
                refutation.claimed,
                claimer.describe() if claimer else f"provenance {refutation.provenance}",
                self.get(table, [key]).get(key),
                records[pid].describe() if pid in records else f"provenance {pid}",
                extra={
                    "key": key,
                    "table": table,
                    "claimed_by": refutation.provenance,
                    "replaced_by": pid,
                },
            )

    def refute(
        self,
        kind: Kind,
        key: str,
        claimed: Any,
        *,
        evidence: str,
        proven: Any = None,
        provenance: Provenance | None = None,
    ) -> str:
        """Refute the claimed fact `key` = `claimed`: it leaves the fact table (never served
        again) and its refutation is kept with the evidence. Returns "refuted", or why not:
        "missing", "verified" (verified facts are write-once) or "changed"."""
        table = table_name(kind)
        writer = self._require_writer()
        schema.storage_key(key)
        op = RefuteOp(
            table,
            key,
            claimed,
            evidence,
            proven,
            provenance if provenance is not None else self.provenance,
        )
        outcome: str = writer.submit(op).result()
        if outcome == "refuted":
            log.info(
                "store %s: refuted %s %r = %r: %s",
                self.path,
                table,
                key,
                claimed,
                evidence,
                extra={"key": key, "table": table},
            )
        return outcome

    def put_children(
        self, items: Mapping[str, Sequence[str]], *, provenance: Provenance | None = None
    ) -> PutResult:
        """Cache canonical children of positions (stored sorted, write-once like facts)."""
        return self.put(schema.CHILDREN, items, provenance=provenance)

    def mark_verified(
        self,
        kind: Kind,
        keys: Iterable[str],
        *,
        provenance: Provenance | None = None,
        check: str | None = None,
        restamp: bool = False,
        as_recorded: bool = False,
    ) -> MarkResult:
        """Mark stored facts verified (a checker re-derived them); values never change.

        The mark names a provenance record of the checker (default: this store's) with
        `check`, the kind of check (default: the checker's own `check`, else its tool),
        this store's canonical-form version and the time of marking (never earlier than a
        marked fact's own provenance). `restamp` also re-marks facts already verified by
        another check (a recheck that re-derived them all). `as_recorded` copies a mark
        from another store (rekey): `provenance` is stored as it is, time and all."""
        table = table_name(kind)
        writer = self._require_writer()
        _refuse_bare_string(keys)
        wanted = list(keys)
        if not wanted:
            return MarkResult()  # nothing to mark: no empty commit (and fsync)
        for key in wanted:
            schema.storage_key(key)  # validate before queueing
        checker = provenance if provenance is not None else self.provenance
        if not as_recorded:
            checker = self._mark_provenance(checker, check)
        op = MarkOp(table, wanted, checker, restamp, as_recorded)
        result: MarkResult = writer.submit(op).result()
        return result

    def withdraw_marks(self, kind: Kind, keys: Iterable[str]) -> int:
        """Make verified facts claims again (a recheck could not re-derive them: their mark
        was someone else's word); values are kept. Returns how many marks were withdrawn."""
        table = table_name(kind)
        writer = self._require_writer()
        _refuse_bare_string(keys)
        wanted = list(keys)
        if not wanted:
            return 0
        for key in wanted:
            schema.storage_key(key)
        done: int = writer.submit(UnmarkOp(table, wanted)).result()
        if done:
            log.warning(
                "store %s: withdrew %d verified mark(s) of %s (not re-derived), first %r",
                self.path,
                done,
                table,
                wanted[0],
                extra={"table": table},
            )
        return done

    def _mark_provenance(self, checker: Provenance, check: str | None = None) -> Provenance:
        """The provenance of marks set by `checker`: its check kind and this store's
        canonical-form version (the writer sets the time)."""
        kind = check or checker.check or checker.tool
        return checker.for_check(kind, canon_version=self.identity.canon_version)

    def _log_conflicts(self, table: str, conflicts: list[Conflict]) -> None:
        for c in conflicts[:LOGGED_CONFLICTS]:
            log.warning(
                "store %s: conflict on %s %r: stored %r, offered %r (kept stored)",
                self.path,
                table,
                c.key,
                c.stored,
                c.offered,
            )
        if len(conflicts) > LOGGED_CONFLICTS:
            log.warning(
                "store %s: %d more %s conflicts in the same batch",
                self.path,
                len(conflicts) - LOGGED_CONFLICTS,
                table,
            )

    # --- guards -----------------------------------------------------------------------------

    def _require_env(self) -> lmdb.Environment:
        env = self._env
        if env is None:
            raise StoreClosedError(f"store {self.path} is closed")
        return env

    def _require_writer(self) -> GroupCommitWriter:
        self._require_env()
        if self._writer is None:
            raise ReadOnlyStoreError(
                f"store {self.path} was opened read-only; it accepts no writes"
            )
        return self._writer


class VerifiedFacts:
    """A store seen through its verified facts only: what a solver or checker that wants
    certainty reads (claimed facts are simply absent). Writes go to the store as claims."""

    def __init__(self, store: LmdbProofStore) -> None:
        self.store = store

    def get(self, kind: Kind, keys: Iterable[str]) -> dict[str, Any]:
        return self.store.get(kind, keys, verified_only=True)

    def put(self, kind: Kind, items: Mapping[str, Any]) -> PutResult:
        return self.store.put(kind, items)

    def flush(self) -> None:
        self.store.flush()

    def close(self) -> None:
        """The view owns nothing: closing it leaves the store open."""


def open_store(
    path: str | os.PathLike[str] | None = None,
    *,
    create: bool = True,
    readonly: bool = False,
    provenance: Provenance | None = None,
    durable: bool = True,
    map_size: int = DEFAULT_MAP_SIZE,
    game: str = DEFAULT_GAME,
) -> LmdbProofStore:
    """The store of `game` (default Sprouts) at `path`, keyed by this engine's canonical
    form of that game: what every command and the server open (a store of another game or
    canon is refused, saying which it is)."""
    return LmdbProofStore.open(
        path,
        game=game,
        canon_version=get_game(game).canon_version,
        create=create,
        readonly=readonly,
        provenance=provenance,
        durable=durable,
        map_size=map_size,
    )
