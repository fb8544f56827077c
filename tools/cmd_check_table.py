"""`sproutsdb check-table FILE`: verify an RCT table file entry by entry.

Unlike loading (which stops at the first defect), every RCT record is re-derived from its
children's records on its own and every position's RCT from its children's RCTs (children
recomputed by the engine), and each faulty entry is listed. A record that depends on a
faulty one is reported as unproven, not re-derived. Exit 0 only when every entry checks.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import zstandard

from sproutsdb.formats.rcttable import RctTableError, parse_body, read_header
from sproutsdb.games import get_game
from sproutsdb.progress import counter_bar
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.cgt.records import RctRecordError, load_one

EXIT_BAD_TABLE = 1
SHOWN = 20


def check_table(path: str, *, quiet: bool = True) -> dict[str, Any]:
    """Check every record and position of a table file; a report of what failed."""
    header, packed = read_header(path)  # framing and checksum: unreadable files stop here
    try:
        raw = int(header["body"]["raw_bytes"])
        body = zstandard.ZstdDecompressor().decompress(packed, max_output_size=raw)
        ids, records, positions = parse_body(body.decode().split("\n"))
    except (KeyError, TypeError, ValueError, IndexError, zstandard.ZstdError) as error:
        raise RctTableError(f"{path}: malformed body: {error}") from None
    algebra = Algebra()
    table = algebra.table
    bad_records: list[str] = []
    unproven = 0
    handles: dict[str, int] = {}
    for cid, record in records:  # children-first order: each record's children come before
        if any(child not in handles for child in record.children) or (
            record.plus1_of is not None and record.plus1_of not in handles
        ):
            unproven += 1
            continue
        try:
            handles[cid] = load_one(algebra, table, cid, record)
        except RctRecordError as error:
            bad_records.append(str(error))
    game = get_game().engine()
    by_position = {position: ids[index] for position, index in positions}
    bad_positions: list[str] = []
    skipped = 0
    with counter_bar("positions", enabled=not quiet) as bar:
        for count, (position, cid) in enumerate(by_position.items(), 1):
            handle = handles.get(cid)
            kids = game.children(position)
            kid_handles = [handles.get(by_position.get(k, ""), -1) for k in kids]
            if handle is None or -1 in kid_handles:
                missing = [k for k in kids if k not in by_position]
                if missing:
                    bad_positions.append(f"{position}: child {missing[0]} is not in the table")
                else:
                    skipped += 1  # its RCT or a child's record is faulty: reported above
                continue
            derived = algebra.reduce_children(frozenset(kid_handles))
            if derived != handle:
                bad_positions.append(
                    f"{position}: stored {cid}, its children give {algebra.content_id(derived)}"
                )
            if count % 1000 == 0:
                bar.update_to(count)
    ok = not bad_records and not bad_positions and not unproven and not skipped
    return {
        "file": path,
        "ok": ok,
        "rcts": len(records),
        "positions": len(positions),
        "bad_records": len(bad_records),
        "unproven_records": unproven,
        "bad_positions": len(bad_positions),
        "unchecked_positions": skipped,
        "examples": (bad_records + bad_positions)[:SHOWN],
    }


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
