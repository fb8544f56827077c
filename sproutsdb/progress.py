"""Progress on stderr for long runs: a live bar on a terminal (tqdm), plain lines elsewhere.

On a terminal the bar or status line is redrawn in place. When stderr is not a terminal (a
log file, nohup, CI) a plain line is written every few seconds instead, so that a day-long
run says how far it is; with a known total both say how much is left and when it ends.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # imported where a bar is drawn: tqdm and its imports are large
    from tqdm import tqdm

ENV_SECONDS = "SPROUTSDB_PROGRESS_SECONDS"  # seconds between plain lines (default 10)
PLAIN_SECONDS = 10.0
_command = "sproutsdb"  # the prefix of plain lines, set by the CLI to `sproutsdb COMMAND`


def set_command(name: str) -> None:
    """Name the running command in plain progress lines (`sproutsdb solve: …`)."""
    global _command
    _command = f"sproutsdb {name}"


def plain_seconds() -> float:
    """Seconds between plain progress lines: $SPROUTSDB_PROGRESS_SECONDS, else 10."""
    try:
        seconds = float(os.environ.get(ENV_SECONDS, ""))
    except ValueError:
        return PLAIN_SECONDS
    return seconds if seconds > 0 else PLAIN_SECONDS


def duration(seconds: float) -> str:
    """A short human duration: 42 s, 3 min 05 s, 2 h 07 min."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def count_text(count: float, unit: str, total: int | None, seconds: float) -> str:
    """`12,345 of 86,900 facts (14.2%), 1,880 facts/s, about 39 s left` (the tail only
    with a total and a rate)."""
    rate = count / seconds if seconds > 0 else 0.0
    if total:
        done = f"{count:,.0f} of {total:,} {unit} ({100 * count / total:.1f}%)"
    else:
        done = f"{count:,.0f} {unit}"
    text = f"{done} in {duration(seconds)}, {rate:,.0f} {unit}/s"
    if total and rate > 0 and count < total:
        text += f", about {duration((total - count) / rate)} left"
    return text


class PlainLines:
    """Writes the latest text as one line every `interval` seconds (not a terminal)."""

    def __init__(
        self,
        stream: TextIO,
        interval: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._interval = interval
        self._clock = clock
        self.start = self._last = clock()

    def due(self) -> bool:
        """Whether a line is due now (the interval has passed since the last one)."""
        return self._clock() - self._last >= self._interval

    def elapsed(self) -> float:
        return self._clock() - self.start

    def write(self, text: str) -> None:
        self._last = self._clock()
        self._stream.write(f"{_command}: {text}\n")
        self._stream.flush()


class _Bar:
    """A counter that callers advance to an absolute count: a tqdm bar, plain lines or
    nothing."""

    def __init__(
        self, bar: tqdm[Any] | None, plain: PlainLines | None, unit: str, total: int | None
    ) -> None:
        self._bar = bar
        self._plain = plain
        self._unit = unit
        self._total = total
        self._count = 0
        self._postfix = ""

    def update_to(self, count: int) -> None:
        self._count = count
        if self._bar is not None:
            self._bar.update(count - self._bar.n)
        elif self._plain is not None and self._plain.due():
            self._plain.write(self.text())

    def set_postfix(self, **values: object) -> None:
        if self._bar is not None:
            self._bar.set_postfix(values, refresh=False)
        self._postfix = ", ".join(f"{k}={v}" for k, v in values.items())

    def text(self) -> str:
        """The plain line: count, total, rate, time left."""
        assert self._plain is not None
        text = count_text(self._count, self._unit, self._total, self._plain.elapsed())
        return f"{text} ({self._postfix})" if self._postfix else text


@contextmanager
def counter_bar(unit: str, enabled: bool = True, total: int | None = None) -> Iterator[_Bar]:
    """A counter of `unit`s on stderr: a bar on a terminal (with `total`, a percentage and
    the time left), else a plain line every few seconds; nothing when not enabled."""
    tty = sys.stderr.isatty()
    if enabled and tty:
        from tqdm import tqdm
    bar = (
        tqdm(
            unit=f" {unit}",
            unit_scale=True,
            total=total or None,
            file=sys.stderr,
            mininterval=0.5,
            dynamic_ncols=True,
        )
        if enabled and tty
        else None
    )
    plain = PlainLines(sys.stderr, plain_seconds()) if enabled and not tty else None
    try:
        yield _Bar(bar, plain, unit, total)
    finally:
        if bar is not None:
            bar.close()


class _StatusLine:
    """One line of progress on stderr: rewritten in place on a terminal (cleared at the
    end), else written as a plain line every few seconds."""

    def __init__(self, enabled: bool, tty: bool) -> None:
        self._enabled = enabled and tty
        self._plain = PlainLines(sys.stderr, plain_seconds()) if enabled and not tty else None
        self._width = 0

    def show(self, text: str) -> None:
        if self._plain is not None:
            if self._plain.due():
                self._plain.write(text)
            return
        if not self._enabled:
            return
        pad = max(0, self._width - len(text))
        sys.stderr.write("\r" + text + " " * pad)
        sys.stderr.flush()
        self._width = len(text)

    def clear(self) -> None:
        if self._enabled and self._width:
            sys.stderr.write("\r" + " " * self._width + "\r")
            sys.stderr.flush()
            self._width = 0


@contextmanager
def status_line(enabled: bool = True) -> Iterator[_StatusLine]:
    """A live progress line on stderr (a terminal), or a plain line every few seconds."""
    line = _StatusLine(enabled, sys.stderr.isatty())
    try:
        yield line
    finally:
        line.clear()
