"""What the web page and the JSON API show of a position: its stored values (read-only),
values derived from RCTs, the R1 class of each land, and every child with the same values.

Reads only: nimbers and misère outcomes come from the store; RCTs from the store's
`pos_rct`/`rct` facts or, for positions it does not map, from the S6 table the package
ships (content ids are the same everywhere). Work per request is bounded: the moves of a
position are enumerated only when their count is estimated under a limit, and the child
list is cut at `max_children` with a message saying so.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, cast

from sproutsdb.server.store import LmdbProofStore
from sproutsdb.solver.cgt import Algebra
from sproutsdb.solver.misere import StoreRcts
from sproutsdb.solver.proofstore import FactKind
from sproutsdb.solver.r1 import r1_class
from sproutsdb.solver.sprouts.game import TERMINAL, SproutsGame
from sproutsdb.solver.sprouts.notation import parse


@dataclass(frozen=True)
class ViewLimits:
    max_children: int = 500  # children listed; more are cut with a message
    max_moves: int = 50_000  # estimated raw moves a request may enumerate
    max_tree_nodes: int = 120  # RCT drawn as a tree up to this many nodes


def estimated_moves(key: str) -> int:
    """An upper estimate of the raw moves of a position: pairs of live corners of a region
    times the ways to share its other boundaries (cheap: no move is made)."""
    if key == TERMINAL:
        return 0
    raw = parse(key)
    total = 0
    for region in raw.regions:
        corners = sum(1 for boundary in region for v in boundary if raw.lives[v] > 0)
        total += corners * (corners + 1) // 2 * (1 << max(0, len(region) - 1))
    return total


class PositionReader:
    """Values of positions and their children from one store (thread-safe, read-only)."""

    def __init__(
        self, store: LmdbProofStore, table: Any | None = None, limits: ViewLimits | None = None
    ) -> None:
        self.game = SproutsGame()
        self.store = store
        self.limits = limits or ViewLimits()
        self.table = table
        self.algebra: Algebra = table.algebra if table is not None else Algebra()
        self.store_rcts = StoreRcts(store, self.algebra)  # records re-derived when loaded
        self._lock = threading.Lock()  # the algebra and the memo grow as pages are read

    # --- the one entry point -------------------------------------------------------------

    def view(self, text: str) -> dict[str, Any]:
        """The position's values and its children's; NotationError on unreadable text."""
        key = self.game.canonical(text)
        with self._lock:
            children, note = self._children(key)
            values = self._values([key, *children])
            report = values[key]
            report["children"] = [values[child] for child in children]
            report["children_note"] = note
            report["rct_tree"] = self._tree(report.pop("_handle"))
            for child in report["children"]:
                child.pop("_handle", None)
                child["winning_normal"] = None if child["nimber"] is None else child["nimber"] == 0
                child["winning_misere"] = (
                    None if child["misere"] is None else child["misere"] == "L"
                )
            return report

    # --- pieces ----------------------------------------------------------------------------

    def _children(self, key: str) -> tuple[list[str], str | None]:
        moves = estimated_moves(key)
        if moves > self.limits.max_moves:
            return [], (
                f"children not listed: about {moves:,} moves to try, more than this "
                f"page's limit of {self.limits.max_moves:,}"
            )
        children = self.game.children(key)
        cap = self.limits.max_children
        if len(children) > cap:
            return children[:cap], f"the first {cap} of {len(children):,} children"
        return children, None

    def _values(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        game = self.game
        lands_of = {k: list(game.components(k)) for k in keys}
        all_lands = sorted({land for lands in lands_of.values() for land in lands})
        records = self.store.get_records(FactKind.NIMBER, all_lands)
        provenance = self.store.provenance_records() if records else {}
        misere = {
            k: str(v)
            for k, v in self.store.get(FactKind.MISERE, sorted(set(keys) | set(all_lands))).items()
        }
        handles = self._rct_handles(sorted(set(all_lands) | set(keys)))
        alg = self.algebra
        out: dict[str, dict[str, Any]] = {}
        for k in keys:
            lands = []
            total: int | None = 0
            for land in lands_of[k]:
                record = records.get(land)
                handle = handles.get(land)
                stored = None if record is None else int(cast(int, record.value))
                from_rct = alg.nimber(handle) if handle is not None else None
                nimber = stored if stored is not None else from_rct
                m = misere.get(land) or (alg.outcome(handle) if handle is not None else None)
                lands.append(
                    {
                        "land": land,
                        "lives": game.size(land),
                        "nimber": nimber,
                        "nimber_source": None
                        if nimber is None
                        else ("stored" if stored is not None else "rct"),
                        "status": None
                        if record is None
                        else getattr(record.status, "value", record.status),
                        "provenance": None
                        if record is None or record.provenance not in provenance
                        else provenance[record.provenance].as_dict(record.provenance),
                        "misere": m,
                        "r1": r1_class(nimber, m),
                        **self._rct_fields(handle),
                    }
                )
                total = None if total is None or nimber is None else total ^ nimber
            handle = handles.get(k)
            if handle is None and k == TERMINAL:
                handle = alg.sum([])
            elif handle is None and lands and all(handles.get(x) is not None for x in lands_of[k]):
                handle = alg.sum(handles[x] for x in lands_of[k])
            m_stored = misere.get(k)
            m = m_stored or (alg.outcome(handle) if handle is not None else None)
            if k == TERMINAL:
                total, m = 0, m or "W"  # no move: a normal loss, a misère win
            out[k] = {
                "position": k,
                "lives": game.size(k),
                "lands": lands,
                "nimber": total,
                "outcome": None if total is None else ("L" if total == 0 else "W"),
                "misere": m,
                "misere_source": None if m is None else ("stored" if m_stored else "rct"),
                **self._rct_fields(handle),
                "_handle": handle,
            }
        return out

    def _rct_handles(self, keys: list[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        wanted = []
        table = self.table
        for k in keys:
            h = table.positions.get(k) if table is not None else None
            if h is None:
                wanted.append(k)
            else:
                found[k] = h
        if wanted:
            found.update(self.store_rcts.lookup(wanted))
        return found

    def _rct_fields(self, handle: int | None) -> dict[str, Any]:
        if handle is None:
            return {"rct": None, "rct_label": None, "rct_height": None}
        alg = self.algebra
        return {
            "rct": alg.content_id(handle),
            "rct_label": alg.label(handle),
            "rct_height": alg.height(handle),
        }

    def _tree(self, handle: int | None) -> dict[str, Any] | None:
        """The RCT as nested {"nim": n} / {"children": [...]}, None past max_tree_nodes."""
        if handle is None:
            return None
        table = self.algebra.table
        budget = [self.limits.max_tree_nodes]

        def node(h: int) -> dict[str, Any] | None:
            budget[0] -= 1
            if budget[0] < 0:
                return None
            if table.nim[h] >= 0:
                return {"nim": table.nim[h]}
            kids = []
            for c in sorted(table.children[h], key=lambda c: (table.height[c], table.nim[c])):
                sub = node(c)
                if sub is None:
                    return None
                kids.append(sub)
            return {"children": kids}

        return node(handle)
