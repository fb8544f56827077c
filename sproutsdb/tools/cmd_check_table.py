"""`sproutsdb check-table FILE`: verify an RCT table file entry by entry.

Unlike loading (which stops at the first defect), every RCT record is re-derived from its
children's records on its own and every position's RCT from its children's RCTs (children
recomputed by the engine), and each faulty entry is listed. A record that depends on a
faulty one is reported as unproven, not re-derived (`sproutsdb.ops.check_table`). Exit 0
only when every entry checks.
"""

from __future__ import annotations

import argparse
import json
import time

from sproutsdb.ops.check import check_table

EXIT_BAD_TABLE = 1


def run_check_table(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    report = check_table(args.file, quiet=args.quiet)
    report["seconds"] = round(time.perf_counter() - started, 3)
    if args.json:
        print(json.dumps(report))
    else:
        verdict = "every entry checks" if report["ok"] else "ENTRIES DO NOT CHECK"
        print(
            f"{args.file}: {verdict}: {report['rcts']:,} RCTs ({report['bad_records']} bad, "
            f"{report['unproven_records']} depending on bad ones), {report['positions']:,} "
            f"positions ({report['bad_positions']} bad, {report['unchecked_positions']} "
            f"unchecked), {report['seconds']:.2f} s"
        )
        for line in report["examples"]:
            print(f"  {line}")
    return 0 if report["ok"] else EXIT_BAD_TABLE


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `check-table` to the `sproutsdb` parser."""
    p = subparsers.add_parser(
        "check-table",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="verify an RCT table file entry by entry",
        description=(
            "Re-derive every RCT record of a table file from its children's records\n"
            "and every position's RCT from its children's, listing each faulty entry.\n"
            "Exit 0 only when all check, 1 otherwise, 2 for an unreadable file."
        ),
        epilog="example:\n  sproutsdb check-table data/s6.rcttable",
    )
    p.add_argument(
        "file", metavar="FILE", help="an RCT table file (from `sproutsdb rct-table build`)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run_check_table)
