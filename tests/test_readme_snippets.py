"""The README's Python snippets run as written, against a real server and a real store
(only the address and the store's path are those of the test's)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from cli_helpers import run_cli
from service_support import ServerProcess

README = Path(__file__).resolve().parent.parent / "README.md"


def snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def snippet(marker: str) -> str:
    """The one snippet that holds `marker` (the README orders its sections as it likes)."""
    (code,) = [code for code in snippets() if marker in code]
    return code


def test_the_readme_has_its_two_snippets() -> None:
    assert len(snippets()) == 2
    assert snippet("Client(") != snippet("open_store(")


def test_the_client_snippet_runs_against_a_real_server(tmp_path: Path) -> None:
    code = snippet("Client(")
    with ServerProcess(tmp_path / "served") as server:
        assert run_cli("solve", "0*5", "--server", server.address).returncode == 0
        exec(compile(code.replace("127.0.0.1:50051", server.address), "README", "exec"), {})


def test_the_library_snippet_runs_on_a_real_store(tmp_path: Path) -> None:
    store = tmp_path / "sproutsdb-data"
    assert run_cli("solve", "0*5", "--store", str(store)).returncode == 0
    code = snippet("open_store(").replace('"sproutsdb-data"', repr(str(store)))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README", "exec"), {})
    assert printed.getvalue() == "True 1\n"


def test_the_readme_stays_a_front_door() -> None:
    """Issue 74: a page a researcher reads in five minutes (the CLI tour lives in
    docs/cli.md, measurements in bench/), with no dated narrative."""
    text = README.read_text()
    assert len(text.splitlines()) <= 150
    assert not re.search(r"\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b", text), "a date in the README"
