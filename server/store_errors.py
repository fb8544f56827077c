"""The errors of LmdbProofStore: one class per way a store cannot be used as asked.

They derive from UserError so that the command line prints their message (which says what
to do) instead of a traceback.
"""

from __future__ import annotations

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
