"""The exchange verbs: export a store to a file, import a file into a store.

The native stream (sproutsdb/formats/exchange.py) is written to a temporary file renamed
into place at the end, and verified completely before an import writes anything: frames,
values, every key canonicalised (whatever canonical-form version the file claims), and
every RCT a pos_rct fact names held by the file or the store. Imports are idempotent and
write-once, and store facts as claims: a fact already stored with another value is
reported as a conflict and kept. A native file holds the facts of the game its header
names (any game of the registry, sproutsdb.games): it imports into a store of that game,
a new store being made for it. GLOP/SPOTS `.spr` files (sproutsdb/formats/spr.py, Sprouts
only) are read the same way: canonicalised whole into a staging file first, then stored.
The commands `sproutsdb export` / `import` (tools/cmd_exchange.py) parse flags and print.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sproutsdb.errors import UsageError
from sproutsdb.facts import Provenance
from sproutsdb.formats.exchange import (
    CHUNK_FACTS,
    KINDS,
    MAGIC,
    ExchangeFormatError,
    ExportWriter,
    read_stream,
)
from sproutsdb.formats.spr import (
    Canonicalizer,
    SprFormatError,
    StageSummary,
    canonical_lands,
    read_staged,
    stage,
    summary_from_json,
    summary_to_json,
    translate_rcts,
    write_spr,
)
from sproutsdb.games import DEFAULT_GAME, GameEntry, game_names, get_game
from sproutsdb.ops.claims import ClaimRefused, admit_claims, check_claims
from sproutsdb.ops.rekey import KeyClash, rekey_items
from sproutsdb.ops.solved_on import solved_on_parts, tables_named_in
from sproutsdb.progress import counter_bar
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.cgt.records import export as export_records
from sproutsdb.solver.misere.keys import EMPTY_POSITION, join_node_key, split_node_key
from sproutsdb.solver.ports.game import Game, NotationError
from sproutsdb.solver.ports.proofstore import Conflict, FactKind, PutResult
from sproutsdb.store import LmdbProofStore, open_store, schema
from sproutsdb.store.location import check_new_store_location, resolve_store_path
from sproutsdb.store.opening import peek_identity

if TYPE_CHECKING:
    from sproutsdb.ops.check import RootCheck

# The default game's: the results library admits Sprouts facts only (ops.admission).
CANON_VERSION = get_game().canon_version
GAME = DEFAULT_GAME

SHOWN_CONFLICTS = 10


def export_store(
    store: LmdbProofStore,
    out: Path,
    *,
    kinds: Sequence[FactKind] = KINDS,
    quiet: bool = True,
) -> dict[str, int]:
    """Write every fact of `store` of the given kinds (all by default) to `out`
    (atomically: a temp file renamed at the end)."""
    identity = store.identity
    header = {
        "schema": identity.schema_version,
        "game": identity.game,
        "canon_version": identity.canon_version,
        "counts": {kind.value: store.count(kind) if kind in kinds else 0 for kind in KINDS},
        "provenance": {
            "exported_by": asdict(Provenance(tool="sproutsdb export")),
            "store_created": identity.created,
            "store": {str(k): asdict(v) for k, v in store.provenance_records().items()},
        },
    }
    partial = out.with_name(out.name + ".partial")
    try:
        with open(partial, "wb") as handle, counter_bar("facts", enabled=not quiet) as bar:
            writer = ExportWriter(handle, header)
            done = 0
            for kind in [k for k in KINDS if k in kinds]:

                def counted(kind: FactKind = kind) -> Any:
                    nonlocal done
                    for item in store.iter_facts(kind):
                        done += 1
                        if done % 10_000 == 0:
                            bar.update_to(done)
                        yield item

                writer.write_facts(kind, counted())
            writer.close()
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return writer.counts


def file_game(path: Path, header: dict[str, Any]) -> GameEntry:
    """The registry's entry of the game an export's header names: its keys are read by
    that game's engine (UsageError for a game this sproutsdb does not know)."""
    name = header.get("game")
    if not isinstance(name, str) or name not in game_names():
        raise UsageError(
            f"{path} holds {name!r:.40} facts; this sproutsdb knows the games "
            f"{', '.join(game_names())}"
        )
    return get_game(name)


def _check_canon_version(path: Path, header: dict[str, Any], ours: int) -> None:
    """A file keyed by its game's canonical form or an older one (re-keyed on import) is
    fine, into a store (canon_version `ours`) keyed by this sproutsdb's form of that game."""
    version = header.get("canon_version")
    current = file_game(path, header).canon_version
    if not isinstance(version, int) or version > ours or ours != current:
        raise UsageError(
            f"{path} was written with canon_version {version}; the store uses "
            f"{ours} (keys would not match; a newer file needs a newer sproutsdb)"
        )


def _import_provenance(path: Path, header: dict[str, Any], note: str = "") -> Provenance:
    """Who imported what from whom; it repeats the RCT tables the file's store named as
    solved on (a checkpoint's solve resumes, and its check reads, the same table)."""
    told = _mapping(header.get("provenance"))
    source, records = _mapping(told.get("exported_by")), _mapping(told.get("store"))
    comments = [_mapping(record).get("comment") for record in records.values()]
    solved_on = tables_named_in(c for c in comments if isinstance(c, str))
    return Provenance(
        tool="sproutsdb import",
        comment=f"from {path.name}, exported by {source.get('who', '?')} "
        f"on {source.get('when', '?')}{note}{solved_on_parts(solved_on)}",
    )


def _mapping(value: Any) -> dict[str, Any]:
    """`value` if the file's header has a mapping there, else {} (a header is anyone's text)."""
    return value if isinstance(value, dict) else {}


@dataclass
class ImportPlan:
    """What reading a native file once found, so that its import writes only what passed:
    the header, the checksum of each chunk (the import reads these very chunks again),
    the keys that are not in canonical form (written key -> canonical key, per kind), the
    canonical keys those land on, the RCTs the file holds and those its pos_rct facts name
    (RCT id -> the first position naming it)."""

    header: dict[str, Any]
    chunk_hashes: list[bytes] = field(default_factory=list)
    moved: dict[FactKind, dict[str, str]] = field(default_factory=dict)
    targets: dict[FactKind, set[str]] = field(default_factory=dict)
    rcts: set[str] = field(default_factory=set)
    named: dict[str, str] = field(default_factory=dict)


def canonical_key_function(game: Game) -> Callable[[FactKind, str], str]:
    """The canonical key of a fact key (NotationError if it is no key of its kind): nimber
    keys are one land, pos_rct keys positions (`!` the empty one), misère keys have their
    position part canonicalised; RCT content ids are game values and stay. The compiled
    core reads each land of a sum when it can, the Python parser the rest."""

    def lands(key: str) -> tuple[str, ...]:
        if game.name != DEFAULT_GAME:  # the compiled core's fast path reads Sprouts lands
            return game.components(game.canonical(key))
        return canonical_lands(game, key)

    def position(key: str) -> str:
        return key if key == EMPTY_POSITION else game.join(lands(key))

    def canonical(kind: FactKind, key: str) -> str:
        if kind is FactKind.RCT:
            return key
        if kind is FactKind.MISERE:
            part, parity, cids = split_node_key(key)
            return join_node_key(position(part), parity, cids)
        canon = position(key)
        if kind is FactKind.NIMBER and len(game.components(canon)) != 1:
            raise NotationError(f"{canon!r:.80} is not one land (nimber facts are of lands)")
        return canon

    return canonical


def plan_import(path: Path) -> ImportPlan:
    """Read the whole file once: frames, checksums, trailer; every value must be storable
    and every key must canonicalise, so that an import never stops half-way on bad input."""
    plan = ImportPlan(header={})
    canonical: Callable[[FactKind, str], str] | None = None
    for frame, data in read_stream(path, plan.chunk_hashes):
        if frame == "H":
            plan.header = data
            canonical = canonical_key_function(file_game(path, data).engine())
        elif frame == "C":
            assert canonical is not None  # read_stream yields the header first
            kind, facts = data
            table = schema.table_name(kind)
            items = dict(facts)
            if len(items) != len(facts):
                raise ExchangeFormatError(f"{path}: a chunk of {table} facts repeats a key")
            _, errors = schema.encode_facts(table, items)
            if errors:
                raise ExchangeFormatError(
                    f"{path}: {len(errors)} {table} facts cannot be "
                    f"stored, e.g. {errors[0]}; nothing was imported"
                )
            try:
                check_claims(kind, facts)
            except ClaimRefused as error:
                raise ExchangeFormatError(f"{path}: {error}; nothing was imported") from None
            _plan_keys(path, plan, kind, facts, canonical)
    return plan


def _plan_keys(
    path: Path,
    plan: ImportPlan,
    kind: FactKind,
    facts: list[tuple[str, Any]],
    canonical: Callable[[FactKind, str], str],
) -> None:
    """Canonicalise one chunk's keys into the plan (ExchangeFormatError on a bad key)."""
    if kind is FactKind.RCT:
        plan.rcts.update(key for key, _ in facts)
        return
    moved = plan.moved.setdefault(kind, {})
    targets = plan.targets.setdefault(kind, set())
    named = plan.named if kind is FactKind.POS_RCT else None
    key = ""
    try:
        for key, value in facts:
            canon = canonical(kind, key)
            if canon != key:
                moved[key] = canon
                targets.add(canon)
            if named is not None and value not in named:
                named[value] = canon
    except NotationError as error:
        raise ExchangeFormatError(
            f"{path}: {kind.value} key {key!r:.80} is no key of its kind: "
            f"{error!s:.200}; nothing was imported"
        ) from None


def validate(path: Path) -> dict[str, Any]:
    """Read and check the whole file (see `plan_import`); returns its header."""
    return plan_import(path).header


def import_file(
    path: Path, store: LmdbProofStore, *, quiet: bool = True, plan: ImportPlan | None = None
) -> tuple[dict[str, int], list[Conflict | KeyClash]]:
    """Check `path` completely, then put its facts (write-once, as claims) under their
    canonical keys. Returns inserted, unchanged and conflict counts, and the conflicts:
    with the store (the stored value is kept) or between file keys that are one key in
    canonical form (KeyClash: neither value is stored). A pos_rct fact naming an RCT
    neither the file nor the store holds refuses the file. `plan`: the result of an
    earlier `plan_import(path)`, to read the file only twice."""
    if plan is None:
        plan = plan_import(path)
    header = plan.header
    _check_game(path, file_game(path, header).name, store.identity.game, store.path)
    _check_canon_version(path, header, store.identity.canon_version)
    _check_named_rcts(path, plan, store)
    older = header["canon_version"] < store.identity.canon_version
    note = f", re-keyed from canon_version {header['canon_version']}" if older else ""
    provenance = _import_provenance(path, header, note)
    totals = {"inserted": 0, "unchanged": 0, "conflicts": 0}
    totals["recanonicalised"] = sum(len(moved) for moved in plan.moved.values())
    conflicts: list[Conflict | KeyClash] = []

    def put(kind: FactKind, items: dict[str, Any]) -> None:
        result = admit_claims(store, kind, items, provenance)
        totals["inserted"] += result.inserted
        totals["unchanged"] += result.unchanged
        totals["conflicts"] += len(result.conflicts)
        conflicts.extend(result.conflicts[: max(0, SHOWN_CONFLICTS - len(conflicts))])

    held: dict[FactKind, list[tuple[str, Any]]] = {}
    with counter_bar("facts", enabled=not quiet) as bar:
        done = 0
        for kind, facts in _verified_chunks(path, plan):
            moved, targets = plan.moved.get(kind, {}), plan.targets.get(kind, set())
            items: dict[str, Any] = dict(facts) if not targets else {}
            for key, value in facts if targets else ():
                if moved.get(key, key) in targets:  # merged with other keys at the end
                    held.setdefault(kind, []).append((key, value))
                else:
                    items[key] = value
            if items:
                put(kind, items)
            done += len(facts)
            bar.update_to(done)
        for kind, facts in held.items():
            merged, clashes = rekey_items(kind, facts, _renamer(plan.moved.get(kind, {})))
            totals["conflicts"] += len(clashes)
            conflicts.extend(clashes[: max(0, SHOWN_CONFLICTS - len(conflicts))])
            pairs = list(merged.items())
            for start in range(0, len(pairs), CHUNK_FACTS):
                put(kind, dict(pairs[start : start + CHUNK_FACTS]))
    store.flush()
    return totals, conflicts


def _renamer(moved: dict[str, str]) -> Callable[[FactKind, str], str]:
    """The canonical key of a file key, from what `plan_import` found."""
    return lambda _, key: moved.get(key, key)


def _verified_chunks(path: Path, plan: ImportPlan) -> Iterator[tuple[FactKind, Any]]:
    """The chunks of `path` again, each only if it is the one `plan_import` checked (a file
    changed in between is refused at its first changed chunk, before it is stored)."""
    hashes: list[bytes] = []
    for frame, data in read_stream(path, hashes):
        if frame != "C":
            continue
        index = len(hashes) - 1
        if index >= len(plan.chunk_hashes) or hashes[index] != plan.chunk_hashes[index]:
            raise ExchangeFormatError(
                f"{path}: the file changed while it was imported (chunk {index}); "
                "the facts before that chunk were imported, import it again"
            )
        yield data


def _check_game(path: Path, held: str, kept: str, where: Path) -> None:
    """Refuse a file of the game `held` for the store at `where`, which keeps `kept`."""
    if held != kept:
        raise UsageError(
            f"{path} holds {held!r} facts and the store at {where} holds {kept!r} facts; "
            f"import it into a {held} store or a new one (made for the file's game)"
        )


def _check_named_rcts(path: Path, plan: ImportPlan, store: LmdbProofStore | None) -> None:
    """Refuse a file whose pos_rct facts name an RCT neither it nor the store (None: a
    store not made yet) holds."""
    absent = [cid for cid in plan.named if cid not in plan.rcts]
    if not absent:
        return
    held = store.get(FactKind.RCT, absent) if store is not None else {}
    for cid in absent:
        if cid not in held:
            raise ExchangeFormatError(
                f"{path}: position {plan.named[cid]!r:.80} is given RCT {cid}, which neither "
                "the file nor the store holds; nothing was imported"
            )


def import_spr(
    path: Path, store_path: str | None, *, dialect: str, quiet: bool, staging_dir: str | None = None
) -> tuple[dict[str, int], list[Conflict]]:
    """A GLOP/SPOTS `.spr` database: canonicalise it all into a staging file, and only
    then put the facts (write-once), so an unreadable line writes nothing. With
    `staging_dir`, the staging file and a checkpoint stay there until the import ends, so
    an interrupted import resumes (pass 1 from its last checkpoint; pass 2 is idempotent)."""
    canon = Canonicalizer(get_game().engine(), dialect)
    if staging_dir is None:
        with tempfile.TemporaryFile(prefix="sproutsdb-spr-") as staging:
            summary = _stage_file(path, staging, canon, quiet, None, None)
            return _store_staged(path, staging, summary, store_path, quiet)
    where = Path(staging_dir).expanduser()
    if not where.is_dir():
        raise UsageError(f"--staging-dir {where} is not a directory")
    info = path.stat()
    tag = hashlib.sha256(f"{path.resolve()}|{info.st_size}|{info.st_mtime_ns}".encode())
    stem = where / f"sproutsdb-spr-{tag.hexdigest()[:16]}"
    staging_path, state_path = stem.with_suffix(".zst"), stem.with_suffix(".json")
    state = json.loads(state_path.read_text()) if state_path.exists() else None
    if state is not None and not staging_path.exists():
        state = None
    try:
        with open(staging_path, "r+b" if state is not None else "w+b") as staging:
            if state is not None and state.get("done"):
                summary = summary_from_json(state["summary"])
            else:
                summary = _stage_file(
                    path, staging, canon, quiet, state, lambda data: _write_json(state_path, data)
                )
                _write_json(state_path, {"done": True, "summary": summary_to_json(summary)})
            staging.seek(0)
            result = _store_staged(path, staging, summary, store_path, quiet)
    except SprFormatError:
        state_path.unlink(missing_ok=True)  # bad input: nothing to resume
        staging_path.unlink(missing_ok=True)
        raise
    state_path.unlink(missing_ok=True)
    staging_path.unlink(missing_ok=True)
    return result


def _stage_file(
    path: Path,
    staging: Any,
    canon: Canonicalizer,
    quiet: bool,
    state: dict[str, Any] | None,
    save: Any,
) -> StageSummary:
    size = path.stat().st_size
    with open(path, "rb") as source, counter_bar("B", enabled=not quiet, total=size) as bar:
        summary = stage(
            source, staging, canon, name=str(path), progress=bar.update_to, resume=state, save=save
        )
        bar.update_to(size)
    return summary


def _write_json(path: Path, data: dict[str, Any]) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data))
    os.replace(partial, path)


def _store_staged(
    path: Path, staging: Any, summary: StageSummary, store_path: str | None, quiet: bool
) -> tuple[dict[str, int], list[Conflict]]:
    """Pass 2: the staged facts into the store, in batches (idempotent)."""
    staging.seek(0)
    rct_facts, pos_facts = _rct_facts(summary, str(path))  # refuses before any write
    totals = {
        "inserted": 0,
        "unchanged": 0,
        "conflicts": 0,
        "lines": summary.lines,
        "rcts": len(rct_facts),
        "rct_positions": len(pos_facts),
        "sums_skipped": summary.sums,
        "terminal": summary.terminal,
        "other_sections_skipped": sum(summary.skipped.values()),
    }
    conflicts: list[Conflict] = []
    provenance = Provenance(tool="sproutsdb import", comment=f"from {path.name} (.spr)")
    store = open_store(store_path)

    def count(result: PutResult) -> None:
        totals["inserted"] += result.inserted
        totals["unchanged"] += result.unchanged
        totals["conflicts"] += len(result.conflicts)
        conflicts.extend(result.conflicts[: max(0, SHOWN_CONFLICTS - len(conflicts))])

    total = len(rct_facts) + len(pos_facts) + summary.facts
    with store, counter_bar("facts", enabled=not quiet, total=total) as bar:
        done = 0
        for kind, facts in ((FactKind.RCT, rct_facts), (FactKind.POS_RCT, pos_facts)):
            if facts:
                count(admit_claims(store, kind, facts, provenance))
                done += len(facts)
        for batch in read_staged(staging):
            count(admit_claims(store, FactKind.NIMBER, batch.items, provenance))
            count(_repeated(store, batch.later, provenance))
            done += len(batch)
            bar.update_to(done)
    return totals, conflicts


def _repeated(
    store: LmdbProofStore, lines: list[tuple[str, int]], provenance: Provenance
) -> PutResult:
    """What putting again the lands of a batch's repeated lines would say, read in one
    transaction: the stored value unchanged, or a conflict (the stored value is kept)."""
    result = PutResult()
    if not lines:
        return result
    stored = store.get(FactKind.NIMBER, list({land for land, _ in lines}))
    for land, nimber in lines:
        value = stored.get(land)
        if value is None:  # not stored after all (never expected): put it like any line
            again = admit_claims(store, FactKind.NIMBER, {land: nimber}, provenance)
            result.inserted += again.inserted
            result.unchanged += again.unchanged
            result.conflicts.extend(again.conflicts)
            stored.update(store.get(FactKind.NIMBER, [land]))
        elif value == nimber:
            result.unchanged += 1
        else:
            result.conflicts.append(Conflict(FactKind.NIMBER, land, value, nimber))
    return result


def _rct_facts(summary: StageSummary, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """RCT records and position -> RCT id facts of a .spr file's RCT sections, with GLOP's
    discovery-order labels translated to content ids (every tree rebuilt and checked)."""
    if not summary.rct_children and not summary.rct_positions:
        return {}, {}
    algebra = Algebra()
    wanted = [*summary.rct_children, *(label for _, label in summary.rct_positions)]
    try:
        handles = translate_rcts(summary.rct_children, wanted, algebra)
    except SprFormatError as error:
        raise SprFormatError(f"{name}: {error}") from None
    records = dict(export_records(algebra.table))
    positions: dict[str, str] = {}
    for key, label in summary.rct_positions:
        cid = algebra.content_id(handles[label])
        if positions.setdefault(key, cid) != cid:
            raise SprFormatError(f"{name}: position {key} is given two different RCTs")
    return records, positions


def export_spr(store: LmdbProofStore, out: Path) -> dict[str, int]:
    """Write the store's nimbers and RCTs to `out` as a GLOP [Positions+Nimber] .spr text.

    A store with misère facts is refused before anything is written: they are losing
    search nodes keyed by RCT content ids, which no section of a .spr file holds (and the
    .spr import reads none back), so writing the rest would drop them silently."""
    nodes = store.count(FactKind.MISERE)
    if nodes:
        raise UsageError(
            f"spr format cannot hold misère facts (the store has {nodes:,} misère losing "
            "nodes); use --format native"
        )
    return write_spr(
        store.iter_facts(FactKind.NIMBER),
        out,
        store.iter_facts(FactKind.RCT),
        store.iter_facts(FactKind.POS_RCT),
    )


def import_into(
    path: Path,
    store_path: str | None,
    *,
    file_format: str = "auto",
    dialect: str = "auto",
    quiet: bool = True,
    staging_dir: str | None = None,
    game: str | None = None,
) -> tuple[dict[str, int], Sequence[Conflict | KeyClash]]:
    """Import a file into the store at `store_path`, created if missing (never under a
    missing parent) for the file's game: a native export (`import_file`, its header names
    the game), or a .spr database (`import_spr`, Sprouts); `file_format` "auto" tells them
    apart by the export magic. A bad native file, or one of another game than the existing
    store's or than `game` (the game asked for), is refused before a store is touched."""
    check_new_store_location(store_path)  # a mistyped --store is refused, not created
    native = is_native(path) if file_format == "auto" else file_format == "native"
    plan = plan_import(path) if native else None  # refuse a bad file before any store
    held = file_game(path, plan.header).name if plan is not None else DEFAULT_GAME
    where = resolve_store_path(store_path)
    new = not (where / "data.mdb").exists()
    if not new:
        _check_game(path, held, peek_identity(where).game, where)
    if game is not None and game != held:
        raise UsageError(f"{path} holds {held!r} facts, not {game!r} facts (--game {game})")
    if plan is None:
        return import_spr(path, store_path, dialect=dialect, quiet=quiet, staging_dir=staging_dir)
    _check_canon_version(path, plan.header, get_game(held).canon_version)
    if new:
        _check_named_rcts(path, plan, None)  # before the store is made
    with open_store(store_path, game=held) as store:
        return import_file(path, store, quiet=quiet, plan=plan)


def is_native(path: Path) -> bool:
    """Whether `path` starts with the native export magic (UsageError: no such file)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None


def conflict_json(c: Conflict | KeyClash) -> dict[str, Any]:
    """The JSON form of an import conflict: with the store, or between file keys."""
    if isinstance(c, KeyClash):
        return {
            "kind": c.kind.value,
            "key": c.key,
            "stored": None,
            "file_keys": {old: repr(value) for old, value in c.values},
        }
    return {
        "kind": c.kind.value,
        "key": c.key,
        "stored": repr(c.stored),
        "offered": repr(c.offered),
    }


@dataclass
class RootExport:
    """`export_root`'s result: the root check (as `check --root` reports it) and the
    counts of the facts written, per kind (empty when the proof was not complete)."""

    check: RootCheck
    counts: dict[str, int]

    @property
    def ok(self) -> bool:
        return self.check.ok


def export_root(
    store: LmdbProofStore,
    root: str,
    out: Path,
    *,
    misere: bool = False,
    spr: bool = False,
    cycles: int = 1,
    seed: int = 0,
    quiet: bool = True,
) -> RootExport:
    """One position's pruned proof in one file: `check_root` (or `check_misere_root`) on
    the store, the facts the proof used written into a scratch store (`write_pruned`, as
    `check --prune` does), and that store exported to `out` (native, or .spr with `spr`).
    Nothing is written when the store holds no complete, consistent proof."""
    from sproutsdb.ops.check import check_misere_root, check_root, write_pruned

    if misere:
        check = check_misere_root(store, root, cycles=cycles, seed=seed)
    else:
        check = check_root(store, root, cycles=cycles, seed=seed)
    if not check.ok:
        return RootExport(check, {})
    with (
        tempfile.TemporaryDirectory(prefix="sproutsdb-proof-") as scratch,
        open_store(Path(scratch) / "proof", durable=False, game=check.game) as pruned,
    ):
        write_pruned(check, pruned)
        pruned.flush()
        counts = export_spr(pruned, out) if spr else export_store(pruned, out, quiet=quiet)
    return RootExport(check, counts)
