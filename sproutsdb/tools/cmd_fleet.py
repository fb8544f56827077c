"""`sproutsdb fleet solve`: many solvers on Ray, all clients of one server.

Each position is solved here as `solve --jobs 1` would, against the server, while N - 1 Ray
helpers prove parts of its tree (ops/jobs/ray_helpers.py: `solve --jobs N` over Ray); the
answer is this process's (`--misere`: N - 1 Ray helpers prove the position's options,
ops/jobs/ray_misere_helpers.py, as `solve --misere --jobs N` does). With `--tasks` (or
`--options-of`) each position (or option of one root) is instead a whole solve in a Ray
task (ops/jobs/ray_fleet.py, ray_fleet_misere.py), each through the server, so what one
proves serves all; with `--options-of` the root itself is then solved here, from what the
fleet stored. Ray is imported only when the command runs (`pip install 'sproutsdb[cluster]'`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sproutsdb.games import get_game
from sproutsdb.progress import status_line
from sproutsdb.solver.ports.game import Game
from sproutsdb.tools.cli import UsageError
from sproutsdb.tools.server_options import (
    add_client_options,
    client_from_args,
    client_token,
    tls_ca_of,
)
from sproutsdb.tools.stores import location_of

if TYPE_CHECKING:
    from sproutsdb.client import Client

EXIT_CONFLICT = 3
SPLIT_DEPTH = 1  # fleet solve --split: levels of options below the positions given


def _positions(args: argparse.Namespace, game: Game) -> tuple[list[str], str | None]:
    """The distinct canonical positions to hand out, and the root of --options-of."""
    if args.options_of is not None:
        if args.positions:
            raise UsageError("give positions or --options-of ROOT, not both")
        root = game.canonical(args.options_of)
        children = game.children(root)
        if not children:
            raise UsageError(f"{root} has no options: nothing to hand out")
        return children, root
    if not args.positions:
        raise UsageError("give positions to solve (e.g. 0*7 0*8) or --options-of ROOT")
    return list(dict.fromkeys(game.canonical(p) for p in args.positions)), None


def run_fleet_solve(args: argparse.Namespace) -> int:
    if getattr(args, "misere", False):
        return run_fleet_solve_misere(args)
    if args.server is None:
        raise UsageError("--server HOST:PORT is required: the fleet shares one server")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs N needs N ≥ 1")
    if args.split is not None and not args.split > 0:
        raise UsageError(f"--split SECONDS needs SECONDS > 0, got {args.split}")
    if args.split_depth < 1:
        raise UsageError(f"--split-depth D needs D ≥ 1, got {args.split_depth}")
    game = get_game().engine()
    positions, root = _positions(args, game)
    if root is None and not args.tasks:
        return run_fleet_solve_helped(args, positions)
    if args.trace is not None:
        raise UsageError(
            "--trace records the helped fleet and --misere: not --tasks or --options-of"
        )
    from sproutsdb.ops.jobs.ray_fleet import ServerSpec, solve_fleet, solve_on_server
    from sproutsdb.ops.ray_session import ray_session

    server = ServerSpec(args.server, client_token(args), tls_ca_of(args))  # as every command
    started = time.perf_counter()
    shown = not args.quiet and sys.stderr.isatty()
    counter = _ServerCounter(args)  # its channel opens at its first count, once Ray runs
    try:
        with status_line(enabled=shown) as line:

            def progress(done: int, total: int) -> None:
                if shown:
                    line.show(
                        f"{done}/{total} positions solved  {counter.text()}  "
                        f"{time.perf_counter() - started:,.0f} s"
                    )

            # Ray first: its daemons must be forked before this process has gRPC threads
            with ray_session(args.ray or None, num_cpus=args.jobs) as session:
                location_of(args).open().close()  # answering, same game and canon
                split = None
                if args.split is not None:
                    split = (args.split, game.children, args.split_depth)
                results, workers, handed_out = solve_fleet(
                    session,
                    server,
                    positions,
                    search=args.search,
                    outcome_only=args.outcome_only,
                    workers=args.jobs,
                    progress=progress,
                    split=split,
                )
            root_result = None
            if root is not None and not any("error" in r for r in results):
                if shown:
                    line.show(f"solving {root} from the fleet's facts  {counter.text()}")
                root_result = solve_on_server(
                    server, root, search=args.search, outcome_only=args.outcome_only
                )
    finally:
        counter.close()
    seconds = time.perf_counter() - started
    every = [*results, *handed_out, root_result]
    failed = [r for r in every if r is not None and "error" in r]
    stored = sum(r.get("stored", 0) for r in every if r is not None)
    if args.json:
        report: dict[str, Any] = {
            "positions": results,
            "root": root_result,
            "stored": stored,
            "handed_out": len(handed_out),
            "workers": workers,
            "seconds": round(seconds, 3),
        }
        print(json.dumps(report))
    else:
        for r in results + ([root_result] if root_result is not None else []):
            _print_result(r)
        print(
            f"{len(results)} positions on {workers} Ray worker{'s' * (workers != 1)}: "
            f"{stored:,} new facts stored on server {args.server} in {seconds:.2f} s"
        )
    for r in failed:
        print(f"sproutsdb fleet: {r['position']}: {r['error']}", file=sys.stderr)
    if any(r["error"].startswith("conflict") for r in failed):
        return EXIT_CONFLICT
    return 2 if failed else 0


def run_fleet_solve_helped(args: argparse.Namespace, positions: list[str]) -> int:
    """`fleet solve POS...`: each position solved here as `solve --jobs 1` would, against
    the server, with N - 1 Ray helpers proving parts of its tree (ops/jobs/ray_helpers.py)."""
    from sproutsdb.ops.jobs.parallel_normal import SPLIT_DEPTH as HELPERS_SPLIT_DEPTH
    from sproutsdb.ops.jobs.ray_fleet import ServerSpec
    from sproutsdb.ops.jobs.ray_helpers import solve_with_helpers
    from sproutsdb.ops.ray_session import cluster_cpus, ray_session

    server = ServerSpec(args.server, client_token(args), tls_ca_of(args))
    started = time.perf_counter()
    shown = not args.quiet and sys.stderr.isatty()
    results: list[dict[str, Any]] = []
    # Ray first: its daemons must be forked before this process has gRPC threads
    with (
        status_line(enabled=shown) as line,
        ray_session(args.ray or None, num_cpus=args.jobs) as session,
    ):
        location_of(args).open().close()  # answering, same game and canon
        workers = args.jobs or cluster_cpus(session)
        for done, position in enumerate(positions):
            if shown:
                line.show(
                    f"{done}/{len(positions)} positions solved, solving {position} "
                    f"with {workers - 1} Ray helpers  {time.perf_counter() - started:,.0f} s"
                )
            results.append(
                solve_with_helpers(
                    server,
                    position,
                    workers - 1,
                    search=args.search,
                    outcome_only=args.outcome_only,
                    split_seconds=math.inf if args.split is None else args.split,
                    split_depth=HELPERS_SPLIT_DEPTH if args.split is None else args.split_depth,
                    trace=_trace_path(args.trace, done, len(positions)),
                )
            )
    seconds = time.perf_counter() - started
    failed = [r for r in results if "error" in r]
    stored = sum(r.get("stored", 0) for r in results)
    if args.json:
        from sproutsdb.ops.jobs.ray_helpers import merge_timings

        report: dict[str, Any] = {
            "positions": results,
            "root": None,
            "stored": stored,
            "handed_out": 0,
            "workers": workers,
            "seconds": round(seconds, 3),
            "visits": sum(r.get("visits", 0) for r in results),
        }
        for cost in ("dispatch", "sharing", "sync"):
            report[cost] = merge_timings([r[cost] for r in results if cost in r])
        print(json.dumps(report))
    else:
        for r in results:
            _print_result(r)
        print(
            f"{len(results)} positions, each solved here with {workers - 1} Ray "
            f"helper{'s' * (workers != 2)}: {stored:,} new facts stored on server "
            f"{args.server} in {seconds:.2f} s"
        )
    for r in failed:
        print(f"sproutsdb fleet: {r['position']}: {r['error']}", file=sys.stderr)
    if any(r["error"].startswith("conflict") for r in failed):
        return EXIT_CONFLICT
    return 2 if failed else 0


def _trace_path(trace: str | None, index: int, count: int) -> str | None:
    """Where position `index`'s trace goes: FILE itself for one position, else FILE with
    the position's number before its suffixes (run.jsonl.gz -> run.2.jsonl.gz)."""
    if trace is None or count == 1:
        return trace
    path = Path(trace)
    stem = path.name.split(".")[0]
    return str(path.with_name(f"{stem}.{index}{path.name[len(stem) :]}"))


def run_fleet_solve_misere(args: argparse.Namespace) -> int:
    """`fleet solve --misere`: the positions' misère outcomes, each solved here with Ray
    helpers (or, with --tasks or --options-of, each a Ray task, then the root's)."""
    if args.server is None:
        raise UsageError("--server HOST:PORT is required: the fleet shares one server")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs N needs N ≥ 1")
    if args.outcome_only:
        raise UsageError("--outcome-only is for normal play: --misere finds the outcome only")
    positions, root = _positions(args, get_game().engine())
    from sproutsdb.ops.jobs.ray_fleet import ServerSpec
    from sproutsdb.ops.jobs.ray_fleet_misere import misere_fleet, misere_on_server
    from sproutsdb.ops.ray_session import ray_session

    server = ServerSpec(args.server, client_token(args), tls_ca_of(args))
    started = time.perf_counter()
    shown = not args.quiet and sys.stderr.isatty()
    with status_line(enabled=shown) as line:

        def progress(done: int, total: int) -> None:
            if shown:
                line.show(
                    f"{done}/{total} positions solved in misère play  "
                    f"{time.perf_counter() - started:,.0f} s"
                )

        # Ray first: its daemons must be forked before this process has gRPC threads
        with ray_session(args.ray or None, num_cpus=args.jobs) as session:
            location_of(args).open().close()  # answering, same game and canon
            _say_if_no_table(args)
            if root is None and not args.tasks:  # each solved here, with Ray helpers
                results, workers = _misere_helped(session, server, args.jobs, positions)
            else:
                results, workers = misere_fleet(
                    session, server, positions, workers=args.jobs, progress=progress
                )
        root_result = None
        if root is not None and not any("error" in r for r in results):
            if shown:
                line.show(f"solving {root} in misère play from the fleet's losing nodes")
            root_result = misere_on_server(server, root)
    if args.trace is not None:
        from sproutsdb.ops.jobs.fleet_trace import misere_records, write_trace

        write_trace(args.trace, misere_records(results, root_result, workers))
    return _report_misere(args, results, root_result, workers, time.perf_counter() - started)


def _misere_helped(
    session: Any, server: Any, jobs: int | None, positions: list[str]
) -> tuple[list[dict[str, Any]], int]:
    """`fleet solve --misere POS...`: each position solved here as `solve --misere --jobs N`
    would, against the server, with N - 1 Ray helpers proving its options
    (ops/jobs/ray_misere_helpers.py); (results, workers)."""
    from sproutsdb.ops.jobs.ray_misere_helpers import misere_with_helpers
    from sproutsdb.ops.ray_session import cluster_cpus

    workers = jobs or cluster_cpus(session)
    return [misere_with_helpers(server, p, workers - 1) for p in positions], workers


def _say_if_no_table(args: argparse.Namespace) -> None:
    """One line on stderr when the server serves no RCT table (the workers then search
    with the rules alone, slow beyond 0*7)."""
    with client_from_args(args) as client:
        if not client.server_info().get("rct_tables"):
            print(
                f"sproutsdb fleet solve: server {args.server} serves no RCT table; the "
                "workers search with the rules alone (slow beyond 0*7)",
                file=sys.stderr,
            )


def _report_misere(
    args: argparse.Namespace,
    results: list[dict[str, Any]],
    root_result: dict[str, Any] | None,
    workers: int,
    seconds: float,
) -> int:
    """Print what the fleet proved (JSON or lines); the exit code."""
    every = [*results, *([root_result] if root_result is not None else [])]
    failed = [r for r in every if "error" in r]
    stored = sum(r.get("stored", 0) for r in every)
    if args.json:
        print(
            json.dumps(
                {
                    "play": "misere",
                    "positions": results,
                    "root": root_result,
                    "stored": stored,
                    "workers": workers,
                    "seconds": round(seconds, 3),
                }
            )
        )
    else:
        for r in every:
            if "error" in r:
                print(f"{r['position']}: not solved")
            else:
                print(
                    f"{r['position']}: {r['outcome']} in misère play ({r['stored']:,} new "
                    f"losing nodes, {r['seconds']:.2f} s, {r['worker']})"
                )
        print(
            f"{len(results)} positions on {workers} Ray worker{'s' * (workers != 1)}: "
            f"{stored:,} new losing nodes stored on server {args.server} in {seconds:.2f} s"
        )
    for r in failed:
        print(f"sproutsdb fleet: {r['position']}: {r['error']}", file=sys.stderr)
    if any(r["error"].startswith("conflict") for r in failed):
        return EXIT_CONFLICT
    return 2 if failed else 0


def _print_result(r: dict[str, Any]) -> None:
    if "error" in r:
        print(f"{r['position']}: not solved")
        return
    tail = f", nimber {r['nimber']}" if r["nimber"] is not None else ""
    print(
        f"{r['position']}: {r['outcome']}{tail} ({r['stored']:,} new facts, "
        f"{r['seconds']:.2f} s, {r['worker']})"
    )


class _ServerCounter:
    """The server's nimber count for the progress line (one Stats call a refresh). Its
    channel opens at the first count, so that Ray can start before it (`ray_session`)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self._args = args
        self._client: Client | None = None
        self._first: int | None = None

    def text(self) -> str:
        try:
            if self._client is None:
                self._client = client_from_args(self._args)
            facts = int(self._client.stats()["facts"].get("nimber", 0))
        except Exception:  # noqa: BLE001 (progress only: a busy server shows no count)
            return ""
        if self._first is None:
            self._first = facts
        return f"{facts:,} facts on the server (+{facts - self._first:,})"

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `fleet solve` to the `sproutsdb` parser."""
    from sproutsdb.tools.cli import add_search_option

    fleet = subparsers.add_parser(
        "fleet",
        help="run many solvers on Ray, all clients of one server",
        description="Fleets of Ray workers sharing one sproutsdb server "
        "(pip install 'sproutsdb[cluster]').",
    )
    commands = fleet.add_subparsers(dest="fleet_command", metavar="COMMAND")
    commands.required = True
    p = commands.add_parser(
        "solve",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="%(prog)s --server ADDR [--ray [ADDRESS]] [options] (POS ... | --options-of ROOT)",
        help="solve positions (or the options of a root) on Ray workers",
        description=(
            "Solve positions here, one after another, as `solve --jobs N` would, with\n"
            "N - 1 Ray helpers proving parts of each one's tree: every solver Inserts its\n"
            "facts in batches into --server and tells the others; the answer is this\n"
            "process's, whatever becomes of the helpers (a dead one is run again). With\n"
            "--tasks each position is instead a whole solve in a Ray task. With\n"
            "--options-of ROOT the options of ROOT are handed out as tasks, then ROOT is\n"
            "solved here from what the fleet stored."
        ),
        epilog=(
            "examples:\n"
            "  sproutsdb fleet solve 0*9 0*10 0*11 --server 127.0.0.1:50051 --ray\n"
            "  sproutsdb fleet solve --options-of 0*12 --server db:50051 --ray head:6379"
        ),
    )
    p.add_argument("positions", nargs="*", metavar="POS", help="positions in GLOP notation")
    p.add_argument(
        "--options-of",
        metavar="ROOT",
        default=None,
        help="hand out the options of ROOT, then solve ROOT",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default="",
        metavar="ADDRESS",
        help="the Ray cluster to join (default, or no ADDRESS: a new local "
        "instance on this machine's CPUs)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="workers (default: one per CPU of the cluster)",
    )
    p.add_argument(
        "--tasks",
        action="store_true",
        help="one Ray task per position, each a whole solve (for many independent "
        "positions); default: each position solved here, N - 1 Ray helpers proving parts "
        "of its tree as `solve --jobs N` does",
    )
    p.add_argument(
        "--split",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --tasks: a position still unsolved after SECONDS hands out its options "
        "to the fleet and is solved again after them (default: never); else: a helper's "
        "couple still unsolved after SECONDS of CPU while another helper is idle hands out "
        "its options (default: never; 4 s at 0*14 on 8 workers made 4.1x the visits of "
        "one process, against 1.46x without)",
    )
    p.add_argument(
        "--split-depth",
        type=int,
        default=SPLIT_DEPTH,
        metavar="D",
        help=f"with --split, options D levels below the positions given are solved whole "
        f"(default {SPLIT_DEPTH})",
    )
    p.add_argument(
        "--outcome-only",
        action="store_true",
        help="for a single land, stop at W/L instead of finding the nimber",
    )
    add_search_option(p)
    p.add_argument(
        "--misere",
        action="store_true",
        help="misère play, with the server's RCT table (the helpers prove each position's "
        "options, as solve --misere --jobs N)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"positions": [...], "root", "stored", "handed_out", "workers", "seconds"}',
    )
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    p.add_argument(
        "--trace",
        metavar="FILE",
        default=None,
        help="write what every solver did (couples taken, CPU and wall seconds, visits, "
        "splits, latencies, the server's commit figures) to FILE as gzip JSON lines, for "
        "bench/fleet_simulator.py (several positions: FILE.0, FILE.1, ... before its "
        "suffixes); not with --tasks or --options-of",
    )
    add_client_options(
        p,
        server_help="required: the sproutsdb server at HOST:PORT that every worker "
        "solves against (each fact one proves serves the others)",
    )
    p.set_defaults(handler=run_fleet_solve, command="fleet solve")
