"""Progress display on stderr for long runs (tqdm), silent when stderr is not a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tqdm import tqdm


class _Bar:
    """A counter bar that callers advance to an absolute count."""

    def __init__(self, bar: tqdm[Any] | None) -> None:
        self._bar = bar

    def update_to(self, count: int) -> None:
        if self._bar is not None:
            self._bar.update(count - self._bar.n)

    def set_postfix(self, **values: object) -> None:
        if self._bar is not None:
            self._bar.set_postfix(values, refresh=False)


@contextmanager
def counter_bar(unit: str, enabled: bool = True) -> Iterator[_Bar]:
    """A bar counting `unit`s on stderr; shown only on a terminal (and when enabled)."""
    show = enabled and sys.stderr.isatty()
    bar = (
        tqdm(unit=f" {unit}", unit_scale=True, file=sys.stderr, mininterval=0.5, dynamic_ncols=True)
        if show
        else None
    )
    try:
        yield _Bar(bar)
    finally:
        if bar is not None:
            bar.close()


class _StatusLine:
    """One line on stderr rewritten in place (a terminal only), cleared at the end."""

    def __init__(self, enabled: bool) -> None:
        self._enabled = enabled
        self._width = 0

    def show(self, text: str) -> None:
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
    """A live progress line on stderr, shown only on a terminal (and when enabled)."""
    line = _StatusLine(enabled and sys.stderr.isatty())
    try:
        yield line
    finally:
        line.clear()
