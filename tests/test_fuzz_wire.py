"""The wire fuzzed: every RPC gets random, mutated and garbage requests from hypothesis.

The server (a real process, its own store) must never die, must answer each request with
OK or a precise INVALID_ARGUMENT / RESOURCE_EXHAUSTED (NOT_FOUND for unknown tables) within
the deadline, and the store's fact count must move by exactly the facts OK inserts reported;
every fact it then holds is read back by the engine as canonical. Examples per RPC:
FUZZ_EXAMPLES (default 40); bench/fuzz_wire.py runs the same for as long as asked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import grpc
import pytest
from hypothesis import HealthCheck, given, settings

from service_support import ServerProcess
from sproutsdb.client import Client
from sproutsdb.solver.ports.proofstore import FactKind
from sproutsdb.solver.sprouts.game import SproutsGame
from wire_fuzz import REQUESTS, Ledger, acceptable, as_bytes, call

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))
LEDGER = Ledger()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    base = tmp_path_factory.mktemp("fuzz")
    # Without the verifier: fuzzed nimbers are placeholders it would refute (and move out
    # of the fact table) while the counts below are taken.
    with ServerProcess(
        base / "store", "--no-seed", "--no-verify", "--request-seconds", "5"
    ) as proc:
        yield proc


@pytest.fixture(scope="module")
def channel(server: ServerProcess) -> Iterator[grpc.Channel]:
    limit = 256 << 20
    with grpc.insecure_channel(
        server.address,
        options=[
            ("grpc.max_send_message_length", limit),
            ("grpc.max_receive_message_length", limit),
        ],
    ) as ch:
        yield ch


@pytest.fixture(scope="module")
def facts_before(server: ServerProcess) -> int:
    with Client(server.address) as client:
        return sum(client.stats()["facts"].values())


@pytest.mark.parametrize("method", sorted(REQUESTS))
def test_every_rpc_answers_fuzzed_requests_precisely(
    method: str, server: ServerProcess, channel: grpc.Channel, facts_before: int
) -> None:
    _fuzz(method, server, channel)


def _fuzz(method: str, server: ServerProcess, channel: grpc.Channel) -> None:
    """EXAMPLES fuzzed requests to one RPC, each noted in LEDGER."""

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=as_bytes(method))
    def fuzz(data: object) -> None:
        outcome = call(channel, method, data)
        LEDGER.note(method, outcome)
        problem = acceptable(method, outcome)
        assert problem is None, f"{method}: {problem}"
        assert server.proc is not None and server.proc.poll() is None, "the server died"

    fuzz()


def test_the_store_moved_only_by_acknowledged_valid_facts(
    server: ServerProcess, channel: grpc.Channel, facts_before: int
) -> None:
    """After the fuzzing: counts and contents. The RPCs the tests above have not fuzzed
    yet (pytest-randomly may run this test first) are fuzzed here."""
    for method in sorted(REQUESTS):
        if method not in LEDGER.codes:
            _fuzz(method, server, channel)
    assert server.proc is not None and server.proc.poll() is None
    game = SproutsGame()
    with Client(server.address, timeout=60) as client:
        stats = client.stats()
        assert stats["errors"].get("INTERNAL", 0) == 0, server.tail()
        assert stats["errors"].get("UNKNOWN", 0) == 0, server.tail()
        stored = sum(stats["facts"].values())
        # A failed stream may have committed chunks before its bad one: count from Stats.
        assert stored - facts_before == stats["facts_inserted"] >= LEDGER.inserted
        for kind in (FactKind.NIMBER, FactKind.MISERE, FactKind.POS_RCT):
            for key, value in client.export_facts(kind):
                position = key.split(" ")[0]
                assert game.canonical(position) == position, key
                if kind is FactKind.NIMBER:
                    assert isinstance(value, int) and value >= 0
                elif kind is FactKind.MISERE:
                    assert value in ("L", "W")
    assert sum(sum(c.values()) for c in LEDGER.codes.values()) >= len(REQUESTS)
