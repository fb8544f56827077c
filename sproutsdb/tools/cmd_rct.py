"""RCT commands: `rct` (the misère simplest form of positions or tree expressions) and
`rct-table` (build and inspect the table file of a whole game tree)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.formats.rcttable import read_header, table_from_bytes
from sproutsdb.games import get_game
from sproutsdb.ops.rct_tables import build_rct_table
from sproutsdb.progress import counter_bar
from sproutsdb.solver.cgt import Algebra, FormatLimitError
from sproutsdb.solver.misere.rctsearch import RctSearch
from sproutsdb.tools.cli import positions_from
from sproutsdb.trusted_tables import rederive_positions

# docs/architecture.md §9: GLOP 2.2 built the S6 table in about 1 740 s CPU
GLOP_S6_CPU_SECONDS = 1740.0


def describe(algebra: Algebra, handle: int, position: str | None, max_chars: int) -> dict[str, Any]:
    """The facts `rct` prints about one tree; ``tree`` is None when longer than max_chars."""
    try:
        tree: str | None = algebra.format(handle, limit=max_chars)
    except FormatLimitError:
        tree = None
    return {
        "position": position,
        "tree": tree,
        "label": algebra.label(handle),
        "id": algebra.content_id(handle),
        "height": algebra.height(handle),
        "outcome": algebra.outcome(handle),
    }


def print_fact(fact: dict[str, Any], as_json: bool, max_chars: int) -> None:
    if as_json:
        sys.stdout.write(json.dumps(fact) + "\n")
        return
    tree = fact["tree"]
    if tree is None:
        tree = f"<tree longer than {max_chars} characters: raise --max-chars>"
    head = "tree" if fact["position"] is None else fact["position"]
    sys.stdout.write(
        f"{head}  {tree}  label={fact['label']} height={fact['height']} "
        f"outcome={fact['outcome']} id={fact['id']}\n"
    )


def run_rct(args: argparse.Namespace) -> int:
    if not args.positions and not args.tree:
        raise UserError("give positions (or - for stdin) or --tree EXPR")
    game = get_game().engine()
    for text in args.positions or ():
        if text != "-":
            game.canonical(text)  # bad input is said before the table is loaded (or checked)
    shipped = None
    if args.positions and not args.no_table:
        from sproutsdb.ops.shipped_rcts import shipped_rct_table

        shipped = shipped_rct_table()
    # one memo for every position: batch lines share the work; the positions of the 0*6
    # tree come from the shipped table, the rest are built on them
    search = RctSearch(game, None if shipped is None else shipped[0].algebra)
    if shipped is not None:
        search.preload(shipped[0].positions)
    for expr in args.tree or ():
        handle = search.algebra.parse(expr)
        print_fact(
            describe(search.algebra, handle, None, args.max_chars), args.json, args.max_chars
        )
    with counter_bar("positions", enabled=not args.quiet) as bar:
        for text in positions_from(args.positions):
            key = game.canonical(text)
            handle = search.rct(key, progress=bar.update_to)
            fact = describe(search.algebra, handle, key, args.max_chars)
            print_fact(fact, args.json, args.max_chars)
            sys.stdout.flush()
    return 0


def run_table_build(args: argparse.Namespace) -> int:
    built = build_rct_table(args.root, args.out, progress=not args.quiet, verify=not args.no_verify)
    print(built.summary())
    return 0


def run_table_info(args: argparse.Namespace) -> int:
    header, _ = read_header(args.file)  # framing and checksum verified
    report: dict[str, Any] = {"file": str(args.file), "bytes": Path(args.file).stat().st_size}
    report.update(header)
    if args.check:
        data = Path(args.file).read_bytes()
        table = table_from_bytes(str(args.file), data)  # every RCT record re-derived
        with counter_bar("positions", enabled=not args.quiet) as bar:
            problems, _ = rederive_positions(
                args.file, hashlib.sha256(data).hexdigest(), table, bar.update_to
            )
        report["check"] = "ok" if not problems else problems[:20]
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        for name, value in report.items():
            if isinstance(value, dict):
                value = ", ".join(f"{k}={v}" for k, v in value.items())
            print(f"{name:15} {value}")
    if args.check and report["check"] != "ok":
        raise UserError(f"{args.file}: {len(problems)} positions do not check out")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `rct` and `rct-table` commands to the `sproutsdb` parser."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "rct",
        formatter_class=fmt,
        help="print the reduced canonical tree (misère simplest form) of positions",
        description=(
            "Print the reduced canonical tree (RCT) of each position: the tree in the misère\n"
            "paper's notation (nim-heaps as numbers, {…} a set of options), its paper-style\n"
            "label (numbered in the order the shipped S6 table, then this run, meets trees),\n"
            "its content id (the same everywhere), its height and its misère outcome (W: the\n"
            "player to move wins). Positions of the game tree of 0*6 are read from the\n"
            "shipped S6 table (--no-table: none). Positions share one memo, so `-` (one\n"
            "position per line on stdin) pays start-up\n"
            "once. --tree EXPR describes a tree expression instead (position is null)."
        ),
        epilog=(
            "examples:\n"
            "  sproutsdb rct 0*2 '0.0.AB.}AB.}]!'      # {2} and {1;{2}}\n"
            "  sproutsdb rct --tree '{2}+1' --json\n"
            "  sproutsdb rct - --json < positions.txt"
        ),
    )
    p.add_argument("positions", nargs="*", metavar="POS", help="a position (GLOP 2.x or 1.x), or -")
    p.add_argument(
        "--no-table",
        action="store_true",
        help="compute every RCT from the rules, without the shipped S6 table",
    )
    p.add_argument(
        "--tree", action="append", metavar="EXPR", help="a tree expression like {0;2;{3}} or 2+{2}"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per line: position, tree, label, id, height, outcome",
    )
    p.add_argument(
        "--max-chars",
        type=int,
        default=100_000,
        metavar="N",
        help="print trees up to N characters, longer ones as null (default 100000)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.set_defaults(handler=run_rct)

    p = subparsers.add_parser(
        "rct-table",
        formatter_class=fmt,
        help="build or inspect the RCT table file of a whole game tree",
        description=(
            "build: compute the RCT of every position of the game tree of ROOT and write\n"
            "one zstd-compressed, versioned, checksummed file (position → RCT id, and every\n"
            "RCT's record); it is read back and compared before the command succeeds.\n"
            "info: print a table's header and counts (checksum verified); --check also\n"
            "re-derives every RCT record and every position's RCT from its children."
        ),
        epilog=(
            "examples:\n"
            "  sproutsdb rct-table build 0*6 --out s6.rcttable\n"
            "  sproutsdb rct-table info s6.rcttable --json"
        ),
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    b = actions.add_parser(
        "build",
        formatter_class=fmt,
        help="compute and write the table of a game tree",
        description=(
            "Compute the reduced canonical tree (RCT) of every position of the game tree\n"
            "of ROOT and write them to one zstd-compressed, versioned, checksummed file:\n"
            "each position's RCT content id and every RCT's record. The file is read\n"
            "back and compared before the command succeeds (unless --no-verify)."
        ),
        epilog=(
            "examples:\n"
            "  sproutsdb rct-table build 0*5 --out s5.rcttable     # seconds\n"
            "  sproutsdb rct-table build 0*6 --out s6.rcttable     # the shipped S6 table"
        ),
    )
    b.add_argument("root", metavar="ROOT", help="the root position, e.g. 0*6")
    b.add_argument("--out", required=True, metavar="FILE", help="the table file to write")
    b.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    b.add_argument("--no-verify", action="store_true", help="do not read the file back")
    b.set_defaults(handler=run_table_build)
    i = actions.add_parser(
        "info",
        formatter_class=fmt,
        help="print the header and counts of a table file",
        description=(
            "Print a table file's header (root, canonical form version, format) and its\n"
            "counts of positions and RCTs, after verifying its checksum. --check also\n"
            "re-derives every RCT record and every position's RCT from its children."
        ),
        epilog=(
            "examples:\n"
            "  sproutsdb rct-table info data/s6.rcttable\n"
            "  sproutsdb rct-table info data/s6.rcttable --check --json"
        ),
    )
    i.add_argument("file", metavar="FILE", help="an RCT table file (from rct-table build)")
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.add_argument("--check", action="store_true", help="also re-derive every record and position")
    i.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    i.set_defaults(handler=run_table_info)
