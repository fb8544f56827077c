"""Wire fuzzer, long-running mode (run on demand): tests/wire_fuzz.py's strategies for as long
as asked against one real `sproutsdb serve`, round after round over every RPC.

    .venv/bin/python bench/fuzz_wire.py [--minutes 10] [--examples 200]

Prints, per RPC, the requests sent and the status codes answered; exits 1 at the first
answer that breaks the contract (anything but OK or a precise INVALID_ARGUMENT /
RESOURCE_EXHAUSTED, NOT_FOUND for unknown tables), if the server dies, or if the store's
count moved by anything but the facts the server reported inserting.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import grpc
from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from service_support import ServerProcess
from sproutsdb.client import Client
from wire_fuzz import REQUESTS, Ledger, acceptable, as_bytes, call


def fuzz_round(
    channel: grpc.Channel, server: ServerProcess, method: str, examples: int, ledger: Ledger
) -> None:
    @settings(
        max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(data=as_bytes(method))
    def one(data: object) -> None:
        outcome = call(channel, method, data)
        ledger.note(method, outcome)
        problem = acceptable(method, outcome)
        assert problem is None, f"{method}: {problem}"
        assert server.proc is not None and server.proc.poll() is None, "the server died"

    one()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--examples", type=int, default=200, help="per RPC per round")
    args = parser.parse_args()
    ledger = Ledger()
    started = time.perf_counter()
    rounds = 0
    with (
        tempfile.TemporaryDirectory(prefix="fuzz-wire-") as work,
        ServerProcess(Path(work) / "store", "--no-seed", "--request-seconds", "5") as server,
    ):
        limit = 256 << 20
        channel = grpc.insecure_channel(
            server.address,
            options=[
                ("grpc.max_send_message_length", limit),
                ("grpc.max_receive_message_length", limit),
            ],
        )
        try:
            while time.perf_counter() - started < args.minutes * 60:
                for method in sorted(REQUESTS):
                    fuzz_round(channel, server, method, args.examples, ledger)
                rounds += 1
        finally:
            channel.close()
        with Client(server.address, timeout=60) as client:
            stats = client.stats()
        stored = sum(stats["facts"].values())
        moved_ok = stored == stats["facts_inserted"] >= ledger.inserted
        internal = stats["errors"].get("INTERNAL", 0) + stats["errors"].get("UNKNOWN", 0)
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        f"{rounds} rounds in {seconds:.0f} s wall ({usage.ru_utime + usage.ru_stime:.0f} s "
        "CPU in this process)"
    )
    for method, codes in sorted(ledger.codes.items()):
        print(
            f"  {method:15} {sum(codes.values()):>7,}  "
            + ", ".join(f"{k} {v:,}" for k, v in sorted(codes.items()))
        )
    print(
        f"facts stored {stored:,} (server reported inserting {stats['facts_inserted']:,}; "
        f"OK inserts {ledger.inserted:,}); internal errors {internal}"
    )
    return 0 if moved_ok and not internal else 1


if __name__ == "__main__":
    sys.exit(main())
