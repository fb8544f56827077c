"""The library layer: the verbs a user has, called by every door.

The command line (tools/cmd_*.py) parses flags, opens stores and prints; bench/, tests/ and
Ray workers call these same verbs. So far: check (a root in normal or misère play, a whole
store, an RCT table file) and exchange (export a store, import a native or .spr file).
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

__all__ = [
    "CHECK_BATCH",
    "DEFAULT_DERIVE_LIVES",
    "ImportPlan",
    "RootCheck",
    "StoreCheck",
    "canonical_key_function",
    "check_all",
    "check_misere_root",
    "check_root",
    "check_store",
    "check_table",
    "conflict_json",
    "export_spr",
    "export_store",
    "import_file",
    "import_into",
    "import_spr",
    "plan_import",
    "report_dict",
    "validate",
    "write_pruned",
]
