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
    Only the certificates of the store's game are seeded (a Sprouts store never gets a
    Cram fact, nor a Cram store a Sprouts one). `on_seed` is told of each as it is done;
    `stop`, once set, ends the work before the next certificate; `who` names the tool in
    the facts' provenance."""
    from sproutsdb.ops.results import shipped_library

    directory = shipped_library() if directory is None else directory
    seeds: list[ResultSeed] = []
    for entry in entries_of_game(directory, store.identity.game):
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


def entries_of_game(directory: Path, game: str) -> list[ManifestEntry]:
    """The manifest's entries of `game` (its positions are read by that game's engine)."""
    from sproutsdb.ops.results import read_manifest

    return [entry for entry in read_manifest(directory) if entry.game == game]


def seed_counts(seeds: list[ResultSeed]) -> dict[str, int]:
    """Certificates by what seeding did to them, every action named."""
    return {action: sum(1 for seed in seeds if seed.action == action) for action in _ACTIONS}


_ACTIONS = ("seeded", "present", "refused", "conflicts")


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
    store: LmdbProofStore,
    directory: Path,
    stop: threading.Event | None = None,
    progress: SeedProgress | None = None,
) -> list[ResultSeed]:
    """`serve`'s seeding of the results library: its certificates smallest file first (the
    big misère ones last, so that most of the library is served soon), a line per
    certificate done ("seeding results k of N: ...", with an estimate of the time left from
    the bytes done and their seconds; a certificate the store held already only at debug
    level; refusals are also logged as warnings where they happen) and one in all.
    `progress` (default: a new one) is kept up to date for the Stats RPC."""
    progress = SeedProgress() if progress is None else progress
    seeds: list[ResultSeed] = []
    entries = entries_of_game(directory, store.identity.game)  # the store's game's only
    sized = [(_file_size(directory / e.file), e) for e in entries]
    sized.sort(key=lambda pair: pair[0])  # stable: the manifest's order among equals
    progress.begin([(entry.play, entry.position, size) for size, entry in sized])
    for size, entry in sized:
        if stop is not None and stop.is_set():
            break
        progress.starting(entry.play, entry.position)
        seed = _seed_certificate(store, directory, entry, "sproutsdb serve")
        seeds.append(seed)
        line = progress.finished(seed, size)
        log.log(logging.DEBUG if seed.action == "present" else logging.INFO, "%s", line)
    progress.end()
    counts = seed_counts(seeds)
    log.info(
        "results library %s: %s",
        directory,
        ", ".join(f"{n} {action}" for action, n in counts.items()),
        extra={"results": counts},
    )
    return seeds


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # missing: the gate says so, in its turn
        return 0


_DONE_WORDS = {
    "seeded": "seeded and verified",
    "present": "already held",
    "refused": "refused",
    "conflicts": "seeded (with conflicts, kept)",
}


class SeedProgress:
    """How far the seeding of a results library is: certificates done of all, by action,
    the one being checked, and an estimate of the time left: the bytes left of each play at
    the seconds per byte of its last few certificates done (of any play, when none of that
    play is done yet). Seeded smallest first, the last ones done are the most like the
    next, and a byte of a big proof takes longer to re-derive than one of a small proof.
    Read from other threads (the Stats RPC): `figures`."""

    RECENT = 3  # certificates of a play whose seconds per byte go into the estimate

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.running = False
        self.total = 0
        self.done = 0
        self.counts = dict.fromkeys(_ACTIONS, 0)
        self.current = ""
        self._left: list[tuple[str, str, int]] = []  # (play, position, bytes), in order
        self._recent: dict[str, list[tuple[int, float]]] = {}  # (bytes, seconds), by play
        self._last: list[tuple[int, float]] = []  # the same, of any play

    def begin(self, certificates: list[tuple[str, str, int]]) -> None:
        """Seeding starts: these (play, position, bytes), in their order."""
        with self._lock:
            self.running = True
            self.total = len(certificates)
            self._left = list(certificates)

    def starting(self, play: str, position: str) -> None:
        with self._lock:
            self.current = f"{play} {position}"

    def finished(self, seed: ResultSeed, size: int) -> str:
        """Count a certificate done; the line that says so, with what comes next."""
        with self._lock:
            self.done += 1
            self.counts[seed.action] = self.counts.get(seed.action, 0) + 1
            self.current = ""
            key = (seed.play, seed.position)
            for i, (play, position, _) in enumerate(self._left):
                if (play, position) == key:
                    del self._left[i]
                    break
            for recent in (self._recent.setdefault(seed.play, []), self._last):
                recent.append((size, seed.seconds))
                del recent[: -self.RECENT]
            eta = self._eta()
            facts = f"{seed.facts:,} facts, {size:,} bytes"
            line = (
                f"seeding results {self.done} of {self.total}: {_DONE_WORDS[seed.action]} "
                f"{seed.play} {seed.position} ({facts}) in {seed.seconds:.1f} s"
            )
            if not self._left:
                return f"{line} (done)"
            play, position, _ = self._left[0]
            return f"{line}; next {play} {position} (ETA {_minutes(eta)})"

    def end(self) -> None:
        with self._lock:
            self.running = False
            self.current = ""

    def _eta(self) -> float | None:
        def rate(recent: list[tuple[int, float]]) -> float | None:
            size = sum(n for n, _ in recent)
            return sum(seconds for _, seconds in recent) / size if size else None

        overall = rate(self._last)
        if overall is None:
            return None
        rates = {play: rate(recent) for play, recent in self._recent.items()}
        return sum(size * (rates.get(play) or overall) for play, _, size in self._left)

    def figures(self) -> dict[str, Any]:
        """A consistent snapshot: total, done, the counts by action, running, current, and
        eta_seconds (None before the first certificate is done)."""
        with self._lock:
            return {
                "total": self.total,
                "done": self.done,
                "counts": dict(self.counts),
                "running": self.running,
                "current": self.current,
                "eta_seconds": self._eta() if self._left else 0.0,
            }


def _minutes(seconds: float | None) -> str:
    """`~M min` (`<1 min` under half a minute; `unknown` without an estimate)."""
    if seconds is None:
        return "unknown"
    if seconds < 30:
        return "<1 min"
    return f"~{round(seconds / 60)} min"


class LibrarySeeder:
    """`serve` seeds the results library in a thread of its own, so that the server listens
    at once (re-deriving every certificate takes a minute the first time, before a cached
    mark of each exists); `close` stops it between two certificates and waits for it."""

    def __init__(self, store: LmdbProofStore, directory: Path) -> None:
        self.store = store
        self.directory = directory
        self.stop = threading.Event()
        self.progress = SeedProgress()
        self.thread = threading.Thread(target=self._run, name="results-seed", daemon=True)

    def start(self) -> None:
        log.info("results library: seeding %s in the background", self.directory)
        self.thread.start()

    def _run(self) -> None:
        try:
            seed_library(self.store, self.directory, self.stop, self.progress)
        except Exception:  # a fault here must not stop the server: it is logged
            log.exception("results library: seeding %s failed", self.directory)
            self.progress.end()

    def close(self, timeout: float) -> None:
        self.stop.set()
        self.thread.join(timeout)
