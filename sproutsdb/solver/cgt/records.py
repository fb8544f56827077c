"""Trees as store records (``RctRecord``) and back, re-deriving every record on load.

Export walks handles in creation order, which is topological. Loading takes records in
any order (a store iterates by key), loads children first, resolves them by content id
and recomputes the reduction: a record is accepted only if the tree it describes is
reduced and every stored fact (id, height, outcome, nim value, *1 factor) equals the
recomputed one (docs/architecture.md §3: an RCT's record is the reduction of its
children's RCTs).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from sproutsdb.errors import UserError
from sproutsdb.solver.cgt.factor import NONE
from sproutsdb.solver.cgt.table import TreeTable
from sproutsdb.solver.ports.proofstore import RctRecord

if TYPE_CHECKING:
    from sproutsdb.solver.cgt.algebra import Algebra


class RctRecordError(UserError, ValueError):
    """A record that does not describe the reduced tree it claims to."""


def record_of(table: TreeTable, handle: int) -> RctRecord:
    """The store record of one tree."""
    cid = table.cid
    nim = table.nim[handle]
    base = table.factor_of[handle]
    return RctRecord(
        height=table.height[handle],
        outcome="W" if table.win[handle] else "L",
        children=tuple(sorted(cid[c] for c in table.children[handle])),
        nim=None if nim == NONE else nim,
        plus1_of=None if base == NONE else cid[base],
    )


def export(table: TreeTable) -> Iterator[tuple[str, RctRecord]]:
    """(content id, record) of every tree, children before parents."""
    for handle in range(len(table)):
        yield table.cid[handle], record_of(table, handle)


def load(
    algebra: Algebra,
    records: Iterable[tuple[str, RctRecord]] | Mapping[str, RctRecord],
) -> list[int]:
    """Intern the trees of ``records`` (any order) into ``algebra``; their handles, in input order.

    Each record is loaded after the records of its children (depth first, in input
    order, so labels follow the input where they can). Raises RctRecordError on the first
    record that is malformed, refers to a tree absent from both the records and the
    algebra, or disagrees with its recomputation.
    """
    items = list(records.items() if isinstance(records, Mapping) else records)
    by_id: dict[str, RctRecord] = {}
    for cid, record in items:
        if not isinstance(record, RctRecord):
            raise RctRecordError(f"record {cid}: not an RctRecord but {type(record).__name__}")
        if by_id.setdefault(cid, record) != record:
            raise RctRecordError(f"record {cid}: given twice with different contents")
    table = algebra.table
    loaded: dict[str, int] = {}
    for cid, _ in items:
        if cid in loaded:
            continue
        # Iterative depth-first walk: (id, next child index); children load first.
        stack: list[tuple[str, int]] = [(cid, 0)]
        on_path = {cid}
        while stack:
            top, index = stack[-1]
            children = tuple(by_id[top].children)
            if index < len(children):
                stack[-1] = (top, index + 1)
                child = children[index]
                if child in loaded or (child not in by_id and child in table.by_cid):
                    continue
                if child not in by_id:
                    raise RctRecordError(f"record {top}: child {child} is not a known tree")
                if child in on_path:
                    raise RctRecordError(f"record {top}: child {child} is its own descendant")
                stack.append((child, 0))
                on_path.add(child)
            else:
                stack.pop()
                on_path.discard(top)
                loaded[top] = load_one(algebra, table, top, by_id[top])
    return [loaded[cid] for cid, _ in items]


def load_one(algebra: Algebra, table: TreeTable, cid: str, record: RctRecord) -> int:
    """Load one record whose children are loaded already: its handle, or RctRecordError when
    the recomputed tree disagrees with the record (check-table calls it entry by entry)."""
    children = tuple(record.children)
    if list(children) != sorted(set(children)):
        raise RctRecordError(f"record {cid}: children ids are not sorted and distinct")
    kids = []
    for child in children:
        handle = table.by_cid.get(child)
        if handle is None:
            raise RctRecordError(f"record {cid}: child {child} is not a known tree")
        kids.append(handle)
    handle = algebra.reduce_children(kids)
    mine = record_of(table, handle)
    if mine.children != children:
        raise RctRecordError(
            f"record {cid}: the tree with these children is not reduced, it reduces to "
            f"{table.cid[handle]}"
        )
    if table.cid[handle] != cid:
        raise RctRecordError(f"record {cid}: its children give the id {table.cid[handle]}")
    for name in ("height", "outcome", "nim", "plus1_of"):
        stored, recomputed = getattr(record, name), getattr(mine, name)
        if stored != recomputed:
            raise RctRecordError(
                f"record {cid}: {name} is stored as {stored!r}, recomputed {recomputed!r}"
            )
    return handle
