"""Start a `--jobs N` run's helper processes and stop them when the main search ends."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from typing import Any


@contextmanager
def helpers_alive(processes: Sequence[BaseProcess], stop: Any, grace: float) -> Iterator[None]:
    """Run `processes` for the body's duration; then set `stop` and give each `grace` seconds
    to flush and exit before it is terminated (a helper never outlives its main search)."""
    for process in processes:
        process.start()
    try:
        yield
    finally:
        stop.set()
        for process in processes:
            process.join(grace)
            if process.is_alive():
                process.terminate()
                process.join()
