"""Where a misère search learns the RCTs of lands: none, a loaded table, or a store.

Every land whose reduced canonical tree is known is replaced by it in a search node
(``misere.nodes``); a source answers batch lookups with handles in its own algebra, whose
records were re-derived when loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.misere.facts import MisereConflictError
from sproutsdb.solver.ports.proofstore import FactKind, ProofStore, RctRecord

__all__ = ["LoadedTable", "NoRcts", "RctSource", "StoreRcts", "TableRcts", "largest_with_rct"]


class RctSource(Protocol):
    """Where the solver learns the RCTs of lands: one algebra, batch lookups."""

    algebra: Algebra

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        """Handles of those lands whose RCT is known (absent ones are left out)."""
        ...


def largest_with_rct(source: RctSource) -> int | None:
    """The largest ``game.size`` (Sprouts: lives) of a land the source can have an RCT for,
    when it says (``max_size``: an indexed table); None when any land may have one."""
    largest = getattr(source, "max_size", None)
    return largest if isinstance(largest, int) else None


class NoRcts:
    """No RCT known: every land stays in the position part (the reference behaviour)."""

    def __init__(self, algebra: Algebra | None = None) -> None:
        self.algebra = Algebra() if algebra is None else algebra

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        return {}


class LoadedTable(Protocol):
    """What TableRcts reads of a loaded RCT table (solver/ cannot import tools/ or client/)."""

    @property
    def algebra(self) -> Algebra: ...

    @property
    def positions(self) -> Mapping[str, int]: ...


class TableRcts:
    """RCTs of a loaded table (``formats.rcttable.load_table`` or ``Client.rct_table``)."""

    def __init__(self, table: LoadedTable) -> None:
        self.algebra: Algebra = table.algebra
        self._positions: Mapping[str, int] = table.positions

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        positions = self._positions
        return {land: positions[land] for land in lands if land in positions}

    def rct_id_of(self, position: str) -> str | None:
        """Content id of the RCT of a position of the table, or None if absent."""
        handle = self._positions.get(position)
        return None if handle is None else self.algebra.content_id(handle)

    def __len__(self) -> int:
        return len(self._positions)


class StoreRcts:
    """RCTs read lazily from a store's ``pos_rct`` and ``rct`` facts (a seeded store or a
    server): one ``get`` per batch of new lands, then the records of the trees not in the
    algebra yet, children included, each re-derived when it is loaded."""

    def __init__(self, store: ProofStore, algebra: Algebra | None = None) -> None:
        self.store = store
        self.algebra = Algebra() if algebra is None else algebra
        self._known: dict[str, int | None] = {}
        self.dangling: dict[str, str] = {}  # land -> RCT id it is mapped to, with no record
        self.reads = 0

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        known = self._known
        wanted = sorted({land for land in lands if land not in known})
        if wanted:
            self.reads += 1
            found = self.store.get(FactKind.POS_RCT, wanted)
            ids = {land: str(found[land]) for land in wanted if land in found}
            unbuildable = self._load(set(ids.values()))
            by_cid = self.algebra.table.by_cid
            for land in wanted:
                cid = ids.get(land)
                if cid is not None and cid in unbuildable:
                    self.dangling[land] = cid
                    cid = None
                known[land] = None if cid is None else by_cid[cid]
        out: dict[str, int] = {}
        for land in lands:
            handle = known.get(land)
            if handle is not None:
                out[land] = handle
        return out

    def looked_up(self) -> dict[str, int]:
        """Every land looked up so far that has an RCT, with its handle (a pruned proof
        copies these so it can be checked on its own)."""
        return {land: h for land, h in self._known.items() if h is not None}

    def _load(self, cids: set[str]) -> set[str]:
        """Fetch and intern the records of ``cids`` and of every tree below them; return
        the ids whose tree cannot be built because the store lacks a record in it (the
        lands mapped to them stay positions, and are listed in ``dangling``)."""
        by_cid = self.algebra.table.by_cid
        records: dict[str, RctRecord] = {}
        absent: set[str] = set()
        todo = {cid for cid in cids if cid not in by_cid}
        while todo:
            self.reads += 1
            got = self.store.get(FactKind.RCT, sorted(todo))
            absent |= todo - got.keys()
            todo = set()
            for cid, record in got.items():
                if not isinstance(record, RctRecord):
                    raise MisereConflictError(f"store RCT {cid!r} is {record!r}, not a record")
                records[cid] = record
                below = [*record.children, *([record.plus1_of] if record.plus1_of else [])]
                todo.update(c for c in below if c not in by_cid and c not in records)
        unbuildable = _resting_on(records, absent)
        if unbuildable:
            records = {cid: r for cid, r in records.items() if cid not in unbuildable}
        if records:
            self.algebra.load_records(records)  # RctRecordError if any record is wrong
        return unbuildable


def _resting_on(records: Mapping[str, RctRecord], absent: set[str]) -> set[str]:
    """``absent`` and every record whose tree reaches one of them."""
    bad = set(absent)
    grew = bool(bad)
    while grew:
        grew = False
        for cid, record in records.items():
            if cid not in bad and (
                any(c in bad for c in record.children) or record.plus1_of in bad
            ):
                bad.add(cid)
                grew = True
    return bad
