"""The native exchange stream: a versioned, zstd-compressed, checksummed dump of facts.

Layout: MAGIC, then frames. A frame is `type (1 byte) | payload length (u32 BE) |
blake2b-128 of the payload | payload`, the payload a zstd frame of UTF-8 JSON:

- `H` header: format, version, schema, game, canon_version, counts at export start,
  provenance (the exporter and the store's provenance records);
- `C` chunk: {"kind": nimber|misere|rct|pos_rct, "facts": [[key, value], ...]};
- `T` trailer: {"chunks", "counts", "digest"}: the number of chunks and facts per kind,
  and a sha256 over every chunk's JSON, so a truncated or altered stream is refused.

Facts are read and written in chunks (memory bounded by the chunk size); `verify` reads a
whole file once without writing anything, so an import writes only after it passed.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import zstandard

from sproutsdb.errors import UserError
from sproutsdb.solver.ports.proofstore import FactKind, RctRecord

MAGIC = b"SPDBX\x00\x01\n"
FORMAT = "sproutsdb-export"
VERSION = 1
KINDS = (FactKind.NIMBER, FactKind.MISERE, FactKind.RCT, FactKind.POS_RCT)
CHUNK_FACTS = 20_000
MAX_FRAME = 1 << 28
FRAME = struct.Struct(">cI16s")


class ExchangeFormatError(UserError):
    """An export file that is not one, is damaged or truncated; nothing was imported."""


@dataclass
class StreamSummary:
    """What a verified stream holds."""

    header: dict[str, Any]
    counts: dict[str, int] = field(default_factory=dict)
    chunks: int = 0


def encode_value(kind: FactKind, value: Any) -> Any:
    """A fact value as JSON (an RctRecord as an object)."""
    if kind is FactKind.RCT:
        return {**asdict(value), "children": list(value.children)}
    return value


def decode_value(kind: FactKind, value: Any, where: str) -> Any:
    """A JSON fact value back to what the store takes; ExchangeFormatError if malformed."""
    try:
        if kind is FactKind.RCT:
            return RctRecord(
                height=int(value["height"]),
                outcome=str(value["outcome"]),
                children=tuple(str(c) for c in value["children"]),
                nim=value.get("nim"),
                plus1_of=value.get("plus1_of"),
            )
        if kind is FactKind.NIMBER and (not isinstance(value, int) or isinstance(value, bool)):
            raise TypeError("nimber must be an integer")
        if kind is not FactKind.NIMBER and not isinstance(value, str):
            raise TypeError("value must be a string")
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ExchangeFormatError(
            f"{where}: bad {kind.value} value {value!r:.80}: {error}"
        ) from error
    return value


class ExportWriter:
    """Writes a stream: header first, then chunks, then the trailer (`close`)."""

    def __init__(self, out: BinaryIO, header: Mapping[str, Any]) -> None:
        self._out = out
        self._zstd = zstandard.ZstdCompressor(level=9)
        self._digest = hashlib.sha256()
        self.counts: dict[str, int] = {kind.value: 0 for kind in KINDS}
        self.chunks = 0
        out.write(MAGIC)
        self._frame(b"H", {"format": FORMAT, "version": VERSION, **header})

    def write_chunk(self, kind: FactKind, facts: list[tuple[str, Any]]) -> None:
        if not facts:
            return
        body = _dumps({"kind": kind.value, "facts": [[k, encode_value(kind, v)] for k, v in facts]})
        self._digest.update(body)
        self._frame_bytes(b"C", body)
        self.counts[kind.value] += len(facts)
        self.chunks += 1

    def write_facts(
        self, kind: FactKind, facts: Iterable[tuple[str, Any]], chunk: int = CHUNK_FACTS
    ) -> None:
        batch: list[tuple[str, Any]] = []
        for item in facts:
            batch.append(item)
            if len(batch) >= chunk:
                self.write_chunk(kind, batch)
                batch = []
        self.write_chunk(kind, batch)

    def close(self) -> None:
        self._frame(
            b"T", {"chunks": self.chunks, "counts": self.counts, "digest": self._digest.hexdigest()}
        )
        self._out.flush()

    def _frame(self, kind: bytes, data: Mapping[str, Any]) -> None:
        self._frame_bytes(kind, _dumps(data))

    def _frame_bytes(self, kind: bytes, body: bytes) -> None:
        payload = self._zstd.compress(body)
        self._out.write(FRAME.pack(kind, len(payload), _hash(payload)))
        self._out.write(payload)


def read_stream(path: Path, hashes: list[bytes] | None = None) -> Iterator[tuple[str, Any]]:
    """The frames of a stream in order: ("H", header), ("C", (kind, facts)), ("T", trailer).

    Raises ExchangeFormatError on anything but a well-formed, complete stream; the trailer
    is only yielded after the digest and counts of every chunk matched. With `hashes`, the
    checksum of each chunk frame is appended before the chunk is yielded (so a second
    read can tell that it sees the very chunks a first one verified).
    """
    name = str(path)
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed by the with below)
    except FileNotFoundError:
        raise ExchangeFormatError(f"{name}: no such file") from None
    with handle:
        if handle.read(len(MAGIC)) != MAGIC:
            raise ExchangeFormatError(f"{name}: not a sproutsdb export (bad magic)")
        zstd = zstandard.ZstdDecompressor()
        digest = hashlib.sha256()
        counts = {kind.value: 0 for kind in KINDS}
        chunks = 0
        index = 0
        seen_header = False
        while True:
            head = handle.read(FRAME.size)
            if not head:
                raise ExchangeFormatError(
                    f"{name}: truncated: the stream ends without its trailer after {index} frames"
                )
            if len(head) < FRAME.size:
                raise ExchangeFormatError(f"{name}: truncated inside frame {index}")
            kind, length, expected = FRAME.unpack(head)
            if length > MAX_FRAME:
                raise ExchangeFormatError(f"{name}: frame {index} is damaged (length {length})")
            payload = handle.read(length)
            if len(payload) < length:
                raise ExchangeFormatError(f"{name}: truncated inside frame {index}")
            if _hash(payload) != expected:
                raise ExchangeFormatError(f"{name}: frame {index} is corrupted (checksum mismatch)")
            try:
                body = zstd.decompress(payload)
                data = json.loads(body)
            except (zstandard.ZstdError, ValueError) as error:
                raise ExchangeFormatError(
                    f"{name}: frame {index} cannot be decoded: {error}"
                ) from error
            where = f"{name}: frame {index}"
            if not seen_header:
                if kind != b"H" or data.get("format") != FORMAT:
                    raise ExchangeFormatError(f"{name}: not a sproutsdb export (no header)")
                if data.get("version") != VERSION:
                    raise ExchangeFormatError(
                        f"{name}: export format version "
                        f"{data.get('version')!r}; this sproutsdb reads "
                        f"version {VERSION}"
                    )
                seen_header = True
                yield "H", data
            elif kind == b"C":
                fact_kind, facts = _chunk(data, where)
                digest.update(body)
                if hashes is not None:
                    hashes.append(expected)
                counts[fact_kind.value] += len(facts)
                chunks += 1
                yield "C", (fact_kind, facts)
            elif kind == b"T":
                if (
                    data.get("chunks") != chunks
                    or data.get("counts") != counts
                    or data.get("digest") != digest.hexdigest()
                ):
                    raise ExchangeFormatError(
                        f"{name}: the trailer does not match the chunks (damaged or spliced stream)"
                    )
                if handle.read(1):
                    raise ExchangeFormatError(f"{name}: data after the trailer")
                yield "T", data
                return
            else:
                raise ExchangeFormatError(f"{where}: unknown frame type {kind!r}")
            index += 1


def verify(path: Path) -> StreamSummary:
    """Read a whole stream, checking every frame; nothing is kept but the counts."""
    summary: StreamSummary | None = None
    for frame, data in read_stream(path):
        if frame == "H":
            summary = StreamSummary(header=data)
        elif frame == "C":
            assert summary is not None
            summary.chunks += 1
        else:
            assert summary is not None
            summary.counts = dict(data["counts"])
    assert summary is not None
    return summary


def _chunk(data: Any, where: str) -> tuple[FactKind, list[tuple[str, Any]]]:
    if not isinstance(data, dict) or not isinstance(data.get("facts"), list):
        raise ExchangeFormatError(f"{where}: a chunk without facts")
    try:
        kind = FactKind(data.get("kind"))
    except ValueError:
        raise ExchangeFormatError(f"{where}: unknown fact kind {data.get('kind')!r}") from None
    facts: list[tuple[str, Any]] = []
    for item in data["facts"]:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            raise ExchangeFormatError(f"{where}: a fact is not [key, value]: {item!r:.80}")
        facts.append((item[0], decode_value(kind, item[1], where)))
    return kind, facts


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def _hash(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, digest_size=16).digest()
