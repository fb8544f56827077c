"""sproutsdb: a persistent database of proven positions of impartial games.

The sub-packages live in the repository's top-level folders: ``sproutsdb.solver``
(pure computation), ``sproutsdb.server`` (LMDB store, gRPC service),
``sproutsdb.client`` and ``sproutsdb.tools`` (command line, offline tools), reached
through the links ``sproutsdb/solver -> ../solver`` (and server, client, tools), so every
tool (Python, setuptools, mypy, ruff) sees one plain package tree.
"""

__version__ = "0.1.0"
