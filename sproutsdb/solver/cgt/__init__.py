"""Misère algebra: canonical trees and reduced canonical trees (RCTs).

Pure computation (no I/O). ``Algebra`` is the entry point; see algebra.py.
"""

from sproutsdb.solver.cgt.algebra import ONE, Algebra
from sproutsdb.solver.cgt.notation import FormatLimitError
from sproutsdb.solver.cgt.records import RctRecordError
from sproutsdb.solver.cgt.table import ZERO

__all__ = ["ONE", "ZERO", "Algebra", "FormatLimitError", "RctRecordError"]
