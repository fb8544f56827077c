"""`sproutsdb check --all --ray [ADDRESS]`: batches checked by Ray workers, marked here.

Each worker is a Ray actor that opens the store read-only once (on a cluster: a read-only
copy at the same path on every node) and keeps one `Checker`, as a `--jobs` worker
process does; this process alone marks facts verified and tallies the batches in order,
so the totals are those of `--jobs 1` (see parallel_check's docstring for why). Batches
are streamed: at most 2 × workers are in flight, and a batch waits for the batches of
fewer lives before it to be marked, exactly as `CheckPool.run` schedules them.

A worker that dies (killed, out of memory, node lost) is restarted by Ray and its batch
run again (checking is a pure read, so a re-run gives the same digest) up to
`RESTARTS` times; past that the run stops with one line, the marks made so far kept, and
a rerun resumes from them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Self

from sproutsdb.ops.parallel_check import (
    BatchDigest,
    CheckWorkerError,
    check_batch,
    dispatch_in_order,
    new_checker,
)
from sproutsdb.ops.ray_session import import_ray
from sproutsdb.store import open_store
from sproutsdb.store.opening import peek_identity

RESTARTS = 3  # restarts of one worker (and re-runs of its batch) before the run stops

if TYPE_CHECKING:
    import ray
else:
    ray = import_ray()  # an optional extra: imported with an install hint when missing


@ray.remote(num_cpus=1, max_restarts=RESTARTS, max_task_retries=RESTARTS)
class CheckActor:
    """One checker worker: the store opened read-only, one Checker for every batch."""

    def __init__(self, path: str, derive_lives: int, recheck: bool = False) -> None:
        self._store = open_store(path, create=False, readonly=True, game=peek_identity(path).game)
        self._run_marks: set[int] | None = set() if recheck else None
        self._checker = new_checker(
            self._store, derive_lives=derive_lives, marked_by=self._run_marks
        )

    def pid(self) -> int:
        return os.getpid()

    def check(self, lands: list[str], run_marks: tuple[int, ...] = ()) -> BatchDigest:
        """A batch's digest; a recheck's worker trusts only the run's marks, `run_marks`."""
        if self._run_marks is not None:
            self._run_marks.update(run_marks)
        return check_batch(self._checker, lands)


class RayCheckPool:
    """`workers` CheckActors on the current Ray session; `run` has CheckPool's contract."""

    def __init__(
        self,
        path: str,
        workers: int,
        *,
        derive_lives: int = 0,
        run_marks: set[int] | None = None,
    ) -> None:
        # mypy keeps a decorated class's own type: the ActorClass of @ray.remote, with
        # .remote, is invisible to it.
        self._run_marks = run_marks
        self._actors = [
            CheckActor.remote(path, derive_lives, run_marks is not None)  # type: ignore[attr-defined]
            for _ in range(workers)
        ]
        try:
            ray.get([actor.pid.remote() for actor in self._actors])  # opened, or the error
        except ray.exceptions.RayError as error:
            self.close()
            raise CheckWorkerError(f"a Ray check worker could not start: {_cause(error)}") from None

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests that stop one)."""
        return list(ray.get([actor.pid.remote() for actor in self._actors]))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for actor in self._actors:
            ray.kill(actor, no_restart=True)
        self._actors = []

    def run(
        self,
        work: Iterator[list[str]],
        done: Callable[[list[str], BatchDigest], None],
        *,
        level: Callable[[str], int] | None = None,
    ) -> None:
        """Check every batch of `work`; call `done(lands, digest)` in the order of `work`
        (`dispatch_in_order`, with Ray object refs for pipes)."""
        pending: dict[Any, int] = {}  # ref -> seq

        def submit(actor: Any, seq: int, lands: list[str]) -> None:
            marks = () if self._run_marks is None else tuple(sorted(self._run_marks))
            pending[actor.check.remote(lands, marks)] = seq

        def wait_any(_busy: list[Any]) -> list[tuple[int, BatchDigest]]:
            ready, _ = ray.wait(list(pending), num_returns=1)
            return [(pending.pop(ref), self._result(ref)) for ref in ready]

        dispatch_in_order(work, done, self._actors, submit, wait_any, level=level)

    @staticmethod
    def _result(ref: Any) -> BatchDigest:
        try:
            digest: BatchDigest = ray.get(ref)
        except ray.exceptions.RayActorError as error:
            raise CheckWorkerError(
                f"a Ray check worker died {RESTARTS + 1} times ({_cause(error)}); facts "
                "marked so far stay marked: rerun to resume"
            ) from None
        except ray.exceptions.RayError as error:
            raise CheckWorkerError(f"a Ray check worker failed: {_cause(error)}") from None
        return digest


def _cause(error: BaseException) -> str:
    """The first line of what Ray says, without its traceback."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {cause}".splitlines()[0]
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
