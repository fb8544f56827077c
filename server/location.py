"""Where the store lives: an explicit path, else $SPROUTSDB_STORE, else ./sproutsdb-data.

One rule, in one place, so the CLI, the server and the tools always agree on which
directory a command touches.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

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
