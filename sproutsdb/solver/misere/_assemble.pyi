"""Types of the compiled twins (solver/misere/_assemble.c): mypy cannot read a C extension;
their signatures are those of the Python definitions in assemble.py."""

from sproutsdb.solver.misere.assemble import Assembler, MisereScanner, Orderer

assemble_land_moves: Assembler
order_children: Orderer
scan_children: MisereScanner
