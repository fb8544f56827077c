"""`sproutsdb check`: verify the proof of a position held in a store, optionally prune it.

The checks are the library's (sproutsdb.ops: `check_root`, `check_misere_root`,
`check_all`); this module parses the flags, opens the stores, writes the pruned store and
prints the report. Exit 0 only for a complete, consistent proof; 1 when the proof has
holes or inconsistencies; 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sproutsdb.games import DEFAULT_GAME, get_game
from sproutsdb.ops.check import (
    CHECK_BATCH,
    DEFAULT_DERIVE_LIVES,
    LOCAL_RAY,
    RootCheck,
    check_all,
    check_misere_root,
    check_root,
    default_jobs,
    write_pruned,
)
from sproutsdb.ops.stores import may_write, open_local_store
from sproutsdb.solver.misere.rct_trust import DEFAULT_DERIVE_LIVES as DEFAULT_DERIVE_RCT_LIVES
from sproutsdb.tools.cli import UsageError, add_store_option
from sproutsdb.tools.game_option import store_game

EXIT_BAD_PROOF = 1
HOLES_SHOWN = 20  # missing positions a root check's text lists (--json: all of them)


def run_check_all(args: argparse.Namespace) -> int:
    """`check --all`: every nimber (in batches, --jobs/--ray), then the RCT records, the
    position → RCT entries and the misère nodes (see `sproutsdb.ops.check_all`)."""
    if not may_write(args.store):
        raise UsageError(
            "check --all marks what it verifies, and this user may not write the store; "
            "check each root with --root (read-only), or check a writable copy"
        )
    with open_local_store(args.store, create=False) as store:
        result = check_all(
            store,
            batch=args.batch,
            quiet=args.quiet,
            jobs=args.jobs,
            derive_lives=args.derive_lives,
            ray=args.ray,
            recheck=args.recheck,
        )
    with _reader_may_stop():
        if args.json:
            print(json.dumps(result.report))
        else:
            _print_all_text(result.report, result.seconds, result.timings)
    return 0 if result.ok else EXIT_BAD_PROOF


def _print_all_text(report: dict[str, Any], seconds: float, timings: list[float]) -> None:
    """The text form of a whole-store check's report: a verdict naming the kinds covered,
    then one line per kind (with the seconds it took, `timings`) and its problems. (The
    JSON report keeps timings out of `kinds`: the same store gives the same `kinds`.)"""
    mode = " (recheck: no earlier mark trusted)" if report.get("recheck") else ""
    kinds = report.get("kinds", [])
    covered = ", ".join(_KIND_NAMES.get(k["kind"], k["kind"]) for k in kinds)
    print(
        f"{'all facts verified' if report['ok'] else 'NOT ALL FACTS VERIFIED'}{mode}: "
        f"{covered}; {seconds:.2f} s, {report['jobs']} job{'s' if report['jobs'] > 1 else ''}"
        " (nimbers; the other kinds in this process)"
    )
    if kinds:
        _print_kind(kinds[0], timings[0])
    if report.get("trusted_marks"):
        print(
            "    marks trusted (--recheck trusts none): "
            + ", ".join(f"{n:,} by {check}" for check, n in report["trusted_marks"].items())
        )
    if report.get("withdrawn"):
        print(
            f"    {report['withdrawn']:,} mark(s) of other checks withdrawn (not "
            f"re-derived): {', '.join(report['withdrawn_first'])}"
        )
    for hole in report["missing"]:
        print(
            f"    missing: ({hole['couple']}) needed by {hole['needed_by']}; a nimber of "
            f"any of: {', '.join(hole['missing']) or '(no candidate)'}"
        )
    if report.get("derived"):
        print(
            f"    {report['derived']:,} lands derived from the rules, not stored: "
            f"{', '.join(report['derived_lands'])}"
        )
    for bad in report["inconsistent"]:
        print(f"    inconsistent: {bad['land']} stored nimber {bad['stored']}: {bad['reason']}")
    for kind, spent in zip(kinds[1:], timings[1:], strict=True):
        _print_kind(kind, spent)


_KIND_NAMES = {
    "nimber": "nimbers",
    "rct": "RCT records",
    "pos_rct": "pos_rct entries",
    "misere": "misère nodes",
}


def _print_kind(kind: dict[str, Any], seconds: float) -> None:
    """One kind of fact (rct, pos_rct, misere) of a whole-store check, and its problems."""
    head = f"  {_KIND_NAMES.get(kind['kind'], kind['kind'])}: {kind['facts']:,}"
    if not kind["facts"]:
        print(f"{head} (none stored)")
        return
    parts = [
        f"{kind['verified_now']:,} verified now",
        f"{kind['already_verified']:,} already verified",
        f"{kind['unproven']:,} unproven",
    ]
    if kind.get("not_checked"):
        parts.append(f"{kind['not_checked']:,} not checked (over 18 lives)")
    print(f"{head} ({', '.join(parts)}, {seconds:.2f} s)")
    for bad in kind.get("inconsistent", []):
        print(f"    inconsistent: {bad['land']}: {bad['reason']}")
    if kind.get("not_checked_first"):
        print(f"    not checked: {', '.join(kind['not_checked_first'])}")
    if kind.get("withdrawn"):
        print(f"    {kind['withdrawn']:,} mark(s) of other checks withdrawn")


@contextmanager
def _reader_may_stop() -> Iterator[None]:
    """Printing a report to a reader that stops early (`| head`) keeps the exit status of
    the check (it would otherwise end as an OSError, exit 2: bad input)."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def run_check_misere(args: argparse.Namespace) -> int:
    """`check --misere`: the misère outcome of --root from stored losing nodes (see
    `sproutsdb.ops.check_misere_root`: every RCT claim is re-derived before it is used, so a
    forged position → RCT entry is refuted, exit 1, never believed)."""
    _check_prune_target(args.prune)
    started = time.perf_counter()
    # writable when this user may write it (the check marks what it verifies), else read-only
    with open_local_store(args.store, create=False, readonly=not may_write(args.store)) as store:
        access = store.access()
        result = check_misere_root(
            store,
            args.root,
            cycles=args.cycles,
            seed=args.seed,
            rct_table=args.rct_table,
            use_rcts=not args.no_rct_table,
            derive_rct_lives=args.derive_rct_lives,
            quiet=args.quiet,
        )
    _prune(args, result)
    return _finish(args, result, started, access)


def _check_prune_target(prune: str | None) -> None:
    """Refuse --prune OUT before any work when OUT exists and is not an empty directory."""
    if prune is not None:
        out = Path(prune).expanduser()
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise UsageError(f"--prune {out}: already exists and is not empty")


def _prune(args: argparse.Namespace, result: RootCheck) -> None:
    """--prune OUT: a new store of only the facts a complete proof used."""
    if args.prune is not None and result.ok:
        with open_local_store(args.prune, new=True, game=result.game) as pruned:
            write_pruned(result, pruned)


def run_check(args: argparse.Namespace) -> int:
    if args.cycles < 1:
        raise UsageError("--cycles must be at least 1")
    if args.recheck and (not args.all or args.misere):
        raise UsageError("--recheck is for --all (a whole-store check)")
    if args.jobs is not None and (not args.all or args.misere or args.jobs < 1):
        raise UsageError("--jobs N (N ≥ 1) is for --all")
    if args.ray is not None and (not args.all or args.misere):
        raise UsageError("--ray is for --all (normal play)")
    if args.derive_lives is not None and args.derive_lives < 0:
        raise UsageError("--derive-lives K needs K ≥ 0 (0: derive nothing)")
    if args.derive_rct_lives is not None and (not args.misere or args.derive_rct_lives < 0):
        raise UsageError("--derive-rct-lives K (K ≥ 0) is for --misere")
    if args.misere:
        if args.no_rct_table and args.rct_table:
            raise UsageError("give --rct-table FILE|sN or --no-rct-table, not both")
        if args.derive_rct_lives is None:
            args.derive_rct_lives = DEFAULT_DERIVE_RCT_LIVES
        if args.all or args.root is None or args.outcome_only or args.derive_lives is not None:
            raise UsageError(
                "--misere checks one --root (no --all, no --outcome-only, no --derive-lives)"
            )
        return run_check_misere(args)
    if args.derive_lives is None:
        args.derive_lives = DEFAULT_DERIVE_LIVES
    if args.rct_table is not None or args.no_rct_table:
        raise UsageError("--rct-table and --no-rct-table are for misère play: add --misere")
    if args.all:
        if args.root is not None or args.prune is not None:
            raise UsageError("--all checks every fact: give no --root and no --prune")
        return run_check_all(args)
    if args.root is None:
        raise UsageError("give --root POS (or --all to check every fact of the store)")
    game = store_game(args.store) or DEFAULT_GAME
    key = get_game(game).engine().canonical(args.root)  # a bad position before any store
    _check_prune_target(args.prune)
    started = time.perf_counter()
    # writable when this user may write it (the check marks what it verifies), else read-only
    with open_local_store(args.store, create=False, readonly=not may_write(args.store)) as store:
        access = store.access()
        result = check_root(
            store,
            key,
            cycles=args.cycles,
            seed=args.seed,
            outcome_only=args.outcome_only,
            derive_lives=args.derive_lives,
            quiet=args.quiet,
        )
    _prune(args, result)
    return _finish(args, result, started, access)


def _finish(
    args: argparse.Namespace, result: RootCheck, started: float, access: dict[str, Any]
) -> int:
    """Print a root check's report (text or JSON) and return its exit status (`access`:
    how the store was open; a read-only one keeps no marks)."""
    data = result.as_dict(time.perf_counter() - started)
    data["pruned"] = args.prune if args.prune is not None and result.ok else None
    data["store"] = access
    with _reader_may_stop():
        if args.json:
            print(json.dumps(data))
        else:
            _print_text(data)
    if args.prune is not None and not result.ok:
        print(
            "sproutsdb check: not pruned: the proof is not complete and consistent", file=sys.stderr
        )
    return 0 if result.ok else EXIT_BAD_PROOF


def _print_text(data: dict[str, Any]) -> None:
    """The text form of a root check's report: a misère check first says which RCTs it
    read and why, then the verdict, and at most HOLES_SHOWN holes (the JSON lists all)."""
    if data.get("play") == "misere" and data.get("rct_table"):
        print(_rct_line(data["rct_table"]))
    result = (
        "unknown"
        if data["outcome"] is None
        else f"{data['outcome']}" + ("" if data["nimber"] is None else f", nimber {data['nimber']}")
    )
    verdict = "proof complete and consistent" if data["ok"] else "PROOF NOT VALID"
    proved = f" ({data['proved']} proven)" if data.get("proved") else ""
    print(f"{data['position']}: {result}: {verdict}{proved}")
    print(
        f"  {data['facts_used']:,} facts used, {data['facts_verified']:,} verified, "
        f"{data['facts_unproven']:,} unproven, {data['seconds']:.2f} s"
    )
    if data.get("store", {}).get("read_only"):
        print("  the store is read-only here: nothing was marked verified in it")
    if data.get("derived"):
        print(
            f"  {data['derived']:,} lands derived from the rules, not stored: "
            f"{', '.join(data['derived_lands'])}"
        )
    if len(data["cycle_sizes"]) > 1:
        print(f"  proof sizes over {len(data['cycle_sizes'])} cycles: {data['cycle_sizes']}")
    for hole in data["missing"][:HOLES_SHOWN]:
        names = ", ".join(hole["missing"]) or "(no candidate)"
        print(
            f"  missing: ({hole['couple']}) needed by {hole['needed_by']} "
            f"is not shown winning; a stored fact for any of: {names}"
        )
    if len(data["missing"]) > HOLES_SHOWN:
        print(f"  … and {len(data['missing']) - HOLES_SHOWN:,} more missing (--json lists all)")
    for bad in data["inconsistent"]:
        print(f"  inconsistent: {bad['land']} stored nimber {bad['stored']}: {bad['reason']}")
    claims = data.get("rct_claims")
    if claims:
        print(
            f"  RCTs from {_SOURCE_NAMES.get(data['rct_source'], data['rct_source'])}: "
            f"{claims['claims_used']:,} land(s) replaced, "
            f"each re-derived ({claims['positions_derived']:,} positions derived here in "
            f"{claims['derive_seconds']:.2f} s, {claims['from_rederived_table']:,} from the "
            "re-derived table)"
        )
        for line in claims["refuted_first"]:
            print(f"  refuted: {line}")
        if claims["no_record"]:
            print(
                f"  not used: {claims['no_record']:,} position → RCT claim(s) naming an RCT "
                f"the store holds no record of: {', '.join(claims['no_record_first'])}"
            )
        if claims["not_derived"]:
            print(
                f"  not used: {claims['not_derived']:,} RCT claim(s) on lands too large to "
                f"re-derive (--derive-rct-lives): {', '.join(claims['not_derived_first'])}"
            )
    if data.get("play") == "misere" and data["missing"]:
        _print_table_hint(data)
    if data.get("pruned"):
        print(f"  pruned proof written to {data['pruned']}")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `check` to the `sproutsdb` parser."""
    p = subparsers.add_parser(
        "check",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="verify the stored proof of a position; optionally prune the store to it",
        description=(
            "Re-derive the result of POS using only facts in the store: each nimber is\n"
            "accepted only when its children (recomputed by the engine) justify it. The\n"
            "strongest statement is proven: the nimber of POS when its lands' facts are\n"
            "stored, else its outcome (a win: one option of value 0; a loss needs (POS, 0)\n"
            "stored). Reports missing facts (holes) and inconsistent ones. Exit 0 only for\n"
            "a complete, consistent proof, 1 otherwise. Checked facts are marked verified;\n"
            "lands derived from the rules (--derive-lives) are never stored or marked."
        ),
        epilog=(
            "examples:\n  sproutsdb check --store data --root 0*7\n"
            "  sproutsdb check --store data --root 0*9 --prune small --cycles 10 --json\n"
            "  sproutsdb check --store big --all --jobs 8   # every fact, 8 processes; "
            "rerun to resume\n"
            "  sproutsdb check --store big --all --ray head:6379   # on a Ray cluster\n"
            "  sproutsdb check --store received --all --recheck   # trust none of its marks"
        ),
    )
    add_store_option(p)
    p.add_argument("--root", metavar="POS", help="position whose proof to check")
    p.add_argument(
        "--all",
        action="store_true",
        help="check every fact of the store: nimbers in batches, fewest lives first "
        "(sorted through compressed temporary files in $TMPDIR), then RCT records, "
        "position → RCT entries and misère nodes; facts already verified are "
        "trusted, so an interrupted run resumes",
    )
    p.add_argument(
        "--recheck",
        action="store_true",
        help="with --all: trust no verified mark made before this run (a store received "
        "from elsewhere): re-derive every fact, re-mark it as this check's, and withdraw "
        "the mark of any fact that does not re-derive",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="with --all: check the nimbers' batches in N worker processes, each reading "
        "the store; this process alone marks facts verified, and checks the RCT and "
        "misère facts (default: the CPUs available to this process, here "
        f"{default_jobs()}, no more than there are batches; 1: no workers)",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const=LOCAL_RAY,
        default=None,
        metavar="ADDRESS",
        help="with --all: check batches on Ray workers (pip install "
        "'sproutsdb[cluster]'), one per CPU unless --jobs N; no ADDRESS: a "
        "new local Ray instance on this machine's CPUs; ADDRESS: join that "
        "cluster, whose every node must see the store (a read-only copy) at "
        "the same path; this process alone marks facts verified",
    )
    p.add_argument("--batch", type=int, default=CHECK_BATCH, help=argparse.SUPPRESS)
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on stderr (facts checked so far, and the cycle of --cycles)",
    )
    p.add_argument(
        "--misere",
        action="store_true",
        help="misère play: the outcome of --root from stored losing nodes",
    )
    p.add_argument(
        "--rct-table",
        metavar="FILE|sN",
        default=None,
        help="with --misere: the RCT table the solve used, a file or a name (s6, s7: as "
        "`solve --rct-table`; s7 built into the cache if it is not there) (default, as "
        "`solve --misere`: the store's RCTs, else the named table its solves used if it "
        "is in the cache, else the shipped S6 table when the store names no table; the "
        "first line says which and why); nodes are keyed by it. A file is re-derived "
        "whole before its first use (tens of seconds for S6; the verdict is cached per file "
        "checksum)",
    )
    p.add_argument(
        "--no-rct-table",
        action="store_true",
        help="with --misere: check with the rules alone, no RCTs (for nodes proven with "
        "`solve --misere --no-rct-table`)",
    )
    p.add_argument(
        "--derive-rct-lives",
        type=int,
        default=None,
        metavar="K",
        help="with --misere: re-derive the store's position → RCT claims of lands of at most "
        "K lives from the rules (default 18, the lands of the S6 tree); a claim on a larger "
        "land is not used",
    )
    p.add_argument(
        "--outcome-only",
        action="store_true",
        help="prove only the outcome even when the root's nimber is stored (a win "
        "needs one losing option: a smaller proof); without it, a root with "
        "no stored fact is already checked for its outcome",
    )
    p.add_argument(
        "--derive-lives",
        type=int,
        default=None,
        metavar="K",
        help="take lands the proof needs that have no stored fact and at most K "
        "lives from the rules (a mex search), as certificate writers evaluate "
        "them on the fly; reported as derived, never stored or marked "
        f"(default {DEFAULT_DERIVE_LIVES}; 0: off; also with --all)",
    )
    p.add_argument(
        "--prune",
        metavar="OUT",
        default=None,
        help="write a new store holding only the facts the proof used",
    )
    p.add_argument(
        "--cycles",
        type=int,
        default=1,
        metavar="K",
        help="repeat with random choices and keep the smallest proof",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random cycles")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=run_check)


_SOURCE_NAMES = {"file": "the table", "shipped": "the shipped S6 table", "store": "the store"}


def _rct_line(choice: dict[str, Any]) -> str:
    """The first line of a misère check's text: the RCTs it read, from where, and why."""
    what = {
        "file": "the RCT table",
        "shipped": "the shipped S6 RCT table",
        "store": "the store's RCTs",
    }.get(choice["source"], "none")
    where = f" {choice['where']}" if choice.get("where") else ""
    return f"RCTs: {what}{where}: {choice['why']}"


def _print_table_hint(data: dict[str, Any]) -> None:
    """After the holes of a misère check: the table the store's nodes were proven on when
    the check read another, or how to give the table when the store names none."""
    tables = data.get("solved_on_tables") or []
    if data.get("rct_source") == "store" or data.get("rct_table_file") in tables:
        return
    used = (
        "no RCT table was used"
        if data.get("rct_source") == "none"
        else f"checked with {data.get('rct_table_file')}"
    )
    if tables:
        print(
            f"  {used}, but this store's losing nodes were proven on "
            f"{' and on '.join(tables)}: check with --rct-table that file"
            f"{_named_table_hint(tables)}"
        )
    elif data.get("rct_source") == "none" and data.get("rct_table", {}).get("default", True):
        print(
            f"  {used}: losing nodes proven with `solve --misere --rct-table FILE` are "
            "checked with the same --rct-table FILE"
        )


def _named_table_hint(tables: list[str]) -> str:
    """`(--rct-table s7 finds or builds it)` for the tables a store names that are named
    tables' files (`s7.rcttable`), else nothing."""
    from sproutsdb.ops.rct_tables import name_of_table_file
    from sproutsdb.ops.solved_on import table_file_name

    names = [name_of_table_file(table_file_name(text)) for text in tables]
    found = [f"--rct-table {name}" for name in names if name]
    return f" ({' or '.join(found)} finds or builds it)" if found else ""
