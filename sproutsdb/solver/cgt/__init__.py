"""Misère algebra: canonical trees and reduced canonical trees (RCTs).

Pure computation (no I/O). ``Algebra`` is the entry point; see algebra.py. The names below are
imported from their modules on first use (PEP 562): normal play needs only `nimarith`, not the
algebra and its imports.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Each public name, by the module that defines it.
_HOME_OF = {
    "ONE": "sproutsdb.solver.cgt.algebra",
    "Algebra": "sproutsdb.solver.cgt.algebra",
    "FormatLimitError": "sproutsdb.solver.cgt.notation",
    "RctRecordError": "sproutsdb.solver.cgt.records",
    "ZERO": "sproutsdb.solver.cgt.table",
}

__all__ = ["ONE", "ZERO", "Algebra", "FormatLimitError", "RctRecordError"]

if TYPE_CHECKING:
    from sproutsdb.solver.cgt.algebra import ONE, Algebra
    from sproutsdb.solver.cgt.notation import FormatLimitError
    from sproutsdb.solver.cgt.records import RctRecordError
    from sproutsdb.solver.cgt.table import ZERO


def __getattr__(name: str) -> Any:
    """A name of `_HOME_OF`, imported from its module on first use."""
    home = _HOME_OF.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
