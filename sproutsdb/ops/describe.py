"""Describe a position: the values a store (or a server) holds of it, with their statuses.

`describe(store, position)` gives a position's `PositionValues`: each land's stored nimber
with its status (verified, claimed, or a refuted claim with its evidence) and provenance,
the nimber and outcome they add up to, the position → RCT map of each land and of the
position, the misère outcome (stored, else from the position's RCT), values derived from
RCTs (under keys of their own, never in place of stored ones) and the R1 note's rule. The
`query` command prints it; its JSON is `PositionValues.to_json()`. The records are read by
the one reader of stored values, `sproutsdb.values` (shared with the web reader and the
gRPC Lookup, which sit in server/, below this layer).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.facts import Provenance
from sproutsdb.games import DEFAULT_GAME, get_game
from sproutsdb.solver.extras.r1 import Part, R1Verdict, r1_rule
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.store import LmdbProofStore
from sproutsdb.values import StoredValues, read_values, refutation_json, status_name, usable


@dataclass(frozen=True)
class PositionValues:
    """A position's values as `describe` found them: the canonical key, its lands, the
    records read (`stored`) and the report built on them (`to_json`)."""

    position: str
    lands: list[str]
    stored: StoredValues
    report: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The report as `sproutsdb query --json` prints it."""
        return self.report


def describe(
    store: Any,
    position: str,
    game: str | None = None,
    *,
    verified_only: bool = False,
    shipped_rcts: bool = True,
) -> PositionValues:
    """The values `store` holds of `position` (of `game`, default Sprouts): an embedded
    store (LmdbProofStore, read only), a server's RemoteProofStore or a Client. With
    `verified_only`, claims are shown but not used. A local store without RCTs takes the
    lands' RCTs from the shipped S6 table (`shipped_rcts`); nothing is ever written."""
    engine = get_game(game or DEFAULT_GAME).engine()
    key = engine.canonical(position)
    lands = list(engine.components(key))
    wanted = sorted(set(lands) | {key})
    if not isinstance(store, LmdbProofStore):  # a server: each kind looked up alone
        client = getattr(store, "client", store)  # a RemoteProofStore's, or a Client
        stored = read_values(_ClientRecords(client), nimbers=lands, misere=[key], pos_rct=wanted)
        report = _report(key, lands, stored, client, verified_only)
        report = {"position": report.pop("position"), "server": client.address, **report}
        return PositionValues(key, lands, stored, report)
    from sproutsdb.ops.shipped_rcts import describe_source, shipped_rct_table
    from sproutsdb.solver.misere.solver import TableRcts

    source: Any = store
    rct_source = describe_source("store", str(store.path))
    shipped = None
    if shipped_rcts and not (store.count(FactKind.RCT) or store.count(FactKind.POS_RCT)):
        shipped = shipped_rct_table()  # a store without RCTs: the shipped S6 table
    if shipped is not None:
        table, path = shipped
        stored = read_values(store, nimbers=lands, misere=[key])
        stored.pos_rct = {
            k: _TableEntry(cid) for k in wanted if (cid := table.rct_id_of(k)) is not None
        }
        source, rct_source = TableRcts(table), describe_source("shipped", str(path))
    else:
        stored = read_values(store, nimbers=lands, misere=[key], pos_rct=wanted)
    report = _report(key, lands, stored, source, verified_only)
    report["rct_table"] = rct_source
    return PositionValues(key, lands, stored, report)


def _report(
    key: str, lands: list[str], stored: StoredValues, source: Any, verified_only: bool
) -> dict[str, Any]:
    return _query_report(
        key,
        lands,
        stored.nimbers,
        stored.provenance,
        stored.pos_rct,
        stored.misere.get(key),
        source,
        verified_only=verified_only,
    )


class _ClientRecords:
    """A server's facts read as records (Lookup with_records, one kind a call), and the
    provenance records those lookups named."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.provenance: dict[int, Provenance] = {}

    def get_records(
        self, kind: FactKind, keys: Iterable[str], *, refuted: bool = False
    ) -> dict[str, Any]:
        keys = list(keys)
        looked = self.client.lookup(keys, (kind,), with_records=True)
        self.provenance.update(looked.provenance)
        return {k: r for k, r in zip(keys, looked.records[kind]) if r is not None}

    def provenance_records(self) -> dict[int, Provenance]:
        return self.provenance


def _derive_from_rcts(
    source: Any, lands: list[str], rct_ids: dict[str, str]
) -> tuple[Any, dict[str, int]] | None:
    """(algebra, {land: handle}) of the lands whose RCT the store (or server) maps them
    to, read with StoreRcts (records re-derived); None, with a warning, when the store's
    RCT records are missing or wrong. Reads only: nothing is ever written."""
    from sproutsdb.solver.cgt.records import RctRecordError
    from sproutsdb.solver.misere.solver import MisereConflictError, StoreRcts, TableRcts

    wanted = [land for land in lands if land in rct_ids]
    if not wanted:
        return None
    mapped: Any = _Mapped(source, rct_ids)
    rcts = source if isinstance(source, TableRcts) else StoreRcts(mapped)
    try:
        handles = rcts.lookup(wanted)
    except (MisereConflictError, RctRecordError) as error:
        print(f"sproutsdb query: cannot read the RCTs of the store: {error}", file=sys.stderr)
        return None
    return rcts.algebra, handles


class _Mapped:
    """A store (or client) whose position → RCT map is the one `query` decided to use (only
    verified entries with --verified); RCT records are read as stored (re-derived on load)."""

    def __init__(self, source: Any, rct_ids: dict[str, str]) -> None:
        self.source = source
        self.rct_ids = rct_ids

    def get(self, kind: FactKind, keys: Any) -> dict[str, Any]:
        if kind is FactKind.POS_RCT:
            return {k: self.rct_ids[k] for k in keys if k in self.rct_ids}
        return dict(self.source.get(kind, list(keys)))


def _provenance_json(provenance: dict[int, Any], pid: int | None) -> dict[str, Any] | None:
    """A provenance record as JSON: who, token name, tool, version, when, comment."""
    record = provenance.get(pid) if pid else None
    return None if record is None or pid is None else record.as_dict(pid)


def _land_entry(
    land: str,
    record: Any,
    provenance: dict[int, Any],
    known: dict[str, int],
    verified_only: bool,
) -> dict[str, Any]:
    """One land of the report: its nimber fact (or claim, or refuted claim)."""
    entry: dict[str, Any] = {"land": land, "nimber": None}
    status = status_name(record)
    if record is not None and status == "refuted":
        entry.update(
            status="refuted",
            claimed=record.value,
            refutation=refutation_json(record),
            claimed_by=_provenance_json(provenance, record.provenance),
            refuted_by=_provenance_json(provenance, record.verified_by),
        )
    elif record is not None and (status == "verified" or not verified_only):
        known[land] = int(record.value)
        source_of = provenance.get(record.provenance)
        entry.update(
            nimber=record.value,
            status=status,
            provenance=None if source_of is None else source_of.describe(),
            provenance_record=_provenance_json(provenance, record.provenance),
            verified_by=_provenance_json(provenance, record.verified_by),
        )
    elif record is not None:
        entry.update(
            status=status,
            claimed=record.value,
            provenance_record=_provenance_json(provenance, record.provenance),
        )
    return entry


def _rct_fields(record: Any, verified_only: bool) -> dict[str, Any]:
    """What the report says of a position → RCT fact: the id used (None when it may not
    be used), its status, and the id of a claim not used or refuted."""
    status = status_name(record)
    fields: dict[str, Any] = {"rct": None, "rct_status": status}
    if record is None:
        return fields
    if usable(record, verified_only):
        fields["rct"] = str(record.value)
    elif status == "refuted":
        fields["rct_refuted"] = str(record.value)
        fields["rct_refutation"] = refutation_json(record)
    else:
        fields["rct_claimed"] = str(record.value)
    return fields


def _query_report(
    key: str,
    lands: list[str],
    records: dict[str, Any],
    provenance: dict[int, Any],
    rct_records: dict[str, Any],
    misere: Any,
    source: Any,
    *,
    verified_only: bool = False,
) -> dict[str, Any]:
    """The report of `query`: stored facts first, each with its status; values derived
    from stored RCTs are added under keys of their own (``*_from_rct``), never in place of
    stored ones. A refuted claim is shown with its evidence, never as a value; with
    `verified_only` neither is a claim (nimber, misère outcome or position → RCT map)."""
    lands_out: list[dict[str, Any]] = []
    report: dict[str, Any] = {
        "position": key,
        "lands": lands_out,
        "trust": "verified facts only" if verified_only else "verified facts and claims",
    }
    known: dict[str, int] = {}
    rct_ids: dict[str, str] = {}
    for land in lands:
        entry = _land_entry(land, records.get(land), provenance, known, verified_only)
        entry.update(_rct_fields(rct_records.get(land), verified_only))
        if entry["rct"] is not None:
            rct_ids[land] = entry["rct"]
        lands_out.append(entry)
    key_rct = _rct_fields(rct_records.get(key), verified_only)
    if key_rct["rct"] is not None:
        rct_ids[key] = key_rct["rct"]
    if len(known) == len(lands):
        total = 0
        for value in known.values():
            total ^= value
        report["nimber"], report["outcome"] = total, ("L" if total == 0 else "W")
    else:
        report["nimber"] = report["outcome"] = None

    derived = _derive_from_rcts(source, lands, rct_ids)
    algebra: Any = None
    handles: dict[str, int] = {}
    if derived is not None:
        algebra, handles = derived
    from_rct: dict[str, int] = {}
    for entry in lands_out:
        land = entry["land"]
        handle = handles.get(land)
        if handle is not None:
            entry["rct_height"] = algebra.height(handle)
            if entry["nimber"] is None:
                from_rct[land] = algebra.nimber(handle)
                entry["nimber_from_rct"] = from_rct[land]
    if report["nimber"] is None and all(land in known or land in from_rct for land in lands):
        total = 0
        for land in lands:
            total ^= known.get(land, from_rct.get(land, 0))
        report["nimber_from_rct"] = total
        report["outcome_from_rct"] = "L" if total == 0 else "W"
    report["misere"] = _misere_part(key, misere, key_rct, algebra, handles, report, verified_only)
    land_misere = {land: algebra.outcome(h) for land, h in handles.items() if land in lands}
    if len(lands) == 1 and report["misere"]["stored"] is not None:
        land_misere[lands[0]] = report["misere"]["stored"]
    nimbers = {**from_rct, **known}
    parts = [Part(land, nimbers.get(land), land_misere.get(land)) for land in lands]
    for entry, part in zip(lands_out, parts, strict=True):
        entry["misere_from_rct"] = land_misere.get(entry["land"])
        entry["r1"] = part.r1
    report["r1"] = _r1_part(key, parts, source, algebra, verified_only)
    return report


class _Reads:
    """A store or client read with the query's trust (only verified facts with --verified)."""

    def __init__(self, source: Any, verified_only: bool) -> None:
        self.source = source
        self.verified_only = verified_only

    def get(self, kind: FactKind, keys: Any) -> dict[str, Any]:
        return dict(self.source.get(kind, list(keys), verified_only=self.verified_only))


def _r1_part(
    key: str, parts: list[Part], source: Any, algebra: Any, verified_only: bool
) -> dict[str, Any]:
    """The R1 note's rule on the position (solver/extras/r1.py): each land's class, the case that
    applies and its move. The values of the lands' children come from their RCTs (the
    query's RCT source) and stored nimbers; the rule is the note's claim, not a proof."""
    from sproutsdb.solver.cgt.records import RctRecordError
    from sproutsdb.solver.misere.solver import MisereConflictError, StoreRcts, TableRcts

    game = get_game().engine()
    known = all(p.r1 is not None for p in parts) and (algebra is not None or not parts)
    if not known:
        why = "a land's nimber or misère outcome is unknown"
        return _r1_json(parts, R1Verdict(tuple(p.r1 for p in parts), None, None, reason=why), None)
    rcts: Any = source if isinstance(source, TableRcts) else None
    reads: Any = None if rcts is not None else _Reads(source, verified_only)  # a read-only store
    if reads is not None:
        rcts = StoreRcts(reads, algebra)

    def children(land: Part) -> list[Part]:
        kids = [game.join(c) for c in game.component_children(land.key)]
        inside = sorted({x for k in kids for x in game.components(k)})
        found = rcts.lookup(sorted(set(inside) | set(kids)))
        stored = {} if reads is None else reads.get(FactKind.NIMBER, inside)
        return [_child_part(game, algebra, k, found, stored) for k in kids]

    try:
        verdict = r1_rule(parts, children)
    except (MisereConflictError, RctRecordError, UserError) as error:
        why = f"the values of the lands' children could not be read: {error}"
        verdict = R1Verdict(tuple(p.r1 for p in parts), None, None, reason=why)
    moved = None
    if verdict.land is not None and verdict.child is not None:
        rest = [p.key for i, p in enumerate(parts) if i != verdict.land]
        moved = game.join([*rest, *game.components(verdict.child.key)])
    return _r1_json(parts, verdict, moved)


def _r1_json(parts: list[Part], verdict: R1Verdict, moved: str | None) -> dict[str, Any]:
    """The `r1` entry of the report: the verdict, and the position the rule's move reaches."""
    return {**verdict.as_json(parts), "moved_to": moved}


def _child_part(
    game: Any, algebra: Any, key: str, found: dict[str, int], stored: dict[str, Any]
) -> Part:
    """A land's child with its nimber (stored, else from RCTs) and misère outcome (its RCT,
    else the sum of its lands' RCTs); None where a land of it has neither."""
    nimber: int | None = 0
    handles: list[int] | None = []
    for land in game.components(key):
        h = found.get(land)
        value = stored.get(land)
        if value is None and h is not None:
            value = algebra.nimber(h)
        nimber = None if nimber is None or value is None else nimber ^ int(value)
        handles = None if handles is None or h is None else [*handles, h]
    handle = found.get(key)
    if handle is None and handles is not None:
        handle = algebra.sum(handles)
    return Part(key, nimber, None if handle is None else algebra.outcome(handle))


def _misere_part(
    key: str,
    misere: Any,
    key_rct: dict[str, Any],
    algebra: Any,
    handles: dict[str, int],
    report: dict[str, Any],
    verified_only: bool,
) -> dict[str, Any]:
    """The misère part of the report: the stored outcome with its status (a claim not used
    with --verified, a refuted claim with its evidence), else the outcome of the position's
    RCT; the RCT map's status."""
    stored = str(misere.value) if usable(misere, verified_only) else None
    status = status_name(misere)
    misere_from_rct = None
    height = None
    position_rct = key_rct["rct"]
    if position_rct is not None and key in handles:
        height = algebra.height(handles[key])
        if stored is None:
            misere_from_rct = algebra.outcome(handles[key])
            report["misere_outcome_from_rct"] = misere_from_rct
    part: dict[str, Any] = {
        "outcome": stored if stored is not None else misere_from_rct,
        "stored": stored,
        "status": status,
        "from_rct": stored is None and misere_from_rct is not None,
        "rct": position_rct,
        "rct_status": key_rct["rct_status"],
        "rct_height": height,
    }
    if status == "refuted":
        part["refuted"] = str(misere.value)
        part["refutation"] = refutation_json(misere)
    elif misere is not None and stored is None:
        part["claimed"] = str(misere.value)
    for name in ("rct_claimed", "rct_refuted", "rct_refutation"):
        if name in key_rct:
            part[name] = key_rct[name]
    return part


class _TableEntry:
    """A position → RCT entry of a table re-derived whole before use: verified."""

    status = "verified"

    def __init__(self, cid: str) -> None:
        self.value = cid


__all__ = ["PositionValues", "describe"]
