"""`sproutsdb pull`: a peer server's facts into a local store, checked here.

The work is the library's (`sproutsdb.ops.pull.pull`); this module parses the flags and
prints one line (or one JSON object with --json).
"""

from __future__ import annotations

import argparse
import json
import sys

from sproutsdb.ops.pull import (
    DEFAULT_MAX_FACTS,
    DEFAULT_MAX_PAGES,
    DEFAULT_MAX_SECONDS,
    PullBounds,
    pull,
)
from sproutsdb.ops.stores import open_local_store
from sproutsdb.tools.cli import UsageError, add_store_option
from sproutsdb.tools.server_options import add_client_options, client_from_args

EXIT_REFUTED = 1  # the peer served facts that the rules contradict


def run_pull(args: argparse.Namespace) -> int:
    if not args.server:
        raise UsageError("give --server HOST:PORT, the peer's server")
    if (args.root is None) == (not args.all):
        raise UsageError("give --root POS (the facts of its proof) or --all (every fact)")
    if args.jobs is not None and (args.jobs < 1 or not args.all):
        raise UsageError("--jobs N (N ≥ 1) is for --all")
    bounds = PullBounds(args.max_pages, args.max_facts, args.max_seconds)
    with client_from_args(args) as client:
        game = client.server_info()["game"]  # asked before a store is created
        with open_local_store(args.store, game=game) as store:  # a new store: the peer's game
            report = pull(
                client,
                store,
                server=args.server,
                root=args.root,
                jobs=args.jobs,
                quiet=args.quiet or args.json,
                bounds=bounds,
            )
    data = {**report.as_dict(), "store": str(store.path)}
    if args.json:
        print(json.dumps(data))
    else:
        what = "every fact" if args.root is None else f"the proof of {report.root}"
        print(
            f"pulled {what} from {args.server}: {sum(report.received.values()):,} received, "
            f"{report.verified:,} verified, {report.claimed:,} still claimed, "
            f"{report.refuted:,} refuted ({report.inserted:,} new, {report.conflicts:,} "
            f"conflicts kept as stored) in {report.seconds:.2f} s"
        )
        for line in report.examples:
            print(f"  {line}")
    if report.refuted:
        print(
            f"sproutsdb pull: {report.refuted:,} fact(s) from {args.server} were refuted "
            "(never served as facts here; `sproutsdb query --json` shows the evidence)",
            file=sys.stderr,
        )
        return EXIT_REFUTED
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `pull` to the `sproutsdb` parser."""
    p = subparsers.add_parser(
        "pull",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="copy a peer server's facts into a local store, as claims, and check them",
        description=(
            "Stream the facts of a peer's server into a local store (created if missing)\n"
            "as claims whose provenance names the peer: every fact (--all, through the\n"
            "Export RPC) or the nimbers the proof of one position reads (--root, through\n"
            "Lookup). Then check them here from the rules (as `check --all` or\n"
            "`check --root` do; what stays claimed goes to the verifier the server runs)\n"
            "and say how many became verified, stayed claimed or were refuted. A fact\n"
            "stored here with another value is a conflict and keeps its stored value.\n"
            "An answer of the peer is taken whole or refused whole (a key not canonical\n"
            "here, a value Insert would refuse, columns of unequal length, a page token\n"
            "sent twice), and the pull is bounded (--max-pages, --max-facts,\n"
            "--max-seconds): either ends it with one line naming the peer, exit status 2,\n"
            "and what was stored before stays as claims (`check` verifies them).\n"
            "Exit status 1 when something was refuted."
        ),
        epilog=(
            "examples:\n  sproutsdb pull --server 10.0.0.7:50051 --all --store mine\n"
            "  sproutsdb pull --server 10.0.0.7:50051 --root 0*12 --json"
        ),
    )
    add_client_options(p, writes=False, server_help="the peer's server, HOST:PORT")
    p.add_argument("--root", metavar="POS", default=None, help="only the facts of POS's proof")
    p.add_argument("--all", action="store_true", help="every fact the peer holds")
    add_store_option(p, "local store directory, created if missing")
    p.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="--all: processes that check"
    )
    p.add_argument(
        "--max-pages",
        type=int,
        default=DEFAULT_MAX_PAGES,
        metavar="N",
        help=f"stop after N answers of the peer (default {DEFAULT_MAX_PAGES:,})",
    )
    p.add_argument(
        "--max-facts",
        type=int,
        default=DEFAULT_MAX_FACTS,
        metavar="N",
        help=f"stop after N facts received (default {DEFAULT_MAX_FACTS:,})",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=DEFAULT_MAX_SECONDS,
        metavar="S",
        help=f"stop reading the peer after S seconds (default {DEFAULT_MAX_SECONDS:g})",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run_pull)
