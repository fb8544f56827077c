"""Where the store lives: an explicit path, else $SPROUTSDB_STORE, else ./sproutsdb-data.

One rule, in one place, so the CLI, the server and the tools always agree on which
directory a command touches.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from sproutsdb.errors import UserError

ENV_VAR = "SPROUTSDB_STORE"
DEFAULT_DIRNAME = "sproutsdb-data"


def resolve_store_path(
    explicit: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> Path:
    """The absolute store directory: `explicit` if given, else $SPROUTSDB_STORE, else default.

    An empty explicit path or an empty variable counts as unset; `~` is expanded; a
    relative path is taken relative to `cwd` (default: the current directory).
    """
    env = os.environ if environ is None else environ
    chosen: str
    if explicit is not None and os.fspath(explicit) != "":
        chosen = os.fspath(explicit)
    elif env.get(ENV_VAR, ""):
        chosen = env[ENV_VAR]
    else:
        chosen = DEFAULT_DIRNAME
    path = Path(chosen).expanduser()
    if not path.is_absolute():
        path = Path(cwd if cwd is not None else os.getcwd()) / path
    return path


class StoreLocationError(UserError):
    """A new store asked for under a directory that does not exist (a mistyped path)."""


def check_new_store_location(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The store directory (as `resolve_store_path`), refused when no store is there yet
    and its parent directory does not exist: a mistyped `--store /nonexistent/x/y` must not
    silently create a tree of directories. A store is created only in an existing one."""
    where = resolve_store_path(explicit)
    if not where.exists() and not where.parent.is_dir():
        raise StoreLocationError(
            f"cannot create a store at {where}: its parent directory {where.parent} does not "
            "exist (create it first, or check the path)"
        )
    return where
