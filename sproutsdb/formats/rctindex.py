"""An RCT table opened in place: its body uncompressed into a cache file, memory-mapped, with
the offset of every line, so that a solver reads only the positions and RCTs it meets.

Loading the S7 table whole costs about 100 CPU s and 2.6 GB (3.2 M position strings in a
dict, 0.6 M trees re-derived); a misère search meets a small part of it. The index file::

    magic        8 bytes   b"\\x89SRCIDX\\n"
    header len   u32 BE, then the header: JSON (UTF-8) with the table's game, canon_version,
                 sha256, counts, and the number of lines of the body
    offsets      (lines + 1) × u64 little-endian: where each line of the body starts
    body         the table's body, uncompressed (formats.rcttable: RCT lines, children
                 first, then position lines sorted by position)

It is written only from a table file whose every entry was re-derived (trusted_tables), and
its own blake2b digest is kept in that table's verified mark, so that a changed or torn
index is refused at open. Records are still re-derived as they are loaded into the algebra.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import struct
import sys
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

import zstandard

from sproutsdb.formats.rcttable import RctTableError, read_header, write_atomically
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.ports.proofstore import RctRecord

INDEX_MAGIC = b"\x89SRCIDX\n"
_PREFIX = struct.Struct(">8sI")  # magic, header length
_OFFSET = 8  # bytes per line offset (u64 little-endian)
# One position in this many is kept in memory at open, so that a lookup bisects them in C
# and then reads at most log2(stride) lines: a plain binary search over S7's 3.2 M positions
# read ~22 lines in Python, 19 % of a live 0*20 search's CPU (py-spy). S7: 100 k
# keys, ~6 MB, ~0.1 s at open.
SAMPLE_STRIDE = 32


def index_digest(path: str | Path) -> str:
    """blake2b-256 of an index or snapshot file (hex): what the table's mark remembers."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, lambda: hashlib.blake2b(digest_size=32)).hexdigest()


def write_index(
    table_path: str | Path,
    index_path: str | Path,
    sha256: str,
    size: Callable[[str], int] | None = None,
) -> str:
    """Write the index of a table file atomically and return its digest. The caller has
    re-derived the table; this only re-frames its body, and with ``size`` (the game's size
    of a position: Sprouts' lives) records the largest one, so that larger lands are known
    absent without a search (``IndexedRcts.max_size``)."""
    header, packed = read_header(table_path)
    raw_bytes = int(header["body"]["raw_bytes"])
    body = zstandard.ZstdDecompressor().decompress(packed, max_output_size=raw_bytes)
    lines = body.split(b"\n")
    if lines[-1] != b"":
        raise RctTableError(f"{table_path}: body does not end with a newline")
    lines.pop()
    starts = [0, *accumulate(len(line) + 1 for line in lines)]
    head: dict[str, Any] = {
        "game": header.get("game"),
        "canon_version": header.get("canon_version"),
        "sha256": sha256,
        "rcts": int(header["counts"]["rcts"]),
        "positions": int(header["counts"]["positions"]),
        "lines": len(lines),
    }
    if size is not None:
        first_position = head["rcts"] + 2
        head["max_size"] = max(
            (size(line[: line.rindex(b"\t")].decode()) for line in lines[first_position:]),
            default=0,
        )
    head_bytes = json.dumps(head, sort_keys=True).encode()
    return _written(
        Path(index_path),
        [
            _PREFIX.pack(INDEX_MAGIC, len(head_bytes)),
            head_bytes,
            struct.pack(f"<{len(starts)}Q", *starts),
            body,
        ],
    )


def write_trees(path: str | Path, snapshot: bytes) -> str:
    """Write an algebra's snapshot (``Algebra.snapshot`` of a verified table) atomically;
    returns its digest, for the mark."""
    return _written(Path(path), [snapshot])


def _written(target: Path, chunks: list[bytes]) -> str:
    """Write a cache file atomically, its folder made if need be; its digest."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(target, chunks)


def read_trees(path: str | Path, digest: str) -> Algebra:
    """The algebra of a snapshot file whose digest is ``digest`` (RctTableError otherwise)."""
    data = Path(path).read_bytes()
    if hashlib.blake2b(data, digest_size=32).hexdigest() != digest:
        raise RctTableError(f"{path}: the snapshot differs from the one verified")
    try:
        return Algebra.from_snapshot(data)
    except ValueError as error:
        raise RctTableError(f"{path}: {error}") from None


class IndexedRcts:
    """An RCT source (solver.misere.solver.RctSource) over an index file: a land's RCT is
    found by binary search among the position lines, and its tree is loaded into the
    algebra (children first, each record re-derived) the first time a land needs it."""

    def __init__(
        self, index_path: str | Path, algebra: Algebra | None = None, *, stride: int = SAMPLE_STRIDE
    ) -> None:
        name = str(index_path)
        if sys.byteorder != "little":  # the offsets are mapped as native u64
            raise RctTableError(f"{name}: table indexes are read on little-endian machines only")
        with open(index_path, "rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        data = self._map
        if len(data) < _PREFIX.size or data[:8] != INDEX_MAGIC:
            raise RctTableError(f"{name}: not an RCT table index")
        (head_len,) = struct.unpack_from(">I", data, 8)
        self.header: dict[str, Any] = json.loads(data[_PREFIX.size : _PREFIX.size + head_len])
        self.rcts = int(self.header["rcts"])
        self.positions = int(self.header["positions"])
        lines = int(self.header["lines"])
        if lines != self.rcts + self.positions + 2:
            raise RctTableError(f"{name}: line count does not match the counts")
        at = _PREFIX.size + head_len
        self._body = at + (lines + 1) * _OFFSET
        self._offsets = memoryview(data)[at : self._body].cast("Q")
        if self._body + self._offsets[lines] != len(data):
            raise RctTableError(f"{name}: its size does not match its offsets")
        self._first_position = self.rcts + 2
        self.algebra = Algebra() if algebra is None else algebra
        self._handle_of_line: dict[int, int] = {}
        max_size = self.header.get("max_size")
        # no position of the table is larger (None: an index written without it)
        self.max_size: int | None = max_size if isinstance(max_size, int) else None
        if stride < 1:
            raise ValueError("the sample stride must be at least 1")
        self._stride = stride
        # every stride-th position's key: bisect (in C) narrows a search to one stride
        first = self._first_position
        try:
            self._sample = [
                self._key(line) for line in range(first, first + self.positions, stride)
            ]
        except ValueError:
            raise RctTableError(f"{name}: a position line has no RCT number") from None

    def __len__(self) -> int:
        return self.positions

    def _line(self, number: int) -> bytes:
        start, end = self._offsets[number], self._offsets[number + 1] - 1
        return self._map[self._body + start : self._body + end]

    def _key(self, number: int) -> bytes:
        """The position of a position line."""
        line = self._line(number)
        return line[: line.rindex(b"\t")]

    def _find(self, land: bytes) -> int | None:
        """The RCT line number of a position, or None when the table lacks it."""
        block = bisect_right(self._sample, land) - 1
        if block < 0:
            return None
        low = self._first_position + block * self._stride
        high = min(low + self._stride, self._first_position + self.positions)
        offsets, data, body = self._offsets, self._map, self._body
        while low < high:
            middle = (low + high) // 2
            start = body + offsets[middle]
            line = data[start : body + offsets[middle + 1] - 1]
            tab = line.rindex(b"\t")
            key = line[:tab]
            if key == land:
                return int(line[tab + 1 :])
            if key < land:
                low = middle + 1
            else:
                high = middle
        return None

    def lookup(self, lands: Sequence[str]) -> dict[str, int]:
        # No memo of lands here: the solver keeps its own (bounded); a search reads <= 6 lines.
        out: dict[str, int] = {}
        for land in lands:
            line = self._find(land.encode())
            if line is not None:
                out[land] = self._load(line)
        return out

    def rct_id_of(self, position: str) -> str | None:
        """Content id of the RCT of a position of the table, or None if absent."""
        handle = self.lookup([position]).get(position)
        return None if handle is None else self.algebra.content_id(handle)

    def _load(self, line: int) -> int:
        """The handle of the RCT on body line ``1 + line``, loading its tree first."""
        done = self._handle_of_line.get(line)
        if done is not None:
            return done
        parsed: dict[int, tuple[str, int, str, str, str, list[int]]] = {}
        by_cid = self.algebra.table.by_cid
        todo = [line]
        while todo:
            number = todo.pop()
            if number in parsed or number in self._handle_of_line:
                continue
            if not 0 <= number < self.rcts:
                raise RctTableError(f"index: RCT line {number} is out of range")
            try:
                cid, height, outcome, nim, base, kids = self._line(1 + number).decode().split("\t")
                known = by_cid.get(cid)
                if known is not None:  # from the verified snapshot, or loaded before
                    self._handle_of_line[number] = known
                    continue
                children = [int(k) for k in kids.split(",")] if kids else []
                parsed[number] = (cid, int(height), outcome, nim, base, children)
            except ValueError as error:
                raise RctTableError(f"index: malformed RCT line {number}: {error}") from None
            todo.extend(children)
            if base != "-":
                todo.append(int(base))

        def cid_of(number: int) -> str:
            if number in parsed:
                return parsed[number][0]
            return self.algebra.content_id(self._handle_of_line[number])

        records = [
            (
                cid,
                RctRecord(
                    height=height,
                    outcome=outcome,
                    children=tuple(sorted(cid_of(k) for k in children)),
                    nim=None if nim == "-" else int(nim),
                    plus1_of=None if base == "-" else cid_of(int(base)),
                ),
            )
            for cid, height, outcome, nim, base, children in parsed.values()
        ]
        handles = self.algebra.load_records(records)  # re-derives each; RctRecordError
        for number, handle in zip(parsed, handles, strict=True):
            self._handle_of_line[number] = handle
        return self._handle_of_line[line]
