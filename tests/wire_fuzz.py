"""Support of the wire fuzzer (no tests in here): hypothesis strategies of request bytes for
every RPC of sproutsdb.v1, and the harness that sends them to a real server.

Requests are built three ways: well-formed messages whose fields hold nasty values (huge
strings, NULs, deep or unbalanced notation, million-letter positions, oversized batches,
bogus content ids and page tokens), the same with invalid UTF-8 spliced into a string field
(raw protobuf bytes), and mutated or arbitrary bytes. Every answer must be OK or a precise
refusal (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, or for named tables NOT_FOUND) within the
deadline; the harness also records what OK inserts reported inserting, so a test can check
that the store's counts moved by exactly that.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from hypothesis import strategies as st

from sproutsdb.wire import SERVICE_NAME, pb

MAX_KEYS = 10_000
DEADLINE = 60.0
HUGE = ("0" * 1_000_000, "a" * 1_000_000, "0*" + "9" * 200, "A" * 5000, "\x00" * 10_000)
NOTATION = "012aAbB.|+!*@{}]}()-# \x00\t\n"

REFUSALS = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED}
ALSO_ALLOWED = {
    "StreamRctTable": {grpc.StatusCode.NOT_FOUND},  # no table of that root
    "GetRcts": {grpc.StatusCode.FAILED_PRECONDITION},  # a closure over the limit
}

# --- values ---------------------------------------------------------------------------------


def notation() -> st.SearchStrategy[str]:
    """Position-like text: the notation's letters in any order, deep or unbalanced runs."""
    runs = st.builds(lambda c, n: c * n, st.sampled_from(list("{}]|.+(0A")), st.integers(1, 3000))
    return st.one_of(
        st.text(alphabet=NOTATION, max_size=60),
        st.lists(st.one_of(st.text(alphabet=NOTATION, max_size=8), runs), max_size=5).map("".join),
        st.sampled_from(
            [
                "0*3",
                "0.AB|AB",
                "1ABC|BCDE|ADE",
                "2ab2ba",
                "0*5+0.A|0.A",
                "!",
                "0.0.}]!",
                "0*0",
                "0*-1",
                "0*99999999999999999999",
                "0*3@1",
                "0*3@999999999",
                "0*2 *1",
                "! *1 *2",
                "0*2 rct1:" + "0" * 32,
            ]
        ),
    )


def nasty_text() -> st.SearchStrategy[str]:
    return st.one_of(
        notation(),
        st.text(max_size=80),
        st.sampled_from(HUGE),
        st.text(alphabet="\x00\x01\ufffd\u202e\U0001f600", max_size=40),
    )


def content_id() -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda h: "rct1:" + h, st.text(alphabet="0123456789abcdefABCDEF-", max_size=40)),
        st.builds(lambda n: f"*{n}", st.integers(-5, 1 << 70)),
        nasty_text(),
    )


def key_list(values: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    oversized = st.integers(MAX_KEYS + 1, MAX_KEYS + 50).map(lambda n: ["0*3"] * n)
    return st.one_of(st.lists(values, max_size=6), oversized)


def provenance() -> st.SearchStrategy[pb.Provenance]:
    return st.builds(pb.Provenance, who=nasty_text(), tool=nasty_text(), comment=nasty_text())


def rct_record() -> st.SearchStrategy[pb.RctRecord]:
    return st.builds(
        lambda h, o, c, n, p: pb.RctRecord(
            height=h, outcome=o, children=c, plus1_of=p, **({} if n is None else {"nim": n})
        ),
        st.integers(0, (1 << 32) - 1),
        st.sampled_from(["L", "W", "", "X"]),
        st.lists(content_id(), max_size=4),
        st.none() | st.integers(0, (1 << 64) - 1),
        st.sampled_from(["", "*0", "rct1:zz"]),
    )


kinds = st.integers(-1, 6)


def insert_request() -> st.SearchStrategy[pb.InsertRequest]:
    def build(
        kind: int,
        keys: list[str],
        nimbers: list[int],
        texts: list[str],
        rcts: list[pb.RctRecord],
        prov: pb.Provenance,
    ) -> pb.InsertRequest:
        return pb.InsertRequest(
            kind=max(kind, 0), keys=keys, nimbers=nimbers, texts=texts, rcts=rcts, provenance=prov
        )

    return st.builds(
        build,
        kinds,
        key_list(nasty_text()),
        st.lists(st.integers(0, (1 << 64) - 1), max_size=6),
        st.lists(st.one_of(st.sampled_from(["L", "W"]), content_id()), max_size=6),
        st.lists(rct_record(), max_size=3),
        provenance(),
    )


def valid_insert() -> st.SearchStrategy[pb.InsertRequest]:
    """Inserts that may well be valid: small canonical lands and true-looking values."""
    lands = st.sampled_from(["0*2", "0*3", "0*4", "0.AB|AB", "1a1a", "0*2.1a1a", "2ab2ba"])
    return st.builds(
        lambda ks, n: pb.InsertRequest(kind=pb.FACT_KIND_NIMBER, keys=ks, nimbers=[n] * len(ks)),
        st.lists(lands, max_size=3, unique=True),
        st.integers(0, 3),
    )


REQUESTS: dict[str, st.SearchStrategy[Any]] = {
    "Lookup": st.builds(
        lambda k, ks, w: pb.LookupRequest(keys=k, kinds=[max(0, x) for x in ks], with_records=w),
        key_list(nasty_text()),
        st.lists(kinds, max_size=3),
        st.booleans(),
    ),
    "Insert": st.one_of(insert_request(), valid_insert()),
    "InsertStream": st.lists(st.one_of(insert_request(), valid_insert()), max_size=4),
    "GetRcts": st.builds(
        lambda i, c: pb.GetRctsRequest(ids=i, closure=c), key_list(content_id()), st.booleans()
    ),
    "StreamRctTable": st.builds(
        lambda r, c: pb.StreamRctTableRequest(root=r, chunk_size=c),
        nasty_text(),
        st.integers(0, (1 << 32) - 1),
    ),
    "Children": st.builds(lambda p: pb.ChildrenRequest(positions=p), key_list(notation())),
    "Verify": st.builds(
        lambda p, o: pb.VerifyRequest(position=p, outcome_only=o), nasty_text(), st.booleans()
    ),
    "Export": st.builds(
        lambda k, t, c, n: pb.ExportRequest(kind=max(0, k), page_token=t, chunk_size=c, limit=n),
        kinds,
        st.one_of(
            nasty_text(),
            st.sampled_from(
                [
                    "eyJ2IjoxfQ",
                    "eyJ2IjoxLCJhZnRlciI6MSwia2luZCI6Im5pbWJlciJ9",
                    "W10",
                    "bnVsbA",
                    "!!!!",
                    "eyJ2IjoxLCJhZnRlciI6IiIsImtpbmQiOiJuaW1iZXIifQ",
                ]
            ),
        ),
        st.integers(0, (1 << 32) - 1),
        st.integers(0, (1 << 64) - 1),
    ),
    "Stats": st.just(pb.StatsRequest()),
    "ServerInfo": st.just(pb.ServerInfoRequest()),
}

STREAMING_RESPONSES = {"StreamRctTable", "Export"}
RESPONSES = {"Insert": pb.InsertResponse, "InsertStream": pb.InsertStreamResponse}

# --- bytes ----------------------------------------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def bad_utf8_field(number: int, data: bytes) -> bytes:
    """A length-delimited field `number` holding `data` (proto3 strings must be UTF-8)."""
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One random edit of serialized bytes: flip, cut, splice or repeat."""
    if not data:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
    i = rng.randrange(len(data))
    edit = rng.randrange(4)
    if edit == 0:
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
    if edit == 1:
        return data[:i]
    if edit == 2:
        return data[:i] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 10))) + data[i:]
    return data[:i] + data[i:] * rng.randrange(2, 4)


def as_bytes(method: str) -> st.SearchStrategy[Any]:
    """Request bytes of a method (a list of messages' bytes for InsertStream)."""

    def serialized(message: Any) -> Any:
        if isinstance(message, list):
            return [m.SerializeToString() for m in message]
        return message.SerializeToString()

    def with_bad_utf8(data: Any, number: int, junk: bytes) -> Any:
        tail = bad_utf8_field(number, junk)
        return [d + tail for d in data] or [tail] if isinstance(data, list) else data + tail

    def mutated(data: Any, seed: int) -> Any:
        rng = random.Random(seed)
        if isinstance(data, list):
            return [mutate(d, rng) for d in data] or [mutate(b"", rng)]
        return mutate(data, rng)

    base = REQUESTS[method].map(serialized)
    junk = st.sampled_from([b"\xff", b"\xc3\x28", b"ab\xed\xa0\x80", b"\x00\xfe\xfe", b"\xf8\x88"])
    raw = st.binary(max_size=200)
    return st.one_of(
        base,
        st.builds(with_bad_utf8, base, st.integers(1, 10), junk),
        st.builds(mutated, base, st.integers(0, 1 << 30)),
        raw.map(lambda b: [b] if method == "InsertStream" else b),
    )


# --- the harness ----------------------------------------------------------------------------


@dataclass
class Outcome:
    code: grpc.StatusCode
    details: str
    inserted: int = 0


@dataclass
class Ledger:
    """What the fuzzer saw: codes per method, and facts that OK inserts reported."""

    inserted: int = 0
    codes: dict[str, dict[str, int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, method: str, outcome: Outcome) -> None:
        with self.lock:
            per = self.codes.setdefault(method, {})
            per[outcome.code.name] = per.get(outcome.code.name, 0) + 1
            self.inserted += outcome.inserted


def call(channel: grpc.Channel, method: str, data: Any) -> Outcome:
    """Send raw request bytes; the status and (for inserts) the facts reported inserted."""
    path = f"/{SERVICE_NAME}/{method}"
    identity: Callable[[bytes], bytes] | None = None
    try:
        if method == "InsertStream":
            rpc = channel.stream_unary(
                path, request_serializer=identity, response_deserializer=identity
            )
            reply = rpc(iter(data), timeout=DEADLINE)
        elif method in STREAMING_RESPONSES:
            rpc = channel.unary_stream(
                path, request_serializer=identity, response_deserializer=identity
            )
            for _ in rpc(data, timeout=DEADLINE):
                pass
            reply = None
        else:
            rpc = channel.unary_unary(
                path, request_serializer=identity, response_deserializer=identity
            )
            reply = rpc(data, timeout=DEADLINE)
    except grpc.RpcError as error:
        return Outcome(error.code(), error.details() or "")
    inserted = RESPONSES[method].FromString(reply).inserted if method in RESPONSES else 0
    return Outcome(grpc.StatusCode.OK, "", inserted)


def acceptable(method: str, outcome: Outcome) -> str | None:
    """Why an outcome breaks the contract, or None when it is fine."""
    if outcome.code == grpc.StatusCode.OK:
        return None
    if outcome.code in REFUSALS | ALSO_ALLOWED.get(method, set()):
        text = outcome.details
        if not text.strip():
            return f"{outcome.code.name} without a message"
        if "metadata size exceeds" in text:
            return f"a status message too large for the client: {text[:200]!r}"
        if "Traceback" in text or "Exception deserializing" in text:
            return f"{outcome.code.name} leaks internals: {text[:200]!r}"
        return None
    return f"{outcome.code.name}: {outcome.details[:300]!r}"


__all__ = ["REQUESTS", "Ledger", "Outcome", "acceptable", "as_bytes", "call"]
