"""sproutsdb: a persistent database of proven positions of impartial games.

The sub-packages live in the repository's top-level folders: ``sproutsdb.solver``
(pure computation), ``sproutsdb.server`` (LMDB store, gRPC service),
``sproutsdb.client`` and ``sproutsdb.tools`` (command line, offline tools), reached
through the links ``sproutsdb/solver -> ../solver`` (and server, client, tools), so every
tool (Python, setuptools, mypy, ruff) sees one plain package tree.

``import sproutsdb`` gives the library's verbs (``sproutsdb.ops``) and its entry points by
name, loaded on first use so that the command line starts without LMDB or gRPC::

    import sproutsdb
    with sproutsdb.open_store("sproutsdb-data") as store:
        result = sproutsdb.check_root(store, "0*5")   # re-derived from the rules

    store = sproutsdb.open_proof_store("sproutsdb-data")  # or server="HOST:PORT"
    report = sproutsdb.solve("0*6", store)                # what `sproutsdb solve` proves
    values = sproutsdb.describe(store, "0*6")             # what `sproutsdb query` shows
    store.close()
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# name -> module that defines it: the public face, imported when first asked for
_PUBLIC = {
    "open_store": "sproutsdb.store",
    "get_game": "sproutsdb.games",
    "game_names": "sproutsdb.games",
    "Client": "sproutsdb.client",
    "RemoteProofStore": "sproutsdb.client",
    "open_proof_store": "sproutsdb.ops",
    "solve": "sproutsdb.ops",
    "SolveSettings": "sproutsdb.ops",
    "describe": "sproutsdb.ops",
    "check_root": "sproutsdb.ops",
    "check_misere_root": "sproutsdb.ops",
    "check_all": "sproutsdb.ops",
    "check_table": "sproutsdb.ops",
    "write_pruned": "sproutsdb.ops",
    "export_store": "sproutsdb.ops",
    "export_spr": "sproutsdb.ops",
    "import_into": "sproutsdb.ops",
    "verified_table": "sproutsdb.trusted_tables",
}

__all__ = ["__version__"]  # the verbs are reached by name (lazily), listed by dir()


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'sproutsdb' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])
