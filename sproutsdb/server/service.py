"""The gRPC service: one LMDB proof store shared by many solvers.

`SproutsDbService` implements proto/sproutsdb/v1/sproutsdb.proto over an `LmdbProofStore`.
Reads run in the gRPC worker threads on short LMDB read transactions; writes go through
the store's single writer thread (group commit), and an insert is acknowledged only after
the transaction holding its facts has committed. Every position is validated and
canonicalised by the engine (server/validation.py) before it reaches the store.

Failures map to gRPC status codes (server/rpc_errors.py); the counters of the Stats RPC
are server/metrics.py; `sproutsdb serve` itself (listening, seeding, signals) is
server/lifecycle.py.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from sproutsdb import __version__
from sproutsdb.facts import Provenance, Status, now_iso
from sproutsdb.games import get_game
from sproutsdb.ops.claims import admit_claims
from sproutsdb.ops.seed import TableEntry, TableShelf
from sproutsdb.ops.verifier import Verifier
from sproutsdb.server.auth import TokenBook, bearer_secret
from sproutsdb.server.limits import Budget, BudgetedGame, BudgetedSource
from sproutsdb.server.metrics import Metrics
from sproutsdb.server.rpc_errors import NotFoundError, rpc, rpc_stream
from sproutsdb.server.validation import (
    Limits,
    PreconditionError,
    RequestError,
    Validator,
    check_parallel,
)
from sproutsdb.solver.cgt.ident import nim_value_of_id
from sproutsdb.solver.misere.keys import split_node_key
from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.ports.game import Game, NotationError
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, RctRecord
from sproutsdb.store import LmdbProofStore, schema
from sproutsdb.values import usable
from sproutsdb.wire import (
    COLUMN,
    CONFLICT,
    INSERTED,
    KIND_TO_PB,
    STATUS_TO_PB,
    UNCHANGED,
    column_values,
    decode_page_token,
    encode_page_token,
    fill_column,
    kind_from_pb,
    nonempty_columns,
    pb,
    pb_grpc,
    provenance_to_pb,
    rct_to_pb,
    value_to_pb,
)

log = logging.getLogger("sproutsdb.server")

DEFAULT_CHUNK = 5000
_MAX_PROVENANCE_TEXT = 1000


# --- the service ----------------------------------------------------------------------------


@dataclass
class _Insertion:
    """The outcome of one validated, committed insert batch."""

    status: list[pb.InsertStatus]
    canonical: list[str] | None
    conflicts: list[Any]
    inserted: int = 0
    unchanged: int = 0
    conflict_count: int = 0


@dataclass
class _TableStream:
    ids: list[str]
    records: list[Any]
    positions: list[str]
    rct_index: list[int]


class SproutsDbService(pb_grpc.SproutsDbServicer):
    """The RPCs of sproutsdb.v1.SproutsDb over one store."""

    def __init__(
        self,
        store: LmdbProofStore,
        *,
        game: Game | None = None,
        limits: Limits | None = None,
        tables: TableShelf | None = None,
        writes_need_token: bool = False,
        tls: bool = False,
        tokens: TokenBook | None = None,
        verifier: Verifier | None = None,
    ) -> None:
        self.store = store
        self.tokens = tokens  # to name the writer in provenance and apply its batch limit
        self.verifier = verifier  # told of new claims and of inserts contesting a claim
        self.game = (
            game if game is not None else get_game(store.identity.game).engine(cache_size=100_000)
        )
        self.limits = limits if limits is not None else Limits()
        self.tables = tables if tables is not None else TableShelf()
        if verifier is not None:  # its misère nodes replace lands as this server's solvers do
            verifier.use_tables(self.tables)
        self.validator = Validator(self.game, self.limits)
        self.metrics = Metrics()
        self.writes_need_token = writes_need_token
        self.tls = tls
        self.started_iso = now_iso()
        self._provenance: dict[int, Provenance] = {}
        self._provenance_lock = threading.Lock()
        self._streams: dict[str, _TableStream] = {}
        self._streams_lock = threading.Lock()
        # the figures of `serve`'s seeding of the results library (ops/seed.py), if any
        self.seeding: Callable[[], dict[str, Any]] | None = None

    # --- helpers --------------------------------------------------------------------------

    def _kinds(self, request: Any) -> list[FactKind]:
        kinds = [kind_from_pb(k, "kinds") for k in request.kinds] or [FactKind.NIMBER]
        if len(set(kinds)) != len(kinds):
            raise RequestError("kinds: each kind may be asked once")
        if FactKind.RCT in kinds and len(kinds) > 1:
            raise RequestError(
                "kinds: FACT_KIND_RCT keys are content ids, not positions; ask "
                "for RCTs in a lookup of their own"
            )
        return kinds

    def _provenance_records(self, ids: Iterable[int]) -> dict[int, Provenance]:
        wanted = set(ids)
        wanted.discard(0)
        if not wanted <= self._provenance.keys():
            with self._provenance_lock:
                self._provenance = self.store.provenance_records()
        return {i: self._provenance[i] for i in wanted if i in self._provenance}

    def _canonical_keys(
        self, kind: FactKind, keys: Sequence[str], known: Iterable[str], *, strict: bool
    ) -> tuple[list[str], bool]:
        """Canonical keys (a key found in the store is canonical: only canonical keys are
        ever stored); whether any key changed."""
        known_set = known if isinstance(known, (set, dict)) else set(known)
        validator = self.validator
        if kind is FactKind.RCT:
            for i, key in enumerate(keys):
                if key not in known_set:
                    validator.content_id(key, f"key {i}")
            return list(keys), False
        if kind is FactKind.MISERE:
            canon = []
            first_use: dict[str, int] = {}  # content id -> first key naming it
            for i, key in enumerate(keys):
                if key in known_set:
                    canon.append(key)
                    continue
                node, cids = validator.misere_node(key, i, strict=strict)
                canon.append(node)
                for cid in cids:
                    first_use.setdefault(cid, i)
            if strict:
                self._require_rcts(first_use)
            return canon, canon != list(keys)
        if kind is FactKind.NIMBER and strict:
            canon = [
                key if key in known_set else validator.land(key, i) for i, key in enumerate(keys)
            ]
        else:
            canon = [
                key if key in known_set else validator.canonical(key, i, strict=strict)
                for i, key in enumerate(keys)
            ]
        return canon, canon != list(keys)

    def _require_rcts(
        self, first_use: dict[str, int], what: str = "misère facts of nodes holding it"
    ) -> None:
        """Every content id of misère node keys (or `pos_rct` values) must name an RCT
        stored here (a nim-heap *n is named by its id alone, so it needs no record)."""
        wanted = [cid for cid in first_use if nim_value_of_id(cid) is None]
        if not wanted:
            return
        found = self.store.get(FactKind.RCT, wanted)
        missing = [cid for cid in wanted if cid not in found]
        if missing:
            cid = min(missing, key=first_use.__getitem__)
            raise RequestError(
                f"key {first_use[cid]}: content id {cid} names no RCT stored on this server; "
                f"insert its record (FACT_KIND_RCT) before {what}"
            )

    def _misere_node_among_positions(self, keys: Sequence[str]) -> None:
        """A lookup of several kinds reads its keys as positions: say so of a node key."""
        for i, key in enumerate(keys):
            try:
                _, parity, cids = split_node_key(key)
            except NotationError:
                continue  # the position parser will say what is wrong
            if parity or cids:
                raise RequestError(
                    f"key {i}: {key!r:.80} is a misère node key (with '*1' or content ids), "
                    "not a position; look it up with FACT_KIND_MISERE alone"
                )

    # --- Lookup ---------------------------------------------------------------------------

    @rpc
    def Lookup(self, request: Any, context: grpc.ServicerContext) -> Any:
        keys = list(request.keys)
        self.limits.check_count("Lookup", len(keys))
        kinds = self._kinds(request)
        with_records = request.with_records
        verified_only = request.verified_only
        store = self.store
        if with_records:
            fetch = functools.partial(store.get_records, refuted=True)
        else:
            fetch = functools.partial(store.get, verified_only=verified_only)
        found: dict[FactKind, dict[str, Any]] = {kind: fetch(kind, keys) for kind in kinds}
        known: set[str] = set()
        for values in found.values():
            known.update(
                k for k, r in values.items() if not with_records or r.status is not Status.REFUTED
            )
        if len(kinds) == 1:
            key_kind = kinds[0]
        else:  # several kinds of facts of positions
            if FactKind.MISERE in kinds:
                self._misere_node_among_positions(keys)
            key_kind = FactKind.POS_RCT
        canon, changed = self._canonical_keys(key_kind, keys, known, strict=False)
        if changed:
            moved = list({c for c, k in zip(canon, keys) if c != k})
            for kind in kinds:
                found[kind].update(fetch(kind, moved))
        response = pb.LookupResponse()
        if changed:
            response.canonical.extend("" if c == k else c for c, k in zip(canon, keys))
        provenance_ids: set[int] = set()
        hits = 0
        for kind in kinds:
            values = found[kind]
            column = response.columns.add(kind=KIND_TO_PB[kind])
            if with_records:
                records = [values.get(c) for c in canon]
                hit = [_served_record(r, verified_only) for r in records]
            else:
                hit = [c in values for c in canon]
            hits += sum(hit)
            column.found.extend(hit)
            if with_records:
                default = _DEFAULTS[kind]
                fill_column(
                    column,
                    kind,
                    (
                        r.value if h else default  # type: ignore[union-attr]
                        for r, h in zip(records, hit)
                    ),
                )
                column.refutation.extend(_refutation_json(r) for r in records)
                column.status.extend(
                    pb.FACT_STATUS_UNSPECIFIED if r is None else STATUS_TO_PB[r.status]
                    for r in records
                )
                column.provenance.extend(0 if r is None else r.provenance for r in records)
                column.verified_by.extend(0 if r is None else (r.verified_by or 0) for r in records)
                provenance_ids.update(r.provenance for r in records if r is not None)
                provenance_ids.update(
                    r.verified_by for r in records if r is not None and r.verified_by
                )
            else:
                default = _DEFAULTS[kind]
                fill_column(column, kind, [values.get(c, default) for c in canon])
        if with_records:
            for pid, prov in self._provenance_records(provenance_ids).items():
                response.provenance[pid].CopyFrom(provenance_to_pb(prov))
        self.metrics.add(keys_looked_up=len(keys) * len(kinds), keys_found=hits)
        return response

    # --- Insert ---------------------------------------------------------------------------

    def _writer_provenance(self, msg: Any, context: grpc.ServicerContext) -> Provenance:
        fields = {}
        for name in ("who", "tool", "version", "when", "comment"):
            text = getattr(msg, name)
            if len(text) > _MAX_PROVENANCE_TEXT:
                raise RequestError(
                    f"provenance.{name} has {len(text):,} characters; the limit "
                    f"is {_MAX_PROVENANCE_TEXT:,}"
                )
            fields[name] = text
        peer = context.peer()
        host = peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer
        token = None
        if self.tokens is not None:
            secret = bearer_secret(context.invocation_metadata())
            token = None if secret is None else self.tokens.identify(secret)
        return Provenance(
            who=fields["who"] or f"client at {host}",
            tool=fields["tool"] or "sproutsdb-client",
            version=fields["version"] or "",
            when=fields["when"] or self.started_iso,
            comment=fields["comment"],
            token=token.name if token is not None else "",
        )

    def _insert(self, request: Any, provenance: Provenance, base: int = 0) -> _Insertion:
        kind = kind_from_pb(request.kind)
        keys = list(request.keys)
        self.limits.check_count("Insert", len(keys))
        self._check_token_batch(provenance, len(keys))
        column = COLUMN[kind]
        stray = [name for name in nonempty_columns(request) if name != column]
        if stray:
            raise RequestError(
                f"{kind.value} facts take their values in {column}, but "
                f"{', '.join(stray)} was given"
            )
        values = column_values(request, kind)
        check_parallel("Insert", keys, column, values)
        store = self.store
        stored = store.get(kind, keys)
        canon, changed = self._canonical_keys(kind, keys, stored, strict=True)
        self._check_values(kind, canon, values)
        if changed:
            stored.update(store.get(kind, [c for c, k in zip(canon, keys) if c != k]))
        first: dict[str, int] = {}
        fresh: dict[str, FactValue] = {}
        for i, (key, value) in enumerate(zip(canon, values)):
            j = first.setdefault(key, i)
            if j != i:
                if values[j] != value:
                    what = "misère node" if kind is FactKind.MISERE else "position"
                    raise RequestError(
                        f"keys {j} and {i} are the same {what} {key!r} with two different "
                        f"values ({values[j]!r} and {value!r}); nothing was written"
                    )
            elif key not in stored:
                fresh[key] = value
        result = None
        if fresh:
            start = time.perf_counter()
            result = admit_claims(store, kind, fresh, provenance)
            self.metrics.commit(time.perf_counter() - start)
        raced = {c.key: c.stored for c in result.conflicts} if result is not None else {}
        stored_status = self._after_insert(kind, canon, values, fresh, stored, raced, provenance)
        status: list[pb.InsertStatus] = []
        conflicts: list[Any] = []
        reported: set[str] = set()
        unchanged = 0
        for i, (key, value) in enumerate(zip(canon, values)):
            if key in raced or (key in stored and stored[key] != value):
                status.append(CONFLICT)
                if key not in reported:
                    reported.add(key)
                    kept = raced[key] if key in raced else stored[key]
                    conflicts.append(
                        pb.Conflict(
                            index=base + i,
                            key=key,
                            stored=value_to_pb(kind, kept),
                            offered=value_to_pb(kind, value),
                            stored_status=stored_status.get(key, pb.FACT_STATUS_UNSPECIFIED),
                        )
                    )
            elif key in stored:
                status.append(UNCHANGED)
                if first[key] == i:
                    unchanged += 1
            else:
                status.append(INSERTED)
        inserted = result.inserted if result is not None else 0
        if result is not None:
            unchanged += result.unchanged
        if conflicts:
            log.warning(
                "%d conflicting %s facts refused (first: %r)",
                len(conflicts),
                kind.value,
                conflicts[0].key,
                extra={"kind": kind.value, "conflicts": len(conflicts)},
            )
        self.metrics.add(
            facts_offered=len(keys),
            facts_inserted=inserted,
            facts_unchanged=unchanged,
            conflicts=len(conflicts),
        )
        return _Insertion(
            status, canon if changed else None, conflicts, inserted, unchanged, len(conflicts)
        )

    def _check_token_batch(self, provenance: Provenance, n: int) -> None:
        """A token's own batch limit (see server/auth.py), below the server's max_keys."""
        if self.tokens is None or not provenance.token:
            return
        for token in self.tokens.tokens:
            if token.name == provenance.token and token.max_batch is not None:
                self.limits.check_count(f"Insert (token {token.name!r})", n, token.max_batch)

    def _after_insert(
        self,
        kind: FactKind,
        canon: Sequence[str],
        values: Sequence[Any],
        fresh: dict[str, FactValue],
        stored: dict[str, Any],
        raced: dict[str, Any],
        provenance: Provenance,
    ) -> dict[str, pb.FactStatus]:
        """Tell the verifier of new claims (of every kind) and of offers contesting a
        claim; the status (wire enum) of each conflicting stored fact."""
        contested = {
            key: value
            for key, value in zip(canon, values)
            if key in raced or (key in stored and stored[key] != value)
        }
        if self.verifier is not None and fresh:
            self.verifier.notify_kind(kind, [key for key in fresh if key not in raced])
        if not contested:
            return {}
        records = self.store.get_records(kind, list(contested))
        status = {key: STATUS_TO_PB[r.status] for key, r in records.items()}
        if self.verifier is not None:
            for key, value in contested.items():
                record = records.get(key)
                if record is not None and record.status is Status.CLAIMED:
                    self.verifier.contest(key, value, provenance, kind)
        return status

    def _check_values(self, kind: FactKind, keys: Sequence[str], values: Sequence[Any]) -> None:
        if kind is FactKind.NIMBER:
            for i, v in enumerate(values):
                if v > schema.MAX_NIMBER:
                    raise RequestError(f"key {i}: nimber {v} is out of range (at most 2**63-1)")
        elif kind is FactKind.MISERE:
            for i, v in enumerate(values):
                if v not in ("L", "W"):
                    raise RequestError(f"key {i}: a misère outcome is 'L' or 'W', got {v!r:.40}")
        elif kind is FactKind.POS_RCT:
            first_use: dict[str, int] = {}
            for i, v in enumerate(values):
                first_use.setdefault(self.validator.content_id(v, f"key {i}: value"), i)
            self._require_rcts(first_use, "position → RCT facts naming it")
        else:
            for i, (key, record) in enumerate(zip(keys, values)):
                self.validator.rct_record(key, record, i)

    @rpc
    def Insert(self, request: Any, context: grpc.ServicerContext) -> Any:
        provenance = self._writer_provenance(request.provenance, context)
        done = self._insert(request, provenance)
        response = pb.InsertResponse(inserted=done.inserted, unchanged=done.unchanged)
        response.status.extend(done.status)
        if done.canonical is not None:
            response.canonical.extend(
                "" if c == k else c for c, k in zip(done.canonical, request.keys)
            )
        response.conflicts.extend(done.conflicts)
        return response

    @rpc
    def InsertStream(self, request_iterator: Iterator[Any], context: grpc.ServicerContext) -> Any:
        response = pb.InsertStreamResponse()
        provenance: Provenance | None = None
        room = self.limits.max_reported_conflicts
        for chunk in request_iterator:
            if provenance is None or chunk.HasField("provenance"):
                provenance = self._writer_provenance(chunk.provenance, context)
            try:
                done = self._insert(chunk, provenance, base=response.facts)
            except RequestError as error:
                raise RequestError(
                    f"chunk {response.chunks} (facts from {response.facts:,}): {error}; the "
                    f"{response.chunks} chunks before it ({response.facts:,} facts) were "
                    "committed"
                ) from None
            response.chunks += 1
            response.facts += len(chunk.keys)
            response.inserted += done.inserted
            response.unchanged += done.unchanged
            response.conflict_count += done.conflict_count
            if room > 0:
                response.conflicts.extend(done.conflicts[:room])
                room -= min(room, len(done.conflicts))
        return response

    # --- RCTs -----------------------------------------------------------------------------

    @rpc
    def GetRcts(self, request: Any, context: grpc.ServicerContext) -> Any:
        ids = list(request.ids)
        self.limits.check_count("GetRcts", len(ids))
        for i, cid in enumerate(ids):
            self.validator.content_id(cid, f"id {i}")
        response = pb.GetRctsResponse()
        if not request.closure:
            found = self.store.get(FactKind.RCT, ids)
            for cid in dict.fromkeys(ids):
                if cid in found:
                    response.ids.append(cid)
                    response.records.append(rct_to_pb(found[cid]))
                else:
                    response.missing.append(cid)
            return response
        limit = self.limits.max_rct_closure
        seen: dict[str, RctRecord] = {}
        missing: list[str] = []
        frontier = list(dict.fromkeys(ids))
        asked = set(frontier)
        while frontier:
            found = self.store.get(FactKind.RCT, frontier)
            following: list[str] = []
            for cid in frontier:
                record = found.get(cid)
                if record is None:
                    missing.append(cid)
                    continue
                seen[cid] = record
                for child in record.children:
                    if child not in asked:
                        asked.add(child)
                        following.append(child)
            if len(asked) > limit:
                raise PreconditionError(
                    f"GetRcts: the closure holds more than {limit:,} RCTs (the limit); fetch "
                    "whole tables with StreamRctTable"
                )
            frontier = following
        for cid, record in sorted(seen.items(), key=lambda kv: (kv[1].height, kv[0])):
            response.ids.append(cid)
            response.records.append(rct_to_pb(record))
        response.missing.extend(missing)
        return response

    def table_stream(self, entry: TableEntry) -> _TableStream:
        """The table as stream columns, built once (the loaded algebra is then dropped)."""
        with self._streams_lock:
            cached = self._streams.get(entry.root)
            if cached is not None:
                return cached
            return self._build_table_stream(entry)

    def _build_table_stream(self, entry: TableEntry) -> _TableStream:
        table = self.tables.loaded(entry)
        ids: list[str] = []
        records: list[Any] = []
        for cid, record in table.records():
            ids.append(cid)
            records.append(rct_to_pb(record))
        index = {cid: i for i, cid in enumerate(ids)}
        positions = sorted(table.positions)
        rct_index = [index[table.rct_id_of(p)] for p in positions]  # type: ignore[index]
        stream = _TableStream(ids, records, positions, rct_index)
        with entry.lock:
            entry.table = None  # the stream keeps what it needs; the algebra can go
            self._streams[entry.root] = stream
        return stream

    @rpc_stream
    def StreamRctTable(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        entry = self.tables.get(request.root)
        if entry is None:
            served = ", ".join(self.tables.entries) or "none"
            raise NotFoundError(
                f"no RCT table with root {request.root!r} on this server (it serves: {served})"
            )
        chunk = min(request.chunk_size or DEFAULT_CHUNK, self.limits.max_chunk)
        stream = self.table_stream(entry)
        yield pb.RctTableChunk(
            header=pb.RctTableHeader(
                root=entry.root,
                game=str(entry.header.get("game", "")),
                canon_version=int(entry.header.get("canon_version", 0)),
                rcts=len(stream.ids),
                positions=len(stream.positions),
                header_json=json.dumps(entry.header, sort_keys=True),
                checksum=entry.checksum,
            )
        )
        for start in range(0, len(stream.ids), chunk):
            if not context.is_active():
                return
            yield pb.RctTableChunk(
                rcts=pb.RctChunk(
                    ids=stream.ids[start : start + chunk],
                    records=stream.records[start : start + chunk],
                )
            )
        chunk *= 4  # a position is one short string and an int
        for start in range(0, len(stream.positions), chunk):
            if not context.is_active():
                return
            yield pb.RctTableChunk(
                positions=pb.PositionChunk(
                    positions=stream.positions[start : start + chunk],
                    rct_index=stream.rct_index[start : start + chunk],
                )
            )

    # --- Children -------------------------------------------------------------------------

    @rpc
    def Children(self, request: Any, context: grpc.ServicerContext) -> Any:
        positions = list(request.positions)
        self.limits.check_count("Children", len(positions), self.limits.max_children_positions)
        canon = [self.validator.canonical(p, i) for i, p in enumerate(positions)]
        budget = self._budget("Children", context)
        for i, key in enumerate(canon):
            budget.admit(key, i)
        response = pb.ChildrenResponse()
        if canon != positions:
            response.canonical.extend("" if c == p else c for c, p in zip(canon, positions))
        for i, key in enumerate(canon):
            budget.tick(f" (cut at position {i} of {len(canon)})")
            response.children.add().children.extend(sorted(self.game.children(key)))
        return response

    # --- Verify ---------------------------------------------------------------------------

    @rpc
    def Verify(self, request: Any, context: grpc.ServicerContext) -> Any:
        key = self.validator.canonical(request.position, 0)
        budget = self._budget("Verify", context)
        checker = Checker(BudgetedGame(self.game, budget), BudgetedSource(self.store, budget))
        report = checker.check(key, outcome_only=request.outcome_only)
        response = pb.VerifyResponse(
            position=key,
            ok=report.ok,
            has_nimber=report.nimber is not None,
            nimber=report.nimber or 0,
            outcome=report.outcome or "",
            facts_used=len(report.used),
            facts_checked=len(report.verified),
        )
        for hole in report.missing:
            response.missing.add(
                couple=hole.couple, needed_by=hole.needed_by, missing=list(hole.missing)
            )
        for bad in report.inconsistent:
            response.inconsistent.add(land=bad.land, stored=bad.stored, reason=bad.reason)
        return response

    def _budget(self, what: str, context: grpc.ServicerContext) -> Budget:
        return Budget(what, self.limits.max_children_work, self.limits.request_seconds, context)

    # --- Export ---------------------------------------------------------------------------

    @rpc_stream
    def Export(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        kind = kind_from_pb(request.kind)
        after = decode_page_token(request.page_token, kind)
        size = min(request.chunk_size or DEFAULT_CHUNK, self.limits.max_chunk)
        limit = request.limit or None
        sent_provenance: set[int] = set()
        records = self.store.iter_records(kind, start_after=after)
        taken = 0
        pending: tuple[str, Any] | None = next(records, None)
        while pending is not None and (limit is None or taken < limit):
            if not context.is_active():
                return
            batch: list[tuple[str, Any]] = []
            room = size if limit is None else min(size, limit - taken)
            while pending is not None and len(batch) < room:
                batch.append(pending)
                pending = next(records, None)
            taken += len(batch)
            chunk = pb.ExportChunk(kind=KIND_TO_PB[kind])
            chunk.keys.extend(key for key, _ in batch)
            fill_column(chunk, kind, [r.value for _, r in batch])
            chunk.status.extend(STATUS_TO_PB[r.status] for _, r in batch)
            chunk.provenance.extend(r.provenance for _, r in batch)
            new_ids = {r.provenance for _, r in batch} | {
                r.verified_by for _, r in batch if r.verified_by
            }
            new_ids -= sent_provenance
            for pid, prov in self._provenance_records(new_ids).items():
                chunk.provenance_records[pid].CopyFrom(provenance_to_pb(prov))
            sent_provenance |= new_ids
            if pending is not None:
                chunk.next_page_token = encode_page_token(kind, batch[-1][0])
            self.metrics.add(facts_exported=len(batch))
            yield chunk

    # --- Stats and ServerInfo -------------------------------------------------------------

    @rpc
    def Stats(self, request: Any, context: grpc.ServicerContext) -> Any:
        stats = self.store.stats()
        metrics = self.metrics
        p50, p99, worst = metrics.latency()
        totals = metrics.totals
        response = pb.StatsResponse(
            keys_looked_up=totals["keys_looked_up"],
            keys_found=totals["keys_found"],
            facts_offered=totals["facts_offered"],
            facts_inserted=totals["facts_inserted"],
            facts_unchanged=totals["facts_unchanged"],
            conflicts=totals["conflicts"],
            commits=(stats["writer"] or {}).get("commits", 0),
            commit_p50_ms=p50,
            commit_p99_ms=p99,
            commit_max_ms=worst,
            uptime_seconds=time.monotonic() - metrics.started,
            store_bytes=stats["used_bytes"],
            store_path=stats["path"],
            in_flight=max(0, metrics.in_flight - 1),
        )
        for table, n in stats["counts"].items():
            response.facts[table] = n
        for table, n in stats["verified"].items():
            response.verified[table] = n
            response.claimed[table] = max(0, stats["counts"].get(table, 0) - n)
        for table, n in stats["refuted"].items():
            response.refuted[table] = n
        if self.verifier is not None:
            figures = self.verifier.figures()
            response.verifier_backlog = figures["backlog"]
            response.verifier_waiting = figures["waiting"]
            response.verifier_checks = figures["checks"]
            response.verifier_scanning = figures["scanning"]
        if self.seeding is not None:
            seeding = self.seeding()
            response.results_total = seeding["total"]
            response.results_done = seeding["done"]
            for action, n in seeding["counts"].items():
                response.results[action] = n
            response.results_seeding = seeding["running"]
            response.results_current = seeding["current"]
            eta = seeding["eta_seconds"]
            response.results_eta_seconds = -1.0 if eta is None else eta
        for name, n in list(metrics.requests.items()):
            response.requests[name] = n
        for code, n in list(metrics.errors.items()):
            response.errors[code] = n
        return response

    @rpc
    def ServerInfo(self, request: Any, context: grpc.ServicerContext) -> Any:
        limits = self.limits
        identity = self.store.identity
        response = pb.ServerInfoResponse(
            api="sproutsdb.v1",
            server_version=__version__,
            game=identity.game,
            canon_version=identity.canon_version,
            schema_version=identity.schema_version,
            engine=get_game(identity.game).implementation,
            writes_need_token=self.writes_need_token,
            tls=self.tls,
            limits=pb.Limits(
                max_keys=limits.max_keys,
                max_key_bytes=limits.max_key_bytes,
                max_message_bytes=limits.max_message_bytes,
                max_children_positions=limits.max_children_positions,
                max_chunk=limits.max_chunk,
                max_rct_closure=limits.max_rct_closure,
                max_reported_conflicts=limits.max_reported_conflicts,
                max_position_vertices=limits.max_position_vertices,
                max_children_work=limits.max_children_work,
                request_seconds=limits.request_seconds,
            ),
        )
        for entry in self.tables.entries.values():
            counts = entry.counts
            response.rct_tables.add(
                root=entry.root,
                rcts=counts.get("rcts", 0),
                positions=counts.get("positions", 0),
                checksum=entry.checksum,
            )
        return response


def _served_record(record: Any, verified_only: bool) -> bool:
    """Whether a looked-up record is served as a value: never a refuted claim, and a
    claimed one only when the reader accepts claims (the rule of every reader of values,
    sproutsdb.values.usable)."""
    return usable(record, verified_only)


def _refutation_json(record: Any) -> str:
    if record is None or record.refutation is None:
        return ""
    return json.dumps(record.refutation.to_json(), sort_keys=True, default=str)


_DEFAULTS: dict[FactKind, Any] = {
    FactKind.NIMBER: 0,
    FactKind.MISERE: "",
    FactKind.POS_RCT: "",
    FactKind.RCT: RctRecord(0, "", ()),
}


__all__ = ["SproutsDbService"]
