"""Shared fixtures: real temporary directories, nothing mocked."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_table_marks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Marks of re-derived RCT tables (sproutsdb.trusted_tables) go to a folder of this run:
    the suite verifies the shipped table once, and never reads or writes the user's cache."""
    folder = tmp_path_factory.mktemp("table-marks")
    previous = os.environ.get("SPROUTSDB_CACHE")
    os.environ["SPROUTSDB_CACHE"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("SPROUTSDB_CACHE", None)
    else:
        os.environ["SPROUTSDB_CACHE"] = previous
