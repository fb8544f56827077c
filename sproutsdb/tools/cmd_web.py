"""`sproutsdb web`: a page to walk positions and a JSON API over a store, read-only."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from sproutsdb.tools.cli import UsageError, add_store_option


def run_web(args: argparse.Namespace) -> int:
    from sproutsdb.ops.shipped_rcts import shipped_rct_table
    from sproutsdb.ops.stores import open_local_store
    from sproutsdb.server.http_api import WebServer
    from sproutsdb.server.logs import configure_logging
    from sproutsdb.server.position_view import PositionReader, ViewLimits
    from sproutsdb.store.location import resolve_store_path

    host, _, port_text = args.listen.rpartition(":")
    if not host or not port_text.isdigit() or int(port_text) > 65535:
        raise UsageError(f"--listen {args.listen}: give HOST:PORT, e.g. 127.0.0.1:8080")
    if not 0 < args.children_seconds <= 600:
        raise UsageError(f"--children-seconds {args.children_seconds:g}: give 0 < SECONDS <= 600")
    configure_logging(args.log_level, "text")
    store = open_local_store(args.store, readonly=True)
    try:
        shipped = None if args.no_table else shipped_rct_table()
        reader = PositionReader(
            store,
            None if shipped is None else shipped[0],
            ViewLimits(children_seconds=args.children_seconds),
            table_name=None if shipped is None else str(shipped[1]),
        )
        try:
            server = WebServer((host.strip("[]"), int(port_text)), reader)
        except OSError as error:
            raise UsageError(f"cannot listen on {args.listen}: {error.strerror}") from None
        stop = threading.Event()

        def on_signal(signum: int, frame: Any) -> None:
            stop.set()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        thread = threading.Thread(
            target=server.serve_forever,
            name="sproutsdb-web",
            kwargs={"poll_interval": 0.2},
            daemon=True,
        )
        thread.start()
        address = f"{host}:{server.server_address[1]}"
        table = f"; RCTs also from {shipped[1]}" if shipped is not None else ""
        print(
            f"sproutsdb web: serving on http://{address}/ (store "
            f"{resolve_store_path(args.store)}, read-only{table})",
            flush=True,
        )
        print(f"  the API:   curl 'http://{address}/api/v1/position?pos=0*6'", flush=True)
        print(f"  its description: http://{address}/api/v1/openapi.json", flush=True)
        print("  stop:      Ctrl-C", flush=True)
        stop.wait()
        server.shutdown()
        server.server_close()
        thread.join(5)
    finally:
        store.close()
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `web` to the `sproutsdb` parser."""
    p = subparsers.add_parser(
        "web",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="a web page and JSON API to look up positions and walk their children",
        description=(
            "Serve a page where you type a position, see its stored values (nimber,\n"
            "outcome, misère outcome, RCT, the R1 class of each land) and click a child to\n"
            "walk down, winning moves marked, each value with its status (verified or\n"
            "claimed) and source; and its JSON API, GET /api/v1/position?pos=P (index at\n"
            "/api/v1/, every field explained in /api/v1/openapi.json). Read-only: the\n"
            "store is opened read-only, so it can be served by `sproutsdb serve` at the\n"
            "same time."
        ),
        epilog=(
            "examples:\n  sproutsdb web                    # http://127.0.0.1:8080/\n"
            "  sproutsdb web --store sproutsdb-data --listen 127.0.0.1:0   # any free port"
        ),
    )
    add_store_option(p)
    p.add_argument(
        "--listen",
        metavar="HOST:PORT",
        default="127.0.0.1:8080",
        help="address to listen on (default 127.0.0.1:8080; port 0 picks one)",
    )
    p.add_argument(
        "--no-table",
        action="store_true",
        help="RCTs from the store only, not from the shipped S6 table",
    )
    p.add_argument(
        "--children-seconds",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="time the engine may take to list a position's children (default 3); a "
        "position it cannot list in time is shown without them, with a note saying so",
    )
    p.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="default warning",
    )
    p.set_defaults(handler=run_web)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: sproutsdb web")
