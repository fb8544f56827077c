"""`sproutsdb rct-table build|info`: the file a user builds reads back, damage is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sproutsdb.formats.rcttable import load_table
from sproutsdb.tools.cli import main


def test_build_then_info(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s3.rcttable"
    assert main(["rct-table", "build", "0.0.0.}]!", "--out", str(out), "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "148 positions, 7 RCTs" in said
    assert main(["rct-table", "info", str(out), "--json", "--check", "--quiet"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["root"] == "0*3" and info["game"] == "sprouts" and info["check"] == "ok"
    assert info["counts"]["positions"] == 148 and info["counts"]["rcts"] == 7
    assert info["bytes"] == out.stat().st_size
    assert info["provenance"]["command"] == "rct-table build"
    table = load_table(out)
    assert table.algebra.format(table.rct_of("0*2") or 0) == "{2}"
    assert main(["rct-table", "info", str(out)]) == 0
    assert "counts" in capsys.readouterr().out


def test_info_refuses_a_corrupted_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s2.rcttable"
    assert main(["rct-table", "build", "0*2", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    data = bytearray(out.read_bytes())
    data[len(data) // 2] ^= 0x40
    out.write_bytes(bytes(data))
    assert main(["rct-table", "info", str(out)]) == 2
    assert "checksum mismatch: the file is corrupted" in capsys.readouterr().err
    out.write_bytes(bytes(data[:30]))
    assert main(["rct-table", "info", str(out)]) == 2
    assert "truncated" in capsys.readouterr().err


def test_build_needs_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "missing" / "x.rcttable"
    assert main(["rct-table", "build", "0*2", "--out", str(target), "--quiet"]) == 2
    assert "is not a directory" in capsys.readouterr().err
