"""Re-derive every certificate of the results library and print what each cost.

    python bench/check_results.py                 # the shipped library
    python bench/check_results.py --library DIR   # another results folder

The same check as `sproutsdb results --check` (each certificate imported into a fresh
temporary store, its root checked from the rules), with CPU seconds per certificate: CI runs
the small ones (tests/test_results.py), this runs all of them. Exit 1 if one fails.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from sproutsdb.ops.results import check_certificate, read_manifest, shipped_library


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, default=None, help="default: the shipped one")
    args = parser.parse_args(argv)
    directory = args.library or shipped_library()
    print(f"{'play':6} {'pos':5} {'statement':10} {'facts':>7} {'CPU s':>7} {'wall s':>7}  verdict")
    failed = facts = 0
    started, cpu_total = time.perf_counter(), 0.0
    for entry in read_manifest(directory):
        cpu = time.process_time()
        result = check_certificate(directory, entry)
        cpu = time.process_time() - cpu
        cpu_total += cpu
        facts += result.facts
        failed += not result.ok
        verdict = "ok" if result.ok else f"FAILED: {result.message}"
        print(
            f"{entry.play:6} {entry.position:5} {entry.statement_text():10} {result.facts:>7,} "
            f"{cpu:>7.2f} {result.seconds:>7.2f}  {verdict}",
            flush=True,
        )
    print(
        f"{len(read_manifest(directory))} certificates, {facts:,} facts, {cpu_total:.1f} CPU s, "
        f"{time.perf_counter() - started:.1f} s wall; {failed} failed"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
