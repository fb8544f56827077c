"""`sproutsdb export` / `sproutsdb import`: move facts between stores as files.

The export and the import are the library's (sproutsdb.ops: `export_store`, `export_spr`,
`import_into`): a native file is verified completely before an import writes anything,
and facts are stored as claims, write-once. This module parses the flags and prints; a
fact already stored with another value is reported as a conflict (exit 3) and kept.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from sproutsdb.formats.exchange import KINDS
from sproutsdb.formats.spr import DIALECTS
from sproutsdb.ops.exchange import (
    conflict_json,
    export_root,
    export_spr,
    export_store,
    import_into,
)
from sproutsdb.ops.rekey import KeyClash
from sproutsdb.ops.stores import open_local_store
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.tools.cli import UsageError, add_store_option
from sproutsdb.tools.game_option import add_game_option, game_of

EXIT_CONFLICT = 3
EXIT_NO_PROOF = 1  # as `check` exits on a proof that is not complete


def _new_file(path: str) -> Path:
    out = Path(path).expanduser()
    if out.exists():
        raise UsageError(f"{out} already exists; give a new file name (nothing is overwritten)")
    if not out.parent.is_dir():
        raise UsageError(f"{out.parent} is not a directory")
    return out


def run_export(args: argparse.Namespace) -> int:
    game_of(args)  # a --game other than the store's is refused; the store's game is written
    if args.misere and args.root is None:
        raise UsageError("--misere is for --root: give the position whose misère proof to write")
    if args.cycles < 1:
        raise UsageError("--cycles must be at least 1")
    out = _new_file(args.out)
    started = time.perf_counter()
    spr = args.format == "spr" or (args.format == "auto" and out.suffix == ".spr")
    if args.kind and (args.root is not None or spr):
        raise UsageError("--kind is for a whole-store native export, not --root or .spr")
    proof: dict[str, Any] | None = None
    with open_local_store(args.store, readonly=True) as store:
        access = store.access()
        if args.root is not None:
            exported = export_root(
                store,
                args.root,
                out,
                misere=args.misere,
                spr=spr,
                cycles=args.cycles,
                quiet=args.quiet,
            )
            proof = exported.check.as_dict(time.perf_counter() - started)
            if not exported.ok:
                return _not_exported(args, proof, access)
            counts = exported.counts
        elif spr:
            counts = export_spr(store, out)
        else:
            kinds = [FactKind(k) for k in args.kind] if args.kind else list(KINDS)
            counts = export_store(store, out, kinds=kinds, quiet=args.quiet)
    seconds = time.perf_counter() - started
    total = sum(counts.values())
    report = {
        "file": str(out),
        "counts": counts,
        "bytes": out.stat().st_size,
        "seconds": round(seconds, 3),
        "facts_per_second": round(total / max(seconds, 1e-9)),
        "store": access,
    }
    if proof is not None:
        report["proof"] = proof
    if args.json:
        print(json.dumps(report))
    else:
        what = "" if proof is None else f" (the {_proved(proof)} of {proof['position']})"
        print(
            f"exported {total:,} facts{what} ({_counts_text(counts)}) to {out} in {seconds:.2f} s"
        )
    return 0


def _proved(proof: dict[str, Any]) -> str:
    """What a root's proof shows, for people: `misère outcome L`, `nimber 0`, `outcome W`."""
    if proof.get("play") == "misere":
        return f"misère outcome {proof['outcome']} proof"
    if proof.get("proved") == "nimber":
        return f"nimber {proof['nimber']} proof"
    return f"outcome {proof['outcome']} proof"


def _not_exported(args: argparse.Namespace, proof: dict[str, Any], access: dict[str, Any]) -> int:
    """A root whose proof the store does not hold whole: the check's report (--json), one
    line on stderr saying why and what to run, exit status 1 as `check` gives."""
    if args.json:
        print(json.dumps({"file": None, "proof": proof, "store": access}))
    play = " --misere" if args.misere else ""
    print(
        f"sproutsdb export: not exported: the store holds no complete, consistent proof of "
        f"{proof['position']} ({len(proof['missing'])} missing, {len(proof['inconsistent'])} "
        f"inconsistent); `sproutsdb check --root {proof['position']}{play}` says what",
        file=sys.stderr,
    )
    return EXIT_NO_PROOF


def run_import(args: argparse.Namespace) -> int:
    path = Path(args.file).expanduser()
    game_of(args)  # a --game other than the store's is refused; a new store takes the file's
    started = time.perf_counter()
    totals, conflicts = import_into(
        path,
        args.store,
        file_format=args.format,
        dialect=args.dialect,
        quiet=args.quiet,
        staging_dir=args.staging_dir,
        game=args.game,
    )
    seconds = time.perf_counter() - started
    report = {
        "file": str(path),
        **totals,
        "seconds": round(seconds, 3),
        "conflict_examples": [conflict_json(c) for c in conflicts],
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
            "complete; an existing file is never overwritten. With --root, only one\n"
            "position's proof, pruned. The store is opened read-only (a read-only copy\n"
            "will do)."
        ),
        epilog=(
            "examples:\n  sproutsdb export --store data --out sprouts.spdbx\n"
            "  sproutsdb export --root 0*12 --out 0x12.spdbx        # one proof, pruned\n"
            "  sproutsdb export --root 0*12 --misere --out 0x12m.spdbx\n"
            "  sproutsdb export --kind misere --out 0x20m-partial.spdbx  # a long run's losing\n"
            "      # nodes so far: import them into a new store and the run goes on from them"
        ),
    )
    add_store_option(p)
    add_game_option(p, store=True)
    p.add_argument("--out", required=True, metavar="FILE", help="new file to write")
    p.add_argument(
        "--root",
        metavar="POS",
        default=None,
        help="only the facts of POS's proof: checked from the rules as `check --root` does, "
        "pruned as `check --prune` does, then written (nothing written if incomplete: exit 1)",
    )
    p.add_argument("--misere", action="store_true", help="with --root: its misère proof")
    p.add_argument(
        "--kind",
        action="append",
        choices=[kind.value for kind in KINDS],
        default=[],
        help="only facts of this kind (repeatable; default: every kind). `--kind misere` "
        "leaves out the RCT table the store was seeded with, which a new store gets anyway",
    )
    p.add_argument(
        "--cycles",
        type=int,
        default=1,
        metavar="N",
        help="with --root: random check cycles keeping the smallest proof (default 1)",
    )
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
            "Verify an export file completely (checksums, counts, trailer, keys), then\n"
            "add its facts to the store, as claims, under their canonical keys.\n"
            "Idempotent: facts already stored are skipped; a different stored value\n"
            "is a conflict, reported and kept (exit 3), and so are file keys that are\n"
            "one position with different values (neither is stored). A damaged,\n"
            "truncated or inconsistent file is refused before anything is written."
        ),
        epilog="example:\n  sproutsdb import sprouts.spdbx --store data",
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="the file to import: a sproutsdb export (.spdbx) or a GLOP/SPOTS .spr file",
    )
    add_store_option(p, "store directory, created if missing (for the game of the file)")
    add_game_option(p, store=True)
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
