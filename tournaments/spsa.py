#!/usr/bin/env python3
"""SPSA tuning of the search constants on this machine, with cutechess-cli.

usage: tournaments/spsa.py NAME --engine BIN [--params A,B,...] [--tc TC]
                           [--iterations N] [--pairs P] [--concurrency C]
                           [--book FILE] [--seed S] [--r-end R]

BIN is a `cargo build --release --features tune` binary: it declares every
constant of src/search/params.rs as a UCI option, and `BIN spsa-input` gives
each one's value, range and final perturbation (OpenBench's c_end; every
r_end is the same). Each iteration draws a random sign per tuned constant,
plays P game pairs (each opening with both colours) between the engine at
θ + c_k·Δ and at θ − c_k·Δ, and moves θ by a_k·(wins − losses)/(c_k·Δ) —
OpenBench's schedule: c_k = c·k^−0.101, a_k = a·(A + k)^−0.602, A = N/10,
c = c_end·N^0.101, a = r_end·c_end²·(A + N)^0.602.

R replaces every constant's r_end (OpenBench's default, 0.002, is made for
runs of tens of thousands of pairs on many machines; a run of a few thousand
pairs on one machine needs a larger one, e.g. 0.01, to move at all).

TC is a cutechess time control (5+0.05) or nodes=N (a fixed node budget,
immune to whatever else loads the machine; the default, nodes=5000).

Resumable: the state (θ and the iterations done) is saved after every
iteration in work/spsa-NAME/state.json; a killed run started again with the
same arguments goes on from the last finished iteration. The trace, one row
per iteration (θ after it, and its games), is results/spsa-NAME.csv; its
chart (each constant's move from its start in units of its c_end) is
results/spsa-NAME.png, drawn by tessera-trainer's trace-chart where it is
built. Environment: CUTECHESS, RESULTS_DIR, WORK_DIR, TRAINER (as the other
scripts).
"""

import argparse
import csv
import json
import os
import random
import re
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from report import ROOT, SHARED_DATA, TOURNAMENTS, check_name, die, engine_path

ALPHA, GAMMA = 0.602, 0.101


@dataclass
class Param:
    name: str
    default: int
    low: int
    high: int
    c_end: float
    r_end: float


def read_params(engine: str) -> list[Param]:
    """The engine's tunables, from `BIN spsa-input` (OpenBench's format)."""
    try:
        out = subprocess.run([engine, "spsa-input"], capture_output=True, text=True, timeout=30)
    except OSError as e:
        die(f"cannot run {engine}: {e}")
    if out.returncode != 0:
        die(f"{engine} spsa-input failed: {out.stderr.strip()}")
    params = []
    for line in out.stdout.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7 or fields[1] != "int":
            die(f"{engine} spsa-input: unexpected line '{line}'")
        name, _, value, low, high, c_end, r_end = fields
        params.append(Param(name, int(value), int(low), int(high), float(c_end), float(r_end)))
    return params


def declared_options(engine: str) -> set[str]:
    """The option names the engine declares after `uci`."""
    out = subprocess.run([engine], input="uci\nquit\n", capture_output=True, text=True, timeout=30)
    return {m.group(1) for m in re.finditer(r"^option name (\S+) type", out.stdout, re.M)}


def find_cutechess() -> str:
    path = os.environ.get("CUTECHESS") or shutil.which("cutechess-cli")
    if not path:
        die("cutechess-cli not found: build it from source (see tournaments/README.md) and put it on PATH or set CUTECHESS")
    return path


def find_book(given: str | None) -> Path:
    book = Path(given or os.environ.get("BOOK") or SHARED_DATA / "books/UHO_4060_v4.epd")
    if not book.is_file():
        die(f"opening book {book} not found (--book FILE or BOOK=FILE)")
    return book


def tc_args(tc: str) -> list[str]:
    m = re.fullmatch(r"nodes=(\d+)", tc)
    if m:
        if int(m.group(1)) < 1:
            die("nodes=N needs N ≥ 1")
        return ["tc=inf", f"nodes={m.group(1)}"]
    if not re.fullmatch(r"[0-9./+:]+", tc):
        die(f"time control '{tc}' is neither cutechess's form (e.g. 5+0.05) nor nodes=N")
    return [f"tc={tc}"]


class Schedule:
    """OpenBench's SPSA gains for a run of `iterations`."""

    def __init__(self, iterations: int):
        self.n = iterations
        self.big_a = iterations / 10

    def c(self, p: Param, k: int) -> float:
        return p.c_end * self.n**GAMMA / k**GAMMA

    def a(self, p: Param, k: int) -> float:
        a_end = p.r_end * p.c_end**2
        return a_end * (self.big_a + self.n) ** ALPHA / (self.big_a + k) ** ALPHA


def perturbed(theta: dict[str, float], params: list[Param], schedule: Schedule, k: int, signs: dict[str, int]):
    """The two engines' integer settings: θ ± c_k·Δ, rounded and kept in range."""
    plus, minus = {}, {}
    for p in params:
        step = schedule.c(p, k) * signs[p.name]
        plus[p.name] = min(p.high, max(p.low, round(theta[p.name] + step)))
        minus[p.name] = min(p.high, max(p.low, round(theta[p.name] - step)))
    return plus, minus


def play(cutechess: str, engine: str, plus: dict, minus: dict, tc: str, pairs: int, concurrency: int,
         book: Path, seed: int, pgn: Path) -> tuple[int, int, int]:
    """P game pairs between the two settings: (wins, losses, draws) of `plus`."""
    def spec(name, values):
        return ["-engine", f"name={name}", f"cmd={engine}", *(f"option.{k}={v}" for k, v in values.items())]
    fmt = "epd" if book.suffix == ".epd" else "pgn"
    cmd = [cutechess, *spec("plus", plus), *spec("minus", minus),
           "-each", "proto=uci", "option.Hash=8", "option.Threads=1", *tc_args(tc),
           "-games", "2", "-rounds", str(pairs), "-repeat", "-recover",
           "-openings", f"file={book}", f"format={fmt}", "order=random", "-srand", str(seed),
           "-concurrency", str(concurrency), "-pgnout", str(pgn)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    scores = re.findall(r"Score of plus vs minus: (\d+) - (\d+) - (\d+)", out.stdout)
    if out.returncode != 0 or not scores:
        die(f"cutechess-cli failed (exit {out.returncode}): {(out.stderr or out.stdout).strip()[-500:]}")
    w, l, d = (int(x) for x in scores[-1])
    return w, l, d


def save_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    tmp.replace(path)


def write_trace(path: Path, params: list[Param], rows: list[dict]) -> None:
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["iteration", *(p.name for p in params), "wins", "losses", "draws"])
        for r in rows:
            writer.writerow([r["iteration"], *(f"{r['theta'][p.name]:.3f}" for p in params),
                             r["wins"], r["losses"], r["draws"]])
    tmp.replace(path)


def chart(trace: Path, params: list[Param], name: str) -> None:
    trainer = os.environ.get("TRAINER") or str(ROOT / "target/release/tessera-trainer")
    if not os.access(trainer, os.X_OK):
        print(f"no chart: {trainer} not built (cargo build --release -p tessera-trainer)")
        return
    out = subprocess.run([trainer, "trace-chart", "--out", str(trace.with_suffix(".png")),
                          "--title", f"SPSA {name}: each constant's move in units of its c_end",
                          "--csv", str(trace), *(f"--step={p.name}={p.c_end}" for p in params),
                          "--skip", "wins", "--skip", "losses", "--skip", "draws"],
                         capture_output=True, text=True)
    print(out.stdout.strip() if out.returncode == 0 else f"no chart: {out.stderr.strip()}")


def main() -> None:
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    ap.add_argument("name")
    ap.add_argument("--engine", required=True, help="a tessera binary built with --features tune")
    ap.add_argument("--params", help="comma-separated constants to tune (default: all)")
    ap.add_argument("--tc", default="nodes=5000")
    ap.add_argument("--iterations", type=int, default=1000, help="the run's planned length N")
    ap.add_argument("--pairs", type=int, default=1, help="game pairs per iteration")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--book")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--r-end", type=float, help="every constant's r_end (default: the engine's)")
    args = ap.parse_args()
    check_name(args.name)
    if args.iterations < 1 or args.pairs < 1 or args.concurrency < 1:
        die("--iterations, --pairs and --concurrency must be at least 1")
    if args.r_end is not None and not 0 < args.r_end <= 1:
        die("--r-end must be in (0, 1]")
    engine = engine_path(str(Path(args.engine).resolve()))
    tc_args(args.tc)
    cutechess = find_cutechess()
    book = find_book(args.book)

    every = read_params(engine)
    if args.params:
        wanted = args.params.split(",")
        unknown = [w for w in wanted if w not in {p.name for p in every}]
        if unknown:
            die(f"unknown constant(s) {', '.join(unknown)}; `{args.engine} spsa-input` lists them")
        params = [p for p in every if p.name in wanted]
    else:
        params = every
    if args.r_end is not None:
        params = [replace(p, r_end=args.r_end) for p in params]
    missing = [p.name for p in params if p.name not in declared_options(engine)]
    if missing:
        die(f"{args.engine} does not declare {missing[0]} as an option: build it with "
            "`cargo build --release --features tune`")

    work = Path(os.environ.get("WORK_DIR", TOURNAMENTS / "work")) / f"spsa-{args.name}"
    results = Path(os.environ.get("RESULTS_DIR", TOURNAMENTS / "results"))
    work.mkdir(parents=True, exist_ok=True)
    results.mkdir(parents=True, exist_ok=True)
    state_path = work / "state.json"
    trace = results / f"spsa-{args.name}.csv"
    config = {"params": [p.name for p in params], "tc": args.tc, "iterations": args.iterations,
              "pairs": args.pairs, "seed": args.seed, "r_end": args.r_end}
    if state_path.exists():
        state = json.loads(state_path.read_text())
        if state["config"] != config:
            die(f"{state_path} belongs to a run with other arguments: {state['config']}")
        print(f"resuming after iteration {state['done']}")
    else:
        state = {"config": config, "done": 0, "theta": {p.name: float(p.default) for p in params}, "rows": []}
    schedule = Schedule(args.iterations)
    write_trace(trace, params, state["rows"])

    for k in range(state["done"] + 1, args.iterations + 1):
        # The signs and the openings depend only on the seed and the iteration,
        # so an iteration cut off by a kill is replayed the same way.
        rng = random.Random(f"{args.seed}:{k}")
        signs = {p.name: rng.choice((-1, 1)) for p in params}
        plus, minus = perturbed(state["theta"], params, schedule, k, signs)
        w, l, d = play(cutechess, engine, plus, minus, args.tc, args.pairs, args.concurrency, book,
                       rng.randrange(1, 2**31), work / f"iteration-{k}.pgn")
        theta = dict(state["theta"])
        for p in params:
            moved = theta[p.name] + schedule.a(p, k) * (w - l) / (schedule.c(p, k) * signs[p.name])
            theta[p.name] = min(float(p.high), max(float(p.low), moved))
        state["theta"] = theta
        state["done"] = k
        state["rows"].append({"iteration": k, "theta": theta, "wins": w, "losses": l, "draws": d})
        save_json(state_path, state)
        write_trace(trace, params, state["rows"])
        (work / f"iteration-{k}.pgn").unlink(missing_ok=True)
        print(f"iteration {k}/{args.iterations}: {w}-{l}-{d}  " +
              " ".join(f"{p.name}={theta[p.name]:.2f}" for p in params), flush=True)

    print("tuned values (OpenBench's SPSA output form):")
    for p in params:
        print(f"{p.name}, {round(state['theta'][p.name])}")
    chart(trace, params, args.name)


if __name__ == "__main__":
    main()
