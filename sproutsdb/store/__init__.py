"""The LMDB store: one package for the facts on disk.

`lmdb_store` is the store itself (`LmdbProofStore`, `open_store`); `schema` the byte formats;
`opening` the directory, environment and identity checks; `writer` the group-commit thread;
`txn` what one write transaction does; `reads` the read paths; `errors` the StoreError family;
`location` where a store lives by default. The names most callers need are re-exported here.
"""

from sproutsdb.store.errors import (
    NotAStoreError,
    ReadOnlyStoreError,
    SchemaVersionError,
    StoreClosedError,
    StoreError,
    StoreFullError,
    StoreInUseError,
    StoreMismatchError,
    StoreNotFoundError,
)
from sproutsdb.store.lmdb_store import LmdbProofStore, Mark, VerifiedFacts, open_store
from sproutsdb.store.opening import DEFAULT_MAP_SIZE

__all__ = [
    "DEFAULT_MAP_SIZE",
    "LmdbProofStore",
    "Mark",
    "NotAStoreError",
    "ReadOnlyStoreError",
    "SchemaVersionError",
    "StoreClosedError",
    "StoreError",
    "StoreFullError",
    "StoreInUseError",
    "StoreMismatchError",
    "StoreNotFoundError",
    "VerifiedFacts",
    "open_store",
]
