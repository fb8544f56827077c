"""`fleet solve --misere`: Ray workers proving misère outcomes as clients of one server.

Each position (or each option of `--options-of ROOT`) is one Ray task: the library's misère
solve (sproutsdb.ops.solve, `misere=True`) over the server's `RemoteProofStore`, with the
server's RCT table (its position → RCT claims re-derived before use, as every misère solve
does). Every losing node a worker proves is on the server for the others; with
`--options-of` the root is then solved here from them (an option proven losing is stored
itself, one proven winning leaves its losing child), proven again as any root is. Each
answer is its own solve's, so it is what `solve --misere --server` alone prints. A worker
that dies is replaced by Ray and its task run again from what the server holds.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from sproutsdb.errors import UserError
from sproutsdb.games import get_game
from sproutsdb.ops.ray_session import cluster_cpus, first_line, import_ray
from sproutsdb.progress import status_line
from sproutsdb.tools.cli import UsageError
from sproutsdb.tools.ray_fleet import POLL_SECONDS, RETRIES, FleetError, ServerSpec
from sproutsdb.tools.server_options import (
    client_from_args,
    client_token,
    remote_store_from_args,
    tls_ca_of,
)

if TYPE_CHECKING:
    import ray
else:
    ray = import_ray()  # an optional extra: imported with an install hint when missing

EXIT_CONFLICT = 3


def misere_on_server(server: ServerSpec, position: str) -> dict[str, Any]:
    """The misère outcome of one canonical position, solved as a client of `server` with
    its RCT table (what each task runs, and the root of `--options-of`)."""
    from sproutsdb.ops.solve import SolveSettings, misere_rct_source, solve
    from sproutsdb.ops.stores import open_remote_store
    from sproutsdb.solver.ports.proofstore import ConflictError

    started = time.perf_counter()
    try:
        store = open_remote_store(server.address, token=server.token, tls_ca=server.tls_ca)
        try:
            rcts, _ = misere_rct_source(
                store, notice=lambda _message: None, who="sproutsdb fleet solve"
            )
            report = solve(position, store, settings=SolveSettings(misere=True, rcts=rcts))
        finally:
            store.close()
    except ConflictError as error:
        return {"position": position, "error": f"conflict: {error}"}
    except UserError as error:
        return {"position": position, "error": str(error)}
    return {
        "position": position,
        "play": "misere",
        "outcome": report.outcome,
        "stored": report.stored,
        "nodes": report.stats.nodes,
        "seconds": round(time.perf_counter() - started, 3),
        "worker": f"{socket.gethostname()}:{os.getpid()}",
    }


@ray.remote(num_cpus=1, max_retries=RETRIES)
def _misere_task(server: ServerSpec, position: str) -> dict[str, Any]:
    return misere_on_server(server, position)


def misere_fleet(
    session: ModuleType,
    server: ServerSpec,
    positions: Sequence[str],
    *,
    workers: int | None,
    progress: Callable[[int, int], None],
) -> tuple[list[dict[str, Any]], int]:
    """Every position's misère outcome on the Ray workers of `session`: (results in the
    order given, workers used); `progress(done, total)` about every POLL_SECONDS."""
    used = min(len(positions), workers or cluster_cpus(session)) if positions else 0
    refs = {_misere_task.remote(server, p): p for p in positions}
    results: dict[str, dict[str, Any]] = {}
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1, timeout=POLL_SECONDS)
        for ref in ready:
            try:
                results[refs[ref]] = ray.get(ref)
            except ray.exceptions.RayError as error:
                raise FleetError(
                    f"solving {refs[ref]} failed on its worker "
                    f"{RETRIES + 1} times: {first_line(error)}"
                ) from None
        progress(len(results), len(positions))
    return [results[p] for p in positions], used


def _positions(args: argparse.Namespace) -> tuple[list[str], str | None]:
    """The distinct canonical positions to hand out, and the root of --options-of."""
    game = get_game().engine()
    if args.options_of is not None:
        if args.positions:
            raise UsageError("give positions or --options-of ROOT, not both")
        root = game.canonical(args.options_of)
        children = game.children(root)
        if not children:
            raise UsageError(f"{root} has no options: nothing to hand out")
        return list(children), root
    if not args.positions:
        raise UsageError("give positions to solve (e.g. 0*7 0*8) or --options-of ROOT")
    return list(dict.fromkeys(game.canonical(p) for p in args.positions)), None


def run_fleet_solve_misere(args: argparse.Namespace) -> int:
    """`fleet solve --misere`: the positions' misère outcomes on Ray, then the root's."""
    if args.server is None:
        raise UsageError("--server HOST:PORT is required: the fleet shares one server")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs N needs N ≥ 1")
    if args.outcome_only:
        raise UsageError("--outcome-only is for normal play: --misere finds the outcome only")
    positions, root = _positions(args)
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
            remote_store_from_args(args).close()  # answering, same game and canon
            _say_if_no_table(args)
            results, workers = misere_fleet(
                session, server, positions, workers=args.jobs, progress=progress
            )
        root_result = None
        if root is not None and not any("error" in r for r in results):
            if shown:
                line.show(f"solving {root} in misère play from the fleet's losing nodes")
            root_result = misere_on_server(server, root)
    return _report(args, results, root_result, workers, time.perf_counter() - started)


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


def _report(
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


__all__ = ["misere_fleet", "misere_on_server", "run_fleet_solve_misere"]
