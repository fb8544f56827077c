"""What the web page and the JSON API show of a position: the one position report of
`sproutsdb.ops.describe` (its values with their statuses and sources, what verified values
imply, the proof a store holds, every child and the R1 rule), under this door's limits.

The children are the engine's distinct canonical children, listed by a worker process
under a time limit (server/children_worker.py): a position the engine cannot list within
it is refused with a note saying so, its own values still shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sproutsdb.errors import UserError
from sproutsdb.ops.describe import Describer, ReportLimits
from sproutsdb.server.children_worker import BoundedChildren, ChildrenTimeout, LandChildren
from sproutsdb.server.sprouts_drawing import layout
from sproutsdb.store import LmdbProofStore


@dataclass(frozen=True)
class ViewLimits(ReportLimits):
    """The report's limits, and the time the engine may take to list children (and replies)."""

    children_seconds: float = 3.0


class PositionReader:
    """Reports of positions and their children from one store (thread-safe, read-only)."""

    def __init__(
        self,
        store: LmdbProofStore,
        table: Any | None = None,
        limits: ViewLimits | None = None,
        *,
        table_name: str | None = None,
    ) -> None:
        self.limits = limits or ViewLimits()
        game = store.identity.game  # the store's game
        self.draws = game == "sprouts"  # a picture of the position (sprouts_drawing.py)
        self.engine = BoundedChildren(self.limits.children_seconds, game=game)
        self.describer = Describer(
            store,
            game=game,
            table=table,
            table_name=table_name,
            limits=self.limits,
            children=self._children,
        )

    def _children(self, lands: Sequence[str]) -> dict[str, LandChildren]:
        """The worker's children of lands; past the time limit, a refusal that says so."""
        try:
            return self.engine.lands(lands)
        except ChildrenTimeout as error:
            raise UserError(f"{error} (this page's limit)") from None

    def view(self, text: str, parent: str | None = None) -> dict[str, Any]:
        """The position's report as the JSON API answers it; NotationError on unreadable
        text. `parent`, a position the user came from, adds what its verified value implies.
        A Sprouts position also gets its `drawing` (server/sprouts_drawing.py)."""
        report = self.describer.report(text, parent)
        if self.draws:
            report["drawing"] = layout(report["position"])
        return report

    def close(self) -> None:
        """Stop the children worker."""
        self.engine.close()
