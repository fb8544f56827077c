"""A first `serve` that is useful at once (issue 74): a bad or busy --listen address is refused
before any store is created, and the results library is seeded smallest certificate first,
with a line per certificate ("seeding results k of N") and its progress in the Stats RPC."""

from __future__ import annotations

import re
import shutil
import socket
import time
from pathlib import Path

import pytest

from service_support import ServerProcess, run_cli
from sproutsdb.client import Client
from sproutsdb.ops.results import read_manifest, shipped_library, write_manifest
from sproutsdb.ops.seed import ResultSeed, SeedProgress


def serve_exit(tmp_path: Path, listen: str) -> tuple[int, list[str], Path]:
    """`serve --listen LISTEN` on a store path that does not exist yet: its exit status, its
    stderr lines, and the store path."""
    store = tmp_path / "store"
    done = run_cli("serve", "--store", str(store), "--listen", listen, timeout=60)
    return done.returncode, done.stderr.splitlines(), store


def test_a_busy_port_is_refused_before_a_store_is_created(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, stderr, store = serve_exit(tmp_path, f"127.0.0.1:{port}")
    assert code == 2
    assert len(stderr) == 1 and "already in use" in stderr[0], stderr
    assert "Traceback" not in stderr[0]
    assert not store.exists()


@pytest.mark.parametrize(
    ("listen", "said"),
    [("nonsense", "must be HOST:PORT"), ("127.0.0.1:70000", "past 65535")],
)
def test_a_malformed_listen_address_is_refused_before_a_store_is_created(
    tmp_path: Path, listen: str, said: str
) -> None:
    code, stderr, store = serve_exit(tmp_path, listen)
    assert code == 2
    assert len(stderr) == 1 and said in stderr[0], stderr
    assert not store.exists()


def test_progress_counts_certificates_and_estimates_the_rest_from_their_bytes() -> None:
    progress = SeedProgress()
    progress.begin([("normal", "0*2", 100), ("misere", "0*7", 200), ("normal", "0*4", 400)])
    assert progress.figures()["eta_seconds"] is None  # nothing done to go by yet
    progress.starting("normal", "0*2")
    assert progress.figures()["current"] == "normal 0*2"
    line = progress.finished(ResultSeed("normal", "0*2", "seeded", facts=3, seconds=60.0), 100)
    # 60 s for 100 bytes: the 600 bytes left take ~6 min
    assert line.startswith("seeding results 1 of 3: seeded and verified normal 0*2 (3 facts")
    assert line.endswith("; next misere 0*7 (ETA ~6 min)")
    line = progress.finished(ResultSeed("misere", "0*7", "refused", seconds=20.0), 200)
    # misère at its own rate (0.1 s a byte), normal at normal's (0.6 s a byte): 240 s
    assert line.startswith("seeding results 2 of 3: refused misere 0*7")
    assert progress.figures()["eta_seconds"] == pytest.approx(240.0)
    assert line.endswith("(ETA ~4 min)")
    line = progress.finished(ResultSeed("normal", "0*4", "present", seconds=0.5), 400)
    assert line.endswith("(done)")
    progress.end()
    figures = progress.figures()
    assert (figures["total"], figures["done"], figures["running"]) == (3, 3, False)
    assert figures["counts"] == {"seeded": 1, "present": 1, "refused": 1, "conflicts": 0}
    assert figures["eta_seconds"] == 0.0


def three_certificate_library(folder: Path) -> list[str]:
    """A copy of three small certificates of the shipped library, with their manifest: the
    order by file size (smallest first) differs from the manifest's (normal plays first)."""
    folder.mkdir()
    wanted = {("normal", "0*2"), ("misere", "0*7"), ("normal", "0*4")}
    entries = [e for e in read_manifest(shipped_library()) if e.key in wanted]
    for entry in entries:
        shutil.copy(shipped_library() / entry.file, folder / entry.file)
    write_manifest(folder, entries)
    by_size = sorted(entries, key=lambda e: (folder / e.file).stat().st_size)
    return [f"{e.play} {e.position}" for e in by_size]


def wait_for_log(log: Path, text: str, seconds: float = 300) -> str:
    deadline = time.monotonic() + seconds
    while text not in (found := log.read_text()):
        assert time.monotonic() < deadline, f"no {text!r} in the log within {seconds} s"
        time.sleep(0.2)
    return found


def test_serve_seeds_a_library_smallest_first_and_reports_it(tmp_path: Path) -> None:
    library = tmp_path / "lib"
    order = three_certificate_library(library)
    assert [e.play for e in read_manifest(library)] == ["normal", "normal", "misere"]
    assert order[1] == "misere 0*7"  # between the two normal ones by size
    log = tmp_path / "server.log"
    server = ServerProcess(
        tmp_path / "store", "--results-library", str(library), "--log-format", "text", log=log
    )
    with server.start():
        text = wait_for_log(log, f"results library {library}:")
        lines = re.findall(r"seeding results (\d+) of (\d+): seeded and verified (\S+ \S+)", text)
        assert lines == [(str(k), "3", order[k - 1]) for k in (1, 2, 3)], text
        assert re.search(r"seeding results 1 of 3: .*; next misere 0\*7 \(ETA [^)]+\)", text)
        assert re.search(r"seeding results 3 of 3: .*\(done\)", text)
        with Client(server.address) as client:
            seeding = client.stats()["results_library"]
        assert seeding["total"] == 3 and seeding["done"] == 3 and not seeding["seeding"]
        assert seeding["counts"] == {"conflicts": 0, "present": 0, "refused": 0, "seeded": 3}
        assert seeding["eta_seconds"] == 0.0 and seeding["current"] == ""
        shown = run_cli("stats", "--server", server.address)
        assert shown.returncode == 0, shown.stderr
        assert "  results   3 of 3 certificates done (3 seeded)" in shown.stdout
        assert server.stop() == 0
    # served again: every certificate is held already, said at debug level only
    again = ServerProcess(
        tmp_path / "store", "--results-library", str(library), "--log-format", "text", log=log
    )
    with again.start():
        text = wait_for_log(log, "3 present")
        assert len(re.findall(r"seeding results \d+ of 3", text)) == 3
        assert again.stop() == 0


def test_a_server_without_a_library_reports_no_seeding(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "store", "--no-seed") as server:
        with Client(server.address) as client:
            seeding = client.stats()["results_library"]
        assert (seeding["total"], seeding["done"], seeding["seeding"]) == (0, 0, False)
        shown = run_cli("stats", "--server", server.address)
        assert shown.returncode == 0 and "results " not in shown.stdout
        assert server.stop() == 0
