"""The library layer: the verbs a user has, called by every door.

The command line (tools/cmd_*.py) parses flags, opens stores and prints; bench/, tests/ and
Ray workers call these same verbs: open a store (local or remote, one ProofStore either
way), solve, describe a position (its values with their statuses), check (a root in normal
or misère play, a whole store, an RCT table file) and exchange (export a store, import a
native or .spr file).

The verbs are imported from their modules on first use (PEP 562), so that a command that
solves does not load the checkers, the exchange formats and their imports.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

# Imported now, not on first use: the function `solve` shadows the submodule of the same name
# only when bound after that submodule's first import.
from sproutsdb.ops.solve import SolveInterrupted, SolveReport, SolveSettings, Solving, solve

if TYPE_CHECKING:
    from sproutsdb.ops.check import (
        CHECK_BATCH,
        DEFAULT_DERIVE_LIVES,
        RootCheck,
        StoreCheck,
        check_all,
        check_misere_root,
        check_root,
        check_store,
        check_table,
        report_dict,
        write_pruned,
    )
    from sproutsdb.ops.describe import PositionValues, describe
    from sproutsdb.ops.exchange import (
        ImportPlan,
        canonical_key_function,
        conflict_json,
        export_spr,
        export_store,
        import_file,
        import_into,
        import_spr,
        plan_import,
        validate,
    )
    from sproutsdb.ops.stores import open_local_store, open_proof_store, open_remote_store

__all__ = [
    "CHECK_BATCH",
    "DEFAULT_DERIVE_LIVES",
    "ImportPlan",
    "PositionValues",
    "RootCheck",
    "SolveInterrupted",
    "SolveReport",
    "SolveSettings",
    "Solving",
    "StoreCheck",
    "canonical_key_function",
    "check_all",
    "check_misere_root",
    "check_root",
    "check_store",
    "check_table",
    "conflict_json",
    "describe",
    "export_spr",
    "export_store",
    "import_file",
    "import_into",
    "import_spr",
    "open_local_store",
    "open_proof_store",
    "open_remote_store",
    "plan_import",
    "report_dict",
    "solve",
    "validate",
    "write_pruned",
]

# The module of each name of __all__ not imported above, imported on first use
# (tests/test_cli_imports.py checks that the two lists agree).
_LAZY = {
    "check": (
        "CHECK_BATCH",
        "DEFAULT_DERIVE_LIVES",
        "RootCheck",
        "StoreCheck",
        "check_all",
        "check_misere_root",
        "check_root",
        "check_store",
        "check_table",
        "report_dict",
        "write_pruned",
    ),
    "describe": ("PositionValues", "describe"),
    "exchange": (
        "ImportPlan",
        "canonical_key_function",
        "conflict_json",
        "export_spr",
        "export_store",
        "import_file",
        "import_into",
        "import_spr",
        "plan_import",
        "validate",
    ),
    "stores": ("open_local_store", "open_proof_store", "open_remote_store"),
}


def __getattr__(name: str) -> Any:
    """A verb of `_LAZY`, imported from its module on first use."""
    for home, names in _LAZY.items():
        if name in names:
            value = getattr(import_module(f"{__name__}.{home}"), name)
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Library(ModuleType):
    """This package: a verb named as its module (`describe`) keeps the name when that module
    is first imported, which sets the module as an attribute of its package."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, ModuleType) and name in _LAZY.get(name, ()):
            return  # the verb is what `sproutsdb.ops.describe` names, as when bound eagerly
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Library
