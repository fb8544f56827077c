"""`Client`: the typed Python client of the sproutsdb gRPC service.

Batch methods take and return plain Python values (`FactKind`, `RctRecord`, ints and
strings); batches larger than the server's limit are split transparently. Every call has
a deadline (`timeout`); unary calls are retried on UNAVAILABLE with exponential backoff
(reads are harmless to repeat and inserts are idempotent: an insert acknowledged twice is
UNCHANGED the second time). Streams: StreamRctTable is retried while nothing has arrived,
`export_facts` resumes an interrupted Export from its page token, and InsertStream is not
retried (each chunk commits on its own; re-sending the stream is harmless). Failures
surface as `ServiceError`s (a `UserError`): the CLI prints them as one line, e.g.
"server 127.0.0.1:50051 is not answering".

    with Client("127.0.0.1:50051", token=...) as db:
        db.insert(FactKind.NIMBER, {"0*5": 1})
        db.get(FactKind.NIMBER, ["0*5", "0*6"])        # {"0*5": 1}
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar

import grpc

from sproutsdb import __version__
from sproutsdb.errors import UserError, WireError
from sproutsdb.facts import Provenance, Status
from sproutsdb.solver.ports.proofstore import Conflict, FactKind, FactValue, PutResult, RctRecord
from sproutsdb.wire import (
    INSERT_STATUS_NAMES,
    KIND_TO_PB,
    STATUS_FROM_PB,
    column_values,
    fill_column,
    kind_from_pb,
    pb,
    pb_grpc,
    provenance_from_pb,
    provenance_to_pb,
    rct_from_pb,
    value_from_pb,
)

DEFAULT_TIMEOUT = 60.0
DEFAULT_RETRIES = 6
DEFAULT_MAX_KEYS = 10_000
_MESSAGE_BYTES = 64 << 20
T = TypeVar("T")


# --- errors ---------------------------------------------------------------------------------


class ServiceError(UserError):
    """A call the server refused or could not answer; `code` is the gRPC status."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(message)
        self.code = code


class ServerUnavailableError(ServiceError):
    """The server is not answering (down, unreachable, shutting down)."""


class InvalidRequestError(ServiceError):
    """INVALID_ARGUMENT: the server refused what was sent; nothing was changed."""


class AccessDeniedError(ServiceError):
    """UNAUTHENTICATED or PERMISSION_DENIED: a write without the right token."""


def _error_of(address: str, error: grpc.RpcError, attempts: int) -> ServiceError:
    code = error.code() if hasattr(error, "code") else None
    details = (error.details() if hasattr(error, "details") else None) or str(error)
    if code == grpc.StatusCode.UNAVAILABLE:
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        return ServerUnavailableError(
            f"server {address} is not answering{tries} ({details.strip()}); is "
            "`sproutsdb serve` running there?",
            code,
        )
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return ServiceError(f"server {address} did not answer in time ({details})", code)
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        return InvalidRequestError(f"server {address} refused the request: {details}", code)
    if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        return AccessDeniedError(
            f"server {address} refused to write: {details} (give the server's token with "
            "--token-file or $SPROUTSDB_TOKEN)",
            code,
        )
    name = code.name if code is not None else "error"
    return ServiceError(f"server {address}: {name}: {details}", code)


# --- results --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RemoteRecord:
    """A stored fact with its status and provenance id, as Lookup(with_records) reports it."""

    value: FactValue  # for status REFUTED: the refused claim, never a fact
    status: Status
    provenance: int
    verified_by: int | None = None  # refuted: the refuter's provenance id
    refutation: dict[str, Any] | None = None  # refuted: claimed, evidence, proven, ...


@dataclass
class LookupResult:
    """Per key (in the order given): its canonical key and, per kind, the value or None."""

    keys: list[str]
    canonical: list[str]
    values: dict[FactKind, list[FactValue | None]]
    records: dict[FactKind, list[RemoteRecord | None]] = field(default_factory=dict)
    provenance: dict[int, Provenance] = field(default_factory=dict)

    def found(self, kind: FactKind = FactKind.NIMBER) -> dict[str, FactValue]:
        """{key as given: value} of the keys whose fact of `kind` is stored."""
        return {k: v for k, v in zip(self.keys, self.values[kind]) if v is not None}


@dataclass(frozen=True)
class IndexedConflict(Conflict):
    """A Conflict with the index of the item in the insert (or the stream) that caused it."""

    index: int = 0
    stored_claimed: bool = False  # the stored value is a claim, not a proof against the offer


@dataclass
class InsertResult:
    """Per item: canonical key and status ("inserted", "unchanged", "conflict")."""

    keys: list[str]
    canonical: list[str]
    status: list[str]
    conflicts: list[IndexedConflict]
    inserted: int
    unchanged: int

    def as_put_result(self) -> PutResult:
        """The ProofStore port's view; conflicts carry the keys as given (not canonical)."""
        return PutResult(
            inserted=self.inserted,
            unchanged=self.unchanged,
            conflicts=[
                Conflict(c.kind, self.keys[c.index], c.stored, c.offered) for c in self.conflicts
            ],
        )


@dataclass
class StreamResult:
    chunks: int = 0
    facts: int = 0
    inserted: int = 0
    unchanged: int = 0
    conflict_count: int = 0
    conflicts: list[IndexedConflict] = field(default_factory=list)


@dataclass
class ExportPage:
    kind: FactKind
    facts: list[tuple[str, FactValue]]
    records: list[RemoteRecord]
    provenance: dict[int, Provenance]
    next_page_token: str


def _chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _default_provenance() -> Provenance:
    return Provenance(tool="sproutsdb-client", version=__version__)


# --- the client -----------------------------------------------------------------------------


def _same_length(call: str, *columns: Sized) -> None:
    """An answer whose columns (keys, values, statuses...) differ in length is refused, never
    paired up to the shorter one (WireError)."""
    lengths = {len(column) for column in columns}
    if len(lengths) > 1:
        raise WireError(
            f"the server's {call} answer has columns of unequal length ({sorted(lengths)})"
        )


class Client:
    """A connection to one sproutsdb server (thread-safe: share it between threads)."""

    def __init__(
        self,
        address: str,
        token: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        tls: bool = False,
        tls_ca: bytes | None = None,
        provenance: Provenance | None = None,
    ) -> None:
        if not isinstance(address, str) or ":" not in address:
            raise UserError(f"server address {address!r} must be HOST:PORT, e.g. 127.0.0.1:50051")
        self.address = address
        self.timeout = timeout
        self.retries = max(1, retries)
        self.provenance = provenance if provenance is not None else _default_provenance()
        options = [
            ("grpc.max_receive_message_length", _MESSAGE_BYTES),
            ("grpc.max_send_message_length", _MESSAGE_BYTES),
            ("grpc.enable_retries", 0),
        ]
        if tls or tls_ca is not None:
            creds = grpc.ssl_channel_credentials(root_certificates=tls_ca)
            self._channel = grpc.secure_channel(address, creds, options=options)
        else:
            self._channel = grpc.insecure_channel(address, options=options)
        self._stub = pb_grpc.SproutsDbStub(self._channel)
        self._write_metadata: tuple[tuple[str, str], ...] = (
            (("authorization", f"Bearer {token}"),) if token else ()
        )
        self._max_keys: int | None = None

    # --- plumbing -------------------------------------------------------------------------

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<sproutsdb Client {self.address}>"

    def _call(
        self, method: str, request: Any, *, write: bool = False, timeout: float | None = None
    ) -> Any:
        """One unary call with a deadline, retried on UNAVAILABLE with backoff."""
        rpc = getattr(self._stub, method)
        metadata = self._write_metadata if write else ()
        delay = 0.05
        for attempt in range(1, self.retries + 1):
            try:
                return rpc(request, timeout=timeout or self.timeout, metadata=metadata)
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or attempt == self.retries:
                    raise _error_of(self.address, error, attempt) from None
            time.sleep(delay)
            delay = min(delay * 2, 2.0)
        raise AssertionError("unreachable")

    @property
    def max_keys(self) -> int:
        """Keys per request the server accepts (asked once)."""
        if self._max_keys is None:
            limits = self._call("ServerInfo", pb.ServerInfoRequest()).limits
            self._max_keys = limits.max_keys or DEFAULT_MAX_KEYS
        return self._max_keys

    # --- reads ----------------------------------------------------------------------------

    def lookup(
        self,
        keys: Iterable[str],
        kinds: Iterable[FactKind | str] = (FactKind.NIMBER,),
        *,
        with_records: bool = False,
        verified_only: bool = False,
    ) -> LookupResult:
        """What the server knows of each key, for each kind (batched, in order). With
        `verified_only`, claimed facts count as not found; `with_records` adds each
        fact's status and provenance, and refuted claims (status REFUTED, no value)."""
        keys = _key_list(keys)
        kind_list = [FactKind(k) for k in kinds]
        result = LookupResult(keys, [], {k: [] for k in kind_list})
        if with_records:
            result.records = {k: [] for k in kind_list}
        for part in _chunks(keys, self.max_keys):
            request = pb.LookupRequest(
                keys=part,
                kinds=[KIND_TO_PB[k] for k in kind_list],
                with_records=with_records,
                verified_only=verified_only,
            )
            response = self._call("Lookup", request)
            if response.canonical:
                result.canonical.extend(c or k for c, k in zip(response.canonical, part))
            else:
                result.canonical.extend(part)
            for column in response.columns:
                kind = kind_from_pb(column.kind)
                values = column_values(column, kind)
                found = column.found
                columns = [part, values, found]
                if with_records:
                    columns += [column.status, column.provenance, column.verified_by]
                _same_length("Lookup", *columns)
                result.values[kind].extend(v if f else None for v, f in zip(values, found))
                if with_records:
                    refutations = list(column.refutation) or [""] * len(part)
                    result.records[kind].extend(
                        _remote_record(v, f, s, p, b, r)
                        for v, f, s, p, b, r in zip(
                            values,
                            found,
                            column.status,
                            column.provenance,
                            column.verified_by,
                            refutations,
                        )
                    )
            for pid, prov in response.provenance.items():
                result.provenance[pid] = provenance_from_pb(prov)
        return result

    def get(
        self, kind: FactKind | str, keys: Iterable[str], *, verified_only: bool = False
    ) -> dict[str, FactValue]:
        """{key as given: value} for the keys whose fact is stored (like ProofStore.get);
        with `verified_only`, only verified facts."""
        kind = FactKind(kind)
        return self.lookup(keys, (kind,), verified_only=verified_only).found(kind)

    def get_rcts(
        self, ids: Iterable[str], *, closure: bool = False
    ) -> tuple[dict[str, RctRecord], list[str]]:
        """(records by content id, missing ids); with closure, every RCT below too,
        children first."""
        ids = _key_list(ids)
        records: dict[str, RctRecord] = {}
        missing: list[str] = []
        parts = [ids] if closure else list(_chunks(ids, self.max_keys))
        for part in parts:
            response = self._call("GetRcts", pb.GetRctsRequest(ids=part, closure=closure))
            for cid, record in zip(response.ids, response.records):
                records[cid] = rct_from_pb(record)
            missing.extend(response.missing)
        return records, missing

    def rct_table(self, root: str = "", *, chunk_size: int = 0) -> Any:
        """The server's RCT table of `root` ("" = its default, the S6 table) as an RctTable,
        rebuilt locally: every record is re-derived (Algebra.from_records)."""
        from sproutsdb.formats.rcttable import RctTable
        from sproutsdb.solver.cgt import Algebra

        header: Any = None
        ids: list[str] = []
        records: list[tuple[str, RctRecord]] = []
        positions: list[tuple[str, int]] = []
        request = pb.StreamRctTableRequest(root=root, chunk_size=chunk_size)
        for message in self._stream("StreamRctTable", request):
            part = message.WhichOneof("part")
            if part == "header":
                header = message.header
            elif part == "rcts":
                for cid, record in zip(message.rcts.ids, message.rcts.records):
                    ids.append(cid)
                    records.append((cid, rct_from_pb(record)))
            elif part == "positions":
                positions.extend(zip(message.positions.positions, message.positions.rct_index))
        if header is None or len(ids) != header.rcts or len(positions) != header.positions:
            raise ServiceError(f"server {self.address}: the RCT table stream was incomplete")
        algebra = Algebra.from_records(records)
        handles = [algebra.handle(cid) for cid in ids]
        return RctTable(
            algebra,
            {p: handles[i] for p, i in positions},
            header=json.loads(header.header_json or "{}"),
        )

    def children(self, positions: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """{position as given: its distinct canonical children, sorted}."""
        positions = _key_list(positions)
        out: dict[str, tuple[str, ...]] = {}
        limit = 1000
        for part in _chunks(positions, limit):
            response = self._call("Children", pb.ChildrenRequest(positions=part))
            for position, kids in zip(part, response.children):
                out[position] = tuple(kids.children)
        return out

    def verify(self, position: str, *, outcome_only: bool = False) -> dict[str, Any]:
        """Have the server re-derive a position's result from its stored facts alone:
        {position, ok, nimber, outcome, facts_used, facts_checked, missing, inconsistent}."""
        r = self._call("Verify", pb.VerifyRequest(position=position, outcome_only=outcome_only))
        return {
            "position": r.position,
            "ok": r.ok,
            "nimber": r.nimber if r.has_nimber else None,
            "outcome": r.outcome or None,
            "facts_used": r.facts_used,
            "facts_checked": r.facts_checked,
            "missing": [
                {"couple": h.couple, "needed_by": h.needed_by, "missing": list(h.missing)}
                for h in r.missing
            ],
            "inconsistent": [
                {"land": i.land, "stored": i.stored, "reason": i.reason} for i in r.inconsistent
            ],
        }

    def canonical(self, positions: Iterable[str]) -> list[str]:
        """The canonical keys of positions, as the server reads them."""
        return self.lookup(positions).canonical

    def export(
        self, kind: FactKind | str, *, page_token: str = "", chunk_size: int = 0, limit: int = 0
    ) -> Iterator[ExportPage]:
        """The stored facts of a kind, page by page, in store order. Each page's
        next_page_token resumes right after it (also in another process)."""
        kind = FactKind(kind)
        request = pb.ExportRequest(
            kind=KIND_TO_PB[kind], page_token=page_token, chunk_size=chunk_size, limit=limit
        )
        for chunk in self._stream("Export", request, retry=False):
            values = column_values(chunk, kind)
            _same_length("Export", chunk.keys, values, chunk.status, chunk.provenance)
            yield ExportPage(
                kind,
                list(zip(chunk.keys, values)),
                [
                    RemoteRecord(v, STATUS_FROM_PB[s], p)
                    for v, s, p in zip(values, chunk.status, chunk.provenance)
                ],
                {pid: provenance_from_pb(p) for pid, p in chunk.provenance_records.items()},
                chunk.next_page_token,
            )

    def export_facts(
        self, kind: FactKind | str, *, chunk_size: int = 0
    ) -> Iterator[tuple[str, FactValue]]:
        """Every stored (key, value) of a kind; an interrupted stream resumes where it was."""
        token = ""
        failures = 0
        while True:
            try:
                for page in self.export(kind, page_token=token, chunk_size=chunk_size):
                    yield from page.facts
                    failures = 0
                    if not page.next_page_token:
                        return
                    token = page.next_page_token
                return
            except ServerUnavailableError:
                failures += 1
                if failures >= self.retries:
                    raise
                time.sleep(min(0.05 * 2**failures, 2.0))

    def _stream(self, method: str, request: Any, *, retry: bool = True) -> Iterator[Any]:
        rpc = getattr(self._stub, method)
        attempts = self.retries if retry else 1
        for attempt in range(1, attempts + 1):
            received = False
            try:
                for message in rpc(request, timeout=self.timeout):
                    received = True
                    yield message
                return
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or received or attempt == attempts:
                    raise _error_of(self.address, error, attempt) from None
            time.sleep(min(0.05 * 2**attempt, 2.0))

    def stats(self) -> dict[str, Any]:
        """The server's counters and store figures (maps in a stable order: a protobuf map
        arrives in any order)."""
        r = self._call("Stats", pb.StatsRequest())
        return {
            "facts": _by_kind(r.facts),
            "verified": _by_kind(r.verified),
            "requests": dict(sorted(r.requests.items())),
            "errors": dict(sorted(r.errors.items())),
            "keys_looked_up": r.keys_looked_up,
            "keys_found": r.keys_found,
            "facts_offered": r.facts_offered,
            "facts_inserted": r.facts_inserted,
            "facts_unchanged": r.facts_unchanged,
            "conflicts": r.conflicts,
            "commits": r.commits,
            "commit_ms": {
                "p50": round(r.commit_p50_ms, 3),
                "p99": round(r.commit_p99_ms, 3),
                "max": round(r.commit_max_ms, 3),
            },
            "uptime_seconds": round(r.uptime_seconds, 3),
            "store_bytes": r.store_bytes,
            "store_path": r.store_path,
            "in_flight": r.in_flight,
            "claimed": dict(r.claimed),
            "refuted": dict(r.refuted),
            "verifier": {
                "backlog": r.verifier_backlog,
                "waiting": r.verifier_waiting,
                "checks": r.verifier_checks,
                "scanning": r.verifier_scanning,
            },
            "results_library": {
                "total": r.results_total,
                "done": r.results_done,
                "counts": dict(sorted(r.results.items())),
                "seeding": r.results_seeding,
                "current": r.results_current,
                "eta_seconds": None if r.results_eta_seconds < 0 else r.results_eta_seconds,
            },
        }

    def server_info(self) -> dict[str, Any]:
        """Versions, game, canon_version, limits and the RCT tables the server serves."""
        r = self._call("ServerInfo", pb.ServerInfoRequest())
        limits = r.limits
        self._max_keys = limits.max_keys or DEFAULT_MAX_KEYS
        return {
            "address": self.address,
            "api": r.api,
            "server_version": r.server_version,
            "game": r.game,
            "canon_version": r.canon_version,
            "schema_version": r.schema_version,
            "engine": r.engine,
            "writes_need_token": r.writes_need_token,
            "tls": r.tls,
            "limits": {f.name: getattr(limits, f.name) for f in limits.DESCRIPTOR.fields},
            "rct_tables": [
                {"root": t.root, "rcts": t.rcts, "positions": t.positions, "checksum": t.checksum}
                for t in r.rct_tables
            ],
        }

    def health(self, service: str = "") -> str:
        """The standard health check: "SERVING", "NOT_SERVING", ..."""
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        # typeshed's HealthStub declares no methods (the generated class sets them in
        # __init__); Check is the standard unary call of grpc.health.v1.
        stub: Any = health_pb2_grpc.HealthStub(self._channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=self.timeout)
        except grpc.RpcError as error:
            raise _error_of(self.address, error, 1) from None
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))

    # --- writes ---------------------------------------------------------------------------

    def _insert_request(
        self,
        kind: FactKind,
        keys: Sequence[str],
        values: Sequence[Any],
        provenance: Provenance | None,
    ) -> Any:
        request = pb.InsertRequest(kind=KIND_TO_PB[kind], keys=keys)
        fill_column(request, kind, values)
        request.provenance.CopyFrom(provenance_to_pb(provenance or self.provenance))
        return request

    def insert(
        self,
        kind: FactKind | str,
        items: Mapping[str, Any] | Iterable[tuple[str, Any]],
        *,
        provenance: Provenance | None = None,
    ) -> InsertResult:
        """Store facts; returns once they are committed. Identical re-inserts are
        "unchanged"; a different value for a stored key is a conflict (kept as stored).
        More than the server's max_keys items go in several requests, each atomic."""
        kind = FactKind(kind)
        pairs = list(items.items() if isinstance(items, Mapping) else items)
        result = InsertResult([k for k, _ in pairs], [], [], [], 0, 0)
        base = 0
        for part in _chunks(pairs, self.max_keys):
            keys = [k for k, _ in part]
            request = self._insert_request(kind, keys, [v for _, v in part], provenance)
            response = self._call("Insert", request, write=True)
            if response.canonical:
                result.canonical.extend(c or k for c, k in zip(response.canonical, keys))
            else:
                result.canonical.extend(keys)
            result.status.extend(INSERT_STATUS_NAMES[s] for s in response.status)
            result.conflicts.extend(_conflict(kind, c, base) for c in response.conflicts)
            result.inserted += response.inserted
            result.unchanged += response.unchanged
            base += len(part)
        return result

    def insert_stream(
        self,
        facts: Iterable[tuple[FactKind | str, str, Any]],
        *,
        chunk_size: int = 1000,
        provenance: Provenance | None = None,
    ) -> StreamResult:
        """Bulk load of (kind, key, value) facts on one InsertStream, in chunks of one kind.
        Each chunk commits on its own; an error names the chunk that failed."""
        chunk_size = max(1, min(chunk_size, self.max_keys))
        prov = provenance or self.provenance

        def requests() -> Iterator[Any]:
            current: FactKind | None = None
            keys: list[str] = []
            values: list[Any] = []
            first = True
            for kind_, key, value in facts:
                kind = FactKind(kind_)
                if keys and (kind is not current or len(keys) >= chunk_size):
                    yield self._chunk(current, keys, values, prov if first else None)
                    first = False
                    keys, values = [], []
                current = kind
                keys.append(key)
                values.append(value)
            if keys:
                yield self._chunk(current, keys, values, prov if first else None)

        try:
            response = self._stub.InsertStream(
                requests(), timeout=None, metadata=self._write_metadata
            )
        except grpc.RpcError as error:
            raise _error_of(self.address, error, 1) from None
        return StreamResult(
            response.chunks,
            response.facts,
            response.inserted,
            response.unchanged,
            response.conflict_count,
            [_conflict(kind_from_pb(_kind_of_value(c)), c, 0) for c in response.conflicts],
        )

    def _chunk(
        self,
        kind: FactKind | None,
        keys: list[str],
        values: list[Any],
        provenance: Provenance | None,
    ) -> Any:
        assert kind is not None
        request = pb.InsertRequest(kind=KIND_TO_PB[kind], keys=keys)
        fill_column(request, kind, values)
        if provenance is not None:
            request.provenance.CopyFrom(provenance_to_pb(provenance))
        return request


_VALUE_KIND = {
    "nimber": pb.FACT_KIND_NIMBER,
    "outcome": pb.FACT_KIND_MISERE,
    "rct": pb.FACT_KIND_RCT,
    "rct_id": pb.FACT_KIND_POS_RCT,
}


def _kind_of_value(conflict: Any) -> int:
    return _VALUE_KIND[conflict.stored.WhichOneof("value") or "nimber"]


def _conflict(kind: FactKind, msg: Any, base: int) -> IndexedConflict:
    # a server's Conflict always carries both values: never None here
    return IndexedConflict(
        kind,
        msg.key,
        value_from_pb(msg.stored),  # type: ignore[arg-type]
        value_from_pb(msg.offered),  # type: ignore[arg-type]
        index=base + msg.index,
        stored_claimed=msg.stored_status == pb.FACT_STATUS_CLAIMED,
    )


def _remote_record(
    value: Any, found: bool, status: int, provenance: int, verifier: int, refutation: str
) -> RemoteRecord | None:
    """A looked-up record: a found fact, or a refuted claim (status REFUTED, no value)."""
    if refutation:
        data = json.loads(refutation)
        return RemoteRecord(
            data.get("claimed"), STATUS_FROM_PB[status], provenance, verifier or None, data
        )
    if not found:
        return None
    return RemoteRecord(value, STATUS_FROM_PB[status], provenance, verifier or None)


def _key_list(keys: Iterable[str]) -> list[str]:
    if isinstance(keys, (str, bytes)):
        raise UserError(f"expected a sequence of keys, got the single string {keys!r:.80}")
    out = list(keys)
    for key in out:
        if not isinstance(key, str):
            raise UserError(f"keys are strings, got {type(key).__name__} {key!r:.80}")
    return out


# The order in which fact kinds are listed (the store's sub-databases): kinds first, then
# the children cache, then anything newer by name.
_KIND_ORDER = [kind.value for kind in FactKind] + ["children"]


def _by_kind(counts: Mapping[str, int]) -> dict[str, int]:
    """A map of fact kind → count in the store's order, whatever order it arrived in."""

    def rank(name: str) -> tuple[int, str]:
        return (_KIND_ORDER.index(name) if name in _KIND_ORDER else len(_KIND_ORDER), name)

    return {name: counts[name] for name in sorted(counts, key=rank)}
