"""The SPSA driver (tournaments/spsa.py) and the `tune` build it drives.

The driver's arithmetic and its resumption are checked against a stand-in for
cutechess-cli that referees by the settings it is given (the engine with the
larger value of every tuned constant wins the pair), so the direction every
constant must move in is known; one iteration of real games is played where
cutechess-cli is installed."""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.engine
import pytest

ROOT = Path(__file__).resolve().parents[2]
SPSA = ROOT / "tournaments" / "spsa.py"
PARAMS = "rfp_margin,fp_base"

# Answers like cutechess-cli: `plus` wins both games of every pair when its
# settings are larger than `minus`'s, loses both otherwise. Counts its calls in
# $CALLS and, on the call numbered $STALL, hangs (to be killed mid-iteration).
FAKE_CUTECHESS = r'''#!/usr/bin/env python3
import os, re, sys, time
args = sys.argv[1:]
calls = int(open(os.environ["CALLS"]).read() or 0) + 1 if os.path.exists(os.environ["CALLS"]) else 1
open(os.environ["CALLS"], "w").write(str(calls))
if str(calls) == os.environ.get("STALL"):
    time.sleep(600)
specs, current = {}, None
for a in args:
    if a.startswith("name="):
        current = a[5:]
        specs[current] = {}
    elif a.startswith("option.") and current in ("plus", "minus") and "-each" not in args[:args.index(a)]:
        k, v = a[7:].split("=")
        specs[current][k] = int(v)
pairs = int(args[args.index("-rounds") + 1])
plus_sum, minus_sum = sum(specs["plus"].values()), sum(specs["minus"].values())
w, l = (2 * pairs, 0) if plus_sum > minus_sum else (0, 2 * pairs)
print(f"Score of plus vs minus: {w} - {l} - 0  [0.5] {2 * pairs}")
'''


@pytest.fixture
def fake(tmp_path):
    path = tmp_path / "cutechess-cli"
    path.write_text(FAKE_CUTECHESS)
    path.chmod(0o755)
    book = tmp_path / "book.epd"
    book.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
    env = dict(os.environ, CUTECHESS=str(path), CALLS=str(tmp_path / "calls"), RESULTS_DIR=str(tmp_path / "results"),
               WORK_DIR=str(tmp_path / "work"), TRAINER="/nonexistent")
    return env, book


def spsa(engine, book, env, iterations=4, name="t", extra=()):
    cmd = [sys.executable, str(SPSA), name, "--engine", engine, "--params", PARAMS, "--iterations",
           str(iterations), "--pairs", "1", "--book", str(book), *extra]
    return cmd, env


def trace_rows(env, name="t"):
    with open(Path(env["RESULTS_DIR"]) / f"spsa-{name}.csv") as f:
        return list(csv.DictReader(f))


def defaults(engine):
    out = subprocess.run([engine, "spsa-input"], capture_output=True, text=True, check=True).stdout
    return {line.split(", ")[0]: int(line.split(", ")[2]) for line in out.splitlines()}


def test_the_tune_build_declares_and_takes_every_constant(tune_engine_bin, engine_bin):
    names = list(defaults(tune_engine_bin))
    assert "rfp_margin" in names and "lmr_base" in names and "tm_moves_to_go" in names
    engine = chess.engine.SimpleEngine.popen_uci(tune_engine_bin)
    try:
        assert all(n in engine.options for n in names)
        engine.configure({"rfp_margin": 120, "lmr_base": 50})
        board = chess.Board()
        assert engine.play(board, chess.engine.Limit(nodes=3000)).move in board.legal_moves
    finally:
        engine.quit()
    # The release build declares none of them.
    release = chess.engine.SimpleEngine.popen_uci(engine_bin)
    try:
        assert not any(n in release.options for n in names)
    finally:
        release.quit()


def test_a_short_run_moves_a_constant_the_way_the_games_say(tune_engine_bin, fake):
    env, book = fake
    # One constant: the larger setting wins every pair, whichever side drew
    # the + sign, so it can only rise.
    cmd, env = spsa(tune_engine_bin, book, env, iterations=3, extra=["--params", "rfp_margin"])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = trace_rows(env)
    assert [r["iteration"] for r in rows] == ["1", "2", "3"]
    values = [defaults(tune_engine_bin)["rfp_margin"]] + [float(r["rfp_margin"]) for r in rows]
    assert all(b > a for a, b in zip(values, values[1:])), values
    assert all(int(r["wins"]) + int(r["losses"]) == 2 for r in rows)
    assert "tuned values" in out.stdout and "rfp_margin, " in out.stdout


def test_r_end_scales_every_step(tune_engine_bin, fake):
    env, book = fake
    start = defaults(tune_engine_bin)["rfp_margin"]
    steps = {}
    for name, extra in (("base", []), ("big", ["--r-end", "0.01"])):
        cmd, env = spsa(tune_engine_bin, book, env, iterations=3, name=name, extra=["--params", "rfp_margin", *extra])
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        steps[name] = float(trace_rows(env, name)[0]["rfp_margin"]) - start
    # The engine's r_end is 0.002: the same games move θ five times as far
    # (the trace keeps three decimals).
    assert steps["base"] > 0 and abs(steps["big"] / steps["base"] - 5) < 0.1, steps
    cmd, env = spsa(tune_engine_bin, book, env, extra=["--r-end", "0"])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "--r-end" in out.stderr


def test_a_killed_run_resumes_after_its_last_finished_iteration(tune_engine_bin, fake):
    env, book = fake
    cmd, env = spsa(tune_engine_bin, book, env, iterations=4)
    stalled = subprocess.Popen(cmd, env=dict(env, STALL="3"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    state = Path(env["WORK_DIR"]) / "spsa-t" / "state.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (state.exists() and json.loads(state.read_text())["done"] == 2):
        time.sleep(0.1)
    time.sleep(0.5)  # inside the third iteration's games
    os.killpg(stalled.pid, signal.SIGKILL)
    stalled.wait()
    before = trace_rows(env)
    assert [r["iteration"] for r in before] == ["1", "2"]

    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "resuming after iteration 2" in out.stdout
    after = trace_rows(env)
    assert [r["iteration"] for r in after] == ["1", "2", "3", "4"]
    assert after[:2] == before
    # Other arguments on the same state are refused, not mixed in.
    cmd2, _ = spsa(tune_engine_bin, book, env, iterations=8)
    refused = subprocess.run(cmd2, env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "other arguments" in refused.stderr


def test_refusals_name_the_problem(tune_engine_bin, engine_bin, fake):
    env, book = fake
    cmd, env = spsa(engine_bin, book, env)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "--features tune" in out.stderr
    cmd, env = spsa(tune_engine_bin, book, env, extra=["--params", "no_such_constant"])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "unknown constant" in out.stderr
    cmd, env = spsa(tune_engine_bin, book, env, extra=["--tc", "fast"])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "time control" in out.stderr


@pytest.mark.skipif(not (os.environ.get("CUTECHESS") or shutil.which("cutechess-cli")),
                    reason="[cutechess] cutechess-cli not installed (tournaments/README.md): real games skipped")
def test_one_iteration_of_real_games(tune_engine_bin, tmp_path):
    book = tmp_path / "book.epd"
    book.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
    env = dict(os.environ, RESULTS_DIR=str(tmp_path / "results"), WORK_DIR=str(tmp_path / "work"), TRAINER="/nonexistent")
    cmd, env = spsa(tune_engine_bin, book, env, iterations=1, extra=["--tc", "nodes=300"])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    (row,) = trace_rows(env)
    assert int(row["wins"]) + int(row["losses"]) + int(row["draws"]) == 2
