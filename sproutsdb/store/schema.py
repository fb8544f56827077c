"""The one description of the on-disk store: sub-databases, key and value encodings, meta keys.

Everything that decides which bytes LMDB holds lives here, versioned by SCHEMA_VERSION, so a
reader, a writer, an exporter and a future migration tool can never disagree on a format.

Layout (schema 1)
-----------------
Sub-databases: `meta`, `nimber`, `misere`, `rct`, `pos_rct`, `children`, `provenance`, and
`refuted` (added later without a version bump: a store without it opens, read-only too, as
one with no refuted fact, and a program that does not know it simply never sees a refuted
fact, which is the point).

Keys are the UTF-8 bytes of the fact's key string. A key longer than MAX_DIRECT_KEY_BYTES is
stored under ``0xFF + blake2b-256(key)`` (0xFF never occurs in UTF-8, so digest keys cannot
collide with direct ones and sort after all of them) and its full text is kept in the value.

A fact value (every table but `meta` and `provenance`) is a record::

    flags      u8       bit 0 VERIFIED, bit 1 LONG_KEY
    provenance u32 LE   id of the provenance record of whoever first stored the fact
    verifier   u32 LE   only if VERIFIED: provenance id of whoever marked it verified
    key        u32 LE length + UTF-8 bytes, only if LONG_KEY
    payload    the kind-specific encoding, to the end of the value

Payloads: nimber = unsigned LEB128 varint; misere = b"L" or b"W"; pos_rct = UTF-8 content
id; rct = varint height, outcome byte, varint (nim + 1, 0 for none), varint-length plus1_of
(0 for none), then a string-list block of the children ids; children = a string-list block.
A string-list block is a tag byte then a body: tag 0 raw, tag 1 zstd frame of the raw body,
tag 2 reserved for zstd with a trained dictionary (the later optimisation; its id will go in
meta under META_ZSTD_DICT). The raw body is a varint count then varint-length UTF-8 strings.

A verified mark names a provenance record (`verifier`) that says which check set it: besides
who/tool/version, its JSON has `check` (the kind of check: "check --all", "server verifier",
...), `canon_version` (of the engine that re-derived it) and `when` (the time of marking,
never earlier than the fact's own provenance's). These keys were added without a version
bump: a record without them (a mark made before) reads as "an unknown, older check", and an
older program reading a newer record ignores them. A recheck (`check --all --recheck`) may
re-mark a verified fact with its own record, or withdraw the mark of one it could not
re-derive (the fact stays, as a claim).

`meta` keys and values are UTF-8 text (integers in decimal) so `mdb_dump` output is
readable. `provenance` maps a 10-digit zero-padded decimal id to the record's JSON.

Fact status: *claimed* (flag bit 0 clear) or *verified* (set) lives in the record. A claim
the server's verifier disproved is *refuted*: its record leaves the fact table (so no read
path, old or new, can ever serve it as a value) and a refutation entry is appended, in the
same transaction, to the JSON list kept in `refuted` under ``refuted_key(table, key)``: the
claimed value, the claimer's and the refuter's provenance ids, the evidence (the couple that
contradicts the claim, or the value re-derived) and the proven value when known. A later
insert of the key is an ordinary first insert. Counts: meta ``refuted/<table>``.
"""

from __future__ import annotations

import json
import struct
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import zstandard

from sproutsdb.digests import blake2b
from sproutsdb.errors import UserError
from sproutsdb.facts import Status
from sproutsdb.solver.ports.proofstore import FactKind, FactValue, RctRecord

SCHEMA_VERSION = 1

# --- sub-databases --------------------------------------------------------------------------

META = "meta"
PROVENANCE = "provenance"
CHILDREN = "children"  # not a FactKind: a cache of canonical children, same record format
FACT_TABLES: tuple[str, ...] = ("nimber", "misere", "rct", "pos_rct", CHILDREN)
REFUTED = "refuted"  # refutation entries (JSON) of claims the verifier disproved
SUBDBS: tuple[str, ...] = (META, *FACT_TABLES, PROVENANCE)
OPTIONAL_SUBDBS: tuple[str, ...] = (REFUTED,)  # absent in stores made before it existed
MAX_DBS = 16  # room for the sub-databases above plus a few future ones

# --- meta keys ------------------------------------------------------------------------------

META_SCHEMA_VERSION = b"schema_version"
META_GAME = b"game"
META_CANON_VERSION = b"canon_version"
META_CREATED = b"created"
META_PROVENANCE_NEXT = b"provenance_next"
META_ZSTD_DICT = b"zstd_dict"  # reserved: id of a trained children dictionary (not used yet)


def meta_count_key(table: str) -> bytes:
    """Meta key of the number of facts in a table."""
    return b"count/" + table.encode()


def meta_verified_key(table: str) -> bytes:
    """Meta key of the number of verified facts in a table."""
    return b"verified/" + table.encode()


def meta_refuted_key(table: str) -> bytes:
    """Meta key of the number of refuted claims of a table."""
    return b"refuted/" + table.encode()


def encode_meta_int(n: int) -> bytes:
    return str(n).encode()


def decode_meta_int(raw: bytes | memoryview | None) -> int:
    return 0 if raw is None else int(bytes(raw).decode())


# --- errors and plain types -----------------------------------------------------------------


class InvalidFactError(UserError, ValueError):
    """A key or value that cannot be stored (wrong type, out of range); nothing was written."""


class CorruptRecordError(RuntimeError):
    """Bytes in the store that this schema cannot decode: a bug or damage, never user input."""


TableValue = FactValue | tuple[str, ...]  # tuple: the `children` cache


@dataclass(frozen=True)
class FactRecord:
    """A stored fact with its status and where it came from (provenance ids)."""

    value: TableValue
    status: Status
    provenance: int
    verified_by: int | None = None  # the verifier's (or, refuted, the refuter's) provenance
    refutation: Refutation | None = None  # only for status REFUTED


@dataclass(frozen=True)
class Refutation:
    """Why a claim was refuted: the evidence and, when the verifier re-derived it, the
    proven value. `claimed` is the refused value (never served as a fact)."""

    claimed: Any
    provenance: int  # who claimed it
    refuted_by: int  # the verifier's provenance
    evidence: str
    proven: Any = None
    when: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Refutation:
        return cls(
            data.get("claimed"),
            int(data.get("provenance", 0)),
            int(data.get("refuted_by", 0)),
            str(data.get("evidence", "")),
            data.get("proven"),
            str(data.get("when", "")),
        )


def refuted_key(table: str, key: str) -> bytes:
    """Key of a fact's refutation list in `refuted`: a digest of table and key (fixed size,
    so any fact key fits); the entry repeats the key and is checked on read."""
    return blake2b(f"{table}\0{key}".encode(), 20)


def encode_refutations(table: str, key: str, entries: Sequence[Refutation]) -> bytes:
    return json.dumps(
        {"table": table, "key": key, "entries": [e.to_json() for e in entries]},
        sort_keys=True,
        separators=(",", ":"),
    ).encode()


def decode_refutations(table: str, key: str, raw: bytes | memoryview | None) -> list[Refutation]:
    """The refutations of a fact, oldest first ([] for none, or for a digest clash)."""
    if raw is None:
        return []
    data = json.loads(bytes(raw).decode())
    if data.get("table") != table or data.get("key") != key:
        return []
    return [Refutation.from_json(e) for e in data.get("entries", ())]


def provenance_key(pid: int) -> bytes:
    return b"%010d" % pid


# --- keys -----------------------------------------------------------------------------------

MAX_DIRECT_KEY_BYTES = 511  # LMDB's default limit; fixed here so every build keys alike
LONG_KEY_PREFIX = b"\xff"


def storage_key(key: str) -> tuple[bytes, bytes | None]:
    """(LMDB key, full key bytes if it had to be digested) of a fact key; validates it."""
    try:
        raw = key.encode()
    except AttributeError:
        raise InvalidFactError(
            f"fact keys are strings, got {type(key).__name__} {key!r:.80}"
        ) from None
    except UnicodeEncodeError as error:
        raise InvalidFactError(f"key {key!r:.80} is not valid Unicode text: {error}") from None
    if 0 < len(raw) <= MAX_DIRECT_KEY_BYTES and type(key) is str:
        return raw, None
    if not isinstance(key, str):
        raise InvalidFactError(f"fact keys are strings, got {type(key).__name__} {key!r:.80}")
    if not raw:
        raise InvalidFactError("the empty string is not a fact key")
    if len(raw) <= MAX_DIRECT_KEY_BYTES:
        return raw, None
    return LONG_KEY_PREFIX + blake2b(raw, 32), raw


def lookup_key(key: str) -> bytes | None:
    """LMDB key to look a fact key up by; None for keys that can never be stored."""
    try:
        return storage_key(key)[0]
    except InvalidFactError:
        return None


# --- varints and string lists ---------------------------------------------------------------


def put_varint(out: bytearray, n: int) -> None:
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def get_varint(buf: bytes, off: int) -> tuple[int, int]:
    b = buf[off]
    if b < 0x80:
        return b, off + 1
    n = 0
    shift = 0
    while True:
        b = buf[off]
        off += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, off
        shift += 7


_TAG_RAW, _TAG_ZSTD, _TAG_ZSTD_DICT = 0, 1, 2
COMPRESS_MIN_BYTES = 64  # below this zstd's frame overhead outweighs any gain
_MAX_BLOCK_BYTES = 1 << 30
_local = threading.local()


def _compressor() -> zstandard.ZstdCompressor:
    c = getattr(_local, "compressor", None)
    if c is None:
        c = _local.compressor = zstandard.ZstdCompressor(level=3)
    return c


def _decompressor() -> zstandard.ZstdDecompressor:
    d = getattr(_local, "decompressor", None)
    if d is None:
        d = _local.decompressor = zstandard.ZstdDecompressor()
    return d


def encode_strings(items: Sequence[str]) -> bytes:
    """A string-list block: zstd-compressed when that makes it smaller."""
    body = bytearray()
    put_varint(body, len(items))
    for s in items:
        b = s.encode()
        put_varint(body, len(b))
        body += b
    if len(body) >= COMPRESS_MIN_BYTES:
        packed = _compressor().compress(bytes(body))
        if len(packed) < len(body):
            return bytes([_TAG_ZSTD]) + packed
    return bytes([_TAG_RAW]) + bytes(body)


def decode_strings(buf: bytes, off: int) -> tuple[str, ...]:
    """The strings of the block starting at `off` (the block runs to the end of `buf`)."""
    tag = buf[off]
    if tag == _TAG_RAW:
        body, pos = buf, off + 1
    elif tag == _TAG_ZSTD:
        body, pos = _decompressor().decompress(buf[off + 1 :], max_output_size=_MAX_BLOCK_BYTES), 0
    elif tag == _TAG_ZSTD_DICT:
        raise CorruptRecordError("string list compressed with a zstd dictionary this build lacks")
    else:
        raise CorruptRecordError(f"unknown string-list tag {tag}")
    count, pos = get_varint(body, pos)
    out = []
    for _ in range(count):
        n, pos = get_varint(body, pos)
        out.append(body[pos : pos + n].decode())
        pos += n
    return tuple(out)


# --- payloads: validate + encode (writers) and decode (readers) -----------------------------

MAX_NIMBER = (1 << 63) - 1


def is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _id(v: object, what: str) -> str:
    if not isinstance(v, str) or not v:
        raise InvalidFactError(f"{what} must be a non-empty string, got {v!r:.80}")
    return v


_SMALL_VARINTS = [bytes((i,)) for i in range(0x80)]


def _encode_nimber(v: object) -> tuple[int, bytes]:
    if type(v) is int and 0 <= v < 0x80:
        return v, _SMALL_VARINTS[v]
    if not is_int(v) or not 0 <= v <= MAX_NIMBER:  # type: ignore[operator]
        raise InvalidFactError(f"a nimber is an int in 0..2**63-1, got {v!r:.80}")
    out = bytearray()
    put_varint(out, v)  # type: ignore[arg-type]
    return v, bytes(out)  # type: ignore[return-value]


def _decode_nimber(buf: bytes, off: int) -> int:
    return get_varint(buf, off)[0]


def _encode_outcome(v: object) -> tuple[str, bytes]:
    if v not in ("L", "W") or not isinstance(v, str):
        raise InvalidFactError(f"a misère outcome is 'L' or 'W', got {v!r:.80}")
    return v, v.encode()


def _decode_outcome(buf: bytes, off: int) -> str:
    return buf[off:].decode()


def _encode_content_id(v: object) -> tuple[str, bytes]:
    cid = _id(v, "an RCT content id")
    try:
        return cid, cid.encode()
    except UnicodeEncodeError as error:
        raise InvalidFactError(f"content id {cid!r:.80} is not valid text: {error}") from None


def _decode_content_id(buf: bytes, off: int) -> str:
    return buf[off:].decode()


def _str_list(v: object, what: str) -> tuple[str, ...]:
    if isinstance(v, (str, bytes)) or not isinstance(v, (tuple, list)):
        raise InvalidFactError(f"{what} must be a tuple or list of strings, got {v!r:.80}")
    items = tuple(v)
    for s in items:
        _id(s, f"each of {what}")
    return items


def _encode_rct(v: object) -> tuple[RctRecord, bytes]:
    if not isinstance(v, RctRecord):
        raise InvalidFactError(f"an rct fact is an RctRecord, got {type(v).__name__}")
    if not is_int(v.height) or v.height < 0:
        raise InvalidFactError(f"RctRecord.height must be an int >= 0, got {v.height!r}")
    if v.outcome not in ("L", "W") or not isinstance(v.outcome, str):
        raise InvalidFactError(f"RctRecord.outcome must be 'L' or 'W', got {v.outcome!r}")
    if v.nim is not None and (not is_int(v.nim) or not 0 <= v.nim <= MAX_NIMBER):
        raise InvalidFactError(f"RctRecord.nim must be None or an int >= 0, got {v.nim!r}")
    if v.plus1_of is not None:
        _id(v.plus1_of, "RctRecord.plus1_of")
    children = _str_list(v.children, "RctRecord.children")
    if list(children) != sorted(children):
        raise InvalidFactError("RctRecord.children must be sorted (content ids in sorted order)")
    record = RctRecord(v.height, v.outcome, children, v.nim, v.plus1_of)
    out = bytearray()
    put_varint(out, v.height)
    out += v.outcome.encode()
    put_varint(out, 0 if v.nim is None else v.nim + 1)
    plus1 = b"" if v.plus1_of is None else v.plus1_of.encode()
    put_varint(out, len(plus1))
    out += plus1
    out += encode_strings(children)
    return record, bytes(out)


def _decode_rct(buf: bytes, off: int) -> RctRecord:
    height, off = get_varint(buf, off)
    outcome = chr(buf[off])
    nim1, off = get_varint(buf, off + 1)
    n, off = get_varint(buf, off)
    plus1 = buf[off : off + n].decode() if n else None
    children = decode_strings(buf, off + n)
    return RctRecord(height, outcome, children, None if nim1 == 0 else nim1 - 1, plus1)


def _encode_children(v: object) -> tuple[tuple[str, ...], bytes]:
    children = tuple(sorted(set(_str_list(v, "canonical children"))))
    return children, encode_strings(children)


def _decode_children(buf: bytes, off: int) -> tuple[str, ...]:
    return decode_strings(buf, off)


Encoder = Callable[[object], tuple[Any, bytes]]
Decoder = Callable[[bytes, int], Any]

ENCODERS: Mapping[str, Encoder] = {
    "nimber": _encode_nimber,
    "misere": _encode_outcome,
    "rct": _encode_rct,
    "pos_rct": _encode_content_id,
    CHILDREN: _encode_children,
}
DECODERS: Mapping[str, Decoder] = {
    "nimber": _decode_nimber,
    "misere": _decode_outcome,
    "rct": _decode_rct,
    "pos_rct": _decode_content_id,
    CHILDREN: _decode_children,
}


def table_name(kind: FactKind | str) -> str:
    """The sub-database of a fact kind (a FactKind, or "children" for the children cache)."""
    name = kind.value if isinstance(kind, FactKind) else kind
    if name not in FACT_TABLES:
        raise InvalidFactError(
            f"unknown fact kind {kind!r}; expected one of {', '.join(FACT_TABLES)}"
        )
    return name


# --- records --------------------------------------------------------------------------------

FLAG_VERIFIED = 0x01
FLAG_LONG_KEY = 0x02
_U32 = struct.Struct("<I")
_HEADER = struct.Struct("<BI")
MAX_PROVENANCE_ID = 0xFFFFFFFF


class EncodedFact(NamedTuple):
    """A validated fact ready for the writer: LMDB key, full long key, normalised value, payload."""

    key: str
    skey: bytes
    long_key: bytes | None
    value: TableValue
    payload: bytes


def encode_fact(table: str, key: str, value: object) -> EncodedFact:
    """Validate one fact and encode its key and payload; raises InvalidFactError."""
    skey, long_key = storage_key(key)
    normal, payload = ENCODERS[table](value)
    return EncodedFact(key, skey, long_key, normal, payload)


def encode_facts(table: str, items: Mapping[str, object]) -> tuple[list[EncodedFact], list[str]]:
    """Validate and encode a batch: the facts, and one message per rejected item."""
    encode = ENCODERS[table]
    facts: list[EncodedFact] = []
    errors: list[str] = []
    append = facts.append
    for key, value in items.items():
        try:
            skey, long_key = storage_key(key)
            normal, payload = encode(value)
        except InvalidFactError as error:
            errors.append(f"{key!r:.60}: {error}")
        else:
            append(EncodedFact(key, skey, long_key, normal, payload))
    return facts, errors


def record_head(provenance: int, verifier: int | None) -> bytes:
    """The header shared by every short-key record of one write (flags, provenance, verifier)."""
    if verifier is None:
        return _HEADER.pack(0, provenance)
    return _HEADER.pack(FLAG_VERIFIED, provenance) + _U32.pack(verifier)


def pack_record(fact: EncodedFact, provenance: int, verifier: int | None) -> bytes:
    """The stored bytes of a fact (see the module docstring for the layout)."""
    if fact.long_key is None:
        return record_head(provenance, verifier) + fact.payload
    flags = (FLAG_VERIFIED if verifier is not None else 0) | FLAG_LONG_KEY
    parts = [_HEADER.pack(flags, provenance)]
    if verifier is not None:
        parts.append(_U32.pack(verifier))
    parts.append(_U32.pack(len(fact.long_key)))
    parts.append(fact.long_key)
    parts.append(fact.payload)
    return b"".join(parts)


@dataclass(frozen=True)
class RawRecord:
    """A stored record split into its parts (payload still encoded)."""

    flags: int
    provenance: int
    verifier: int | None
    long_key: bytes | None
    payload_offset: int


def split_record(raw: bytes) -> RawRecord:
    if len(raw) < _HEADER.size:
        raise CorruptRecordError(f"record of {len(raw)} bytes is shorter than its header")
    flags, provenance = _HEADER.unpack_from(raw, 0)
    off = _HEADER.size
    verifier = None
    if flags & FLAG_VERIFIED:
        (verifier,) = _U32.unpack_from(raw, off)
        off += 4
    long_key = None
    if flags & FLAG_LONG_KEY:
        (n,) = _U32.unpack_from(raw, off)
        long_key = raw[off + 4 : off + 4 + n]
        off += 4 + n
    return RawRecord(flags, provenance, verifier, long_key, off)


def payload_offset(raw: bytes) -> int:
    """Where the payload starts: the hot path of reads, without building a RawRecord."""
    flags = raw[0]
    if not flags & 0x03:
        return 5
    off = 9 if flags & FLAG_VERIFIED else 5
    if flags & FLAG_LONG_KEY:
        off += 4 + _U32.unpack_from(raw, off)[0]
    return off


def with_verifier(raw: bytes, verifier: int) -> bytes:
    """The record `raw` (claimed) rewritten as verified by `verifier`; payload bytes kept."""
    flags = raw[0]
    if flags & FLAG_VERIFIED:
        return raw
    return bytes([flags | FLAG_VERIFIED]) + raw[1:5] + _U32.pack(verifier) + raw[5:]


def restamped(raw: bytes, verifier: int) -> bytes:
    """The verified record `raw` re-marked by `verifier` (a recheck); payload bytes kept."""
    if not raw[0] & FLAG_VERIFIED:
        return with_verifier(raw, verifier)
    return raw[:5] + _U32.pack(verifier) + raw[9:]


def without_verifier(raw: bytes) -> bytes:
    """The verified record `raw` as a claim again (a recheck withdrew its mark)."""
    if not raw[0] & FLAG_VERIFIED:
        return raw
    return bytes([raw[0] & ~FLAG_VERIFIED]) + raw[1:5] + raw[9:]


def decode_record(table: str, raw: bytes) -> FactRecord:
    parts = split_record(raw)
    value = DECODERS[table](raw, parts.payload_offset)
    status = Status.VERIFIED if parts.flags & FLAG_VERIFIED else Status.CLAIMED
    return FactRecord(value, status, parts.provenance, parts.verifier)


def record_key(skey: bytes, raw: bytes) -> str:
    """The fact key of a stored (LMDB key, record) pair, long keys included."""
    if skey[:1] != LONG_KEY_PREFIX:
        return skey.decode()
    long_key = split_record(raw).long_key
    if long_key is None:
        raise CorruptRecordError("digest key without the full key in its record")
    return long_key.decode()


def check_long_key(raw: bytes, long_key: bytes, fact_key: str) -> None:
    """Refuse the record found under a digest key unless it holds that full key (reads and
    writes of long keys both check it, so a digest clash is never taken for the fact)."""
    if split_record(raw).long_key != long_key:
        raise CorruptRecordError(f"digest key of {fact_key[:60]!r}... holds another key's record")
