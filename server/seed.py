"""What the project ships, served: RCT tables seeded into an empty store and streamed.

The S6 table (the RCTs of every position of the game tree of 0*6, docs/architecture.md §3)
ships as package data (sproutsdb/shipped.py; `data/s6.rcttable` in a checkout). A server whose store holds no RCT yet seeds `rct` and
`pos_rct` from it; `StreamRctTable` feeds a solver the same table in chunks. Loading a
table verifies its checksum and re-derives every record (sproutsdb/formats/rcttable.py), so a
damaged or forged file is refused before anything reaches the store.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sproutsdb.facts import SEED_REDERIVED, Provenance
from sproutsdb.formats.rcttable import RctTable, read_header
from sproutsdb.server.store import LmdbProofStore
from sproutsdb.shipped import SHIPPED_TABLE, shipped_table  # noqa: F401 (re-exported)
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.trusted_tables import verified_table

log = logging.getLogger("sproutsdb.server.seed")

SEED_BATCH = 50_000


def file_checksum(path: Path) -> str:
    return hashlib.blake2b(path.read_bytes(), digest_size=32).hexdigest()


@dataclass
class SeedReport:
    table: Path
    rcts: int = 0
    positions: int = 0
    seconds: float = 0.0
    skipped: str = ""


def needs_seed(store: LmdbProofStore) -> bool:
    """True when the store holds no RCT fact yet."""
    return not (store.count(FactKind.RCT) or store.count(FactKind.POS_RCT))


def seed_store(
    store: LmdbProofStore,
    path: Path,
    load: Callable[[], RctTable] | None = None,
    who: str = "sproutsdb serve",
) -> SeedReport:
    """Seed `rct` and `pos_rct` of a store that has no RCT yet from the table at `path`.

    Records and positions are stored verified: the table is taken through
    `trusted_tables.verified_table`, which re-derives every record and every position's RCT
    from its children (over the whole game tree) or finds this install's mark of having done so.
    """
    report = SeedReport(path)
    if not needs_seed(store):
        report.skipped = "the store already holds RCT facts"
        return report
    start = time.perf_counter()
    table = load() if load is not None else verified_table(path)
    provenance = Provenance(
        who=who,
        tool="rct-table",
        comment=f"seeded from {path.name} (root {table.root}, blake2b {file_checksum(path)[:16]})",
    )
    marked_by = provenance.for_check(SEED_REDERIVED)
    records = dict(table.records())
    for batch in _batches(list(records.items()), SEED_BATCH):
        store.put(FactKind.RCT, dict(batch), provenance=provenance, verified_by=marked_by)
    positions = [(p, table.rct_id_of(p)) for p in sorted(table.positions)]
    for batch in _batches(positions, SEED_BATCH):
        store.put(FactKind.POS_RCT, dict(batch), provenance=provenance, verified_by=marked_by)
    store.flush()
    report.rcts, report.positions = len(records), len(positions)
    report.seconds = time.perf_counter() - start
    return report


def _batches(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


@dataclass
class TableEntry:
    """A table the server can stream: known by its header at start, loaded on first use."""

    path: Path
    header: dict[str, Any]
    checksum: str
    table: RctTable | None = None
    messages: list[Any] | None = None  # the stream, built once
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def root(self) -> str:
        return str(self.header.get("root", ""))

    @property
    def counts(self) -> dict[str, int]:
        return {k: int(v) for k, v in dict(self.header.get("counts", {})).items()}


class TableShelf:
    """The RCT tables a server serves, by root position; the first is the default."""

    def __init__(self) -> None:
        self.entries: dict[str, TableEntry] = {}

    def add(self, path: Path) -> TableEntry:
        header, _ = read_header(path)  # framing and checksum; records on first use
        entry = TableEntry(path, header, file_checksum(path))
        self.entries.setdefault(entry.root, entry)
        return entry

    def get(self, root: str) -> TableEntry | None:
        if not root:
            return next(iter(self.entries.values()), None)
        return self.entries.get(root)

    def loaded(self, entry: TableEntry) -> RctTable:
        with entry.lock:
            if entry.table is None:
                entry.table = verified_table(entry.path, notice=log.info)  # all re-derived
            return entry.table
