"""The R1 class of a component (misere-algorithm-r1-games): from its normal-play nimber
(SGN) and its misère outcome, which one of null, trap, inverter, higher inverter, gremlin
or higher switch it is. Pure computation."""

from __future__ import annotations


def r1_class(nimber: int | None, misere: str | None) -> str | None:
    """The R1 class, or None unless both the nimber and the misère outcome are known.

    null: normal loss, misère win; trap: loss in both; inverter: normal win, misère loss
    (higher inverter when the nimber is above 1); switch: win in both, a gremlin with
    nimber 1, a higher switch above 1.
    """
    if nimber is None or misere not in ("W", "L"):
        return None
    if nimber == 0:
        return "null" if misere == "W" else "trap"
    if misere == "L":
        return "inverter" if nimber == 1 else "higher inverter"
    return "gremlin" if nimber == 1 else "higher switch"
