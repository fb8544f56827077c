"""Read-only stores: a store copied and made read-only (`chmod -R a-w`), opened by a
non-root user, answers `query`, `stats`, `check --root`, `export` and `web`, and says it
is read-only in --json; a lockless read of a store another process has open is refused.

The suite runs as root, so the reader is `nobody` through `setpriv`. The interpreter may
live where only root can look (/root/.pyenv), so the reader keeps CAP_DAC_READ_SEARCH
when it needs it to start Python: that capability reads and searches, never writes, so
every write into the store is still denied by its permissions, which is what is tested.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_helpers import run_cli

READ_CAPS = ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]


def _nobody_uid() -> int | None:
    import pwd

    try:
        return pwd.getpwnam("nobody").pw_uid
    except KeyError:
        return None


NOBODY_UID = _nobody_uid()


def _as_nobody() -> list[str] | None:
    """The command prefix that runs the interpreter as `nobody`, or None when this
    process cannot switch users (not root, or no setpriv)."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None or NOBODY_UID is None:
        return None
    base = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    # this very interpreter, able to start itself again (`web` runs a child process)
    probe_code = (
        "import os, subprocess, sys; print(os.getuid(), sys.version, flush=True); "
        "subprocess.run([sys.executable, '-c', 'pass'], check=True)"
    )
    for extra in ([], READ_CAPS):
        probe = subprocess.run(
            [*base, *extra, sys.executable, "-c", probe_code],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if probe.returncode == 0 and probe.stdout.strip() == f"{NOBODY_UID} {sys.version}":
            return [*base, *extra]
    return None


AS_NOBODY = _as_nobody()
pytestmark = pytest.mark.skipif(
    AS_NOBODY is None,
    reason="needs root and setpriv to open the store as another user (nobody)",
)


@pytest.fixture(scope="module")
def place() -> Iterator[Path]:
    """A directory every user can traverse (pytest's own tmp is root's alone)."""
    where = Path(tempfile.mkdtemp(prefix="sproutsdb-ro-"))
    where.chmod(0o755)
    try:
        yield where
    finally:
        for path in where.rglob("*"):  # give write back so the tree can be removed
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
        shutil.rmtree(where)


@pytest.fixture(scope="module")
def ro_store(place: Path, shipped_table_marks: Path) -> Path:
    """0*7 solved (not checked: its facts are claims), copied, the copy made read-only."""
    source = place / "source"
    done = run_cli("solve", "0*7", "--quiet", "--store", str(source), timeout=300)
    assert done.returncode == 0, done.stderr
    copy = place / "ro"
    shutil.copytree(source, copy)
    subprocess.run(["chmod", "-R", "a-w", str(copy)], check=True)
    outbox = place / "out"  # where the reader may write its export
    outbox.mkdir()
    outbox.chmod(0o777)
    # The reader's own cache of re-derived RCT tables, given the session's mark of the
    # shipped table (tests/conftest.py) so the table is not re-derived again: the reader owns
    # it, and nobody else may write it, or its marks would be refused as another user's.
    cache = place / "cache"
    shutil.copytree(shipped_table_marks, cache)
    assert NOBODY_UID is not None
    for path in [cache, *cache.rglob("*")]:
        os.chown(path, NOBODY_UID, -1)
        path.chmod(0o755 if path.is_dir() else 0o644)
    return copy


def _env(place: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPROUTSDB_")}
    env.update(HOME=str(place / "cache"), SPROUTSDB_CACHE=str(place / "cache"))
    return env


def nobody(place: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`sproutsdb ARGS` as the user nobody."""
    assert AS_NOBODY is not None
    return subprocess.run(
        [*AS_NOBODY, sys.executable, "-m", "sproutsdb", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(place),
        cwd=place,
    )


def test_the_reader_really_cannot_write(place: Path, ro_store: Path) -> None:
    assert AS_NOBODY is not None
    probe = subprocess.run(
        [*AS_NOBODY, sys.executable, "-c", f"open({str(ro_store / 'x')!r}, 'w')"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.returncode != 0 and "Permission denied" in probe.stderr


def test_query_stats_and_check_root_answer_and_say_read_only(place: Path, ro_store: Path) -> None:
    before = sorted(p.name for p in ro_store.iterdir())
    done = nobody(place, "query", "0*7", "--json", "--store", str(ro_store), timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["lands"][0]["nimber"] == 0
    assert report["store"] == {"path": str(ro_store), "read_only": True, "lockless": True}

    done = nobody(place, "stats", "--json", "--store", str(ro_store))
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    assert stats["counts"]["nimber"] > 0 and stats["readonly"] is True
    assert stats["store"]["read_only"] is True

    done = nobody(place, "check", "--root", "0*7", "--json", "--store", str(ro_store))
    assert done.returncode == 0, done.stderr
    check = json.loads(done.stdout)
    assert check["ok"] and check["nimber"] == 0 and check["facts_verified"] > 0
    assert check["store"]["read_only"] is True
    text = nobody(place, "check", "--root", "0*7", "--store", str(ro_store))
    assert text.returncode == 0 and "nothing was marked verified" in text.stdout
    # check --all marks what it verifies: refused in one line, not a traceback
    done = nobody(place, "check", "--all", "--store", str(ro_store))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert sorted(p.name for p in ro_store.iterdir()) == before  # nothing written


def test_export_of_a_read_only_copy_imports_and_checks(place: Path, ro_store: Path) -> None:
    out = place / "out" / "all.spdbx"
    done = nobody(place, "export", "--json", "--out", str(out), "--store", str(ro_store))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["store"]["read_only"] is True and report["counts"]["nimber"] > 0
    proof = place / "out" / "proof.spdbx"
    done = nobody(place, "export", "--root", "0*7", "--out", str(proof), "--store", str(ro_store))
    assert done.returncode == 0, done.stderr
    fresh = place / "fresh"
    assert run_cli("import", str(proof), "--store", str(fresh)).returncode == 0
    again = run_cli("check", "--root", "0*7", "--store", str(fresh))
    assert again.returncode == 0, again.stdout + again.stderr


def test_web_serves_the_read_only_copy(place: Path, ro_store: Path) -> None:
    assert AS_NOBODY is not None
    proc = subprocess.Popen(
        [*AS_NOBODY, sys.executable, "-m", "sproutsdb", "web", *WEB_ARGS, str(ro_store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=_env(place),
        cwd=place,
    )
    try:
        url = _web_url(proc)
        try:
            with urllib.request.urlopen(f"{url}api/v1/position?pos=0*7", timeout=30) as reply:
                page = json.loads(reply.read())
        except urllib.error.HTTPError as error:
            proc.terminate()
            raise AssertionError(f"{error}: {error.read()!r}; {proc.communicate(20)[0]}") from None
        assert page["lands"][0]["nimber"] == 0
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


WEB_ARGS = ("--no-table", "--listen", "127.0.0.1:0", "--store")


def _web_url(proc: subprocess.Popen[str], timeout: float = 60) -> str:
    """The address `sproutsdb web` prints on start (bounded wait)."""
    assert proc.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    lines: list[str] = []
    while time.monotonic() < deadline:
        if not selector.select(max(0.0, deadline - time.monotonic())):
            continue
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = re.search(r"serving on (http://\S+/)", line)
        if found:
            return found.group(1)
    raise AssertionError(f"web did not start: {lines}")


def test_a_lockless_read_of_a_store_in_use_is_refused(place: Path, ro_store: Path) -> None:
    """Another process holds the store open (as a server would): a reader that cannot
    register in the lock file must not read pages a writer may be reusing."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import lmdb, sys, time; e = lmdb.open(sys.argv[1], readonly=True, lock=True, "
            "max_dbs=16); print('open', flush=True); time.sleep(60)",
            str(ro_store),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        done = nobody(place, "stats", "--store", str(ro_store))
        assert done.returncode == 2, done.stdout + done.stderr
        assert "in use by another process" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    finally:
        holder.kill()
        holder.wait(10)
