"""The library layer: the verbs a user has, called by every door.

The command line (tools/cmd_*.py) parses flags, opens stores and prints; bench/, tests/ and
Ray workers call these same verbs: open a store (local or remote, one ProofStore either
way), solve, describe a position (its values with their statuses), check (a root in normal
or misère play, a whole store, an RCT table file) and exchange (export a store, import a
native or .spr file).
"""

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
from sproutsdb.ops.solve import SolveInterrupted, SolveReport, SolveSettings, Solving, solve
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
