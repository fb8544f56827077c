"""The RCT table file: every position of a game tree → its RCT, and every RCT's record.

This is the file the service serves and misère solvers load (the S6 table of the paper).
One file, read and written whole::

    magic        8 bytes   b"\\x89SRCTBL\\n"  (the high byte and the newline catch text-mode
                            and 7-bit mangling, as in PNG)
    version      u16 BE    FORMAT_VERSION
    header len   u32 BE
    header       JSON (UTF-8): game, canon_version, id scheme, root, counts, provenance
    body len     u64 BE
    body         one zstd frame of UTF-8 text (see below)
    checksum     32 bytes  blake2b(digest_size=32) of every byte before it

The body is tab-separated lines: ``#rcts<TAB>M``, then M lines
``content_id height outcome nim|- plus1_of|- child,child,…`` in children-first order,
where plus1_of and the children are 0-based line numbers of earlier RCTs; then
``#positions<TAB>N`` and N lines ``position rct`` (sorted by position, rct a line number).

Loading checks, in order: magic, version, exact length (a truncated or padded file is
refused before anything is parsed), checksum, header, then rebuilds an ``Algebra`` with
``Algebra.from_records``, which re-derives every record (reduction, id, height, outcome,
nim value, *1 factor) and refuses any that disagrees. Positions are not re-derived here
(that needs the engine and the whole game tree); ``sproutsdb rct-table info --check`` does it.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

from sproutsdb import __version__
from sproutsdb.errors import UserError
from sproutsdb.games import get_game
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.ports.proofstore import RctRecord

CANON_VERSION = get_game().canon_version

MAGIC = b"\x89SRCTBL\n"
FORMAT_VERSION = 1
FORMAT_NAME = "sproutsdb-rct-table"
ID_SCHEME = "rct1"
ZSTD_LEVEL = 12
PREFIX = struct.Struct(">8sHI")  # magic, version, header length
BODY_LEN = struct.Struct(">Q")
_DIGEST = 32
_MAX_HEADER = 1 << 20


class RctTableError(UserError):
    """A table file that cannot be read: wrong kind, corrupted, truncated or inconsistent."""


@dataclass
class RctTable:
    """A loaded (or freshly built) table: the algebra of its RCTs and position → RCT handle."""

    algebra: Algebra
    positions: dict[str, int]  # canonical position → handle in ``algebra``
    header: dict[str, Any] = field(default_factory=dict)

    def rct_of(self, position: str) -> int | None:
        """Handle of the RCT of a canonical position of the table, or None if absent."""
        return self.positions.get(position)

    def rct_id_of(self, position: str) -> str | None:
        """Content id of the RCT of a canonical position of the table, or None if absent."""
        handle = self.positions.get(position)
        return None if handle is None else self.algebra.content_id(handle)

    @property
    def game(self) -> str:
        return str(self.header.get("game", ""))

    @property
    def canon_version(self) -> int:
        return int(self.header.get("canon_version", -1))

    @property
    def root(self) -> str:
        return str(self.header.get("root", ""))

    @property
    def counts(self) -> dict[str, int]:
        return dict(self.header.get("counts", {}))

    def records(self) -> Iterator[tuple[str, RctRecord]]:
        """(content id, record) of every RCT of the table, children first (what a store
        or a stream serves; ``Algebra.from_records`` takes them back)."""
        for handle in self.handles():
            yield self.algebra.content_id(handle), self.algebra.record(handle)

    def handles(self) -> list[int]:
        """The table's RCTs: those of its positions and every tree below, children first."""
        children = self.algebra.table.children
        seen: set[int] = set()
        stack = list(set(self.positions.values()))
        while stack:
            h = stack.pop()
            if h not in seen:
                seen.add(h)
                stack.extend(children[h])
        return sorted(seen)


def make_header(
    table: RctTable, *, game: str, root: str, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The header of a table about to be written: identity, counts and provenance."""
    alg = table.algebra
    handles = table.handles()
    root_handle = table.positions.get(root)
    provenance: dict[str, Any] = {
        "tool": "sproutsdb",
        "tool_version": __version__,
        "created": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    provenance.update(extra or {})
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "game": game,
        "canon_version": CANON_VERSION,
        "rct_id_scheme": ID_SCHEME,
        "root": root,
        "root_rct": None if root_handle is None else alg.content_id(root_handle),
        "counts": {
            "positions": len(table.positions),
            "rcts": len(handles),
            "position_rcts": len(set(table.positions.values())),
            "nim_heaps": sum(1 for h in handles if alg.nim_value(h) is not None),
            "max_height": max((alg.height(h) for h in handles), default=0),
        },
        "provenance": provenance,
        "body": {"encoding": "tsv1", "compression": "zstd"},
        "checksum": "blake2b-256",
    }


# -- writing -------------------------------------------------------------------------------


def encode_body(table: RctTable) -> bytes:
    """The body text of a table (uncompressed)."""
    alg = table.algebra
    handles = table.handles()
    line_of = {h: i for i, h in enumerate(handles)}
    out = [f"#rcts\t{len(handles)}"]
    for h in handles:
        nim = alg.nim_value(h)
        base = alg.plus1_of(h)
        kids = ",".join(str(i) for i in sorted(line_of[c] for c in alg.children(h)))
        out.append(
            f"{alg.content_id(h)}\t{alg.height(h)}\t{alg.outcome(h)}\t"
            f"{'-' if nim is None else nim}\t{'-' if base is None else line_of[base]}\t{kids}"
        )
    out.append(f"#positions\t{len(table.positions)}")
    for position in sorted(table.positions):
        if "\t" in position or "\n" in position:
            raise ValueError(f"position {position!r} contains a tab or a newline")
        out.append(f"{position}\t{line_of[table.positions[position]]}")
    out.append("")
    return "\n".join(out).encode()


def encode(table: RctTable, header: Mapping[str, Any]) -> bytes:
    """The whole file as bytes."""
    body = encode_body(table)
    head = dict(header)
    head["body"] = dict(head.get("body", {}), raw_bytes=len(body))
    head_bytes = json.dumps(head, sort_keys=True, ensure_ascii=False).encode()
    packed = zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(body)
    content = (
        PREFIX.pack(MAGIC, FORMAT_VERSION, len(head_bytes))
        + head_bytes
        + BODY_LEN.pack(len(packed))
        + packed
    )
    return content + hashlib.blake2b(content, digest_size=_DIGEST).digest()


def write_table(path: str | Path, table: RctTable, header: Mapping[str, Any]) -> int:
    """Write the table atomically (temporary file, fsync, rename); returns its size."""
    data = encode(table, header)
    write_atomically(Path(path), [data])
    return len(data)


def write_atomically(target: Path, chunks: Iterable[bytes]) -> str:
    """Write ``chunks`` to ``target`` through a temporary file in its folder, fsync and rename
    (a reader never sees half a file); returns the blake2b-256 of what was written (hex)."""
    digest = hashlib.blake2b(digest_size=32)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
                digest.update(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return digest.hexdigest()


# -- reading -------------------------------------------------------------------------------


def read_header(path: str | Path) -> tuple[dict[str, Any], bytes]:
    """(header, compressed body) of a table file whose framing and checksum are sound."""
    name = str(path)
    data = Path(path).read_bytes()
    return _split(name, data)


def _split(name: str, data: bytes) -> tuple[dict[str, Any], bytes]:
    if len(data) < PREFIX.size or data[:8] != MAGIC:
        raise RctTableError(f"{name}: not an RCT table file (bad magic)")
    _, version, head_len = PREFIX.unpack_from(data)
    if version != FORMAT_VERSION:
        raise RctTableError(
            f"{name}: RCT table format version {version}; this sproutsdb reads {FORMAT_VERSION}"
        )
    if head_len > _MAX_HEADER:
        raise RctTableError(f"{name}: corrupted header length {head_len}")
    at = PREFIX.size + head_len
    if len(data) < at + BODY_LEN.size:
        raise RctTableError(f"{name}: truncated: {len(data)} bytes, the header alone needs more")
    (body_len,) = BODY_LEN.unpack_from(data, at)
    expected = at + BODY_LEN.size + body_len + _DIGEST
    if len(data) != expected:
        what = "truncated" if len(data) < expected else "has trailing bytes"
        raise RctTableError(f"{name}: {what}: {len(data)} bytes, its framing says {expected}")
    digest = hashlib.blake2b(data[:-_DIGEST], digest_size=_DIGEST).digest()
    if digest != data[-_DIGEST:]:
        raise RctTableError(f"{name}: checksum mismatch: the file is corrupted")
    try:
        header = json.loads(data[PREFIX.size : at])
    except ValueError as error:
        raise RctTableError(f"{name}: unreadable header: {error}") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise RctTableError(f"{name}: header does not describe an RCT table")
    return header, data[at + BODY_LEN.size : -_DIGEST]


def load_table(
    path: str | Path,
    *,
    game: str | None = "sprouts",
    canon_version: int | None = CANON_VERSION,
) -> RctTable:
    """Read, verify and rebuild a table; RctTableError (a UserError) on any defect.

    ``game`` and ``canon_version`` are what the caller needs (None: accept any): a table
    keyed by another canonical form would silently miss every lookup, so it is refused.
    """
    return table_from_bytes(
        str(path), Path(path).read_bytes(), game=game, canon_version=canon_version
    )


def table_from_bytes(
    name: str,
    data: bytes,
    *,
    game: str | None = "sprouts",
    canon_version: int | None = CANON_VERSION,
    algebra: Algebra | None = None,
) -> RctTable:
    """`load_table` of a file's bytes already read (`name` says where they came from), so a
    caller that hashed those bytes verifies and uses exactly them, never a second read.
    `algebra`: the trees of these very bytes, re-derived before (a verified snapshot), taken
    instead of re-deriving every record again; each record's id must be among them."""
    header, packed = _split(name, data)
    if game is not None and header.get("game") != game:
        raise RctTableError(f"{name}: a table of {header.get('game')!r}, not of {game!r}")
    if canon_version is not None and header.get("canon_version") != canon_version:
        raise RctTableError(
            f"{name}: positions keyed with canon_version {header.get('canon_version')}, "
            f"this engine's is {canon_version}; rebuild the table"
        )
    if header.get("rct_id_scheme") != ID_SCHEME:
        raise RctTableError(f"{name}: RCT id scheme {header.get('rct_id_scheme')!r} unknown")
    try:
        raw_bytes = int(header["body"]["raw_bytes"])
        counts = {key: int(header["counts"][key]) for key in ("positions", "rcts")}
    except (KeyError, TypeError, ValueError):
        raise RctTableError(f"{name}: header lacks body size or counts") from None
    try:
        body = zstandard.ZstdDecompressor().decompress(packed, max_output_size=raw_bytes)
    except zstandard.ZstdError as error:
        raise RctTableError(f"{name}: body does not decompress: {error}") from None
    if len(body) != raw_bytes:
        raise RctTableError(f"{name}: body is {len(body)} bytes, header says {raw_bytes}")
    table = decode_body(name, body, algebra)
    table.header = header
    if (counts["positions"], counts["rcts"]) != (len(table.positions), len(table.handles())):
        raise RctTableError(f"{name}: the counts in the header do not match the body")
    return table


def decode_body(name: str, body: bytes, algebra: Algebra | None = None) -> RctTable:
    """Rebuild algebra and position map from a body; every record is re-derived, unless the
    caller vouches for `algebra` as these records' trees (then each id must name one)."""
    try:
        lines = body.decode().split("\n")
    except UnicodeDecodeError:
        raise RctTableError(f"{name}: body is not UTF-8") from None
    try:
        ids, records, positions = parse_body(lines, records=algebra is None)
    except (ValueError, IndexError) as error:
        raise RctTableError(f"{name}: malformed body: {error}") from None
    if algebra is None:
        algebra = Algebra.from_records(records)  # RctRecordError (a UserError) on any mismatch
    try:
        handles = [algebra.handle(cid) for cid in ids]
    except KeyError as missing:
        raise RctTableError(f"{name}: RCT {missing} is not among the verified trees") from None
    return RctTable(algebra, {p: handles[i] for p, i in positions})


def parse_body(
    lines: list[str], *, records: bool = True
) -> tuple[list[str], list[tuple[str, RctRecord]], list[tuple[str, int]]]:
    """The body's lines as (ids, (id, record) in file order, (position, line number)),
    checked for shape only (ValueError/IndexError); `check-table` re-derives each entry.
    Without `records` (a caller whose trees of these bytes were re-derived before), only
    each record's id is read, and the list of records is empty."""
    tag, count = lines[0].split("\t")
    if tag != "#rcts":
        raise ValueError("expected #rcts")
    m = int(count)
    if not records:
        return _ids_and_positions(lines, m)
    ids: list[str] = []
    kept: list[tuple[str, RctRecord]] = []
    for number in range(m):
        cid, height, outcome, nim, base, kids = lines[1 + number].split("\t")
        children = [int(k) for k in kids.split(",")] if kids else []
        if any(not 0 <= k < number for k in children):
            raise ValueError(f"RCT line {number} refers to a later or missing RCT")
        base_index = None if base == "-" else int(base)
        if base_index is not None and not 0 <= base_index < number:
            raise ValueError(f"RCT line {number}: bad plus1_of")
        record = RctRecord(
            height=int(height),
            outcome=outcome,
            children=tuple(sorted(ids[k] for k in children)),
            nim=None if nim == "-" else int(nim),
            plus1_of=None if base_index is None else ids[base_index],
        )
        ids.append(cid)
        kept.append((cid, record))
    return ids, kept, _positions(lines, m)


def _ids_and_positions(
    lines: list[str], m: int
) -> tuple[list[str], list[tuple[str, RctRecord]], list[tuple[str, int]]]:
    """parse_body without the records: their ids (first field) and the positions."""
    ids = [line.split("\t", 1)[0] for line in lines[1 : 1 + m]]
    if len(ids) != m:
        raise ValueError("the number of lines does not match the counts")
    return ids, [], _positions(lines, m)


def _positions(lines: list[str], m: int) -> list[tuple[str, int]]:
    """The #positions section after `m` record lines: (position, line number of its RCT)."""
    tag, count = lines[1 + m].split("\t")
    if tag != "#positions":
        raise ValueError("expected #positions")
    n = int(count)
    positions: list[tuple[str, int]] = []
    for line in lines[2 + m : 2 + m + n]:
        position, index = line.split("\t")
        i = int(index)
        if not 0 <= i < m:
            raise ValueError(f"position {position} refers to a missing RCT")
        positions.append((position, i))
    if len(positions) != n or lines[2 + m + n :] != [""]:
        raise ValueError("the number of lines does not match the counts")
    return positions


def table_from_positions(
    algebra: Algebra, positions: Mapping[str, int] | Iterable[tuple[str, int]]
) -> RctTable:
    """A table over an existing algebra (e.g. a search's) and its position → handle map."""
    items = positions.items() if isinstance(positions, Mapping) else positions
    return RctTable(algebra, dict(items))
