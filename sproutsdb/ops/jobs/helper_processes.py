"""Start a `--jobs N` run's helper processes and stop them when the main search ends."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Any

from sproutsdb.ops.stores import StoreLocation


@dataclass(frozen=True)
class HelperSpec:
    """What a helper process is handed (it pickles): where the store is, and the settings of
    the main search that a helper shares (its search, its table size, its RCT table)."""

    location: StoreLocation
    search: str = "dfpn"
    table_capacity: int | None = None
    rct_table: str | None = None
    use_rcts: bool = True


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
