"""The server's verifier gives way to solvers that are writing many claims on a machine with
no spare core (ops/verifier.py, WRITERS_ACTIVE_SECONDS), and to nobody else: not to a quiet
store, not to a few claims, not for longer than YIELD_SECONDS, not after stop()."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from sproutsdb.ops import verifier as verifier_module
from sproutsdb.ops.spare_cpu import SpareCpu
from sproutsdb.ops.verifier import Verifier
from verifier_support import open_store


class NoSpareCore(SpareCpu):
    """A machine whose every core is busy, whatever this one really has."""

    def cores(self) -> float | None:
        return 0.0


def test_spare_cores_are_measured_where_the_kernel_counts_idle_time() -> None:
    spare = SpareCpu()
    time.sleep(0.2)
    cores = spare.cores()
    if not os.path.exists("/proc/stat"):
        assert cores is None
        return
    assert cores is not None
    assert -0.1 <= cores <= (os.cpu_count() or 1) + 0.1


def test_a_quiet_store_is_verified_at_once_even_with_no_spare_core(tmp_path: Path) -> None:
    store = open_store(tmp_path / "store")
    try:
        verifier = Verifier(store, scan=False)
        started = time.monotonic()
        verifier._yield_to_writers(NoSpareCore())
        assert time.monotonic() - started < 0.2
        assert verifier.yielded_seconds == 0.0
    finally:
        store.close()


def test_a_few_new_claims_are_verified_at_once_even_with_no_spare_core(tmp_path: Path) -> None:
    store = open_store(tmp_path / "store")
    try:
        verifier = Verifier(store, scan=False)
        verifier.notify(["0*4", "0*5"])  # one solve's facts: its reader will want them
        started = time.monotonic()
        verifier._yield_to_writers(NoSpareCore())
        assert time.monotonic() - started < 0.2
    finally:
        store.close()


def _many_claims(count: int) -> list[str]:
    return [f"0*{n}" for n in range(1, count + 1)]


def test_writers_on_a_busy_machine_hold_the_verifier_back_for_a_bounded_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verifier_module, "YIELD_SECONDS", 0.5)
    store = open_store(tmp_path / "store")
    try:
        verifier = Verifier(store, scan=False)
        verifier.notify(_many_claims(verifier_module.YIELD_BACKLOG))  # a fleet is writing
        started = time.monotonic()
        verifier._yield_to_writers(NoSpareCore())
        waited = time.monotonic() - started
        assert 0.4 <= waited < 3.0, waited
        assert verifier.yielded_seconds >= 0.5
        # with a spare core it goes on at once
        started = time.monotonic()
        verifier._yield_to_writers(SpareCoreAlways())
        assert time.monotonic() - started < 0.2
    finally:
        store.close()


class SpareCoreAlways(SpareCpu):
    """A machine with a core free."""

    def cores(self) -> float | None:
        return 1.0


def test_stop_ends_the_wait_for_a_spare_core(tmp_path: Path) -> None:
    store = open_store(tmp_path / "store")
    try:
        verifier = Verifier(store, scan=False)
        verifier.notify(_many_claims(verifier_module.YIELD_BACKLOG))
        threading.Timer(0.3, verifier.stop).start()
        started = time.monotonic()
        verifier._yield_to_writers(NoSpareCore())
        assert time.monotonic() - started < 0.3 + verifier_module.YIELD_POLL_SECONDS + 0.5
    finally:
        store.close()
