"""The resume record of a normal-play solve: where an interrupted search stood, as a hint.

A store keeps only proven facts (losing couples). What an interrupted df-pn search knew
besides them is lost with the process: its proof and disproof numbers, which steer it, and
the couples it proved winning ("nimber(C) ≠ n"), which are never stored. A rerun then
searches in another order and may redo most of the work (measured on 0*14: from 0.6 to
1.6 times a fresh run's CPU in all). The record keeps both, so that a rerun continues the
same search.

It is never a fact and never trusted: proof numbers are clamped to [1, INFINITY] so that
they can only steer (df-pn takes a node as decided only by a 0, which a record never gives), and each winning couple it
names is a claim, re-derived one level deep from known facts when the search first asks
about it (`Couples.take_claims`); what does not re-derive is dropped. A wrong, stale or
forged record may cost time, never change an answer.

Byte format (version 1): a zlib stream of UTF-8 text lines, each field separated by a tab:
``sproutsdb-resume 1``, then ``root <root>``, then one line per entry, either
``n <φ> <δ> <couple key>`` (df-pn numbers of an undecided couple) or
``x <n1,n2,…> <land>`` (the land's couples (land, n) claimed winning), or ``s <size>``,
``c <couple key>`` and after it ``k <δ> <child key>`` lines (a kept children list, whose
children the rerun's expansion takes the keys of, when they stand for the same couples,
see `CoupleSpace.resume_lists`). A record that does
not decode whole (truncated, another version, another root, a bad line) is ignored.

A misère search keeps its own kind of record (`encode_misere_state`), under another first
line, ``sproutsdb-misere-resume 1``, so that neither kind is ever read as the other: after
``root <node key>``, ``n <φ> <δ> <node key>`` lines (df-pn numbers, clamped as above) and
``w <node key>`` lines (nodes claimed winning, each re-derived before use from one stored
losing child, `MisereSolver`) and ``l <land>`` lines (lands whose RCTs the keys name: the
rerun looks them up first, through its own re-deriving RCT source, so that it knows the
trees a key names).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Protocol

from sproutsdb.solver.search.dfpn import INFINITY

__all__ = [
    "MAX_RECORD_BYTES",
    "MemoryResumeSlots",
    "MisereState",
    "ResumeSlots",
    "SearchState",
    "decode_misere_state",
    "decode_state",
    "encode_misere_state",
    "encode_state",
]

MAGIC = "sproutsdb-resume 1"
MISERE_MAGIC = "sproutsdb-misere-resume 1"
MAX_RECORD_BYTES = 1 << 28  # decoded text of one record: more is not a record of ours
MAX_NIM = 1 << 20  # a nim part beyond this is not one a search reached


@dataclass
class SearchState:
    """What a normal-play search knew beyond the store: steering numbers, claimed wins."""

    numbers: dict[str, tuple[int, int]] = field(default_factory=dict)  # couple key -> (φ, δ)
    exclusions: dict[str, tuple[int, ...]] = field(default_factory=dict)  # land -> n ≠ nimber
    # expanded couple -> its children so far (key, initial δ), and what they count in all
    lists: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    lists_size: int = 0

    def __len__(self) -> int:
        return len(self.numbers) + sum(len(ns) for ns in self.exclusions.values())


class ResumeSlots(Protocol):
    """Where a solver keeps one resume record per root between runs (never among facts)."""

    def load(self, root: str) -> bytes | None:
        """The record last saved for ``root``, or None."""
        ...

    def save(self, root: str, data: bytes) -> bool:
        """Replace the record of ``root`` whole; False if it could not be kept."""
        ...

    def discard(self, root: str) -> None:
        """Forget the record of ``root`` (its solve is done)."""
        ...


class MemoryResumeSlots:
    """ResumeSlots in a dict: for tests and benchmarks."""

    def __init__(self) -> None:
        self.records: dict[str, bytes] = {}

    def load(self, root: str) -> bytes | None:
        return self.records.get(root)

    def save(self, root: str, data: bytes) -> bool:
        self.records[root] = data
        return True

    def discard(self, root: str) -> None:
        self.records.pop(root, None)


def _plain(text: str) -> bool:
    """Whether a key can stand in one field of a line (no tab, no line break)."""
    return "\t" not in text and "\n" not in text and "\r" not in text


def encode_state(
    root: str,
    numbers: Mapping[str, tuple[int, int]],
    exclusions: Mapping[str, Iterable[int]],
    lists: Mapping[str, Sequence[tuple[str, int]]] | None = None,
    lists_size: int = 0,
) -> bytes:
    """The record of a search of ``root`` (keys that cannot stand in a field are left out)."""
    return _deflate(_lines(root, numbers, exclusions, lists or {}, lists_size))


def _lines(
    root: str,
    numbers: Mapping[str, tuple[int, int]],
    exclusions: Mapping[str, Iterable[int]],
    lists: Mapping[str, Sequence[tuple[str, int]]],
    lists_size: int,
) -> Iterator[str]:
    """The record's lines, one at a time (a record of a large search is ~10⁵ lines)."""
    yield from (MAGIC, f"root\t{root}", f"s\t{lists_size}")
    for parent, children in lists.items():
        if _plain(parent):
            yield f"c\t{parent}"
            yield from (f"k\t{delta}\t{key}" for key, delta in children if _plain(key))
    yield from (f"n\t{phi}\t{delta}\t{key}" for key, (phi, delta) in numbers.items() if _plain(key))
    for land, ns in exclusions.items():
        values = sorted(ns)
        if values and _plain(land):
            yield f"x\t{','.join(map(str, values))}\t{land}"


def _deflate(lines: Iterator[str], batch: int = 4096) -> bytes:
    """zlib of the lines joined by newlines, compressed a batch at a time, so that a
    save holds the compressed record and one batch, never the whole text at once."""
    compressor = zlib.compressobj(1)
    out: list[bytes] = []
    separator = ""
    while chunk := list(islice(lines, batch)):
        out.append(compressor.compress((separator + "\n".join(chunk)).encode()))
        separator = "\n"
    out.append(compressor.flush())
    return b"".join(out)


def _inflate(data: bytes) -> str | None:
    """The text of a whole zlib stream of at most MAX_RECORD_BYTES, else None."""
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(data, MAX_RECORD_BYTES)
    except zlib.error:
        return None
    if not inflater.eof or inflater.unconsumed_tail or inflater.unused_data:
        return None  # truncated, too long, or followed by something else
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return None


def _number(text: str) -> int:
    """A proof number from a record, clamped to what steers and never decides."""
    if not text.isdigit():
        raise ValueError(text)
    return min(max(int(text), 1), INFINITY)


def decode_state(root: str, data: bytes) -> SearchState | None:
    """The state a record keeps for ``root``; None if it is not a whole record of it."""
    text = _inflate(data)
    if text is None:
        return None
    lines = text.split("\n")
    if len(lines) < 2 or lines[0] != MAGIC or lines[1] != f"root\t{root}":
        return None
    state = SearchState()
    children: list[tuple[str, int]] | None = None
    try:
        for line in lines[2:]:
            kind, rest = line.split("\t", 1)
            if kind == "k":
                delta, key = rest.split("\t", 1)
                if children is None:
                    return None
                children.append((key, _number(delta)))
            elif kind == "c":
                children = state.lists.setdefault(rest, [])
            elif kind == "s":
                state.lists_size = _number(rest)
            elif kind == "n":
                phi, delta, key = rest.split("\t", 2)
                state.numbers[key] = (_number(phi), _number(delta))
            elif kind == "x":
                values, land = rest.split("\t", 1)
                ns = tuple(int(n) for n in values.split(",") if n.isdigit())
                if len(ns) != values.count(",") + 1 or max(ns) > MAX_NIM or not land:
                    return None
                state.exclusions[land] = ns
            else:
                return None
    except ValueError:
        return None
    return state


@dataclass
class MisereState:
    """What a misère search knew beyond the store: steering numbers, claimed winning nodes."""

    numbers: dict[str, tuple[int, int]] = field(default_factory=dict)  # node key -> (φ, δ)
    wins: list[str] = field(default_factory=list)  # node keys claimed winning
    lands: list[str] = field(default_factory=list)  # lands of the RCTs the keys name

    def __len__(self) -> int:
        return len(self.numbers) + len(self.wins)


def encode_misere_state(
    root: str,
    numbers: Mapping[str, tuple[int, int]],
    wins: Iterable[str],
    lands: Iterable[str] = (),
) -> bytes:
    """The record of a misère search of the node ``root`` (keys that cannot stand in a
    field are left out)."""
    return _deflate(_misere_lines(root, numbers, wins, lands))


def _misere_lines(
    root: str,
    numbers: Mapping[str, tuple[int, int]],
    wins: Iterable[str],
    lands: Iterable[str],
) -> Iterator[str]:
    """The misère record's lines, one at a time, as many as decode (MAX_RECORD_BYTES): a
    record too large to decode whole would be lost whole, so the last winning nodes (and
    then numbers) are left out instead; they are only hints."""
    budget = MAX_RECORD_BYTES - len(MISERE_MAGIC) - len(root.encode()) - 16
    yield from (MISERE_MAGIC, f"root\t{root}")
    entries = chain(
        (f"l\t{land}" for land in lands if land and _plain(land)),
        (f"n\t{phi}\t{delta}\t{key}" for key, (phi, delta) in numbers.items() if _plain(key)),
        (f"w\t{key}" for key in wins if key and _plain(key)),
    )
    for line in entries:
        budget -= len(line.encode()) + 1
        if budget < 0:
            return
        yield line


def decode_misere_state(root: str, data: bytes) -> MisereState | None:
    """The state a misère record keeps for the node ``root``; None if it is not a whole
    misère record of it (a normal-play record never is one)."""
    text = _inflate(data)
    if text is None:
        return None
    lines = text.split("\n")
    if len(lines) < 2 or lines[0] != MISERE_MAGIC or lines[1] != f"root\t{root}":
        return None
    state = MisereState()
    try:
        for line in lines[2:]:
            kind, rest = line.split("\t", 1)
            if kind == "n":
                phi, delta, key = rest.split("\t", 2)
                state.numbers[key] = (_number(phi), _number(delta))
            elif kind == "w" and rest:
                state.wins.append(rest)
            elif kind == "l" and rest:
                state.lands.append(rest)
            else:
                return None
    except ValueError:
        return None
    return state
