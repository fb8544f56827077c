"""GLOP / SPOTS `.spr` nimber databases: read (streamed, re-canonicalised) and write.

A `.spr` file is made of sections, each a `[Name]` line followed by data lines. The
normal-play one is `[Positions+Nimber]` with lines `position nimber`, the position in GLOP
notation (2.x or 1.x). GLOP names uppercase letters beyond Y `Z(k)`; SPOTS (2025) writes the
same files but names them `n(k)`, which is translated to `Z(k)` before reading. Every key is
re-canonicalised with this sproutsdb's canon, so files of other programs (or other canon
versions) merge with native facts. GLOP's RCT bases, `[Rct+Rcts_children]` (a label and
its children's labels) and `[Position+Rct]`, are read in any line order (GLOP sorts them
by bytes) and every tree is rebuilt from its children (`translate_rcts`). Other sections
are skipped and counted; a file with none of these three is refused.

Reading is two passes so that bad input writes nothing: `stage` reads the text line by line,
canonicalises each position and writes `land<TAB>nimber` lines to a zstd staging file; only
when the whole file is read are those facts put in the store, in batches (`read_staged`).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import zstandard

from sproutsdb.errors import UserError
from sproutsdb.games import get_game
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.cgt.records import load as load_records
from sproutsdb.solver.ports.game import Game, NotationError
from sproutsdb.solver.ports.proofstore import RctRecord

NIMBER_SECTION = "[Positions+Nimber]"
RCT_CHILDREN_SECTION = "[Rct+Rcts_children]"
POSITION_RCT_SECTION = "[Position+Rct]"
KNOWN_SECTIONS = (NIMBER_SECTION, RCT_CHILDREN_SECTION, POSITION_RCT_SECTION)
_LABEL = re.compile(r"([0-9]+)-([0-9]+)(\+1)?-([WL])")
DIALECTS = ("auto", "glop", "spots")
MAX_NIMBER = 2**63 - 1
EMPTY = "!"  # the empty position
MAX_IMPLICIT_NIM = 64  # a nim-heap label without its line is built only up to this size


class SprFormatError(UserError):
    """A `.spr` file that cannot be read; the message names the line. Nothing was written."""


@dataclass
class StageSummary:
    """What the first pass found."""

    sections: int = 0  # section lines of the known sections
    lines: int = 0  # data lines of the nimber section
    facts: int = 0  # land facts staged
    sums: int = 0  # lines whose position is a sum of lands (not storable as one fact)
    terminal: int = 0  # lines of the empty position (nimber 0)
    skipped: dict[str, int] = field(default_factory=dict)  # other sections: data lines
    bytes: int = 0
    rct_children: dict[str, tuple[str, ...]] = field(default_factory=dict)  # label -> labels
    rct_positions: list[tuple[str, str]] = field(default_factory=list)  # canonical key, label


class Canonicalizer:
    """Canonical lands of a position in either dialect; the C core when it can read it."""

    def __init__(self, game: Game, dialect: str = "auto") -> None:
        if dialect not in DIALECTS:
            raise UserError(
                f"unknown .spr dialect {dialect!r}; choose one of {', '.join(DIALECTS)}"
            )
        self._game = game
        self._spots = dialect in ("auto", "spots")

    def join(self, lands: tuple[str, ...]) -> str:
        return self._game.join(lands)

    def lands(self, text: str) -> tuple[str, ...]:
        if self._spots and "n(" in text:
            text = text.replace("n(", "Z(")  # SPOTS' name for uppercase letters beyond Y
        return canonical_lands(self._game, text)


def canonical_lands(game: Game, text: str) -> tuple[str, ...]:
    """The canonical lands of a position (NotationError if it is none). The compiled core
    reads each `+`-separated land of a 2.x sum when it can; anything else (1.x, genus, an
    error to report) goes to the Python parser, whole."""
    if text == EMPTY:
        return ()
    lands: list[str] = []
    for part in text.split("+"):
        plain = part and "]" not in part and "!" not in part  # not GLOP 1.x
        found = get_game().fast_canonical_lands(part) if plain else None
        if found is None:
            return game.components(game.canonical(text))
        lands.extend(found)
    return tuple(lands)


def stage(
    source: BinaryIO,
    staging: BinaryIO,
    canon: Canonicalizer,
    *,
    name: str,
    progress: Callable[[int], None] | None = None,
    resume: Mapping[str, Any] | None = None,
    save: Callable[[dict[str, Any]], None] | None = None,
    every: int = 200_000,
) -> StageSummary:
    """Pass 1: read `source`, write canonical `land\tnimber` lines to `staging` (zstd).

    With `save`, every `every` lines the staging file is completed to a zstd frame and
    `save` is given the state (source offset, line, section, staging size, summary); a
    later call with that state as `resume` continues from there (an interrupted import
    resumes instead of canonicalising the whole file again).
    """
    summary = StageSummary()
    section: str | None = None
    number = 0
    offset = 0
    if resume is not None:
        offset, number, section = int(resume["offset"]), int(resume["line"]), resume["section"]
        summary = summary_from_json(resume["summary"])
        source.seek(offset)
        staging.truncate(int(resume["staging_bytes"]))
        staging.seek(int(resume["staging_bytes"]))
    writer = zstandard.ZstdCompressor(level=3).stream_writer(staging, closefd=False)
    for raw_bytes in source:
        number += 1
        offset += len(raw_bytes)
        summary.bytes = offset
        try:
            line = raw_bytes.decode("utf-8").strip()
        except UnicodeDecodeError as error:
            raise SprFormatError(
                f"{name}: line {number}: not UTF-8 text ({error.reason})"
            ) from None
        if line.startswith("[") and line.endswith("]"):
            section = line
            if section in KNOWN_SECTIONS:
                summary.sections += 1
            else:
                summary.skipped.setdefault(section, 0)
        elif not line:
            pass
        elif section is None:
            raise SprFormatError(f"{name}: line {number}: data before any [Section] line")
        elif section == RCT_CHILDREN_SECTION:
            label, *kids = line.split()
            if summary.rct_children.setdefault(label, tuple(kids)) != tuple(kids):
                raise SprFormatError(
                    f"{name}: line {number}: RCT {label!r:.40} is given two different lines"
                )
        elif section == POSITION_RCT_SECTION:
            position, label = _split_label(line, name, number)
            try:
                key = canon.join(canon.lands(position))
            except NotationError as error:
                raise SprFormatError(f"{name}: line {number}: {_clip(str(error))}") from None
            summary.rct_positions.append((key, label))
        elif section != NIMBER_SECTION:
            summary.skipped[section] += 1
        else:
            summary.lines += 1
            position, nimber = _split(line, name, number)
            try:
                lands = canon.lands(position)
            except NotationError as error:
                raise SprFormatError(f"{name}: line {number}: {_clip(str(error))}") from None
            if not lands:
                if nimber != 0:
                    raise SprFormatError(
                        f"{name}: line {number}: the empty position has "
                        f"nimber 0, the file says {nimber}"
                    )
                summary.terminal += 1
            elif len(lands) > 1:
                summary.sums += 1
            else:
                writer.write(f"{lands[0]}\t{nimber}\n".encode())
                summary.facts += 1
        if progress is not None and number % 10_000 == 0:
            progress(offset)
        if save is not None and number % every == 0:
            writer.flush(zstandard.FLUSH_FRAME)
            staging.flush()
            os.fsync(staging.fileno())
            save(
                {
                    "offset": offset,
                    "line": number,
                    "section": section,
                    "staging_bytes": staging.tell(),
                    "summary": summary_to_json(summary),
                }
            )
    writer.flush(zstandard.FLUSH_FRAME)
    if not (summary.sections or summary.lines or summary.rct_children or summary.rct_positions):
        raise SprFormatError(
            f"{name}: none of the sections {', '.join(KNOWN_SECTIONS)} "
            "(not a .spr database?); nothing was imported"
        )
    return summary


def summary_to_json(summary: StageSummary) -> dict[str, Any]:
    data = asdict(summary)
    data["rct_children"] = {k: list(v) for k, v in summary.rct_children.items()}
    data["rct_positions"] = [list(item) for item in summary.rct_positions]
    return data


def summary_from_json(data: Mapping[str, Any]) -> StageSummary:
    summary = StageSummary(
        **{k: v for k, v in data.items() if k not in ("rct_children", "rct_positions")}
    )
    summary.rct_children = {k: tuple(v) for k, v in data["rct_children"].items()}
    summary.rct_positions = [(k, v) for k, v in data["rct_positions"]]
    return summary


@dataclass
class StagedBatch:
    """One store transaction of staged facts: each land once (its first line in the
    batch), and the later lines of those lands (same value or not), which the store's
    value then answers: unchanged when equal, a conflict otherwise."""

    items: dict[str, int] = field(default_factory=dict)
    later: list[tuple[str, int]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.items) + len(self.later)


def read_staged(staging: BinaryIO, batch: int = 10_000) -> Iterator[StagedBatch]:
    """Pass 2: the staged facts in batches of at most `batch` lines. A land repeated in a
    batch stays in it (`later`), so repeated lines cost no transaction each and a
    contradicting one is still reported as a conflict instead of being lost."""
    reader = zstandard.ZstdDecompressor().stream_reader(
        staging, closefd=False, read_across_frames=True
    )
    lines = io.TextIOWrapper(reader, encoding="utf-8")
    current = StagedBatch()
    for line in lines:
        land, value = line.rstrip("\n").split("\t")
        if land in current.items:
            current.later.append((land, int(value)))
        else:
            current.items[land] = int(value)
        if len(current) >= batch:
            yield current
            current = StagedBatch()
    if current:
        yield current


def write_spr(
    facts: Iterator[tuple[str, int]],
    out: Path,
    rcts: Iterable[tuple[str, RctRecord]] = (),
    positions: Iterable[tuple[str, str]] = (),
) -> dict[str, int]:
    """Write a `.spr` file (atomically): `[Positions+Nimber]` lines of canonical lands, and
    when RCT facts are given `[Rct+Rcts_children]` and `[Position+Rct]` lines with GLOP
    short labels (nim-heaps `n`, others `h-k[+1]-O` numbered in the order met). Returns
    the line counts per section."""
    partial = out.with_name(out.name + ".partial")
    counts = {"nimber": 0, "rct": 0, "pos_rct": 0}
    try:
        with open(partial, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(NIMBER_SECTION + "\n")
            for land, nimber in facts:
                handle.write(f"{land} {nimber}\n")
                counts["nimber"] += 1
            records = list(rcts)
            if records:
                algebra = Algebra()
                handles = load_records(algebra, records)
                handle.write(RCT_CHILDREN_SECTION + "\n")
                for tree in sorted(set(handles)):
                    kids = sorted(algebra.children(tree))
                    labels = [algebra.label(k) for k in kids]
                    handle.write(" ".join([algebra.label(tree), *labels]) + "\n")
                    counts["rct"] += 1
                by_cid = dict(zip((cid for cid, _ in records), handles))
                handle.write(POSITION_RCT_SECTION + "\n")
                for position, cid in positions:
                    tree_handle = by_cid.get(cid)
                    if tree_handle is None:
                        raise UserError(f"position {position}: its RCT {cid} is not in the store")
                    handle.write(f"{position} {algebra.label(tree_handle)}\n")
                    counts["pos_rct"] += 1
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return counts


def translate_rcts(
    children: Mapping[str, tuple[str, ...]], labels: Iterable[str], algebra: Algebra
) -> dict[str, int]:
    """Handles of GLOP's discovery-order RCT labels (`n` for nim-heaps, `h-k[+1]-O`),
    rebuilt from `[Rct+Rcts_children]` children first; each rebuilt tree must have the
    height and outcome its label states. SprFormatError names the first that does not.

    Lines may come in any order (GLOP sorts them by bytes, so a parent can precede its
    children): the walk is an iterative depth-first search, and only a label met again
    while it is on the current path (a back edge) is a cycle."""
    handles: dict[str, int] = {}
    on_path: set[str] = set()
    for start in labels:
        stack: list[tuple[str, bool]] = [(start, False)]
        while stack:
            label, expanded = stack.pop()
            if label in handles:
                continue
            if expanded:  # every child is rebuilt: rebuild the label itself
                on_path.discard(label)
                handles[label] = _rebuild(label, children[label], handles, algebra)
                continue
            if label in on_path:
                raise SprFormatError(f"RCT {label}: its children lead back to itself (a cycle)")
            _check_label(label)
            if label.isdigit() and label not in children:  # a nim-heap without its line
                if len(label) > 2 or int(label) > MAX_IMPLICIT_NIM:
                    raise SprFormatError(f"RCT {label:.30} has no line in {RCT_CHILDREN_SECTION}")
                handles[label] = algebra.nim(int(label))
                continue
            if label not in children:
                raise SprFormatError(f"RCT {label} has no line in {RCT_CHILDREN_SECTION}")
            on_path.add(label)
            stack.append((label, True))
            stack.extend((kid, False) for kid in children[label] if kid not in handles)
    return handles


def _check_label(label: str) -> None:
    """A label is `n` (ASCII digits) or `h-k[+1]-W|L`; anything else is refused."""
    ascii_nim = label.isascii() and label.isdigit()
    if len(label) > 40 or (not ascii_nim and _LABEL.fullmatch(label) is None):
        raise SprFormatError(f"RCT label {label!r:.80} is neither n nor h-k[+1]-W|L")


def _rebuild(
    label: str, kids: tuple[str, ...], handles: Mapping[str, int], algebra: Algebra
) -> int:
    """The tree of `label` from its rebuilt children, checked against what the label says."""
    handle = algebra.reduce_children(handles[kid] for kid in kids)
    if label.isdigit():  # the nim-heap *n: its children must be *0 .. *(n-1)
        if str(algebra.nim_value(handle)) != label:
            raise SprFormatError(f"RCT {label}: its children do not give the nim-heap *{label}")
        return handle
    match = _LABEL.fullmatch(label)
    assert match is not None  # checked by _check_label before the label was expanded
    height = int(match.group(1)) + (1 if match.group(3) else 0)
    if algebra.height(handle) != height or algebra.outcome(handle) != match.group(4):
        raise SprFormatError(
            f"RCT {label}: its children give a tree of height {algebra.height(handle)} "
            f"and outcome {algebra.outcome(handle)}, not what the label says"
        )
    return handle


def _clip(text: str, limit: int = 300) -> str:
    """A parser's message quoting an enormous line, cut to a readable length."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def _split_label(line: str, name: str, number: int) -> tuple[str, str]:
    parts = line.split()
    if len(parts) != 2:
        raise SprFormatError(f"{name}: line {number}: expected 'position rct', got {line!r:.80}")
    return parts[0], parts[1]


def _split(line: str, name: str, number: int) -> tuple[str, int]:
    parts = line.split()
    if len(parts) != 2 or not parts[1].isascii() or not parts[1].isdigit():
        raise SprFormatError(f"{name}: line {number}: expected 'position nimber', got {line!r:.80}")
    nimber = (
        int(parts[1]) if len(parts[1]) <= 20 else MAX_NIMBER + 1
    )  # int() of 4 300+ digits raises
    if nimber > MAX_NIMBER:
        raise SprFormatError(f"{name}: line {number}: nimber {parts[1]:.30} is out of range")
    return parts[0], nimber
