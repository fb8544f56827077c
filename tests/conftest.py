"""Shared fixtures: real temporary directories, nothing mocked."""

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

# A shell starts a background job with SIGINT ignored, and a child inherits an ignored signal
# across exec: the tests that press Ctrl-C on a real command would then see it run to the
# end. The suite's commands get Python's own SIGINT handling wherever the suite was started.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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
