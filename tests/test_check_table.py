"""`sproutsdb check-table`: a built table checks entry by entry; a tampered record or
position (with a valid checksum) is named, and records depending on it are not trusted."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import zstandard

from cli_helpers import run_cli
from sproutsdb.formats import rcttable
from sproutsdb.ops import check_table


def reframe(path: Path, body: bytes) -> None:
    """Rewrite a table with another (uncompressed) body and a valid checksum."""
    header, _ = rcttable.read_header(path)
    header["body"] = dict(header["body"], raw_bytes=len(body))
    head = json.dumps(header).encode()
    packed = zstandard.ZstdCompressor().compress(body)
    content = (
        rcttable.PREFIX.pack(rcttable.MAGIC, rcttable.FORMAT_VERSION, len(head))
        + head
        + rcttable.BODY_LEN.pack(len(packed))
        + packed
    )
    path.write_bytes(content + hashlib.blake2b(content, digest_size=32).digest())


def body_lines(path: Path) -> list[str]:
    _, packed = rcttable.read_header(path)
    return zstandard.ZstdDecompressor().decompress(packed).decode().split("\n")


def build(tmp_path: Path) -> Path:
    out = tmp_path / "s3.rcttable"
    done = run_cli("rct-table", "build", "0*3", "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    return out


def test_a_built_table_checks_clean(tmp_path: Path) -> None:
    out = build(tmp_path)
    done = run_cli("check-table", str(out), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["rcts"] > 0 and report["positions"] > 100


def test_a_wrong_record_is_named_and_its_dependents_not_trusted(tmp_path: Path) -> None:
    out = build(tmp_path)
    lines = body_lines(out)
    fields = lines[2].split("\t")  # the second RCT record: claim another height
    fields[1] = str(int(fields[1]) + 5)
    lines[2] = "\t".join(fields)
    reframe(out, "\n".join(lines).encode())
    report = check_table(str(out))
    assert not report["ok"] and report["bad_records"] == 1
    assert "height" in report["examples"][0] and report["unchecked_positions"] > 0
    done = run_cli("check-table", str(out))
    assert done.returncode == 1 and "ENTRIES DO NOT CHECK" in done.stdout


def test_a_position_with_a_wrong_rct_is_named(tmp_path: Path) -> None:
    out = build(tmp_path)
    lines = body_lines(out)
    m = int(lines[0].split("\t")[1])
    first = 1 + m + 1
    for at in range(first, len(lines) - 1):
        position, index = lines[at].split("\t")
        if position != "!":
            lines[at] = f"{position}\t{(int(index) + 1) % m}"
            break
    reframe(out, "\n".join(lines).encode())
    report = check_table(str(out))
    assert not report["ok"] and report["bad_records"] == 0
    assert report["bad_positions"] >= 1
    assert any(line.startswith(position + ":") for line in report["examples"])


def test_an_unreadable_table_is_one_line_exit_2(tmp_path: Path) -> None:
    out = build(tmp_path)
    data = bytearray(out.read_bytes())
    data[len(data) // 2] ^= 1
    out.write_bytes(bytes(data))
    done = run_cli("check-table", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
