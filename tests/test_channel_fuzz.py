"""The channel fuzzer (issue 72): for every door a fact enters a store by (import, Insert,
pull, library, checkpoint, table) and every fact kind, forged facts of the other kind under
colliding keys, of another game, and with false values; then every check a user runs. No
forgery may end marked verified, and every verified fact of every store must re-derive from
the rules (tests/channel_forgeries.py; bench/channel_fuzz.py prints the figures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from channel_forgeries import FALSE_VERIFIED, FORMS, KINDS, World, build_world, run_channel

SLOW = {"table"}  # about a minute or more of commands each: `pytest -m slow`


@pytest.fixture(scope="module")
def world() -> World:
    return build_world()


def test_every_kind_is_forged_in_every_form(world: World) -> None:
    rows = {(f.kind, f.form) for f in world.forgeries}
    assert rows == {(kind, form) for kind in KINDS for form in FORMS}


@pytest.mark.parametrize(
    "channel",
    [
        pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c
        for c in ("import", "Insert", "pull", "library", "checkpoint", "table")
    ],
)
def test_no_forgery_is_ever_marked_verified(world: World, channel: str, tmp_path: Path) -> None:
    run = run_channel(channel, world, tmp_path / channel)
    if channel != "table":  # the table channel forges tables of its own
        assert {v.forgery for v in run.verdicts} == set(world.forgeries)
    assert not [v for v in run.verdicts if v.outcome == FALSE_VERIFIED], run.false_marks
    assert run.audit == []
    assert sum(run.marked.values()) > 0  # the checks did verify the genuine facts
