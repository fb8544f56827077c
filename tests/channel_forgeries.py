"""The channel fuzzer (issue 72): forged facts pushed through every door a fact enters by
(import, Insert, pull, library, checkpoint, table), then every check a user runs to get
verified marks, then every verified fact audited against the truth from the rules.

For each fact kind three forgeries: a fact of the other kind under a key of this kind (the
keys collide: a misère node key with no RCT ids is a bare position key), a fact of another
game (a Cram board in a Sprouts store, a Sprouts land in a Cram store), and a false value of
the right kind. A forgery ends "refused" (never stored), "claim" (stored, never verified:
claimed or refuted) or FALSE VERIFIED (stored with its forged value, marked verified): the
figure that must stay 0. Independently, `Truth.audit` re-derives every verified fact of a
store (normal nimbers by a fresh NormalSolver, misère nodes by the plain game-tree search
without RCTs, RCT records by loading them into a fresh algebra, position → RCT entries by a
fresh RctSearch). Real LMDB stores, real `sproutsdb` commands and servers, no mocks. Used by
tests/test_channel_fuzz.py and bench/channel_fuzz.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service_support import ServerProcess, run_cli
from sproutsdb import __version__
from sproutsdb.client import Client
from sproutsdb.facts import Provenance, Status
from sproutsdb.formats import rcttable
from sproutsdb.formats.exchange import ExportWriter, read_stream
from sproutsdb.games import get_game
from sproutsdb.ops.exchange import canonical_key_function
from sproutsdb.ops.results import read_manifest, sha256_of, shipped_library, write_manifest
from sproutsdb.ops.seed import seed_library
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.cgt.ident import is_content_id
from sproutsdb.solver.cgt.records import RctRecordError, load
from sproutsdb.solver.misere.keys import EMPTY_POSITION, split_node_key
from sproutsdb.solver.misere.rctsearch import RctSearch
from sproutsdb.solver.misere.reference import brute_force_misere
from sproutsdb.solver.misere.solver import MisereSolver
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.game import Game, NotationError
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, MemoryProofStore, RctRecord
from sproutsdb.store import LmdbProofStore, open_store
from sproutsdb.store.schema import SCHEMA_VERSION
from test_results import rewrite_certificate

ROOT = "0*5"  # the genuine proofs (normal and misère) the forgeries are mixed into
LATER_ROOT = "0*6"  # what a resumed checkpoint solves next
CRAM_ROOT = "2x4"  # the genuine Cram proof of the Cram store
CRAM_KEY = "2x3"  # a Cram board forged into Sprouts stores
CHANNELS = ("import", "Insert", "pull", "library", "checkpoint", "table")
KINDS = (FactKind.NIMBER, FactKind.MISERE, FactKind.RCT, FactKind.POS_RCT)
FORMS = ("other-kind", "other-game", "false-value")
REFUSED, CLAIM, FALSE_VERIFIED = "refused", "claim", "FALSE VERIFIED"
FORGER = Provenance(who="forger", tool="channel fuzzer")
Fact = tuple[FactKind, str, FactValue]


@dataclass(frozen=True)
class Forgery:
    """One forged fact aimed at a store of `game`, filed under the row `kind` and `form`;
    `extra` are true facts it needs to be taken at all (the record a forged entry names)."""

    kind: FactKind
    form: str
    fact: FactKind
    key: str
    value: FactValue
    why: str
    game: str = "sprouts"
    extra: tuple[Fact, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.kind.value}/{self.form}/{self.fact.value}:{self.key}"

    def describe(self) -> str:
        value = self.value if not isinstance(self.value, RctRecord) else repr(self.value)
        return f"{self.fact.value} {self.key!r} = {value!r} into a {self.game} store ({self.why})"


@dataclass
class Verdict:
    """What became of one forgery on one channel."""

    forgery: Forgery
    outcome: str  # REFUSED, CLAIM or FALSE_VERIFIED
    detail: str = ""


@dataclass
class ChannelRun:
    """A channel's verdicts, the false marks the audit found, and what it ran."""

    channel: str
    verdicts: list[Verdict] = field(default_factory=list)
    audit: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    seconds: float = 0.0
    marked: Counter[str] = field(default_factory=Counter)  # verified facts audited, per kind
    trusted: list[str] = field(default_factory=list)  # false marks a private forged mark made

    def rows(self) -> list[dict[str, Any]]:
        """One row per kind: forgeries tried, refused at entry, stored as claims, false."""
        out = []
        for kind in KINDS:
            mine = [v for v in self.verdicts if v.forgery.kind is kind]
            counts = Counter(v.outcome for v in mine)
            out.append(
                {
                    "channel": self.channel,
                    "kind": kind.value,
                    "tried": len(mine),
                    "refused": counts[REFUSED],
                    "claims": counts[CLAIM],
                    "false_verified": counts[FALSE_VERIFIED],
                    "forms": sorted({v.forgery.form for v in mine}),
                }
            )
        return out

    @property
    def false_marks(self) -> list[str]:
        found = [f"{self.channel}: {v.forgery.describe()}" for v in self.verdicts]
        found = [
            line
            for line, v in zip(found, self.verdicts, strict=True)
            if v.outcome == FALSE_VERIFIED
        ]
        return found + [f"{self.channel}: audit: {line}" for line in self.audit]


# --------------------------------------------------------------------------- the truth


class Truth:
    """Values re-derived from the rules alone, memoised: nimbers by a NormalSolver on a
    fresh MemoryProofStore, misère outcomes by plain game-tree search (no RCT), RCTs by a
    fresh RctSearch."""

    def __init__(self) -> None:
        self.engines: dict[str, Game] = {}
        self._normal: dict[str, NormalSolver] = {}
        self._misere: dict[str, bool] = {}
        self.algebra = Algebra()
        self.search = RctSearch(self.engine("sprouts"), self.algebra)

    def engine(self, game: str) -> Game:
        if game not in self.engines:
            self.engines[game] = get_game(game).engine()
        return self.engines[game]

    def nimber(self, land: str, game: str = "sprouts") -> int:
        if game not in self._normal:
            self._normal[game] = NormalSolver(self.engine(game), MemoryProofStore())
        return self._normal[game].nimber(land)

    def misere(self, position: str, nim: int = 0) -> str:
        return brute_force_misere(self.engine("sprouts"), position, self._misere, nim)

    def rct_id(self, position: str) -> str:
        return self.algebra.content_id(self.search.rct(position))

    def rct_handle(self, position: str) -> int:
        return self.search.rct(position)

    def node(self, key: str, algebra: Algebra, search: RctSearch) -> str | None:
        """The misère outcome of a node key (None: it names a tree that is not known)."""
        position, parity, cids = split_node_key(key)
        if not cids:
            if position == EMPTY_POSITION:
                return "W" if parity == 0 else "L"
            return self.misere(position, parity)
        terms = [algebra.nim(parity)]
        if position != EMPTY_POSITION:
            terms.append(search.rct(position))
        for cid in cids:
            if cid not in algebra.table.by_cid:
                try:
                    terms.append(algebra.parse(cid))
                except Exception:  # noqa: BLE001 - an id no verified record describes
                    return None
            else:
                terms.append(algebra.handle(cid))
        return algebra.outcome(algebra.sum(terms))

    def audit(self, store: LmdbProofStore) -> list[str]:
        """Every verified fact of `store` that is not the truth, one line each."""
        game = store.identity.game
        verified: dict[FactKind, dict[str, Any]] = {}
        for kind in KINDS:
            verified[kind] = {
                key: record.value
                for key, record in store.iter_records(kind)
                if record.status is Status.VERIFIED
            }
        bad: list[str] = []
        for land, value in verified[FactKind.NIMBER].items():
            truth = self.nimber(land, game)
            if truth != value:
                bad.append(f"nimber {land!r} = {value} verified, truth {truth}")
        algebra = Algebra()
        records = verified[FactKind.RCT]
        try:
            load(algebra, records)
        except RctRecordError as error:
            bad.append(f"rct records: a verified record does not re-derive: {error}")
        search = RctSearch(self.engine(game), algebra) if game == "sprouts" else None
        for position, cid in verified[FactKind.POS_RCT].items():
            truth_id = self.rct_id(position)
            if truth_id != cid:
                bad.append(f"pos_rct {position!r} = {cid} verified, truth {truth_id}")
        for key, value in verified[FactKind.MISERE].items():
            assert search is not None
            outcome = self.node(key, algebra, search)
            if outcome != value:
                bad.append(f"misere {key!r} = {value!r} verified, truth {outcome!r}")
        return bad


# --------------------------------------------------------------------------- the facts


@dataclass
class World:
    """The genuine facts the forgeries are mixed into (minus the keys forged), and the
    forgeries: built once from the rules."""

    base: dict[FactKind, dict[str, FactValue]]
    cram_base: dict[str, int]
    forgeries: list[Forgery]
    truth: Truth

    def facts(self, kind: FactKind) -> dict[str, FactValue]:
        return self.base[kind]


def build_world(truth: Truth | None = None) -> World:
    """The normal and misère proofs of ROOT (solved on memory stores, no RCT table), true
    RCT records and position → RCT entries of their small lands, a Cram proof, and the
    twelve forgeries plus one aimed at the Cram store, with the keys they forge taken out
    of the genuine facts (facts are write-once: a forged value must be the first one)."""
    truth = truth or Truth()
    sprouts = truth.engine("sprouts")
    normal = MemoryProofStore()
    NormalSolver(sprouts, normal).nimber(ROOT)
    misere = MemoryProofStore()
    MisereSolver(sprouts, misere).outcome(ROOT)
    cram = MemoryProofStore()
    NormalSolver(truth.engine("cram"), cram).nimber(CRAM_ROOT)
    nimbers = {k: int(v) for k, v in normal.iter_facts(FactKind.NIMBER)}  # type: ignore[call-overload]
    nodes = dict(misere.iter_facts(FactKind.MISERE))
    lands = sorted(
        {land for key in [*nimbers, *nodes] for land in sprouts.components(split_node_key(key)[0])}
        | {"0", "0*2", "0*3", "0*4"},
        key=lambda land: (len(land), land),
    )
    lands = [land for land in lands if get_game().lives(land) <= 12]
    entries = {land: truth.rct_id(land) for land in lands}
    records = dict(truth.algebra.records())
    used = set(entries.values())
    closure: set[str] = set()
    stack = list(used)
    while stack:
        cid = stack.pop()
        if cid not in closure:
            closure.add(cid)
            stack.extend(records[cid].children)
    records = {cid: records[cid] for cid in closure}

    def first(candidates: Iterable[str], taken: set[str]) -> str:
        for key in candidates:
            if key not in taken:
                taken.add(key)
                return key
        raise AssertionError("no candidate left for a forgery")

    taken: set[str] = {ROOT}
    by_size = sorted(nimbers, key=lambda k: (-get_game().lives(k), k))
    # nimber rows: a misère loss claimed of a land whose normal value is 0 but misère win
    zero_win = first(
        (k for k in by_size if nimbers[k] == 0 and truth.misere(k) == "W" and k not in nodes),
        taken,
    )
    false_nimber = first(by_size, taken)
    # misère rows: a bare position key that is a misère loss with a nonzero nimber, given 0
    lost = [k for k in nodes if " " not in k and len(sprouts.components(k)) == 1]
    collide = first((k for k in sorted(lost, key=len, reverse=True) if truth.nimber(k) != 0), taken)
    # RCT rows: a record the proof's entries need, its outcome flipped
    parents = {child for record in records.values() for child in record.children}
    flipped_id = min(
        (c for c in used if records[c].children and c not in parents and records[c].nim is None),
        key=lambda c: (records[c].height, c),
    )
    naming = tuple(
        (FactKind.POS_RCT, land, cid) for land, cid in entries.items() if cid == flipped_id
    )
    good = records[flipped_id]
    flipped = RctRecord(
        good.height,
        "L" if good.outcome == "W" else "W",
        good.children,
        good.nim,
        good.plus1_of,
    )
    # position → RCT rows: a land whose misère RCT is the heap *n, its normal nimber not n
    # position → RCT rows: a land whose misère RCT is the heap *n given nimber n when that
    # is false, else a land whose RCT is a misère win given a misère loss (the tree's
    # outcome read as a node's)
    heaps = {
        land: truth.algebra.nim_value(truth.algebra.handle(cid)) for land, cid in entries.items()
    }
    confused = [
        land
        for land in sorted(entries, key=lambda k: (-get_game().lives(k), k))
        if land not in taken and heaps[land] is not None and heaps[land] != truth.nimber(land)
    ]
    if confused:
        heap_land = first(confused, taken)
        heap_forgery = Forgery(FactKind.POS_RCT, "other-kind", FactKind.NIMBER, heap_land,
                               heaps[heap_land],
                               f"its misère RCT *{heaps[heap_land]} read as its nimber; "
                               f"truth {truth.nimber(heap_land)}")  # fmt: skip
    else:
        heap_land = first(
            (
                land
                for land in sorted(entries, key=lambda k: (-get_game().lives(k), k))
                if land not in nodes and truth.misere(land) == "W"
            ),
            taken,
        )
        heap_forgery = Forgery(FactKind.POS_RCT, "other-kind", FactKind.MISERE, heap_land, "L",
                               f"its RCT {entries[heap_land][:12]}… (a misère win) as a losing "
                               "node")  # fmt: skip
    retarget = first(
        (land for land in sorted(entries, key=len, reverse=True) if " " not in land), taken
    )
    other_id = next(
        cid
        for cid in sorted(records)
        if cid != entries[retarget] and records[cid].outcome != records[entries[retarget]].outcome
    )
    cram_value = truth.nimber(CRAM_KEY, "cram")
    forgeries = [
        Forgery(FactKind.NIMBER, "other-kind", FactKind.MISERE, zero_win, "L",
                f"nimber 0 read as a misère loss; misère truth W, nimber {nimbers[zero_win]}"),
        Forgery(FactKind.NIMBER, "other-game", FactKind.NIMBER, CRAM_KEY, cram_value,
                "a Cram board with its Cram value"),
        Forgery(FactKind.NIMBER, "other-game", FactKind.NIMBER, "0*3", truth.nimber("0*3"),
                "a Sprouts land with its Sprouts value", game="cram"),
        Forgery(FactKind.NIMBER, "false-value", FactKind.NIMBER, false_nimber,
                nimbers[false_nimber] + 1, f"truth {nimbers[false_nimber]}"),
        Forgery(FactKind.MISERE, "other-kind", FactKind.NIMBER, collide, 0,
                f"a misère loss read as nimber 0; nimber truth {truth.nimber(collide)}"),
        Forgery(FactKind.MISERE, "other-game", FactKind.MISERE, CRAM_KEY, "L",
                "a Cram board as a misère node"),
        Forgery(FactKind.MISERE, "false-value", FactKind.MISERE, ROOT, "L",
                f"misère truth {truth.misere(ROOT)}"),
        Forgery(FactKind.RCT, "other-kind", FactKind.NIMBER, flipped_id, 0,
                "an RCT content id as a land"),
        Forgery(FactKind.RCT, "other-game", FactKind.RCT, CRAM_KEY, good,
                "a Cram board as an RCT id"),
        Forgery(FactKind.RCT, "false-value", FactKind.RCT, flipped_id, flipped,
                f"outcome flipped, truth {good.outcome}", extra=naming),
        heap_forgery,
        Forgery(FactKind.POS_RCT, "other-game", FactKind.POS_RCT, CRAM_KEY, entries["0"],
                "a Cram board given a Sprouts RCT"),
        Forgery(FactKind.POS_RCT, "false-value", FactKind.POS_RCT, retarget, other_id,
                f"a tree of the other outcome; truth {entries[retarget]}",
                extra=((FactKind.RCT, other_id, records[other_id]),)),
    ]  # fmt: skip
    forged = {(f.fact, f.key) for f in forgeries}
    base = {
        FactKind.NIMBER: {k: v for k, v in nimbers.items() if (FactKind.NIMBER, k) not in forged},
        FactKind.MISERE: {k: v for k, v in nodes.items() if (FactKind.MISERE, k) not in forged},
        FactKind.RCT: {k: v for k, v in records.items() if (FactKind.RCT, k) not in forged},
        FactKind.POS_RCT: {
            k: v
            for k, v in entries.items()
            if (FactKind.POS_RCT, k) not in forged and v != flipped_id
        },
    }
    cram_facts = {k: int(v) for k, v in cram.iter_facts(FactKind.NIMBER)}  # type: ignore[call-overload]
    cram_facts = {k: v for k, v in cram_facts.items() if k != "0*3"}
    return World(base, cram_facts, forgeries, truth)


def valid_here(forgery: Forgery) -> bool:
    """Whether the forged key is a canonical key of its kind in the target's game (what an
    import or a pull takes at all)."""
    canonical = canonical_key_function(get_game(forgery.game).engine())
    if forgery.fact is FactKind.RCT:
        return is_content_id(forgery.key)
    try:
        return canonical(forgery.fact, forgery.key) == forgery.key
    except NotationError:
        return False


# --------------------------------------------------------------------------- stores


ORDER = (FactKind.RCT, FactKind.POS_RCT, FactKind.NIMBER, FactKind.MISERE)


def facts_of(forgery: Forgery) -> list[Fact]:
    """The forged fact and the facts it needs, records before the entries naming them."""
    facts = [*forgery.extra, (forgery.fact, forgery.key, forgery.value)]
    return sorted(facts, key=lambda fact: ORDER.index(fact[0]))


def put_facts(store: LmdbProofStore, facts: Iterable[Fact], who: Provenance = FORGER) -> None:
    """Put facts as claims, kind by kind (a batch the store refuses is skipped: it never
    holds what it cannot hold)."""
    grouped: dict[FactKind, dict[str, FactValue]] = {}
    for kind, key, value in facts:
        grouped.setdefault(kind, {})[key] = value
    for kind in ORDER:
        for key, value in grouped.get(kind, {}).items():
            with contextlib.suppress(Exception):  # a store may refuse a forged fact
                store.put(kind, {key: value}, provenance=who)
    store.flush()


def base_facts(world: World, game: str) -> list[Fact]:
    """The genuine facts of a store of `game`, as (kind, key, value)."""
    if game == "cram":
        return [(FactKind.NIMBER, k, v) for k, v in world.cram_base.items()]
    return [(kind, k, v) for kind in KINDS for k, v in world.base[kind].items()]


def make_store(path: Path, world: World, game: str, forged: Iterable[Forgery] = ()) -> Path:
    """A store of `game` holding the genuine facts and `forged`, all as claims."""
    with open_store(path, game=game, durable=False) as store:
        put_facts(store, base_facts(world, game), Provenance(tool="genuine"))
        put_facts(store, [fact for f in forged for fact in facts_of(f)])
    return path


def write_stream(path: Path, game: str, facts: Iterable[Fact]) -> Path:
    """An export stream written with the library's own writer: a header of `game`, one
    chunk per kind."""
    grouped: dict[FactKind, list[tuple[str, Any]]] = {}
    for kind, key, value in facts:
        grouped.setdefault(kind, []).append((key, value))
    header = {
        "schema": SCHEMA_VERSION,
        "game": game,
        "canon_version": get_game(game).canon_version,
        "counts": {kind.value: len(grouped.get(kind, [])) for kind in KINDS},
        "provenance": {"exported_by": {"who": "forger", "when": "now"}, "store": {}},
    }
    with open(path, "wb") as handle:
        writer = ExportWriter(handle, header)
        for kind in (FactKind.NIMBER, FactKind.MISERE, FactKind.RCT, FactKind.POS_RCT):
            if grouped.get(kind):
                writer.write_chunk(kind, grouped[kind])
        writer.close()
    return path


def stored_verdict(store: LmdbProofStore, forgery: Forgery) -> Verdict:
    """Where the forged value stands in a store: absent (refused), a claim, or verified."""
    record = store.get_records(forgery.fact, [forgery.key], refuted=True).get(forgery.key)
    if record is None or record.value != forgery.value:
        return Verdict(forgery, REFUSED, "not stored" if record is None else "another value")
    if record.status is Status.VERIFIED:
        return Verdict(forgery, FALSE_VERIFIED, "stored and marked verified")
    return Verdict(forgery, CLAIM, record.status.value)


def cli(run: ChannelRun, *args: str, env: dict[str, str] | None = None) -> Any:
    """Run one `sproutsdb` command, recorded in the channel's command list."""
    run.commands.append("sproutsdb " + " ".join(args))
    return run_cli(*args, env=env, timeout=300)


def verify_store(run: ChannelRun, path: Path, game: str, extra_roots: Iterable[str] = ()) -> None:
    """Every check a user runs to get marks: `check --root` (the roots and each forged
    land), `check --misere --root`, `check --all`."""
    store = str(path)
    if game == "cram":
        cli(run, "check", "--root", CRAM_ROOT, "--store", store, "--quiet")
        cli(run, "check", "--all", "--jobs", "1", "--store", store, "--quiet")
        return
    roots = [ROOT, *extra_roots]
    for root in roots:
        cli(run, "check", "--root", root, "--store", store, "--quiet")
        cli(run, "check", "--misere", "--root", root, "--store", store, "--quiet")
    cli(run, "check", "--all", "--jobs", "1", "--store", store, "--quiet")


def forged_roots(world: World) -> list[str]:
    """The lands and positions forged in Sprouts stores, checked as roots too."""
    sprouts = world.truth.engine("sprouts")
    out: list[str] = []
    for f in world.forgeries:
        if f.game != "sprouts" or f.fact is FactKind.RCT or not valid_here(f):
            continue
        position = split_node_key(f.key)[0] if f.fact is FactKind.MISERE else f.key
        if position != ROOT and position not in out:
            try:
                sprouts.canonical(position)
            except NotationError:
                continue
            out.append(position)
    return out


def finish(run: ChannelRun, world: World, stores: dict[str, Path]) -> ChannelRun:
    """Read each forgery's verdict in the store of its game, and audit every store."""
    opened = {game: open_store(path, create=False, game=game) for game, path in stores.items()}
    try:
        known = {v.forgery for v in run.verdicts}
        for f in world.forgeries:
            if f not in known and f.game in opened:
                run.verdicts.append(stored_verdict(opened[f.game], f))
        for game, store in opened.items():
            run.audit.extend(f"{game} store: {line}" for line in world.truth.audit(store))
            run.marked.update({kind.value: store.verified_count(kind) for kind in KINDS})
    finally:
        for store in opened.values():
            store.close()
    return run


# --------------------------------------------------------------------------- channels


def channel_import(world: World, work: Path) -> ChannelRun:
    """`sproutsdb import FILE` of one forged stream per forgery into a store of the
    genuine facts (imported first), then every check."""
    run = ChannelRun("import")
    stores = {}
    for game in ("sprouts", "cram"):
        stores[game] = work / f"import-{game}"
        genuine = write_stream(work / f"genuine-{game}.spdbx", game, base_facts(world, game))
        assert (
            cli(run, "import", str(genuine), "--store", str(stores[game]), "--quiet").returncode
            == 0
        )
    for i, f in enumerate(world.forgeries):
        path = write_stream(work / f"forged-{i}.spdbx", f.game, facts_of(f))
        cli(run, "import", str(path), "--store", str(stores[f.game]), "--quiet")
    verify_store(run, stores["sprouts"], "sprouts", forged_roots(world))
    verify_store(run, stores["cram"], "cram")
    return finish(run, world, stores)


def wait_settled(client: Client, seconds: float = 60.0) -> None:
    """Until the server's verifier has no claim left to look at but those waiting for facts
    the store lacks (bounded)."""
    deadline = time.monotonic() + seconds
    calm = 0
    while time.monotonic() < deadline:
        verifier = client.stats()["verifier"]
        busy = verifier["backlog"] - verifier.get("waiting", 0)  # waiting: for facts not here
        calm = calm + 1 if busy <= 0 and not verifier["scanning"] else 0
        if calm >= 3:
            return
        time.sleep(0.2)


def channel_insert(world: World, work: Path) -> ChannelRun:
    """The gRPC Insert of real `sproutsdb serve` processes (verifier on), one per game,
    then the stores checked by every check after the servers stop."""
    run = ChannelRun("Insert")
    stores = {
        game: make_store(work / f"insert-{game}", world, game) for game in ("sprouts", "cram")
    }
    servers = [
        ServerProcess(stores[game], "--no-seed", "--no-results", *(("--game", game)))
        for game in stores
    ]
    try:
        for server in servers:
            server.start()
        clients = {game: Client(s.address) for game, s in zip(stores, servers, strict=True)}
        for f in world.forgeries:
            client = clients[f.game]
            for kind, key, value in facts_of(f):
                try:
                    client.insert(kind, {key: value}, provenance=FORGER)
                except Exception as error:  # noqa: BLE001 - refused by the server: a verdict
                    if (kind, key) == (f.fact, f.key):
                        detail = f"{type(error).__name__}: {error!s:.120}"
                        run.verdicts.append(Verdict(f, REFUSED, detail))
        for client in clients.values():
            wait_settled(client)
            client.close()
    finally:
        for server in servers:
            server.stop()
    run.commands.append("Client.insert per forgery, verifier settled, servers stopped")
    verify_store(run, stores["sprouts"], "sprouts", forged_roots(world))
    verify_store(run, stores["cram"], "cram")
    return finish(run, world, stores)


def channel_pull(world: World, work: Path) -> ChannelRun:
    """`sproutsdb pull --all` and `--root` from peers that serve forged facts (put into
    their stores directly; verifier off): one peer with the forgeries whose keys are keys
    here, one with the rest (an answer is taken or refused whole)."""
    run = ChannelRun("pull")
    sprouts = [f for f in world.forgeries if f.game == "sprouts"]
    peers = {
        "valid": make_store(work / "peer-valid", world, "sprouts", [f for f in sprouts if valid_here(f)]),
        "other": make_store(work / "peer-other", world, "sprouts", [f for f in sprouts if not valid_here(f)]),
        "cram": make_store(work / "peer-cram", world, "cram", [f for f in world.forgeries if f.game == "cram"]),
    }  # fmt: skip
    local = {"sprouts": work / "pull-sprouts", "cram": work / "pull-cram"}
    servers = {
        name: ServerProcess(path, "--no-seed", "--no-results", "--no-verify")
        for name, path in peers.items()
    }
    try:
        for server in servers.values():
            server.start()
        for name, server in servers.items():
            into = str(local["cram" if name == "cram" else "sprouts"])
            cli(run, "pull", "--server", server.address, "--all", "--store", into, "--quiet")
            root = CRAM_ROOT if name == "cram" else ROOT
            cli(run, "pull", "--server", server.address, "--root", root, "--store", into, "--quiet")
    finally:
        for server in servers.values():
            server.stop()
    verify_store(run, local["sprouts"], "sprouts", forged_roots(world))
    verify_store(run, local["cram"], "cram")
    return finish(run, world, local)


def channel_checkpoint(world: World, work: Path) -> ChannelRun:
    """A checkpoint (an export of a store, bench/checkpoints/README.md) holding the forged
    facts, imported; `solve` resumed on it (normal and misère, a larger root, so the search
    builds on them), then every check."""
    run = ChannelRun("checkpoint")
    source = make_store(work / "run", world, "sprouts")
    exported = work / "checkpoint.spdbx"
    assert (
        cli(run, "export", "--store", str(source), "--out", str(exported), "--quiet").returncode
        == 0
    )
    sprouts = [f for f in world.forgeries if f.game == "sprouts"]
    valid = [f for f in sprouts if valid_here(f)]
    forged = work / "checkpoint-forged.spdbx"
    frames = list(read_stream(exported))
    extra = [fact for f in valid for fact in facts_of(f)]
    facts = [
        (k, key, v)
        for frame, data in frames
        if frame == "C"
        for k, chunk in [data]
        for key, v in chunk
    ]
    merged = {(kind, key): value for kind, key, value in [*facts, *extra]}  # a fact once
    write_stream(forged, "sprouts", [(kind, key, value) for (kind, key), value in merged.items()])
    store = work / "resumed"
    cli(run, "import", str(forged), "--store", str(store), "--quiet")
    for f in sprouts:  # a checkpoint with a key of another game: refused whole
        if not valid_here(f):
            path = write_stream(
                work / f"checkpoint-{len(run.commands)}.spdbx",
                "sprouts",
                [*facts, (f.fact, f.key, f.value)],
            )
            cli(run, "import", str(path), "--store", str(store), "--quiet")
    cram_store = make_store(work / "resumed-cram", world, "cram")
    for f in world.forgeries:
        if f.game == "cram":
            path = write_stream(work / "checkpoint-cram.spdbx", "cram", [(f.fact, f.key, f.value)])
            cli(run, "import", str(path), "--store", str(cram_store), "--quiet")
    cli(run, "solve", LATER_ROOT, "--store", str(store), "--quiet")
    cli(run, "solve", LATER_ROOT, "--misere", "--no-rct-table", "--store", str(store), "--quiet")
    verify_store(run, store, "sprouts", [LATER_ROOT, *forged_roots(world)])
    verify_store(run, cram_store, "cram")
    return finish(run, world, {"sprouts": store, "cram": cram_store})  # fmt: skip


# --------------------------------------------------------------------------- library


def library_with(folder: Path, play: str, position: str, forged: Forgery) -> Path:
    """A one-certificate library: the shipped certificate of `play` `position` with the
    forged fact (its value replacing the certificate's, or a chunk more; the header's game
    the forgery's), the manifest blessing the new bytes (what a forger does)."""
    folder.mkdir(parents=True)
    (entry,) = [e for e in read_manifest(shipped_library()) if e.key == (play, position)]
    path = folder / entry.file
    path.write_bytes((shipped_library() / entry.file).read_bytes())
    present = False

    def change(kind: FactKind, facts: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        nonlocal present
        out = []
        for key, value in facts:
            if kind is forged.fact and key == forged.key:
                present = True
                value = forged.value
            out.append((key, value))
        return out

    rewrite_certificate(path, change)
    if not present:
        rewrite_certificate(path, extra=(forged.fact, [(forged.key, forged.value)]))
    if forged.game != "sprouts":
        frames = list(read_stream(path))
        header = {**next(d for f, d in frames if f == "H"), "game": forged.game}
        with open(path, "wb") as handle:
            writer = ExportWriter(handle, header)
            for frame, data in frames:
                if frame == "C":
                    writer.write_chunk(*data)
            writer.close()
    blessed = type(entry)(**{**entry.__dict__, "sha256": sha256_of(path)})
    write_manifest(folder, [blessed])
    return folder


def genuine_library(folder: Path) -> Path:
    """The shipped normal and misère certificates of ROOT, as a library of their own."""
    folder.mkdir(parents=True)
    entries = [e for e in read_manifest(shipped_library()) if e.key[1] == ROOT]
    for entry in entries:
        (folder / entry.file).write_bytes((shipped_library() / entry.file).read_bytes())
    write_manifest(folder, entries)
    return folder


def channel_library(world: World, work: Path) -> ChannelRun:
    """A forged results library per forgery (a normal certificate of ROOT for nimber facts,
    a misère one for the others), given to `results --check --library` and to the seeding
    verb `serve` runs (`seed_library`, through ops/admission.py's gate)."""
    run = ChannelRun("library")
    store = work / "seeded"
    with open_store(store, durable=False) as seeded:
        genuine = genuine_library(work / "lib-genuine")
        assert all(s.action != "refused" for s in seed_library(seeded, genuine))
        for i, f in enumerate(world.forgeries):
            play = "normal" if f.fact is FactKind.NIMBER else "misere"
            library = library_with(work / f"lib-{i}", play, ROOT, f)
            cli(run, "results", "--check", "--jobs", "1", "--quiet", "--library", str(library))
            seeds = seed_library(seeded, library)
            run.commands.append(f"seed_library(store, {library.name})")
            if any(s.action != "refused" for s in seeds):
                run.verdicts.append(stored_verdict(seeded, f))
            else:
                run.verdicts.append(Verdict(f, REFUSED, seeds[0].message[:160]))
    return finish(run, world, {"sprouts": store})


# --------------------------------------------------------------------------- tables


def table_bytes(header: dict[str, Any], body: bytes) -> bytes:
    """A table file with this body text, framed and checksummed as `rcttable.encode` does
    (the forger's writer: the body may lie about a tree)."""
    import hashlib

    import zstandard

    head = dict(header)
    head["body"] = dict(head.get("body", {}), raw_bytes=len(body))
    head_bytes = json.dumps(head, sort_keys=True, ensure_ascii=False).encode()
    packed = zstandard.ZstdCompressor(level=rcttable.ZSTD_LEVEL).compress(body)
    content = (
        rcttable.PREFIX.pack(rcttable.MAGIC, rcttable.FORMAT_VERSION, len(head_bytes))
        + head_bytes
        + rcttable.BODY_LEN.pack(len(packed))
        + packed
    )
    return content + hashlib.blake2b(content, digest_size=rcttable._DIGEST).digest()


TABLE_ROOT = "0*3"


def forged_tables(world: World, work: Path) -> list[tuple[Forgery, Path]]:
    """RCT tables of TABLE_ROOT's tree, each lying once, written with the project's writer:
    a land's entry pointing at the heap of its normal nimber (a nimber filed as an RCT), a
    land given a tree of the other outcome, a tree record with its outcome flipped, and a
    table whose header says Cram."""
    truth = world.truth
    sprouts = truth.engine("sprouts")
    search = RctSearch(sprouts, Algebra())
    search.rct(TABLE_ROOT)
    algebra = search.algebra
    positions = {k: h for k, h in search.positions().items()}
    table = rcttable.table_from_positions(algebra, positions)
    header = rcttable.make_header(table, game="sprouts", root=TABLE_ROOT)
    out: list[tuple[Forgery, Path]] = []

    def lie(name: str, forgery: Forgery, new: dict[str, int], game: str = "sprouts") -> None:
        lying = rcttable.table_from_positions(algebra, new)
        path = work / f"{name}.rcttable"
        rcttable.write_table(path, lying, rcttable.make_header(lying, game=game, root=TABLE_ROOT))
        out.append((forgery, path))

    lands = sorted((k for k in positions if len(sprouts.components(k)) == 1), key=len, reverse=True)
    heap_land = next(
        land for land in lands if algebra.nim_value(positions[land]) != truth.nimber(land)
    )
    heap = algebra.nim(truth.nimber(heap_land))
    lie("nimber-as-rct", Forgery(FactKind.NIMBER, "other-kind", FactKind.POS_RCT, heap_land,
        algebra.content_id(heap), f"its normal nimber *{truth.nimber(heap_land)} as its RCT"),
        {**positions, heap_land: heap})  # fmt: skip
    victim = next(land for land in lands if land in ("0*2", *lands))
    other = next(
        h for h in algebra.handles() if algebra.outcome(h) != algebra.outcome(positions[victim])
    )
    lie("misere-flip", Forgery(FactKind.MISERE, "false-value", FactKind.POS_RCT, victim,
        algebra.content_id(other), "a tree of the other misère outcome"), {**positions, victim: other})  # fmt: skip
    lie("pos-rct-other", Forgery(FactKind.POS_RCT, "false-value", FactKind.POS_RCT, TABLE_ROOT,
        algebra.content_id(positions[victim]), "another land's tree"),
        {**positions, TABLE_ROOT: positions[victim]})  # fmt: skip
    lie("cram-header", Forgery(FactKind.POS_RCT, "other-game", FactKind.POS_RCT, TABLE_ROOT,
        algebra.content_id(positions[TABLE_ROOT]), "a Sprouts table whose header says cram"),
        positions, game="cram")  # fmt: skip
    # a record whose outcome lies: the body edited, the file framed again
    body = rcttable.encode_body(table).decode().split("\n")
    index = next(i for i, line in enumerate(body) if line.count("\t") == 5 and line.split("\t")[5])
    cells = body[index].split("\t")
    good = algebra.record(algebra.handle(cells[0]))
    cells[2] = "L" if cells[2] == "W" else "W"
    body[index] = "\t".join(cells)
    path = work / "record-flip.rcttable"
    path.write_bytes(table_bytes(header, "\n".join(body).encode()))
    bad = RctRecord(good.height, cells[2], good.children, good.nim, good.plus1_of)
    out.append(
        (Forgery(FactKind.RCT, "false-value", FactKind.RCT, cells[0], bad, "outcome flipped"), path)
    )
    return out


def forge_table_mark(cache: Path, table: Path) -> None:
    """A hand-made verified-tables mark for `table` in a private cache (what someone who
    can write the user's cache does)."""
    from sproutsdb.trusted_tables import CANON_VERSION, MARKS_FOLDER, TABLE_CHECK, file_digest

    digest = file_digest(table)
    folder = cache / MARKS_FOLDER
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    mark = folder / f"{digest}.json"
    body = {"sha256": digest, "tool_version": __version__, "canon_version": CANON_VERSION}
    mark.write_text(json.dumps({**body, "made_by": TABLE_CHECK, "cpu_seconds": 0}))
    mark.chmod(0o600)


MARK_VARIANTS = ("no mark", "mark others can write", "mark in the user's own cache")


def mark_cache(work: Path, variant: str, table: Path) -> dict[str, str]:
    """The environment of one variant: a fresh cache with no mark, with a forged mark in a
    folder the group can write (the gate must ignore it), or with a forged mark in a cache
    only this user can write (what the trust model believes: as trusted as the install)."""
    xdg = work / "xdg" / variant.replace(" ", "-").replace("'", "")
    cache = xdg / "sproutsdb"
    cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    xdg.chmod(0o700)
    if variant != MARK_VARIANTS[0]:
        forge_table_mark(cache, table)
    if variant == MARK_VARIANTS[1]:
        cache.chmod(0o770)
    return {"XDG_CACHE_HOME": str(xdg)}


def channel_table(world: World, work: Path) -> ChannelRun:
    """Each forged table given to `solve --misere --rct-table`, `check --misere
    --rct-table` and `serve --seed` (then the server's store checked), with no cache mark and
    with a forged mark in a cache others can write; every store audited. The same with a
    forged mark in the user's own private cache is run too and reported apart (`trusted`):
    the trust model believes that cache as it believes the installed code."""
    run = ChannelRun("table")
    for i, (f, table) in enumerate(forged_tables(world, work)):
        verdicts: list[Verdict] = []
        for variant in MARK_VARIANTS:
            env = mark_cache(work / f"cache-{i}", variant, table)
            name = f"{i}-{MARK_VARIANTS.index(variant)}"
            store = work / f"table-{name}"
            cli(run, "solve", TABLE_ROOT, "--store", str(store), "--quiet")
            for verb in (
                ("solve", TABLE_ROOT, "--misere"),
                ("check", "--misere", "--root", TABLE_ROOT),
            ):
                cli(
                    run, *verb, "--rct-table", str(table), "--store", str(store), "--quiet", env=env
                )
            cli(run, "check", "--root", TABLE_ROOT, "--store", str(store), "--quiet", env=env)
            served = work / f"served-{name}"
            server = ServerProcess(served, "--seed", str(table), "--no-results")
            try:
                _start_env(server, env)
            except RuntimeError:
                pass  # refused to start: nothing seeded
            finally:
                server.stop()
            run.commands.append(f"serve --seed {table.name} --store {served.name}")
            if (served / "data.mdb").exists():
                cli(
                    run, "check", "--all", "--jobs", "1", "--store", str(served), "--quiet", env=env
                )
            cli(run, "check", "--all", "--jobs", "1", "--store", str(store), "--quiet", env=env)
            in_model = variant == MARK_VARIANTS[2]
            for path in (store, served):
                if (path / "data.mdb").exists():
                    with open_store(path, create=False) as opened:
                        verdict = stored_verdict(opened, f)
                        audit = [f"{path.name}: {line}" for line in world.truth.audit(opened)]
                        if in_model:  # the audit's lines: every false verified fact
                            run.trusted.extend(audit)
                            continue
                        verdicts.append(verdict)
                        run.audit.extend(audit)
                        run.marked.update({k.value: opened.verified_count(k) for k in KINDS})
        worst = next((v for v in verdicts if v.outcome == FALSE_VERIFIED), None)
        worst = worst or next((v for v in verdicts if v.outcome == CLAIM), None)
        run.verdicts.append(worst or Verdict(f, REFUSED, "never stored"))
    return run  # fmt: skip


def _start_env(server: ServerProcess, env: dict[str, str]) -> None:
    """Start a ServerProcess with extra environment (a private cache)."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        server.start(timeout=60)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


RUNNERS: dict[str, Callable[[World, Path], ChannelRun]] = {
    "import": channel_import,
    "Insert": channel_insert,
    "pull": channel_pull,
    "library": channel_library,
    "checkpoint": channel_checkpoint,
    "table": channel_table,
}


def run_channel(channel: str, world: World, work: Path) -> ChannelRun:
    """One channel end to end, timed."""
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    run = RUNNERS[channel](world, work)
    run.seconds = time.perf_counter() - started
    return run


def table_rows(runs: Iterable[ChannelRun]) -> Iterator[dict[str, Any]]:
    for run in runs:
        yield from run.rows()


__all__ = [
    "CHANNELS",
    "CLAIM",
    "FALSE_VERIFIED",
    "REFUSED",
    "ChannelRun",
    "Forgery",
    "Truth",
    "World",
    "build_world",
    "run_channel",
    "subprocess",
    "table_rows",
]
