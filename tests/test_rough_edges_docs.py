"""What issue 31 asked of the documents: the reflection example of docs/grpc.md runs as
written against a real server; the service unit and its config example name options that
`sproutsdb serve` has; LICENSE, CITATION.cff and the README point at each other."""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
from pathlib import Path

from service_support import ROOT, ServerProcess, child_env, run_cli
from sproutsdb.tools.cli import build_parser


def _python_block(markdown: Path) -> str:
    blocks = re.findall(r"```python\n(.*?)```", markdown.read_text(), flags=re.S)
    assert len(blocks) == 1, "docs/grpc.md has one Python example"
    return str(blocks[0])


def test_the_reflection_example_of_docs_grpc_runs_against_a_real_server(tmp_path: Path) -> None:
    code = _python_block(ROOT / "docs" / "grpc.md")
    with ServerProcess(tmp_path / "store", "--no-seed") as server:
        solved = run_cli("solve", "0*5", "--server", server.address, "--quiet")
        assert solved.returncode == 0, solved.stderr
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=60,
            env=child_env(SPROUTSDB_ADDR=server.address),
        )
    assert done.returncode == 0, done.stderr
    services, methods, version, lookup = done.stdout.strip().splitlines()
    assert ast.literal_eval(services) == [
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
        "sproutsdb.v1.SproutsDb",
    ]
    assert {"Lookup", "Insert", "ServerInfo", "Children", "Verify"} <= set(
        ast.literal_eval(methods)
    )
    assert version == "2"
    column = ast.literal_eval(lookup)["columns"][0]
    assert column["kind"] == "FACT_KIND_NIMBER" and column["found"] == [True, True]
    assert column["nimbers"][0] == "1"  # 0*5 has nimber 1


def _config(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip().strip('"')
    return values


def test_the_service_unit_runs_serve_with_options_serve_has() -> None:
    unit = (ROOT / "deploy" / "sproutsdb.service").read_text()
    config = _config(ROOT / "deploy" / "sproutsdb.conf.example")
    assert "EnvironmentFile=/etc/sproutsdb/sproutsdb.conf" in unit
    exec_start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    command = exec_start.removeprefix("ExecStart=")
    for name, value in config.items():  # systemd's ${NAME} (one word) and $NAME (split)
        command = command.replace(f"${{{name}}}", shlex.quote(value))
        command = command.replace(f"${name}", value)
    words = shlex.split(command)
    assert words[0].endswith("/sproutsdb") and words[1] == "serve"
    args = build_parser().parse_args(words[1:])  # every option exists (else SystemExit)
    assert args.command == "serve" and args.store == config["SPROUTSDB_STORE"]
    assert args.listen == config["SPROUTSDB_LISTEN"] and args.log_format == "json"


def test_license_citation_and_the_readme_section() -> None:
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "the sproutsdb authors" in license_text
    citation = (ROOT / "CITATION.cff").read_text()
    assert "cff-version: 1.2.0" in citation and "license: MIT" in citation
    readme = (ROOT / "README.md").read_text()
    for path in ("docs/grpc.md", "docs/deploy.md", "LICENSE", "CITATION.cff"):
        assert f"({path})" in readme, path
    # the two set-up commands stay the first thing the README shows: its first code block
    first_block = readme.index("```")
    assert readme[first_block:].startswith("```sh\nmake run    #")
    assert readme.index("make test   #") < readme.index("```", first_block + 3)
