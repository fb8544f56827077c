"""The errors of LmdbProofStore: one class per way a store cannot be used as asked.

They derive from UserError so that the command line prints their message (which says what
to do) instead of a traceback.
"""

from __future__ import annotations

import os

from sproutsdb.errors import UserError


class StoreError(UserError):
    """A store that cannot be used as asked; the message says what to do."""


class StoreNotFoundError(StoreError):
    """No store at the path and the caller did not ask to create one."""


class NotAStoreError(StoreError):
    """The path holds something that is not a sproutsdb store."""


class StoreMismatchError(StoreError):
    """The store holds another game or another canonical-form version than the program."""


class SchemaVersionError(StoreError):
    """The store was written with a schema this program cannot read or write."""


class ReadOnlyStoreError(StoreError):
    """A write on a store opened read-only."""


class StoreClosedError(StoreError):
    """A call on a store after close()."""


class StoreInUseError(StoreError):
    """The store is already open in this process (LMDB allows one handle per process)."""


class StoreFullError(StoreError):
    """The store reached its map_size."""


class StoreDiskError(StoreError):
    """The disk under the store refused a write (full, read-only or failing)."""


_DISK_ERRORS = {
    "No space left on device": "is full",
    "Disk quota exceeded": "is over its quota",
    "Read-only file system": "is read-only",
    "Input/output error": "failed a write (an I/O error)",
}


def disk_error(error: BaseException, path: str) -> StoreDiskError | None:
    """The StoreDiskError of an LMDB or OS error that comes from the disk, else None.

    LMDB reports a short write, which is what a full disk gives it, as an I/O error;
    the free space of the file system tells the two apart.
    """
    text = str(error)
    what = next((v for k, v in _DISK_ERRORS.items() if k in text), None)
    if what is None:
        return None
    if what.startswith("failed"):
        try:
            stat = os.statvfs(path)
            if stat.f_bavail * stat.f_frsize < (1 << 20):
                what = "is full"
        except OSError:
            pass
    return StoreDiskError(
        f"the disk holding the store {path} {what}; nothing of this write was committed"
    )
