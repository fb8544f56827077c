"""GLOP / SPOTS `.spr` nimber databases: read (streamed, re-canonicalised) and write.

A `.spr` file is made of sections, each a `[Name]` line followed by data lines. The
normal-play one is `[Positions+Nimber]` with lines `position nimber`, the position in GLOP
notation (2.x or 1.x). GLOP names uppercase letters beyond Y `Z(k)`; SPOTS (2025) writes the
same files but names them `n(k)`, which is translated to `Z(k)` before reading. Every key is
re-canonicalised with this sproutsdb's canon, so files of other programs (or other canon
versions) merge with native facts. Other sections are skipped and counted.

Reading is two passes so that bad input writes nothing: `stage` reads the text line by line,
canonicalises each position and writes `land<TAB>nimber` lines to a zstd staging file; only
when the whole file is read does `load_staged` put those facts in the store, in batches.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import zstandard
from sproutsdb.solver.game import NotationError
from sproutsdb.solver.sprouts.game import SproutsGame, _core

from sproutsdb.errors import UserError

NIMBER_SECTION = "[Positions+Nimber]"
DIALECTS = ("auto", "glop", "spots")
MAX_NIMBER = 2**63 - 1


class SprFormatError(UserError):
    """A `.spr` file that cannot be read; the message names the line. Nothing was written."""


@dataclass
class StageSummary:
    """What the first pass found."""

    lines: int = 0            # data lines of the nimber section
    facts: int = 0            # land facts staged
    sums: int = 0             # lines whose position is a sum of lands (not storable as one fact)
    terminal: int = 0         # lines of the empty position (nimber 0)
    skipped: dict[str, int] = field(default_factory=dict)  # other sections: data lines
    bytes: int = 0


class Canonicalizer:
    """Canonical lands of a position in either dialect; the C core when it can read it."""

    def __init__(self, game: SproutsGame, dialect: str = "auto") -> None:
        if dialect not in DIALECTS:
            raise UserError(f"unknown .spr dialect {dialect!r}; choose one of {', '.join(DIALECTS)}")
        self._game = game
        self._spots = dialect in ("auto", "spots")

    def lands(self, text: str) -> tuple[str, ...]:
        if self._spots and "n(" in text:
            text = text.replace("n(", "Z(")  # SPOTS' name for uppercase letters beyond Y
        if _core is not None:
            try:
                return tuple(_core.canonical_lands(text))
            except _core.Unsupported:
                pass
        return self._game.components(self._game.canonical(text))


def stage(source: BinaryIO, staging: BinaryIO, canon: Canonicalizer, *, name: str,
          progress: Callable[[int], None] | None = None) -> StageSummary:
    """Pass 1: read `source`, write canonical `land\\tnimber` lines to `staging` (zstd)."""
    summary = StageSummary()
    section: str | None = None
    writer = zstandard.ZstdCompressor(level=3).stream_writer(staging, closefd=False)
    text = io.TextIOWrapper(source, encoding="utf-8", errors="strict", newline=None)
    number = 0
    try:
        for number, raw in enumerate(text, start=1):
            line = raw.strip()
            summary.bytes += len(raw)
            if not line:
                continue
            if line.startswith("[") and line.endswith("]"):
                section = line
                if section != NIMBER_SECTION:
                    summary.skipped.setdefault(section, 0)
                continue
            if section is None:
                raise SprFormatError(f"{name}: line {number}: data before any [Section] line")
            if section != NIMBER_SECTION:
                summary.skipped[section] += 1
                continue
            summary.lines += 1
            position, nimber = _split(line, name, number)
            try:
                lands = canon.lands(position)
            except NotationError as error:
                raise SprFormatError(f"{name}: line {number}: {error}") from None
            if not lands:
                if nimber != 0:
                    raise SprFormatError(f"{name}: line {number}: the empty position has "
                                         f"nimber 0, the file says {nimber}")
                summary.terminal += 1
            elif len(lands) > 1:
                summary.sums += 1
            else:
                writer.write(f"{lands[0]}\t{nimber}\n".encode())
                summary.facts += 1
            if progress is not None and number % 10_000 == 0:
                progress(summary.bytes)
    except UnicodeDecodeError as error:
        raise SprFormatError(f"{name}: line {number + 1}: not UTF-8 text ({error.reason})") from None
    finally:
        text.detach()
    writer.flush(zstandard.FLUSH_FRAME)
    if summary.lines == 0 and not summary.skipped:
        raise SprFormatError(f"{name}: no {NIMBER_SECTION} section (not a .spr database?)")
    return summary


def read_staged(staging: BinaryIO, batch: int = 10_000) -> Iterator[dict[str, int]]:
    """Pass 2: the staged facts in batches (a later duplicate of a land within one batch
    is kept apart, so the store reports it as a conflict instead of losing it)."""
    reader = zstandard.ZstdDecompressor().stream_reader(staging, closefd=False)
    lines = io.TextIOWrapper(reader, encoding="utf-8")
    items: dict[str, int] = {}
    for line in lines:
        land, value = line.rstrip("\n").split("\t")
        if land in items:
            yield items
            items = {}
        items[land] = int(value)
        if len(items) >= batch:
            yield items
            items = {}
    if items:
        yield items


def write_spr(facts: Iterator[tuple[str, int]], out: Path) -> int:
    """Write a `[Positions+Nimber]` file of canonical lands (atomically); returns lines."""
    partial = out.with_name(out.name + ".partial")
    count = 0
    try:
        with open(partial, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(NIMBER_SECTION + "\n")
            for land, nimber in facts:
                handle.write(f"{land} {nimber}\n")
                count += 1
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return count


def _split(line: str, name: str, number: int) -> tuple[str, int]:
    parts = line.split()
    if len(parts) != 2 or not parts[1].isascii() or not parts[1].isdigit():
        raise SprFormatError(f"{name}: line {number}: expected 'position nimber', got {line!r:.80}")
    nimber = int(parts[1])
    if nimber > MAX_NIMBER:
        raise SprFormatError(f"{name}: line {number}: nimber {parts[1]:.30} is out of range")
    return parts[0], nimber
