"""`sproutsdb export` / `sproutsdb import`: move facts between stores as files.

The native stream (sproutsdb/formats/exchange.py) is written to a temporary file renamed into place
at the end, and verified completely before an import writes anything. Imports are
idempotent and write-once: a fact already stored with another value is reported as a
conflict (exit 3) and kept. GLOP/SPOTS `.spr` nimber files (sproutsdb/formats/spr.py) are read
the same way: canonicalised whole into a staging file first, then stored.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sproutsdb.facts import Provenance
from sproutsdb.formats.exchange import KINDS, MAGIC, ExchangeFormatError, ExportWriter, read_stream
from sproutsdb.formats.spr import (
    DIALECTS,
    Canonicalizer,
    SprFormatError,
    StageSummary,
    read_staged,
    stage,
    summary_from_json,
    summary_to_json,
    translate_rcts,
    write_spr,
)
from sproutsdb.server import schema
from sproutsdb.server.location import check_new_store_location
from sproutsdb.server.store import LmdbProofStore, open_store
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.cgt.records import export as export_records
from sproutsdb.solver.proofstore import Conflict, FactKind
from sproutsdb.solver.sprouts.canon import CANON_VERSION
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.tools.cli import UsageError, add_store_option
from sproutsdb.tools.progress import counter_bar
from sproutsdb.tools.rekey import KeyClash, rekey_function, rekey_items
from sproutsdb.tools.stores import open_existing

EXIT_CONFLICT = 3
SHOWN_CONFLICTS = 10


def _new_file(path: str) -> Path:
    out = Path(path).expanduser()
    if out.exists():
        raise UsageError(f"{out} already exists; give a new file name (nothing is overwritten)")
    if not out.parent.is_dir():
        raise UsageError(f"{out.parent} is not a directory")
    return out


def export_store(store: LmdbProofStore, out: Path, *, quiet: bool = True) -> dict[str, int]:
    """Write every fact of `store` to `out` (atomically: a temp file renamed at the end)."""
    identity = store.identity
    header = {
        "schema": identity.schema_version,
        "game": identity.game,
        "canon_version": identity.canon_version,
        "counts": {kind.value: store.count(kind) for kind in KINDS},
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
            for kind in KINDS:

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


def import_file(
    path: Path, store: LmdbProofStore, *, quiet: bool = True, header: dict[str, Any] | None = None
) -> tuple[dict[str, int], list[Conflict | KeyClash]]:
    """Verify `path` completely, then put its facts (write-once). Returns inserted,
    unchanged and conflict counts, and the conflicts: with the store (the stored value is
    kept) or, in a file of an older canonical form, between its keys that became one
    (KeyClash: neither value is stored).
    `header`: the result of an earlier `validate(path)`, to read the file only twice."""
    if header is None:
        header = validate(path)
    if header.get("game") != store.identity.game:
        raise UsageError(
            f"{path} holds {header.get('game')!r} facts; the store is for {store.identity.game!r}"
        )
    _check_canon_version(path, header, store.identity.canon_version)
    if header["canon_version"] < store.identity.canon_version:
        return _import_rekeyed(path, store, header, quiet=quiet)
    provenance = _import_provenance(path, header)
    totals = {"inserted": 0, "unchanged": 0, "conflicts": 0}
    conflicts: list[Conflict | KeyClash] = []
    with counter_bar("facts", enabled=not quiet) as bar:
        done = 0
        for frame, data in read_stream(path):
            if frame != "C":
                continue
            kind, facts = data
            result = store.put(kind, dict(facts), provenance=provenance)
            totals["inserted"] += result.inserted
            totals["unchanged"] += result.unchanged
            totals["conflicts"] += len(result.conflicts)
            conflicts.extend(result.conflicts[: SHOWN_CONFLICTS - len(conflicts)])
            done += len(facts)
            bar.update_to(done)
    store.flush()
    return totals, conflicts


def _check_canon_version(path: Path, header: dict[str, Any], ours: int) -> None:
    """A file keyed by this canonical form or an older one (re-keyed on import) is fine."""
    version = header.get("canon_version")
    if not isinstance(version, int) or version > ours or ours != CANON_VERSION:
        raise UsageError(
            f"{path} was written with canon_version {version}; the store uses "
            f"{ours} (keys would not match; a newer file needs a newer sproutsdb)"
        )


def _import_provenance(path: Path, header: dict[str, Any], note: str = "") -> Provenance:
    source = header.get("provenance", {}).get("exported_by", {})
    return Provenance(
        tool="sproutsdb import",
        comment=f"from {path.name}, exported by {source.get('who', '?')} "
        f"on {source.get('when', '?')}{note}",
    )


def _import_rekeyed(
    path: Path, store: LmdbProofStore, header: dict[str, Any], *, quiet: bool
) -> tuple[dict[str, int], list[Conflict | KeyClash]]:
    """An export of an older canonical form: its facts re-keyed (tools/rekey.py), kind by
    kind; keys that merge with different values are conflicts and neither is stored."""
    provenance = _import_provenance(
        path, header, f", re-keyed from canon_version {header.get('canon_version')}"
    )
    new_key = rekey_function(SproutsGame())
    by_kind: dict[FactKind, list[tuple[str, Any]]] = {}
    for frame, data in read_stream(path):
        if frame == "C":
            kind, facts = data
            by_kind.setdefault(kind, []).extend(facts)
    totals = {"inserted": 0, "unchanged": 0, "conflicts": 0}
    conflicts: list[Conflict | KeyClash] = []
    with counter_bar("facts", enabled=not quiet) as bar:
        done = 0
        for kind, facts in by_kind.items():
            items, clashes = rekey_items(kind, facts, new_key)
            totals["conflicts"] += len(clashes)
            conflicts.extend(clashes[: max(0, SHOWN_CONFLICTS - len(conflicts))])
            pairs = list(items.items())
            for start in range(0, len(pairs), 5_000):
                result = store.put(kind, dict(pairs[start : start + 5_000]), provenance=provenance)
                totals["inserted"] += result.inserted
                totals["unchanged"] += result.unchanged
                totals["conflicts"] += len(result.conflicts)
                conflicts.extend(result.conflicts[: max(0, SHOWN_CONFLICTS - len(conflicts))])
            done += len(facts)
            bar.update_to(done)
    store.flush()
    return totals, conflicts


def validate(path: Path) -> dict[str, Any]:
    """Read the whole file once: frames, checksums, trailer and every value must be
    storable, so that an import never stops half-way on bad input. Returns the header."""
    header: dict[str, Any] = {}
    for frame, data in read_stream(path):
        if frame == "H":
            header = data
        elif frame == "C":
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
    return header


def import_spr(
    path: Path, store_path: str | None, *, dialect: str, quiet: bool, staging_dir: str | None = None
) -> tuple[dict[str, int], list[Conflict]]:
    """A GLOP/SPOTS `.spr` database: canonicalise it all into a staging file, and only
    then put the facts (write-once), so an unreadable line writes nothing. With
    `staging_dir`, the staging file and a checkpoint stay there until the import ends, so
    an interrupted import resumes (pass 1 from its last checkpoint; pass 2 is idempotent)."""
    canon = Canonicalizer(SproutsGame(), dialect)
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
    total = len(rct_facts) + len(pos_facts) + summary.facts
    with store, counter_bar("facts", enabled=not quiet, total=total) as bar:
        done = 0
        batches = [(FactKind.RCT, rct_facts), (FactKind.POS_RCT, pos_facts)]
        for kind, batch in [*batches, *((FactKind.NIMBER, b) for b in read_staged(staging))]:
            if not batch:
                continue
            result = store.put(kind, batch, provenance=provenance)
            totals["inserted"] += result.inserted
            totals["unchanged"] += result.unchanged
            totals["conflicts"] += len(result.conflicts)
            conflicts.extend(result.conflicts[: SHOWN_CONFLICTS - len(conflicts)])
            done += len(batch)
            bar.update_to(done)
    return totals, conflicts


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


def _is_native(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None


def run_export(args: argparse.Namespace) -> int:
    out = _new_file(args.out)
    started = time.perf_counter()
    spr = args.format == "spr" or (args.format == "auto" and out.suffix == ".spr")
    with open_existing(args.store, readonly=True) as store:
        if spr:
            counts = write_spr(
                store.iter_facts(FactKind.NIMBER),
                out,
                store.iter_facts(FactKind.RCT),
                store.iter_facts(FactKind.POS_RCT),
            )
        else:
            counts = export_store(store, out, quiet=args.quiet)
    seconds = time.perf_counter() - started
    total = sum(counts.values())
    report = {
        "file": str(out),
        "counts": counts,
        "bytes": out.stat().st_size,
        "seconds": round(seconds, 3),
        "facts_per_second": round(total / max(seconds, 1e-9)),
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(f"exported {total:,} facts ({_counts_text(counts)}) to {out} in {seconds:.2f} s")
    return 0


def run_import(args: argparse.Namespace) -> int:
    path = Path(args.file).expanduser()
    started = time.perf_counter()
    check_new_store_location(args.store)  # a mistyped --store is refused, not created
    native = _is_native(path) if args.format == "auto" else args.format == "native"
    conflicts: Sequence[Conflict | KeyClash]
    if native:
        header = validate(path)  # refuse a damaged file before creating or touching a store
        _check_canon_version(path, header, CANON_VERSION)
        store = open_store(args.store)
        with store:
            totals, conflicts = import_file(path, store, quiet=args.quiet, header=header)
    else:
        totals, conflicts = import_spr(
            path, args.store, dialect=args.dialect, quiet=args.quiet, staging_dir=args.staging_dir
        )
    seconds = time.perf_counter() - started
    report = {
        "file": str(path),
        **totals,
        "seconds": round(seconds, 3),
        "conflict_examples": [_conflict_json(c) for c in conflicts],
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"imported {path}: {totals['inserted']:,} new, {totals['unchanged']:,} already "
            f"stored, {totals['conflicts']:,} conflicts in {seconds:.2f} s"
        )
        for c in conflicts:
            if isinstance(c, KeyClash):
                print(f"  conflict {c.describe()} (one key now; neither stored)")
            else:
                print(
                    f"  conflict {c.kind.value} {c.key}: stored {c.stored!r}, file says "
                    f"{c.offered!r} (kept stored)"
                )
    if totals["conflicts"]:
        print(
            f"sproutsdb import: {totals['conflicts']} conflicting facts were not imported",
            file=sys.stderr,
        )
        return EXIT_CONFLICT
    return 0


def _conflict_json(c: Conflict | KeyClash) -> dict[str, Any]:
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


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {kind}" for kind, n in counts.items() if n) or "none"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `export` and `import` to the `sproutsdb` parser."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "export",
        formatter_class=fmt,
        help="write every fact of a store to a file",
        description=(
            "Write the facts of a store as a versioned, zstd-compressed, checksummed\n"
            "stream (header, chunks of facts, trailer). The file appears only when\n"
            "complete; an existing file is never overwritten."
        ),
        epilog="example:\n  sproutsdb export --store data --out sprouts.spdbx",
    )
    add_store_option(p)
    p.add_argument("--out", required=True, metavar="FILE", help="new file to write")
    p.add_argument(
        "--format",
        choices=("auto", "native", "spr"),
        default="auto",
        help="native stream, or a GLOP [Positions+Nimber] .spr text (auto: .spr by the file name)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run_export)

    p = subparsers.add_parser(
        "import",
        formatter_class=fmt,
        help="add the facts of an export file to a store",
        description=(
            "Verify an export file completely (checksums, counts, trailer), then add\n"
            "its facts to the store. Idempotent: facts already stored are skipped;\n"
            "a different stored value is a conflict, reported and kept (exit 3).\n"
            "A damaged or truncated file is refused before anything is written."
        ),
        epilog="example:\n  sproutsdb import sprouts.spdbx --store data",
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="the file to import: a sproutsdb export (.spdbx) or a GLOP/SPOTS .spr file",
    )
    add_store_option(p, "store directory, created if missing")
    p.add_argument(
        "--format",
        choices=("auto", "native", "spr"),
        default="auto",
        help="auto: native when the file starts with the export magic, else .spr",
    )
    p.add_argument(
        "--dialect",
        choices=DIALECTS,
        default="auto",
        help=".spr letter names beyond Y: glop Z(k), spots n(k), auto both",
    )
    p.add_argument(
        "--staging-dir",
        metavar="DIR",
        default=None,
        help="where the canonicalised .spr facts are staged (default: $TMPDIR)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run_import)
