"""`sproutsdb rekey --store OLD --out NEW`: migrate a store to this canonical form version."""

from __future__ import annotations

import argparse
import json
import sys
import time

from sproutsdb.ops.rekey import rekey_store
from sproutsdb.progress import counter_bar
from sproutsdb.store.location import check_new_store_location

EXIT_CONFLICTS = 1


def run_rekey(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    check_new_store_location(args.out)  # a mistyped --out is refused, not created
    with counter_bar("facts", enabled=not args.quiet) as bar:
        report = rekey_store(args.store, args.out, progress=bar.update_to)
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps({**report.as_json(), "seconds": round(seconds, 3)}))
    else:
        print(
            f"re-keyed {report.source} (canon_version {report.from_version}) into "
            f"{report.target} (canon_version {report.to_version}) in {seconds:.2f} s"
        )
        for table, n in report.tables.items():
            print(
                f"  {table:<8} {n['read']:>10,} read, {n['kept']:,} kept as they were, "
                f"{n['rekeyed']:,} under a new key ({n['merged']:,} merged), "
                f"{n['conflicts']:,} conflicts"
            )
        print(
            f"  children cache: {report.children_dropped:,} entries dropped (recomputed on demand)"
        )
        for conflict in report.conflicts[:20]:
            print(f"  conflict {conflict.describe()} (neither stored)")
    if report.conflicts:
        print(
            f"sproutsdb rekey: {len(report.conflicts)} keys had conflicting values and were "
            "not stored",
            file=sys.stderr,
        )
        return EXIT_CONFLICTS
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `rekey` to the `sproutsdb` parser."""
    p = subparsers.add_parser(
        "rekey",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="copy a store keyed by an older canonical form into a new store",
        description=(
            "Copy every fact of a store written with an older canonical form version into a\n"
            "new store keyed by this version: positions are re-canonicalised (nimber and\n"
            "pos_rct keys, the position part of misère node keys; RCT ids stay). Keys that\n"
            "become one merge when their values agree; when they disagree neither value is\n"
            "stored and the conflict is listed (exit 1). A fact keeps its provenance and\n"
            "verified mark only if its key did not change (others may merge into it); the\n"
            "rest are claimed facts again, for `sproutsdb check` to verify. The children\n"
            "cache is dropped. OLD is only read; NEW must not exist or be an empty directory."
        ),
        epilog="example:\n  sproutsdb rekey --store data --out data-v2 && "
        "sproutsdb check --store data-v2 --root 0*9",
    )
    p.add_argument("--store", metavar="OLD", required=True, help="the store to read")
    p.add_argument("--out", metavar="NEW", required=True, help="the new store to write")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run_rekey)
