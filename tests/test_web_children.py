"""The web page's children worker (server/children_worker.py): the engine's children of
lands, the same as in process; a land the engine cannot list in time is refused after the
time allowed (the worker killed and replaced); the engine's refusals pass through."""

from __future__ import annotations

import time

import pytest

from sproutsdb.errors import UserError
from sproutsdb.server.children_worker import BoundedChildren, ChildrenTimeout
from sproutsdb.solver.sprouts.game import SproutsGame

SLOW = "0" + "".join("." + "1" * (i + 1) for i in range(14))  # 14 different boundaries: ~1 min


def test_children_equal_the_engines_and_slow_lands_are_refused_in_time() -> None:
    game = SproutsGame()
    engine = BoundedChildren(seconds=1.5)
    try:
        lands = ["0*11", "0*30", "0.AB|AB", "0*2.1a1a"]
        got = engine.lands(lands)
        for land in lands:
            assert got[land] == tuple(game.component_children(land)), land
        slow = game.canonical(SLOW)
        started = time.monotonic()
        with pytest.raises(ChildrenTimeout, match=r"within 1\.5 s"):
            engine.lands([slow])
        assert time.monotonic() - started < 5 and engine.restarts == 1
        with pytest.raises(UserError, match="too many"):
            engine.lands(["0*65"])  # the engine's own refusal, from a fresh worker
        assert engine.lands(["0*12"])["0*12"] == tuple(game.component_children("0*12"))
        proc = engine._proc
        assert proc is not None and proc.poll() is None
    finally:
        engine.close()
    assert proc.poll() is not None  # close() stops the worker
