"""Shared fixtures: real temporary directories, nothing mocked."""

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# A shell starts a background job with SIGINT ignored, and a child inherits an ignored signal
# across exec: the tests that press Ctrl-C on a real command would then see it run to the
# end. The suite's commands get Python's own SIGINT handling wherever the suite was started.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The suite starts about a thousand interpreters (each command, server, table-check helper
# and Ray worker). Where the environment sets PYTHONDONTWRITEBYTECODE, as containers often
# do, none of them may cache bytecode, so each compiles the package from source again, and
# pytest rewrites every test module again: the suite lets them cache it (gitignored).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


@pytest.fixture(autouse=True, scope="session")
def _private_table_marks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Marks of re-derived RCT tables (sproutsdb.trusted_tables) go to a folder of this run:
    the suite verifies the shipped table once, and never reads or writes the user's cache.
    Parallel workers (pytest-xdist) share one folder, under the run's common temp root."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.getbasetemp().parent / "table-marks"
        folder.mkdir(exist_ok=True)
    else:
        folder = tmp_path_factory.mktemp("table-marks")
    previous = os.environ.get("SPROUTSDB_CACHE")
    os.environ["SPROUTSDB_CACHE"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("SPROUTSDB_CACHE", None)
    else:
        os.environ["SPROUTSDB_CACHE"] = previous


@pytest.fixture(scope="session")
def shipped_table_marks(_private_table_marks: Path) -> Path:
    """The session's marks folder (above), holding the mark of the shipped S6 table: the
    table is re-derived once for the run (by a real process, under the run's cache), not in
    each test whose cache is its own but which is not about an empty cache."""
    import subprocess
    import sys

    probe = (
        "from sproutsdb.shipped import shipped_table; "
        "from sproutsdb.trusted_tables import verified_table; "
        "table = shipped_table(); assert table is not None; verified_table(table)"
    )
    env = {**os.environ, "SPROUTSDB_CACHE": str(_private_table_marks)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=900, env=env
    )
    assert done.returncode == 0, done.stderr
    return _private_table_marks


# The test files that take longest (seconds of test time on this project's 2-core machine,
# as `make test`'s durations report them), started first: pytest-xdist hands each worker
# a whole file when it is free (--dist loadfile), so a long file started last leaves the
# other worker idle until it ends. Longest first keeps that tail short; every other file
# keeps the order pytest-randomly gave it. A name here that no longer exists is harmless.
LONGEST_FIRST = (
    "test_fleet_faults.py",
    "test_misere_jobs.py",
    "test_misere.py",
    "test_workmodel.py",
    "test_channel_fuzz.py",
    "test_ray.py",
    "test_web.py",
    "test_misere_resume.py",
    "test_solve_resume.py",
    "test_fleet_speed.py",
    "test_admission.py",
    "test_check_misere_default.py",
    "test_fleet_misere.py",
    "test_core_differential.py",
    "test_marks_recheck.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the files of LONGEST_FIRST before the rest, in that order (see there)."""
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
