"""Trust soak (run on demand): honest solvers and a liar share one server for some minutes.

    .venv/bin/python bench/trust_soak.py [--seconds 150] [--writers 2] [--seed 1]

A real `sproutsdb serve` subprocess (its own store in a temporary directory, a token book
with one named token per writer). `--writers` honest writers each run `sproutsdb nimber
L1 .. L5 --server` subprocesses on random lands (the lands an independent solve of 0*10
meets, and 0*4 .. 0*10); a liar thread inserts random wrong nimbers for random lands of the
same pool with its own token. After the time is up, an honest sweep solves every land
the liar claimed that is still undecided, the verifier's backlog is waited for, and:

- every VERIFIED value the server serves equals an independent solve (an in-process
  solver on a memory store, sharing nothing with the server);
- every wrong claim the liar got stored is refuted;
- no honest writer ever stopped on a conflict (exit code 3) or failed otherwise.

Prints the figures (counts, seconds, CPU time of the server and of this process) and exits
1 if any of the three properties fails. The machine is shared: note its load beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from sproutsdb.client import Client, ServiceError
from sproutsdb.facts import Status
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame

COMMAND = [sys.executable, "-m", "sproutsdb"]
LANDS_PER_CALL = 5


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SPROUTSDB_")}


def start_server(store: Path, tokens: Path, log: Path) -> tuple[subprocess.Popen[str], str]:
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [
                *COMMAND,
                "serve",
                "--store",
                str(store),
                "--listen",
                "127.0.0.1:0",
                "--no-seed",
                "--token-file",
                str(tokens),
                "--log-format",
                "text",
            ],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=_env(),
        )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"listening on (\S+)", line)
        if found:
            return proc, found.group(1)
    proc.wait(10)
    raise SystemExit(f"server did not start: {log.read_text()[-2000:]}")


def cpu_seconds(pid: int) -> float:
    """user + sys CPU seconds of a running process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Truth:
    """Independent nimbers: an in-process solver on a memory store of its own."""

    def __init__(self, game: SproutsGame) -> None:
        self.game = game
        self.memory = MemoryProofStore()
        self.solver = NormalSolver(game, self.memory)

    def nimber(self, land: str) -> int:
        known = self.memory.get(FactKind.NIMBER, [land]).get(land)
        return int(known) if known is not None else self.solver.nimber(land)


def honest_writer(
    name: str,
    address: str,
    token: Path,
    pool: list[str],
    stop: float,
    rng: random.Random,
    outcomes: Counter[str],
    errors: list[str],
) -> None:
    while time.monotonic() < stop:
        lands = rng.sample(pool, LANDS_PER_CALL)
        done = subprocess.run(
            [
                *COMMAND,
                "nimber",
                *lands,
                "--server",
                address,
                "--json",
                "--quiet",
                "--token-file",
                str(token),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            env=_env(),
        )
        outcomes[{0: "ok", 3: "conflict"}.get(done.returncode, f"exit {done.returncode}")] += 1
        if done.returncode != 0:
            errors.append(f"{name}: {' '.join(lands)}: {done.stderr.strip()[-300:]}")


def liar(
    address: str,
    secret: str,
    pool: list[str],
    truth: dict[str, int],
    stop: float,
    rng: random.Random,
    claims: dict[str, int],
    counts: Counter[str],
) -> None:
    with Client(address, secret) as client:
        while time.monotonic() < stop:
            land = rng.choice(pool)
            wrong = rng.choice([v for v in range(7) if v != truth[land]])
            try:
                result = client.insert(FactKind.NIMBER, {land: wrong})
            except ServiceError as error:
                counts[f"error {error.code}"] += 1
                continue
            status = result.status[0]
            counts[status] += 1
            if status == "inserted":
                claims[result.canonical[0]] = wrong
            time.sleep(rng.uniform(0.05, 0.4))


def wait_backlog(client: Client, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        stats = client.stats()
        v = stats["verifier"]
        if (v["backlog"] == 0 and not v["scanning"]) or time.monotonic() > deadline:
            return stats
        time.sleep(0.5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=150.0, help="soak time (default 150)")
    parser.add_argument("--writers", type=int, default=2, help="honest writers (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    t0, cpu0 = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF)

    game = SproutsGame()
    independent = Truth(game)
    independent.nimber(game.canonical("0*10"))
    truth = {k: int(v) for k, v in independent.memory._facts[FactKind.NIMBER].items()}
    pool = sorted(truth)
    print(f"pool: {len(pool)} lands (an independent solve of 0*10, {time.monotonic() - t0:.1f} s)")

    with tempfile.TemporaryDirectory(prefix="trust-soak-") as tmp:
        base = Path(tmp)
        secrets = {
            f"honest{i}": f"honest{i}-secret-{rng.getrandbits(64):016x}"
            for i in range(args.writers)
        }
        secrets["liar"] = f"liar-secret-{rng.getrandbits(64):016x}"
        book = base / "tokens"
        book.write_text("".join(f"{n}:{s}\n" for n, s in secrets.items()))
        files = {}
        for name, secret in secrets.items():
            files[name] = base / f"{name}.token"
            files[name].write_text(secret + "\n")
        proc, address = start_server(base / "store", book, base / "server.log")
        try:
            stop = time.monotonic() + args.seconds
            outcomes: Counter[str] = Counter()
            errors: list[str] = []
            claims: dict[str, int] = {}
            lies: Counter[str] = Counter()
            threads = [
                threading.Thread(
                    target=honest_writer,
                    args=(
                        n,
                        address,
                        files[n],
                        pool,
                        stop,
                        random.Random(rng.getrandbits(32)),
                        outcomes,
                        errors,
                    ),
                )
                for n in secrets
                if n != "liar"
            ]
            threads.append(
                threading.Thread(
                    target=liar,
                    args=(
                        address,
                        secrets["liar"],
                        pool,
                        truth,
                        stop,
                        random.Random(rng.getrandbits(32)),
                        claims,
                        lies,
                    ),
                )
            )
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            soak_end = time.monotonic()
            with Client(address, secrets["honest0"]) as client:
                at_end = client.stats()
                records = client.lookup(sorted(claims), with_records=True).records[FactKind.NIMBER]
                undecided = [
                    k
                    for k, r in zip(sorted(claims), records)
                    if r is not None and r.status is Status.CLAIMED
                ]
                for start in range(0, len(undecided), 10):  # the honest sweep
                    done = subprocess.run(
                        [
                            *COMMAND,
                            "nimber",
                            *undecided[start : start + 10],
                            "--server",
                            address,
                            "--quiet",
                            "--token-file",
                            str(files["honest0"]),
                        ],
                        capture_output=True,
                        text=True,
                        timeout=900,
                        env=_env(),
                    )
                    outcomes[
                        {0: "ok", 3: "conflict"}.get(done.returncode, f"exit {done.returncode}")
                    ] += 1
                    if done.returncode != 0:
                        errors.append(f"sweep: {done.stderr.strip()[-300:]}")
                stats = wait_backlog(client, 120.0)
                drained = time.monotonic() - soak_end

                served = list(client.export_facts(FactKind.NIMBER))
                verified = {
                    k: r.value
                    for k, r in _records(client, [k for k, _ in served])
                    if r is not None and r.status is Status.VERIFIED
                }
                wrong_verified = [(k, v) for k, v in verified.items() if independent.nimber(k) != v]
                looked = client.lookup(sorted(claims), with_records=True)
                history = {k: r for k, r in zip(sorted(claims), looked.records[FactKind.NIMBER])}
                not_refuted = []
                for key, value in claims.items():
                    record = history.get(key)
                    if record is not None and record.status is Status.REFUTED:
                        continue
                    # replaced since: the key now holds another value, and the refutation of
                    # this claim is kept (a refuted record is shown only while no fact is)
                    if (
                        record is not None
                        and record.value != value
                        and record.status is Status.VERIFIED
                    ):
                        continue
                    not_refuted.append(
                        (
                            key,
                            value,
                            None if record is None else (record.value, record.status.value),
                        )
                    )
                server_cpu = cpu_seconds(proc.pid)
        finally:
            proc.terminate()
            proc.wait(60)
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        log_text = (base / "server.log").read_text()
        leaked = [n for n, s in secrets.items() if s in log_text]

    figures = {
        "seconds_soak": args.seconds,
        "seconds_drain_after_soak": round(drained, 1),
        "seconds_total": round(time.monotonic() - t0, 1),
        "honest_calls": dict(outcomes),
        "honest_errors": errors[:5],
        "liar_inserts": dict(lies),
        "liar_keys_claimed": len(claims),
        "refuted_at_soak_end": at_end["refuted"]["nimber"],
        "backlog_at_soak_end": at_end["verifier"]["backlog"],
        "liar_keys_undecided_at_soak_end": len(undecided),
        "wrong_claims_not_refuted": not_refuted[:10],
        "facts": stats["facts"]["nimber"],
        "verified": len(verified),
        "claimed_left": stats["claimed"]["nimber"],
        "refuted": stats["refuted"]["nimber"],
        "verifier_backlog_left": stats["verifier"]["backlog"],
        "verifier_checks": stats["verifier"]["checks"],
        "verified_values_wrong": wrong_verified[:10],
        "secrets_in_log": leaked,
        "cpu_seconds": {
            "server": round(server_cpu, 1),
            "this_process": round(cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime, 1),
            "cli_writers": round(children.ru_utime + children.ru_stime, 1),
        },
    }
    # every refutation is of a liar's claim: the verifier never refuted a true claim
    exact = stats["refuted"]["nimber"] == lies.get("inserted", 0)
    figures["refuted_equals_liar_inserts"] = exact
    ok = (
        not wrong_verified
        and not not_refuted
        and outcomes.get("conflict", 0) == 0
        and not errors
        and not leaked
        and exact
    )
    print(json.dumps(figures, indent=1))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def _records(client: Client, keys: list[str]) -> list[tuple[str, Any]]:
    looked = client.lookup(keys, with_records=True)
    return list(zip(keys, looked.records[FactKind.NIMBER]))


if __name__ == "__main__":
    sys.exit(main())
