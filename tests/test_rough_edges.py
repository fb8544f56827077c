"""The first-day rough edges of issue 31, each with the behaviour it should have: one line
on stderr and exit code 2 where the user made a mistake, help for every argument, and the
engine saying when it runs without its compiled core."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from service_support import COMMAND, ROOT, ServerProcess, child_env, run_cli
from sproutsdb.store.location import StoreLocationError, check_new_store_location
from sproutsdb.tools.cli import SLOW_ENGINE_NOTE, invoked_as

SPR = ROOT / "tests" / "fixtures" / "spots" / "S10_dfpn_nimber.spr"


def _one_line_error(done: subprocess.CompletedProcess[str], command: str) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"sproutsdb {command}: error: "), lines
    assert "Traceback" not in done.stderr and "Errno" not in done.stderr
    return lines[0]


# --- a mistyped --store ------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("solve", "0*3", "--quiet"),
        ("import", str(SPR), "--quiet"),
        ("serve", "--listen", "127.0.0.1:0", "--no-seed"),
    ],
)
def test_a_store_under_a_missing_parent_is_refused_not_created(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    wanted = tmp_path / "nonexistent" / "x" / "y"
    line = _one_line_error(run_cli(*args, "--store", str(wanted), timeout=60), args[0])
    assert f"its parent directory {wanted.parent} does not exist" in line
    assert not (tmp_path / "nonexistent").exists()


def test_a_store_in_an_existing_directory_is_still_created(tmp_path: Path) -> None:
    assert check_new_store_location(tmp_path / "new") == tmp_path / "new"
    with pytest.raises(StoreLocationError):
        check_new_store_location(tmp_path / "a" / "b")
    done = run_cli("solve", "0*3", "--quiet", "--store", str(tmp_path / "new"))
    assert done.returncode == 0 and (tmp_path / "new" / "data.mdb").exists()


# --- serve ---------------------------------------------------------------------------------


def test_a_second_serve_of_a_served_store_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with ServerProcess(store, "--no-seed") as first:
        done = run_cli("serve", "--store", str(store), "--listen", "127.0.0.1:0", "--no-seed")
        line = _one_line_error(done, "serve")
        assert f"the store {store} is already being served" in line
        assert f"process {first.pid}" in line
    # the lock goes with the server, however it ended (here SIGKILL): serving again works
    with ServerProcess(store, "--no-seed") as again:
        assert again.address


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        yield holder.getsockname()[1]


def test_serve_on_a_busy_port_says_one_line_without_grpc_logs(
    tmp_path: Path, busy_port: int
) -> None:
    done = run_cli(
        "serve", "--store", str(tmp_path / "s"), "--listen", f"127.0.0.1:{busy_port}", "--no-seed"
    )
    line = _one_line_error(done, "serve")
    assert "already in use" in line
    assert "add_port" not in done.stderr


def test_the_query_hints_name_the_command_as_it_was_started(tmp_path: Path) -> None:
    script = tmp_path / "venv" / "bin" / "sproutsdb"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    assert invoked_as(str(script)) == str(script)  # not on PATH: its path, as `make run`
    assert invoked_as("/somewhere/__main__.py") == f"{sys.executable} -m sproutsdb"
    path = os.environ.get("PATH", "")
    try:
        script.chmod(0o755)
        os.environ["PATH"] = f"{script.parent}{os.pathsep}{path}"
        assert invoked_as(str(script)) == "sproutsdb"
    finally:
        os.environ["PATH"] = path
    with ServerProcess(tmp_path / "store", "--no-seed") as server:
        assert server.proc is not None and server.proc.stdout is not None
        banner = server.proc.stdout.readline()  # the hints follow the "listening" line
    assert f"query it:  {sys.executable} -m sproutsdb query 0*6 --server" in banner


# --- files that cannot be read -------------------------------------------------------------


def test_an_unreadable_spr_file_is_one_clear_line(tmp_path: Path) -> None:
    line = _one_line_error(
        run_cli("import", str(tmp_path), "--store", str(tmp_path / "s")), "import"
    )
    assert "is a directory" in line
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("the permission case needs root and setpriv to become another user")
    shared = Path(tempfile.mkdtemp(prefix="sproutsdb-perm-"))
    try:
        shared.chmod(0o777)
        locked = shared / "locked.spr"
        shutil.copy(SPR, locked)
        locked.chmod(0)
        done = subprocess.run(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                *COMMAND,
                "import",
                str(locked),
                "--store",
                str(shared / "store"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=child_env(PYTHONPATH=os.environ.get("PYTHONPATH", str(ROOT))),
        )
        line = _one_line_error(done, "import")
        assert line.endswith(
            f"cannot open {locked}: permission denied (check the file's permissions)"
        )
    finally:
        shutil.rmtree(shared, ignore_errors=True)


# --- help and output -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "positional"),
    [
        (("children",), "POS"),
        (("tree-stats",), "POS"),
        (("query",), "POS"),
        (("import",), "FILE"),
        (("check-table",), "FILE"),
        (("rct-table", "build"), "ROOT"),
        (("rct-table", "info"), "FILE"),
    ],
)
def test_every_positional_argument_has_help(command: tuple[str, ...], positional: str) -> None:
    done = run_cli(*command, "--help")
    assert done.returncode == 0
    section = done.stdout.split("positional arguments:")[1].split("options:")[0]
    entry = section.split(positional, 1)[1].strip()
    assert len(entry) > 10, f"{command}: {positional} has no help"


@pytest.mark.parametrize("action", ["build", "info"])
def test_rct_table_actions_have_a_description_and_examples(action: str) -> None:
    text = run_cli("rct-table", action, "--help").stdout
    _usage, _, rest = text.partition("\n\n")
    assert rest.split("\n")[0] and not rest.startswith("positional"), text
    assert f"examples:\n  sproutsdb rct-table {action} " in text


def test_fleet_solve_help_says_server_is_required() -> None:
    text = run_cli("fleet", "solve", "--help").stdout
    assert text.startswith("usage: sproutsdb fleet solve --server ADDR ")
    assert "[--server" not in text
    assert "--server ADDR        required:" in text


def test_nimber_says_what_its_number_is_and_json_stays_parseable(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    done = run_cli("nimber", "0*4+0.AB|AB", "0*2", "--store", store, "--quiet")
    assert done.stdout.splitlines() == [
        "0*4+0.AB|AB: nimber 3 (the player to move wins)",
        "0*2: nimber 0 (the player to move loses)",
    ]
    again = run_cli("nimber", "0*4+0.AB|AB", "--json", "--store", store, "--quiet")
    assert again.stdout.strip() == '{"position": "0*4+0.AB|AB", "nimber": 3}'


# --- the engine without its compiled core --------------------------------------------------

_WITHOUT_CORE = (
    "import sys; sys.modules['sproutsdb.solver.sprouts._core'] = None; "
    "from sproutsdb.tools.cli import main; sys.exit(main(sys.argv[1:]))"
)


def test_every_command_says_once_when_the_core_is_missing(tmp_path: Path) -> None:
    for args in (["canon", "0*3"], ["solve", "0*4", "--store", str(tmp_path / "s"), "--quiet"]):
        done = subprocess.run(
            [sys.executable, "-c", _WITHOUT_CORE, *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=child_env(),
        )
        assert done.returncode == 0, done.stderr
        assert done.stderr.count("about 50x slower") == 1, done.stderr
        assert done.stderr.startswith(f"sproutsdb: {SLOW_ENGINE_NOTE}")
    # with the core (or the pure-Python engine asked for on purpose) not a word
    assert run_cli("canon", "0*3").stderr == ""
    assert run_cli("canon", "0*3", env={"SPROUTSDB_PURE_PYTHON": "1"}).stderr == ""


def _setup_module() -> object:
    spec = importlib.util.spec_from_file_location("sproutsdb_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not __main__: no stubs generated, no setup() run
    return module


def test_a_build_without_a_c_compiler_installs_the_pure_python_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from setuptools import Distribution

    setup = _setup_module()
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CC", "false")  # a compiler that always fails
    dist = Distribution(
        {
            "name": "sproutsdb",
            "ext_modules": [setup.CORE, setup.ASSEMBLE],  # type: ignore[attr-defined]
            "cmdclass": {"build_ext": setup.OptionalBuildExt},  # type: ignore[attr-defined]
        }
    )
    command = dist.get_command_obj("build_ext")
    command.build_lib = str(tmp_path / "lib")  # type: ignore[attr-defined]
    command.build_temp = str(tmp_path / "tmp")  # type: ignore[attr-defined]
    command.ensure_finalized()
    command.run()  # no exception: the install goes on
    assert not list(tmp_path.rglob("*.so"))
    said = capsys.readouterr().err
    assert "installing the pure-Python engine" in said
    assert "the misère assembler could not be compiled" in said
