"""Nim arithmetic shared by the searches and the checker: mex, nim-sum, cancelling pairs."""

from __future__ import annotations

from collections.abc import Iterable


def mex(values: Iterable[int]) -> int:
    """Least non-negative integer not among values (the nimber of a set of options)."""
    present = set(values)
    n = 0
    while n in present:
        n += 1
    return n


def nim_sum(values: Iterable[int]) -> int:
    """Bitwise xor of nimbers: the nimber of a sum (Bouton)."""
    total = 0
    for value in values:
        total ^= value
    return total


def cancel_pairs(parts: list[str]) -> list[str]:
    """Sort components and drop identical ones two by two: X + X has nimber 0."""
    parts.sort()
    out: list[str] = []
    for part in parts:
        if out and out[-1] == part:
            out.pop()
        else:
            out.append(part)
    return out
