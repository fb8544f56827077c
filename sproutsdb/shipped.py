"""What the project ships inside the package: the S6 RCT table (package data).

The table travels in the wheel as `sproutsdb/data/s6.rcttable` and is found through
importlib.resources, so an installed `sproutsdb` has it from any working directory;
`data/s6.rcttable` of the checkout is a link to the same file.
"""

from __future__ import annotations

import atexit
import contextlib
from importlib import resources
from pathlib import Path

SHIPPED_TABLE = "s6.rcttable"

_extracted = contextlib.ExitStack()  # a zipped install's table, copied out for this process
atexit.register(_extracted.close)


def shipped_table() -> Path | None:
    """The path of the shipped S6 RCT table, or None if this install lacks it."""
    resource = resources.files("sproutsdb.data").joinpath(SHIPPED_TABLE)
    if not resource.is_file():
        return None
    if isinstance(resource, Path):
        return resource
    return Path(_extracted.enter_context(resources.as_file(resource)))
