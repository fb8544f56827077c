"""Circular sprouts CS_n(P4: t1..tn): notation, moves and canonical form (docs/circular-sprouts.md)."""
