"""The installed package as a newcomer gets it: a wheel carries the shipped S6 table and
`sproutsdb` works from any directory, outside the checkout."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import pytest

import sproutsdb
from sproutsdb.ops.shipped_rcts import shipped_rct_table
from sproutsdb.shipped import SHIPPED_TABLE, shipped_table

REPO = Path(__file__).resolve().parent.parent


def test_the_shipped_table_is_package_data() -> None:
    path = shipped_table()
    assert path is not None and path.name == SHIPPED_TABLE
    assert path.parent == Path(sproutsdb.__file__).resolve().parent / "data"
    table, where = shipped_rct_table()
    assert where == path and table.root == "0*6" and table.counts["rcts"] == 25458
    # the checkout's data/s6.rcttable (README, Makefile) is the same file
    assert (REPO / "data" / SHIPPED_TABLE).resolve() == path.resolve()


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPROUTSDB_", "PYTHON"))}
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


RESULTS = REPO / "sproutsdb" / "data" / "results"


def _assert_wheel_holds_the_package(wheel: Path) -> None:
    """Every module of the package (sproutsdb/ and its sub-packages) is a real file in the
    wheel, with the core, the stubs and the data."""
    with zipfile.ZipFile(wheel) as archive:
        infos = archive.infolist()
    names = {info.filename for info in infos}
    links = [i.filename for i in infos if stat.S_ISLNK(i.external_attr >> 16)]
    assert not links, links
    modules = {
        (Path(folder) / name).relative_to(REPO).as_posix()
        for folder, _, files in os.walk(REPO / "sproutsdb")
        for name in files
        if name.endswith(".py")
    }
    assert "sproutsdb/solver/sprouts/canon.py" in modules  # the walk saw the sub-packages
    assert modules - names == set()
    assert {
        "sproutsdb/py.typed",
        "sproutsdb/solver/sprouts/_core.pyi",
        "sproutsdb/solver/misere/_assemble.pyi",
        "sproutsdb/data/s6.rcttable",
        "sproutsdb/_proto/sproutsdb_pb2.pyi",
        "sproutsdb/server/web/index.html",
        "sproutsdb/server/web/app.js",
        "sproutsdb/server/web/style.css",
        "sproutsdb/server/web/results.html",
        "sproutsdb/data/literature.json",
        "sproutsdb/data/results/manifest.json",
    } <= names
    # every certificate of the results library travels with it
    shipped = {f"sproutsdb/data/results/{p.name}" for p in RESULTS.glob("*.spdbx")}
    assert len(shipped) >= 39 and shipped <= names
    for compiled in ("sproutsdb/solver/sprouts/_core.", "sproutsdb/solver/misere/_assemble."):
        assert any(n.startswith(compiled) and n.endswith(".so") for n in names), compiled


@pytest.mark.slow  # about 50 s: builds the wheel (its build needs grpcio-tools fetched)
def test_an_installed_wheel_solves_misere_with_the_shipped_table(tmp_path: Path) -> None:
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path / "dist"),
        ],
        tmp_path,
        600,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("sproutsdb-*.whl")
    _assert_wheel_holds_the_package(wheel)
    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, 120)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        tmp_path,
        300,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    # the dependencies (lmdb, grpcio, ...) come from this environment's site-packages,
    # added as a plain path: its editable finder of the checkout is not loaded
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(_run([str(python), "-c", purelib], tmp_path, 60).stdout.strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([str(python), "-c", "import sproutsdb; print(sproutsdb.__file__)"], elsewhere, 60)
    assert where.stdout.strip().startswith(str(venv)), where.stdout + where.stderr
    start = time.monotonic()
    solved = _run(
        [str(venv / "bin" / "sproutsdb"), "solve", "0*10", "--misere", "--json", "--quiet"],
        elsewhere,
        120,
    )
    seconds = time.monotonic() - start
    assert solved.returncode == 0, solved.stderr
    report = json.loads(solved.stdout)
    assert report["outcome"] == "W" and seconds < 30
    assert report["rct_table"]["source"] == "shipped"
    assert report["rct_table"]["where"].startswith(str(venv))
    assert (elsewhere / "sproutsdb-data").is_dir()  # the default store, where it was run
    again = _run([str(python), "-m", "sproutsdb", "query", "0*6", "--json"], elsewhere, 120)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["misere"]["outcome"] == "W"
