"""What the project ships, served: RCT tables seeded into an empty store and streamed, and
the results library's certificates seeded and verified (`seed_results`, through the one gate
of sproutsdb/ops/admission.py).

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
from typing import TYPE_CHECKING, Any

from sproutsdb.errors import UserError
from sproutsdb.facts import SEED_REDERIVED, Provenance
from sproutsdb.formats.rcttable import RctTable, read_header
from sproutsdb.shipped import SHIPPED_TABLE, shipped_table  # noqa: F401 (re-exported)
from sproutsdb.solver.ports.game import Game
from sproutsdb.solver.ports.proofstore import FactKind, ProofStore
from sproutsdb.store import LmdbProofStore
from sproutsdb.trusted_tables import verified_table

if TYPE_CHECKING:
    from sproutsdb.ops.results import ManifestEntry

log = logging.getLogger("sproutsdb.ops.seed")

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


# --- the results library -------------------------------------------------------------------


@dataclass
class ResultSeed:
    """What seeding one certificate of the results library did: `action` is "seeded",
    "present" (the store held its facts, verified, already), "refused" (the gate refused
    it: nothing stored) or "conflicts" (the store holds other values for some of its
    facts: those are kept, and not marked)."""

    play: str
    position: str
    action: str
    message: str = ""
    facts: int = 0
    seconds: float = 0.0


def seed_results(
    store: LmdbProofStore,
    directory: Path | None = None,
    on_seed: Callable[[ResultSeed], None] | None = None,
    stop: threading.Event | None = None,
    *,
    wanted: Callable[[ManifestEntry], bool] | None = None,
    who: str = "sproutsdb serve",
) -> list[ResultSeed]:
    """Store each certificate of the results library (default: the shipped one; with
    `wanted`, those it accepts) that the store does not hold yet, once it passed the gate
    (sproutsdb.ops.admission: re-derived alone in a fresh store now, or by this version
    before: a cached mark per file checksum, as for RCT tables), its facts marked verified
    by its root check. A certificate the gate refuses is not stored at all (a log line).
    `on_seed` is told of each as it is done; `stop`, once set, ends the work before the
    next certificate; `who` names the tool in the facts' provenance."""
    from sproutsdb.ops.results import read_manifest, shipped_library

    directory = shipped_library() if directory is None else directory
    if store.identity.game != "sprouts":  # the library's positions are Sprouts positions
        return []
    seeds: list[ResultSeed] = []
    for entry in read_manifest(directory):
        if stop is not None and stop.is_set():
            break
        if wanted is not None and not wanted(entry):
            continue
        seeds.append(_seed_certificate(store, directory, entry, who))
        if on_seed is not None:
            on_seed(seeds[-1])
    return seeds


def seed_results_below(
    store: ProofStore,
    game: Game,
    root: str,
    play: str,
    on_seed: Callable[[ResultSeed], None] | None = None,
    who: str = "sproutsdb solve",
    *,
    directory: Path | None = None,
) -> list[ResultSeed]:
    """`solve --seed-results`: seed (as `seed_results`) the library's certificates (default:
    the shipped one) of `play` ("normal" or "misere") whose positions have fewer lives than
    `root`, the only ones that can occur below it: a run of 0*n then starts from the proof
    of 0*(n-1). Only an embedded store is seeded (a server seeds its own when it starts)."""
    if not isinstance(store, LmdbProofStore):
        raise UserError("the results library seeds an embedded store only (--store)")
    lives = game.size(root)

    def wanted(entry: ManifestEntry) -> bool:
        return entry.play == play and game.size(game.canonical(entry.position)) < lives

    return seed_results(store, directory, on_seed=on_seed, wanted=wanted, who=who)


def seed_counts(seeds: list[ResultSeed]) -> dict[str, int]:
    """Certificates by what seeding did to them, every action named."""
    return {action: sum(1 for seed in seeds if seed.action == action) for action in _ACTIONS}


def _seed_certificate(
    store: LmdbProofStore, directory: Path, entry: ManifestEntry, who: str
) -> ResultSeed:
    """Pass one certificate through the gate (sproutsdb.ops.admission.admit) into the store,
    with a log line when it is refused or meets conflicts."""
    from sproutsdb.ops.admission import admit

    admission = admit(directory, entry, into=store, who=who)
    check = admission.check
    seed = ResultSeed(entry.play, entry.position, "refused", facts=check.facts)
    seed.seconds = check.seconds
    if not check.ok:
        seed.message = check.message
        log.warning("results library: refusing %s %s: %s", entry.play, entry.position, seed.message)
        return seed
    seed.action = admission.stored or "seeded"
    if admission.conflicts:
        seed.message = f"the store holds other values for {admission.conflicts} of its facts (kept)"
        log.warning("results library: %s %s: %s", entry.play, entry.position, seed.message)
    return seed


def seed_library(
    store: LmdbProofStore, directory: Path, stop: threading.Event | None = None
) -> list[ResultSeed]:
    """`serve`'s seeding of the results library, with a log line per certificate it seeded
    (refusals are logged as warnings where they happen) and one in all."""

    def said(seed: ResultSeed) -> None:
        if seed.action == "seeded":
            log.info(
                "results library: seeded and verified %s %s (%d facts) in %.1f s",
                seed.play,
                seed.position,
                seed.facts,
                seed.seconds,
            )

    seeds = seed_results(store, directory, on_seed=said, stop=stop)
    counts = seed_counts(seeds)
    log.info(
        "results library %s: %s",
        directory,
        ", ".join(f"{n} {action}" for action, n in counts.items()),
        extra={"results": counts},
    )
    return seeds


_ACTIONS = ("seeded", "present", "refused", "conflicts")


class LibrarySeeder:
    """`serve` seeds the results library in a thread of its own, so that the server listens
    at once (re-deriving every certificate takes a minute the first time, before a cached
    mark of each exists); `close` stops it between two certificates and waits for it."""

    def __init__(self, store: LmdbProofStore, directory: Path) -> None:
        self.store = store
        self.directory = directory
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="results-seed", daemon=True)

    def start(self) -> None:
        log.info("results library: seeding %s in the background", self.directory)
        self.thread.start()

    def _run(self) -> None:
        try:
            seed_library(self.store, self.directory, self.stop)
        except Exception:  # a fault here must not stop the server: it is logged
            log.exception("results library: seeding %s failed", self.directory)

    def close(self, timeout: float) -> None:
        self.stop.set()
        self.thread.join(timeout)
