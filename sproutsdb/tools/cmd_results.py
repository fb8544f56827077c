"""`sproutsdb results`: the statements the project proves about 0*n, beside the literature,
and those about other games' positions (Cram's empty boards RxC) in a table of their own (in
--json, a section named by the game: "cram").

Each row is one statement (normal outcome or nimber, misère outcome) marked: certificate here
and checked (re-derived now with --check, or earlier by this version: a cached mark per file
checksum), certificate here, or literature only. `--check` re-derives every shipped
certificate from the rules (sproutsdb.ops.results, through the gate of ops/admission.py);
exit 1 when one fails, naming it. `--recheck` believes no cached mark, not even the RCT
table's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from sproutsdb.ops.check import default_jobs
from sproutsdb.ops.results import (
    CertificateCheck,
    ManifestEntry,
    ResultRow,
    check_library,
    literature,
    other_games,
    result_rows,
    shipped_library,
    table_rows,
)
from sproutsdb.tools.cli import UsageError

EXIT_FAILED = 1
PLAY_TITLES = {
    "normal": "normal play (the Sprouts conjecture: 0*n is a loss iff n = 0, 1, 2 mod 6)",
    "misere": "misère play",
}


def run_results(args: argparse.Namespace) -> int:
    directory = Path(args.library) if args.library else None
    if directory is not None and not (directory / "manifest.json").is_file():
        raise UsageError(f"--library {directory}: no manifest.json there")
    if args.max_facts is not None and args.max_facts < 0:
        raise UsageError("--max-facts N needs N ≥ 0")
    if args.jobs is not None and (args.jobs < 1 or not args.check):
        raise UsageError("--jobs N (N ≥ 1) is for --check")
    if args.recheck and not args.check:
        raise UsageError("--recheck is for --check")
    started = time.perf_counter()
    checks: list[CertificateCheck] = []
    if args.check:
        checks = check_library(
            directory,
            only=lambda entry: _selected(args, entry),
            progress=None if args.quiet else _say,
            jobs=default_jobs() if args.jobs is None else args.jobs,
            recheck=args.recheck,
        )
    shipped = directory is None and args.play != "normal"  # the install's tables, not a folder's
    tables = table_rows(check=args.check, recheck=args.recheck) if shipped else []
    seconds = time.perf_counter() - started
    rows = [r for r in result_rows(directory, checks) if args.play is None or r.play == args.play]
    games = {
        game: [
            r
            for r in result_rows(directory, checks, game=game)
            if args.play is None or r.play == args.play
        ]
        for game in other_games(directory)
    }
    failed = [c for c in checks if not c.ok]
    for table in tables:
        if table.get("failed"):
            print(f"sproutsdb results: FAILED {table['file']}: {table['failed']}", file=sys.stderr)
    for check in failed:
        game = "" if check.entry.game == "sprouts" else f"{check.entry.game} "
        print(
            f"sproutsdb results: FAILED {game}{check.entry.play} {check.entry.position}: "
            f"{check.message}",
            file=sys.stderr,
        )
    if args.json:
        report = _report(args, rows, checks, seconds, directory, games)
        report["tables"] = tables
        if args.check:
            report["ok"] = report["ok"] and not any(t.get("failed") for t in tables)
        print(json.dumps(report))
    else:
        _print_table(rows)
        for game, shown in games.items():
            _print_game_table(game, shown)
        _print_tables(tables)
        _print_summary([*rows, *(r for shown in games.values() for r in shown)], checks, seconds)
    return EXIT_FAILED if failed or any(t.get("failed") for t in tables) else 0


def _print_tables(tables: list[dict[str, Any]]) -> None:
    for table in tables:
        counts = table["statement"]
        how = "re-derived whole by this version" if table["checked"] else "not re-derived yet"
        print(
            f"RCT table {table['file']} (root {table['position']}): {counts.get('rcts', 0):,} "
            f"RCTs, {counts.get('positions', 0):,} positions; {how}"
        )


def _selected(args: argparse.Namespace, entry: ManifestEntry) -> bool:
    if args.play is not None and entry.play != args.play:
        return False
    return args.max_facts is None or entry.facts <= args.max_facts


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _report(
    args: argparse.Namespace,
    rows: list[ResultRow],
    checks: list[CertificateCheck],
    seconds: float,
    directory: Path | None,
    games: dict[str, list[ResultRow]],
) -> dict[str, Any]:
    here = [r for r in [*rows, *(r for shown in games.values() for r in shown)] if r.statement]
    report: dict[str, Any] = {
        "library": str(directory if directory is not None else shipped_library()),
        "certificates": len(here),
        "facts": sum(r.facts or 0 for r in here),
        "results": [r.as_json() for r in rows],
        **{game: [r.as_json() for r in shown] for game, shown in games.items()},
        "sources": literature()["sources"],
    }
    if args.check:
        report["ok"] = all(c.ok for c in checks)
        report["checked"] = len(checks)
        report["checked_facts"] = sum(c.facts for c in checks)
        report["failed"] = [
            {
                "position": c.entry.position,
                "game": c.entry.game,
                "play": c.entry.play,
                "message": c.message,
            }
            for c in checks
            if not c.ok
        ]
        report["seconds"] = round(seconds, 2)
    return report


def _print_table(rows: list[ResultRow]) -> None:
    for play in ("normal", "misere"):
        shown = [r for r in rows if r.play == play]
        if not shown:
            continue
        print(PLAY_TITLES[play])
        print(
            f"  {'position':8} {'proved here':12} {'facts':>6}  {'mark':29} {'literature':12} "
            f"{'proof sizes':18} {'solve CPU':>9}  sources"
        )
        for row in shown:
            print("  " + _line(row))
        print()


GAME_TITLES = {
    "cram": "Cram, normal play: empty boards RxC (Lemoine & Viennot's table, TCS 2012 §6.2)",
}


def _print_game_table(game: str, rows: list[ResultRow]) -> None:
    """Another game's statements (Cram's boards): what is proved here beside the
    literature's nimber, lower bound or outcome, and its sources."""
    if not rows:
        return
    print(GAME_TITLES.get(game, f"{game}, normal play"))
    print(
        f"  {'board':8} {'proved here':12} {'facts':>6}  {'mark':29} {'literature':14} "
        f"{'solve CPU':>9}  sources"
    )
    for row in rows:
        lit = row.literature
        said = lit.get("outcome", "")
        if "nimber" in lit:
            said += f" (nimber {lit['nimber']})"
        elif "nimber_above" in lit:
            said += f" (nimber > {lit['nimber_above']})"
        if row.agrees is False:
            said += " DISAGREES"
        proved = "-" if row.statement is None else _statement(row.statement)
        facts = "-" if row.facts is None else f"{row.facts:,}"
        print(
            f"  {row.position:8} {proved:12} {facts:>6}  {row.mark:29} {said or '-':14} "
            f"{_cpu(row.solve_cpu_seconds):>9}  {', '.join(lit.get('sources', [])) or '-'}"
        )
    print()


def _line(row: ResultRow) -> str:
    lit = row.literature
    said = lit.get("outcome", "")
    if said and "nimber" in lit:
        said += f" (nimber {lit['nimber']})"
    if row.agrees is False:
        said += " DISAGREES"
    proved = "-" if row.statement is None else _statement(row.statement)
    facts = "-" if row.facts is None else f"{row.facts:,}"
    return (
        f"{row.position:8} {proved:12} {facts:>6}  {row.mark:29} {said or '-':12} "
        f"{_sizes(lit) or '-':18} {_cpu(row.solve_cpu_seconds):>9}  "
        f"{', '.join(lit.get('sources', [])) or '-'}"
    )


def _cpu(seconds: float | None) -> str:
    """The CPU seconds of a certificate's solve, as its manifest entry gives them."""
    return "-" if seconds is None else f"{seconds:,.0f} s" if seconds >= 1 else "<1 s"


def _statement(statement: dict[str, Any]) -> str:
    (what, value), *_ = statement.items()
    return f"{what} {value}"


def _sizes(lit: dict[str, Any]) -> str:
    """GLOP 2010 / smallest known (normal), or positions beyond S6 (misère, LV2009 Fig. 10)."""
    if "positions_beyond_s6" in lit:
        return f"{lit['positions_beyond_s6']:,} beyond S6"
    glop, best = lit.get("glop_2010_size"), lit.get("smallest_known_size")
    text = "" if glop is None else f"{glop:,}"
    return text if best is None else f"{text} (best {best:,})"


def _print_summary(rows: list[ResultRow], checks: list[CertificateCheck], seconds: float) -> None:
    here = [r for r in rows if r.statement is not None]
    marked = sum(1 for r in here if r.checked)
    print(
        f"{len(here)} certificates here ({sum(r.facts or 0 for r in here):,} facts), "
        f"{marked} checked by this version; {len(rows) - len(here)} statements from the "
        "literature only"
    )
    if checks:
        ok = sum(1 for c in checks if c.ok)
        print(
            f"--check: {ok} of {len(checks)} certificates re-derived from the rules "
            f"({sum(c.facts for c in checks):,} facts) in {seconds:.1f} s"
        )
    print(
        "proof sizes: normal, losing couples of GLOP's proof of 2010 (the smallest known); misère, positions "
        "beyond the game tree of 0*6. solve CPU: user + system of the solve that built the "
        "certificate (a seeded solve starts from the proofs of the smaller 0*k); - when it was "
        "not timed. Sources: `sproutsdb results --json` (sources)."
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `results` to the `sproutsdb` parser."""
    p = subparsers.add_parser(
        "results",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="what the project proves about 0*n and Cram boards (shipped certificates) "
        "beside the literature",
        description=(
            "List every statement known about 0*n: the certificates the package ships\n"
            "(pruned proofs, one file each, package data) and the literature's values with\n"
            "their sources; then Cram's empty boards RxC the same way, in a table of their\n"
            'own (--json: the section "cram"). Each row is marked: certificate here and\n'
            "checked, certificate here, or literature only. --check re-derives every\n"
            "certificate from the rules (each imported into a fresh temporary store of its\n"
            "game, its root checked); exit 1 when one fails, 2 for bad input."
        ),
        epilog=(
            "examples:\n"
            "  sproutsdb results\n"
            "  sproutsdb results --check --json\n"
            "  sproutsdb results --check --max-facts 1000    # the small certificates (CI)\n"
            "  sproutsdb results --check --play misere --jobs 2"
        ),
    )
    p.add_argument("--check", action="store_true", help="re-derive the certificates now")
    p.add_argument(
        "--recheck",
        action="store_true",
        help="with --check: believe no cached mark, re-derive the RCT table under the "
        "misère certificates too",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--play", choices=["normal", "misere"], default=None, help="only this play's rows"
    )
    p.add_argument(
        "--max-facts",
        type=int,
        default=None,
        metavar="N",
        help="--check only the certificates of at most N facts",
    )
    p.add_argument(
        "--library",
        metavar="DIR",
        default=None,
        help="a results folder with a manifest.json (default: the one the package ships)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="--check in N processes, the largest certificates first (default: the CPUs "
        f"available to this process, here {default_jobs()}; 1: in this process)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(handler=run_results)
