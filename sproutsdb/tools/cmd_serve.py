"""The service commands: `serve` (the gRPC server) and `stats`; helpers for `--server`.

`sproutsdb serve` serves an embedded store to many solvers; `solve`, `nimber` and `query`
take `--server ADDR` to use such a server instead of a local store (see cmd_solve), and
`stats` reports on either. grpc is imported only when a command needs it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sproutsdb.games import game_names
from sproutsdb.tools.cli import UsageError, add_store_option, invoked_as
from sproutsdb.tools.server_options import add_client_options, client_from_args

DEFAULT_REQUEST_SECONDS = 20.0  # server/limits.py's (not imported: it needs grpc)


def run_serve(args: argparse.Namespace) -> int:
    from sproutsdb.server.auth import read_token_book
    from sproutsdb.server.lifecycle import ServeOptions, check_listen_address, run_server
    from sproutsdb.server.logs import configure_logging
    from sproutsdb.server.validation import Limits
    from sproutsdb.shipped import shipped_table
    from sproutsdb.store.location import resolve_store_path

    check_listen_address(args.listen)  # its form first; binding it is run_server's first step
    if (args.tls_cert is None) != (args.tls_key is None):
        raise UsageError("give both --tls-cert and --tls-key, or neither")
    for option, value in (("--tls-cert", args.tls_cert), ("--tls-key", args.tls_key)):
        if value is not None and not Path(value).is_file():
            raise UsageError(f"{option} {value}: no such file")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    token = read_token_book(args.token_file) if args.token_file else None
    seeds: list[Path] = []
    if not args.no_seed:
        if args.seed:
            for name in args.seed:
                if not Path(name).is_file():
                    raise UsageError(f"--seed {name}: no such file")
                seeds.append(Path(name))
        else:
            shipped = shipped_table()
            if shipped is not None:
                seeds.append(shipped)
    results = None
    if args.results_library is not None and not (args.results_library / "manifest.json").is_file():
        raise UsageError(f"--results-library {args.results_library}: no manifest.json there")
    if not args.no_results and _serves_shipped_table(seeds):
        from sproutsdb.ops.results import shipped_library

        results = args.results_library or shipped_library()  # misère ones build on S6
    configure_logging(args.log_level, args.log_format)
    store_path = resolve_store_path(args.store)
    options = ServeOptions(
        store=str(store_path),
        listen=args.listen,
        token=token,
        tls_cert=Path(args.tls_cert) if args.tls_cert else None,
        tls_key=Path(args.tls_key) if args.tls_key else None,
        seed=seeds,
        workers=args.workers,
        verify=not args.no_verify,
        map_size=args.map_size,
        game=args.game,
        limits=Limits(request_seconds=args.request_seconds),
        results=results,
    )

    def ready(server: Any) -> None:
        host = args.listen.rpartition(":")[0]
        address = f"{host}:{server.port}"
        tables = (
            ", ".join(
                f"{e.root} ({e.counts.get('rcts', 0):,} RCTs)"
                for e in server.service.tables.entries.values()
            )
            or "none"
        )
        print(
            f"sproutsdb serve: listening on {address} (store {store_path}; RCT tables: "
            f"{tables}; writes {'need the token' if token else 'open to all'})",
            flush=True,
        )
        me = invoked_as()  # `make run`: .venv/bin/sproutsdb, which is not on PATH
        print(f"  query it:  {me} query 0*6 --server {address}", flush=True)
        token_option = f" --token-file {args.token_file}" if token else ""
        print(f"  solve:     {me} solve 0*8 --server {address}{token_option}", flush=True)
        print(f"  stats:     {me} stats --server {address}", flush=True)
        print("  stop:      Ctrl-C (in-flight writes are committed first)", flush=True)

    return run_server(options, ready=ready)


def _serves_shipped_table(seeds: list[Path]) -> bool:
    """Whether one of the tables is the shipped S6 table (the same bytes)."""
    from sproutsdb.ops.seed import file_checksum
    from sproutsdb.shipped import shipped_table

    shipped = shipped_table()
    if shipped is None:
        return False
    checksum = file_checksum(shipped)
    return any(file_checksum(path) == checksum for path in seeds)


# --- stats ----------------------------------------------------------------------------------


def run_stats(args: argparse.Namespace) -> int:
    if args.marks and args.server:
        raise UsageError("--marks reads a local store's records: give --store, not --server")
    if args.server:
        with client_from_args(args) as client:
            report = {"server": client.server_info(), **client.stats()}
    else:
        from sproutsdb.ops.stores import open_local_store

        with open_local_store(args.store, readonly=True) as store:
            report = store.stats()
            if args.marks:
                report["marks"] = {
                    table: dict(sorted(store.marks_by_check(table).items()))
                    for table in report["counts"]
                    if table != "children" and report["verified"].get(table)
                }
    if args.json:
        print(json.dumps(report, indent=None, default=str))
        return 0
    if args.server:
        info = report["server"]
        print(
            f"server {args.server}: sproutsdb {info['server_version']}, {info['game']} "
            f"canon_version {info['canon_version']}, engine {info['engine']}, up "
            f"{report['uptime_seconds']:,.0f} s"
        )
        print(f"  store {report['store_path']} ({report['store_bytes']:,} bytes used)")
    else:
        print(
            f"store {report['path']}: {report['game']} canon_version "
            f"{report['canon_version']} ({report['used_bytes']:,} bytes used)"
        )
    facts = report["facts"] if args.server else report["counts"]
    refuted = report.get("refuted", {})
    for table, n in facts.items():
        verified = report["verified"].get(table, 0)
        if table == "children":  # not facts: canonical children kept to save recomputing
            print(f"  {table:9} {n:>12,} positions cached (a cache of children, not facts)")
            continue
        print(
            f"  {table:9} {n:>12,} facts ({verified:,} verified, {n - verified:,} claimed, "
            f"{refuted.get(table, 0):,} refuted)"
        )
        marks = report.get("marks", {}).get(table)
        if marks:
            shown = "; ".join(f"{count:,} by {label}" for label, count in marks.items())
            print(f"  {'':9} {'':>12} verified: {shown}")
    if args.server and "verifier" in report:
        v = report["verifier"]
        scanning = ", scanning the store" if v["scanning"] else ""
        print(
            f"  verifier  backlog {v['backlog']:,} claims ({v['waiting']:,} waiting for the "
            f"facts below them), {v['checks']:,} checks{scanning}"
        )
    seeding = report.get("results_library") if args.server else None
    if seeding and seeding["total"]:
        counts = ", ".join(f"{n:,} {action}" for action, n in seeding["counts"].items() if n)
        if seeding["seeding"]:
            eta = seeding["eta_seconds"]
            left = "ETA pending" if eta is None else f"ETA ~{max(1, round(eta / 60))} min"
            now = f"; checking {seeding['current']}" if seeding["current"] else ""
            state = f"seeding: {seeding['done']:,} of {seeding['total']:,} done{now}; {left}"
        else:
            state = f"{seeding['done']:,} of {seeding['total']:,} certificates done"
        print(f"  results   {state}" + (f" ({counts})" if counts else ""))
    if args.server:
        print(
            f"  requests  {sum(report['requests'].values()):,} "
            f"({', '.join(f'{k} {v:,}' for k, v in sorted(report['requests'].items()))})"
        )
        if report["errors"]:
            print(f"  errors    {', '.join(f'{k} {v:,}' for k, v in report['errors'].items())}")
        print(f"  lookups   {report['keys_looked_up']:,} keys, {report['keys_found']:,} found")
        print(
            f"  inserts   {report['facts_offered']:,} offered, {report['facts_inserted']:,} "
            f"new, {report['facts_unchanged']:,} unchanged, {report['conflicts']:,} conflicts"
        )
        c = report["commit_ms"]
        print(
            f"  commits   {report['commits']:,}; insert latency p50 {c['p50']} ms, "
            f"p99 {c['p99']} ms, max {c['max']} ms"
        )
    return 0


# --- registration ---------------------------------------------------------------------------


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number of seconds")
    return seconds


def _map_size(text: str) -> int:
    """BYTES with an optional K, M, G or T suffix (powers of 1024)."""
    number, unit = text.strip().upper().rstrip("B"), ""
    if number and number[-1] in _UNITS:
        number, unit = number[:-1], number[-1]
    if not number.isdigit() or int(number) * _UNITS[unit] < (1 << 16):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a size of at least 64K (e.g. 1048576, 512M, 64G)"
        )
    return int(number) * _UNITS[unit]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `serve` and `stats` to the `sproutsdb` parser."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "serve",
        formatter_class=fmt,
        help="serve a store over gRPC to many solvers (open to all unless --token-file)",
        description=(
            "Serve the store over gRPC (proto/sproutsdb/v1): batch lookups and inserts,\n"
            "RCTs and the S6 table, children, export, stats, health and reflection.\n"
            "A store without RCTs is first seeded from the RCT table the project ships\n"
            "(the S6 table, package data) or from --seed FILE. Serving the S6 table, it\n"
            "also gets the results library's certificates it lacks (`sproutsdb results`),\n"
            "in the background once it listens, each re-derived from the rules first,\n"
            "smallest first, a log line for each and the progress in `stats`\n"
            "(--no-results: not). A bad or busy --listen address is refused first.\n"
            "Reads are open to all.\n"
            "Writes are open to all too unless --token-file F is given: then they need\n"
            "`authorization: Bearer <token>` (clients: --token-file F). SIGTERM or Ctrl-C\n"
            "stops taking calls, lets in-flight writes commit, and closes the store.\n\n"
            "Inserted facts are claims: a background verifier re-derives each claimed\n"
            "nimber from verified facts and the rules alone, and marks it verified or\n"
            "refuted (a refuted claim is never served; its evidence is kept).\n\n"
            "Token file: one bare secret, or lines `name:secret[:options]`; options ro\n"
            "(read-only), rate=R (write calls per second), batch=N (facts per request).\n"
            "The token's name is recorded in the provenance of what it writes."
        ),
        epilog=(
            "examples:\n"
            "  sproutsdb serve                                  # ./sproutsdb-data on "
            "127.0.0.1:50051\n"
            "  sproutsdb serve --store /data/sprouts --listen 0.0.0.0:50051 \\\n"
            "      --token-file ~/.sproutsdb-token --tls-cert cert.pem --tls-key key.pem"
        ),
    )
    add_store_option(p)
    p.add_argument(
        "--listen",
        metavar="HOST:PORT",
        default="127.0.0.1:50051",
        help="address to listen on (default 127.0.0.1:50051; port 0 picks one)",
    )
    p.add_argument(
        "--token-file",
        metavar="F",
        default=None,
        help="writes need a token of this file (default: no token, writes open "
        "to every client that can connect; reads stay open): a bare secret, "
        "or name:secret[:ro][:rate=R][:batch=N] lines",
    )
    p.add_argument(
        "--no-verify",
        action="store_true",
        help="do not run the background verifier (claims stay claimed)",
    )
    p.add_argument("--tls-cert", metavar="C", default=None, help="TLS certificate (PEM)")
    p.add_argument("--tls-key", metavar="K", default=None, help="TLS private key (PEM)")
    p.add_argument(
        "--seed",
        metavar="FILE",
        action="append",
        default=None,
        help="RCT table to seed an RCT-less store from and to stream "
        "(default: the shipped S6 table, data/s6.rcttable in a checkout)",
    )
    p.add_argument("--no-seed", action="store_true", help="serve no RCT table, seed nothing")
    p.add_argument(
        "--no-results",
        action="store_true",
        help="do not seed the results library (by default, when the shipped S6 table is "
        "served, each shipped certificate the store lacks is stored once it re-derived from "
        "the rules alone, its proved facts marked verified; see `sproutsdb results`)",
    )
    p.add_argument(
        "--results-library",
        type=Path,
        default=None,
        metavar="DIR",
        help="the results folder (with its manifest.json) to seed instead of the shipped one",
    )
    p.add_argument(
        "--game",
        choices=game_names(),
        default=None,
        help="the game of a new store (default: the game an existing store records, else "
        "sprouts); a store of another game is refused. A table of another game is not served",
    )
    p.add_argument(
        "--map-size",
        type=_map_size,
        default=None,
        metavar="BYTES",
        help="LMDB map size: the most the store may grow to (e.g. 64G; default "
        "1 TiB, sparse); a write past it answers RESOURCE_EXHAUSTED",
    )
    p.add_argument(
        "--request-seconds",
        type=_seconds,
        default=DEFAULT_REQUEST_SECONDS,
        metavar="S",
        help="server time one Children or Verify request may take "
        f"before it is cut with RESOURCE_EXHAUSTED (default {DEFAULT_REQUEST_SECONDS:g})",
    )
    p.add_argument(
        "--workers", type=int, default=16, metavar="N", help="RPC worker threads (default 16)"
    )
    p.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="default info",
    )
    p.add_argument(
        "--log-format",
        default="json",
        choices=["json", "text"],
        help="structured JSON lines on stderr (default) or plain text",
    )
    p.set_defaults(handler=run_serve)

    p = subparsers.add_parser(
        "stats",
        formatter_class=fmt,
        help="counts of stored facts, and a server's request counters",
        description="Report what a store holds, or what a server holds and has served.",
        epilog="examples:\n  sproutsdb stats --server 127.0.0.1:50051\n  sproutsdb stats --json",
    )
    add_store_option(p, "local store directory")
    add_client_options(p, writes=False)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--marks",
        action="store_true",
        help="local store: also count the verified facts of each table by the kind of "
        "check that marked them (reads every record: slow on big stores)",
    )
    p.set_defaults(handler=run_stats)


__all__ = ["register"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: sproutsdb serve | sproutsdb stats")
