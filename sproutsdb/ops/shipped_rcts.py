"""The shipped S6 RCT table as the default RCT source of the commands (solve --misere,
query, rct), loaded once per process and re-derived like any table file: records on load,
positions whole once per install (sproutsdb.trusted_tables, a mark cached per checksum)."""

from __future__ import annotations

import sys
from pathlib import Path

from sproutsdb.formats.rcttable import RctTable
from sproutsdb.progress import counter_bar
from sproutsdb.shipped import shipped_table
from sproutsdb.trusted_tables import verified_table

_loaded: dict[Path, RctTable] = {}


def shipped_rct_table() -> tuple[RctTable, Path] | None:
    """(table, path) of the shipped S6 table, or None when this install lacks it."""
    path = shipped_table()
    if path is None:
        return None
    table = _loaded.get(path)
    if table is None:  # all re-derived once per install: a counter on a terminal meanwhile
        with counter_bar("positions re-derived", enabled=sys.stderr.isatty()) as bar:
            table = verified_table(path, notice=say_on_stderr, progress=bar.update_to)
        _loaded[path] = table
    return table, path


def describe_source(source: str, where: str | None) -> dict[str, str | None]:
    """The `rct_table` entry of a command's --json: which RCTs it used, and from where.
    source is "file" (--rct-table), "server", "store", "shipped" or "none"."""
    return {"source": source, "where": where}


def say_on_stderr(message: str) -> None:
    """A one-line notice of a command on stderr (its output stays parseable)."""
    print(f"sproutsdb: {message}", file=sys.stderr, flush=True)
