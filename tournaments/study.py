#!/usr/bin/env python3
"""The feature-set study: the thesis's experiments, one command each.

For every feature set of an experiment (and `all`, the reference), with the
same data, shape, seed and budget: a net is trained, an engine built with it,
its feature statistics, speed and puzzle accuracy measured, and all of them
play `all` at a fixed time per move and at a fixed number of nodes, rated by
Ordo with `all` = 0. The results are one markdown table per experiment.

usage: tournaments/study.py EXPERIMENT [--sets A,B,…] [--dir DIR] [--tiny] [--skip STEP,…] [--games N]
                           [--table NAME] [--data NAME] [--gen DIR] [--score-factor PATTERN=F] [--samples N]
                           [--name NAME]
       tournaments/study.py --summary [--dir DIR] [--tiny]
       tournaments/study.py --list
EXPERIMENT: axes, pairwise, mobility, beyond, king, threats, planes, scale (see --list)

Data (--data): `shared` (the default; every file of ../shared/data/train,
3.3 M positions) or `scale` (the default of the `scale` experiment: the shared
files plus every datagen run `*.bin` in --gen), trained with the default net's
recipe: the same filters and deduplication, mirrors, and its four held-out
files. The runs are fixed when the study starts (their whole records copied into
DIR/gen, counted in DIR/gen/manifest.txt): a run still being written does not
change the data of the nets trained after it. --score-factor 'all-own400-*=1.15'
multiplies the scores of the runs it names (labels on another scale: the game's own
search scores), fixed with the runs. --samples states the budget in
samples seen (whole epochs that reach it). An experiment run on data other than
its default writes its nets, tables and report under names that carry the
data's name; --name gives a study another name (a replica of one on new data of
the same recipe, written beside the original: `scale-r2`), and its folder
tournaments/work/study-NAME.

Every step is resumable: a finished net, statistic, bench, puzzle run or
pairing is kept and not redone, so a killed run is continued by running the
same command again. Timed steps (speed, games at a fixed time) need a quiet
machine; the puzzles and games at a fixed number of nodes do not.
writes: DIR/runs/SET (nets, loss.csv), DIR/gen (--data scale: the runs, fixed),
        DIR/stats, DIR/speed/EXPERIMENT, DIR/puzzles,
        results/study-EXPERIMENT-{time,nodes}.md (games, via gauntlet.sh; with
        --table NAME, results/study-EXPERIMENT-{time,nodes}-NAME.md),
        research/study-EXPERIMENT.md and its charts study-EXPERIMENT-loss.png,
        -elo-nodes.png, -elo-time.png (in DIR with --tiny); on data other than
        `shared`, also -elo-size.png and, at the report's end, each set's Elo beside
        the shared-data reports' with a verdict on their finding
"""

import argparse
import collections
import fnmatch
import functools
import glob
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import report

ROOT = report.ROOT
TOURNAMENTS = report.TOURNAMENTS
SHARED = report.SHARED_DATA

REFERENCE = "all"
EXPERIMENTS = {
    "axes": ["h+v", "d1+d2", "h+v+d1+d2", "all+h+v", "all+d1+d2", "all+h+v+d1+d2"],
    "pairwise": ["all+ph", "all+pv", "all+ph+pv"],
    "mobility": ["all+mb", "all+mc"],
    "beyond": ["compact", "kp", "ka", "rk-h", "rk-v", "rk-hv", "pm"],
    "king": ["kb4", "kb8", "kb16"],
    "threats": ["all+th", "kb4+th"],
    "planes": ["all+pin", "all+ctl", "all+pp", "all+cr", "all+mt"],
    # The decisive rows asked again on ≥ 30 M positions: the thesis's sets and
    # the king inputs that engines trained at scale use.
    "scale": ["h+v", "d1+d2", "h+v+d1+d2", "all+h+v", "all+d1+d2", "all+ph+pv", "all+mb", "all+mc",
              "kb4", "kb8", "ka"],
}

# The thesis's figures (validation loss on its own data, Elo vs `all` at 100 ms
# a move, puzzle move accuracy); see the study issue. ph = pairs along a rank,
# pv = along a file (src/features/mod.rs); the thesis's slides list ph first.
THESIS = {
    "h+v": ("0.005810", "−384.3 ± 5.1", "0.8618"),
    "d1+d2": ("0.006707", "−444.1 ± 5.1", "0.8517"),
    "h+v+d1+d2": ("0.003907", "−183.5 ± 4.1", "0.8748"),
    "all": ("0.003134", "0", "0.8865"),
    "all+h+v": ("0.003082", "−27.1 ± 4.1", "0.8851"),
    "all+d1+d2": ("0.003087", "−26.1 ± 3.8", "0.8814"),
    "all+h+v+d1+d2": ("0.003067", "−58.7 ± 3.7", "0.8766"),
    "all+ph": ("0.003033", "−38.2 ± 4.8", ""),
    "all+pv": ("0.002946", "−8.4 ± 5.0", ""),
    "all+ph+pv": ("0.002868", "−37.6 ± 4.9", ""),
    "all+mb": ("0.002824", "−260.9 ± 5.4", ""),
    "all+mc": ("0.003032", "−280.9 ± 5.6", ""),
}

# The default budget: the recipe of the default net (nets/README.md), with two
# whole self-play files held out for validation.
FULL = dict(
    data=[str(SHARED / "train" / "*.zst")],
    validation=[str(SHARED / "train" / "sf5k-s14.txt.zst"), str(SHARED / "train" / "sf5k-r08-s16.txt.zst")],
    ft=512, hidden=32, epochs=6, samples=None, mirror=False, batch=8192, lr="1e-3", limit=None,
    games=200, tc="movetime=100", nodes=25000, puzzles=1000, puzzle_nodes=1000, bench_depth=11,
    stats_file=str(SHARED / "pgn" / "lichess_user_games_3970.pgn"),
)
# A budget for the tests: every step, in seconds.
TINY = dict(FULL, validation=[], ft=32, hidden=8, epochs=1, batch=64, limit=600, games=2, tc="movetime=50",
            nodes=300, puzzles=3, puzzle_nodes=100, bench_depth=3)

# The training data an experiment can be run on. `shared`: the files of
# ../shared/data/train, two whole self-play files held out. `scale`: those files
# and every generation run (`*.bin` of tessera-datagen) in --gen, with the default
# net's recipe (nets/README.md): mirrors, its four held-out files, a budget of
# 100 M samples seen, and the timed games at 10+0.1.
DATA = ["shared", "scale"]
DEFAULT_DATA = {"scale": "scale"}  # any other experiment: shared
SCALE = dict(samples=100_000_000, epochs=None, mirror=True, tc="10+0.1")
# For the tests: 100 samples of each shared file (not a total that the shared
# files would fill before the runs are read) and the whole (small) runs.
TINY_SCALE = dict(samples=2_000, epochs=None, mirror=True, limit=None)

# The default net's held-out files: the last games of the TCEC and human-game
# files (a tail holds out whole games), and two whole self-play files.
HELD_OUT = [("tcec-archive.txt.zst", 60_000, "tcec-tail60k.txt"),
            ("lichess3970-sf5k.txt.zst", 20_000, "lichess-tail20k.txt"),
            ("sf5k-s14.txt.zst", None, None),
            ("sf5k-r08-s16.txt.zst", None, None)]

# The training positions (after filters and deduplication) of the shared-data
# experiments' reports in research/ (research/feature-sets.md, "data"): their place
# on the data-size chart of a study on other data.
SHARED_POSITIONS = 3_300_000

# `nodes`: the games at a fixed node count (load-immune); `time`: at a fixed
# time per move (a quiet machine).
STEPS = ["train", "stats", "speed", "puzzles", "nodes", "time"]


def log(message: str) -> None:
    print(f"study: {message}", file=sys.stderr, flush=True)


def run(cmd: list[str], out: Path | None = None, env: dict | None = None) -> str:
    """Runs a command; stops the study with its output if it fails. With `out`, also keeps stdout there."""
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env={**os.environ, **(env or {})})
    if proc.returncode != 0:
        report.die(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(out.suffix + ".tmp")
        tmp.write_text(proc.stdout)
        tmp.replace(out)
    return proc.stdout


def held_out(study: Path) -> list[str]:
    """The default net's four held-out files: the whole ones from the shared folder, the
    tails written once into DIR/val (zstd's command decompresses them)."""
    files = []
    for name, tail, out_name in HELD_OUT:
        source = SHARED / "train" / name
        if not source.exists():
            report.die(f"held-out file {source} not found")
        if tail is None:
            files.append(str(source))
            continue
        out = study / "val" / out_name
        if not out.exists():
            if not shutil.which("zstd"):
                report.die("the zstd command is needed to cut the held-out tails (apt-get install zstd)")
            log(f"held out: the last {tail} lines of {name} -> {out}")
            with subprocess.Popen(["zstd", "-dcq", str(source)], stdout=subprocess.PIPE, text=True) as proc:
                lines = collections.deque(proc.stdout, maxlen=tail)
            if proc.returncode != 0:
                report.die(f"zstd could not read {source}")
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix(".tmp")
            tmp.write_text("".join(lines))
            tmp.replace(out)
        files.append(str(out))
    return files


@functools.cache
def record_bytes() -> int:
    """Bytes of one record of tessera-datagen's `.bin` files, as the trainer that reads them
    says (`tessera-trainer formats`): the size is tessera-data's, not this script's."""
    listing = subprocess.run([str(binaries()[1]), "formats"], capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        name, _, size = line.split("\t")
        if name == "record":
            return int(size)
    report.die(f"`tessera-trainer formats` names no record format:\n{listing}")


def parse_factors(specs: list[str]) -> list[tuple[str, float]]:
    """`--score-factor PATTERN=F` arguments: a run-name glob and a positive factor."""
    factors = []
    for spec in specs:
        pattern, _, value = spec.rpartition("=")
        try:
            factor = float(value)
        except ValueError:
            factor = 0.0
        if not pattern or not (factor > 0 and math.isfinite(factor)):
            report.die(f"--score-factor {spec!r}: PATTERN=FACTOR with a positive factor, e.g. 'all-own400-*=1.15'")
        factors.append((pattern, factor))
    return factors


def factor_of(name: str, factors: list[tuple[str, float]]) -> float:
    """The score factor of a run: that of the first pattern its name matches, else 1."""
    return next((factor for pattern, factor in factors if fnmatch.fnmatchcase(name, pattern)), 1.0)


def factor_note(factor: float) -> str:
    """What a run's listing adds for its score factor: nothing at 1."""
    return f" (scores ×{factor:g})" if factor != 1 else ""


def pin_runs(gen: Path, study: Path, factors: list[tuple[str, float]] | None = None) -> list[tuple[str, int, float]]:
    """The generation runs a study trains on, fixed when it starts: the whole records of
    each `*.bin` in `gen` at that moment, copied into STUDY/gen with a manifest of their
    counts and score factors (`--score-factor`: runs labelled on another scale, e.g. by the
    game's own search). A run still being written goes on growing in `gen`, not there, so
    every net of the study, in this session or a later one, sees the same records (a study
    of twelve nets takes several sessions). Returns each run's name, records and factor;
    factors given again must be the ones the study was fixed with."""
    pinned = study / "gen"
    manifest = pinned / "manifest.txt"
    if manifest.exists():
        runs = [(fields[0], int(fields[1]), float(fields[2]) if len(fields) > 2 else 1.0) for fields in
                (line.split() for line in manifest.read_text().splitlines() if line.strip())]
        if factors is not None and (wanted := [factor_of(name, factors) for name, _, _ in runs]) != [
                factor for _, _, factor in runs]:
            report.die("--score-factor: the study fixed its runs with the factors "
                       + ", ".join(f"{name} ×{factor:g}" for name, _, factor in runs)
                       + ", not " + ", ".join(f"×{f:g}" for f in wanted) + ": start over with another --dir")
        for name, count, _ in runs:
            copy = pinned / name
            if not copy.is_file() or copy.stat().st_size != count * record_bytes():
                report.die(f"{copy} does not hold the {count:,} records the study started with: "
                           f"start over with another --dir (or delete {study})")
        fixed = {name: count for name, count, _ in runs}
        now = {p.name: p.stat().st_size // record_bytes() for p in gen.glob("*.bin")} if gen.is_dir() else {}
        if grown := [f"{name} +{now[name] - fixed.get(name, 0):,}" for name in sorted(now) if now[name] > fixed.get(name, 0)]:
            log(f"left out, made after the study fixed its data: {', '.join(grown)} records in {gen}")
        return runs
    found = sorted(gen.glob("*.bin"))
    if not found:
        report.die(f"--data scale: no generation run (*.bin) in {gen}; give the folder with --gen")
    if net_of_any(study):
        report.die(f"{study} holds nets trained before the study fixed its generation runs: "
                   "their data is not known; start over with another --dir")
    partial = study / "gen.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    runs = []
    for path in found:
        records = path.stat().st_size // record_bytes()
        left = records * record_bytes()
        with path.open("rb") as source, (partial / path.name).open("wb") as copy:
            while left:
                chunk = source.read(min(left, 1 << 24))
                if not chunk:
                    report.die(f"{path} shrank while it was copied")
                copy.write(chunk)
                left -= len(chunk)
        runs.append((path.name, records, factor_of(path.name, factors or [])))
    (partial / "manifest.txt").write_text("".join(f"{name} {count}" + (f" {factor:g}" if factor != 1 else "") + "\n"
                                                  for name, count, factor in runs))
    partial.rename(pinned)
    log(f"the study's generation runs, fixed in {pinned}: "
        + ", ".join(f"{name} {count:,}{factor_note(factor)}" for name, count, factor in runs) + " records")
    return runs


def net_of_any(study: Path) -> bool:
    """Whether any set of the study has a finished net."""
    runs = study / "runs"
    return runs.is_dir() and any(net_of(d) is not None for d in runs.iterdir() if d.is_dir())


def data_budget(budget: dict, data: str, gen: Path, study: Path, tiny: bool,
                factors: list[tuple[str, float]] | None = None) -> dict:
    """The budget with the training data named by --data (see DATA)."""
    if data == "shared":
        return budget
    scaled = dict(budget, **(TINY_SCALE if tiny else SCALE))
    scaled["runs"] = pin_runs(gen, study, factors)
    # Relative to the repository (the trainer runs there), so the report names no machine's path.
    shared = [f"{spec}:100" for spec in budget["data"]] if tiny else budget["data"]
    pinned = os.path.relpath(study / "gen", ROOT)
    if all(factor == 1 for _, _, factor in scaled["runs"]):
        scaled["data"] = shared + [os.path.join(pinned, "*.bin")]
    else:  # each run by name, with its factor (the trainer's PATH:xF)
        scaled["data"] = shared + [os.path.join(pinned, name) + (f":x{factor:g}" if factor != 1 else "")
                                   for name, _, factor in scaled["runs"]]
    scaled["validation"] = [] if tiny else held_out(study)
    return scaled


def check_data_of(study: Path, data: str) -> None:
    """A study folder holds the nets of one data set: refuses another (its nets would be
    taken for finished ones)."""
    marker = study / "data.txt"
    if marker.exists() and (had := marker.read_text().strip()) != data:
        report.die(f"{study} holds nets trained on --data {had}, not {data}: give another --dir")
    study.mkdir(parents=True, exist_ok=True)
    marker.write_text(data + "\n")


def release_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "release"


def binaries() -> tuple[Path, Path]:
    """The engine and trainer of this checkout: $TESSERA_BIN and $TESSERA_TRAINER if set
    (the tests pass the ones `make test` built), or built now."""
    engine, trainer = os.environ.get("TESSERA_BIN"), os.environ.get("TESSERA_TRAINER")
    if not (engine and trainer):
        run(["cargo", "build", "--release", "--quiet", "--workspace"])
    return Path(engine or release_dir() / "tessera"), Path(trainer or release_dir() / "tessera-trainer")


def net_of(run_dir: Path) -> Path | None:
    nets = sorted(run_dir.glob("*.nnue"))
    return nets[0] if nets else None


def train(fs: str, budget: dict, study: Path, trainer_bin: str) -> Path:
    run_dir = study / "runs" / fs
    if (net := net_of(run_dir)) is not None:
        log(f"{fs}: net {net.name} already trained")
        return net
    log(f"{fs}: training")
    length = ["--samples", str(budget["samples"])] if budget["samples"] else ["--epochs", str(budget["epochs"])]
    cmd = [trainer_bin, "--features", fs, "--ft", str(budget["ft"]), "--hidden", str(budget["hidden"]), *length,
           "--batch", str(budget["batch"]), "--lr", budget["lr"], "--schedule", "cosine", "--lambda", "0",
           "--seed", "1", "--out", str(run_dir), "--data", *budget["data"]]
    if budget["mirror"]:
        cmd.append("--mirror")
    if budget["validation"]:
        cmd += ["--validation", *budget["validation"]]
    else:
        cmd += ["--validation-permille", "100"]
    if budget["limit"]:
        cmd += ["--limit", str(budget["limit"])]
    run(cmd, out=study / "logs" / f"train-{fs}.txt")
    net = net_of(run_dir)
    if net is None:
        report.die(f"the trainer wrote no net into {run_dir}")
    return net


def build(net: Path) -> Path:
    """The engine with `net` embedded (tournaments/lib.sh caches it by the net's hash)."""
    out = run(["bash", "-c", f'TOURNAMENTS="{TOURNAMENTS}"; . "{TOURNAMENTS}/lib.sh"; resolve_engine "net:$1"', "-", str(net)])
    return Path(out.strip().split("=", 1)[1])


def validation_loss(study: Path, fs: str) -> str:
    return training_facts(study, fs).get("loss", "")


def training_facts(study: Path, fs: str) -> dict:
    """From a set's training log: its training positions (after filters, deduplication
    and mirrors; `distinct`: before the mirrors), epochs, samples seen, seconds of the
    last run, the validation loss of the last epoch, and that of each held-out file (by
    name)."""
    path = study / "logs" / f"train-{fs}.txt"
    text = path.read_text() if path.exists() else ""
    facts: dict = {"per_file": dict(re.findall(r"^validation loss (\S+): (\d\.\d+)$", text, re.M))}
    if losses := re.findall(r"^validation loss (\d\.\d+)$", text, re.M):
        facts["loss"] = losses[-1]
    if m := re.search(r"^(\d+) training samples", text, re.M):
        facts["positions"] = int(m.group(1))
        mirrors = re.search(r"^mirrors: (\d+) added", text, re.M)
        facts["distinct"] = facts["positions"] - (int(mirrors.group(1)) if mirrors else 0)
    if m := re.search(r"^--samples \d+: (\d+) epochs, (\d+) samples seen", text, re.M):
        facts["epochs"], facts["seen"] = int(m.group(1)), int(m.group(2))
    if m := re.search(r"^trained \d+ epochs here in ([\d.]+) s", text, re.M):
        facts["seconds"] = float(m.group(1))
    return facts


def budget_text(budget: dict, study: Path) -> str:
    """How long each net trained: whole epochs, or a number of samples seen with the
    epochs and positions that made it (from the reference's training log)."""
    if not budget["samples"]:
        return f"{budget['epochs']} epochs"
    facts = training_facts(study, REFERENCE)
    if "seen" not in facts:
        return f"{budget['samples']:,} samples seen"
    took = f", {facts['seconds'] / 60:.0f} min for `{REFERENCE}` on this machine" if "seconds" in facts else ""
    mirrored = f", {facts['positions'] / 1e6:.2f} M with the mirrors" if facts["positions"] != facts["distinct"] else ""
    return (f"{facts['seen'] / 1e6:.1f} M samples seen ({facts['epochs']} epochs over "
            f"{facts['distinct'] / 1e6:.2f} M training positions after filters and deduplication{mirrored}{took})")


def per_file_table(sets: list[str], study: Path) -> str:
    """Validation loss per held-out file, one row per set (empty when the logs have none)."""
    losses = {fs: training_facts(study, fs)["per_file"] for fs in sets}
    files = sorted({name for per_file in losses.values() for name in per_file})
    if not files:
        return ""
    rows = [[f"`{fs}`", *(losses[fs].get(name, "–") for name in files)] for fs in sets if losses[fs]]
    return "\nValidation loss per held-out file:\n\n" + report.table(["set", *(f"`{name}`" for name in files)], rows)


def train_loss(study: Path, fs: str) -> str:
    """The last epoch's mean training loss (loss.csv), beside the validation loss: a
    training loss far below the validation loss is the mark of overfitting."""
    path = study / "runs" / fs / "loss.csv"
    lines = path.read_text().splitlines() if path.exists() else []
    if len(lines) < 2:
        return ""
    columns = dict(zip(lines[0].split(","), lines[-1].split(",")))
    return f"{float(columns['train_loss']):.6f}" if columns.get("train_loss") else ""


def datagen_binary() -> Path:
    """tessera-datagen of this checkout ($TESSERA_DATAGEN if set), built where missing."""
    given = os.environ.get("TESSERA_DATAGEN")
    path = Path(given) if given else release_dir() / "tessera-datagen"
    if not path.exists():
        run(["cargo", "build", "--release", "--quiet", "-p", "tessera-datagen"])
    return path


def stats(fs: str, engine: Path, budget: dict, study: Path) -> dict:
    out = study / "stats" / f"{fs}.md"
    if not out.exists():
        log(f"{fs}: feature statistics")
        run([str(datagen_binary()), "stats", budget["stats_file"], "--features", fs], out=out)
    rows = [l for l in out.read_text().splitlines() if l.startswith("| ") and not l.startswith("| block")]
    size, active, added, removed, refresh = report.cells(rows[-1])[1:6]
    return {"inputs": size, "active": active, "updates": f"{float(added) + float(removed):.2f}", "refresh": refresh}


def speed(fs: str, engine: Path | None, budget: dict, study: Path, experiment: str) -> str:
    """`bench` nps, kept per experiment: the column is read as ratios to `all`, so each
    experiment's `all` is the one benched with its sets, not another experiment's."""
    out = study / "speed" / experiment / f"{fs}.txt"
    if not out.exists():
        if engine is None:
            return ""
        log(f"{fs}: bench {budget['bench_depth']}")
        run([str(engine), "bench", str(budget["bench_depth"])], out=out)
    last = out.read_text().strip().splitlines()[-1].split()
    return last[2] if len(last) == 4 and last[3] == "nps" else ""


def puzzles(fs: str, engine: Path | None, budget: dict, study: Path) -> str:
    """Puzzle move accuracy at a fixed number of nodes a move: load-immune, and at
    1000 nodes below the ceiling that 100 ms reaches (99.7–100% for every set we
    tried), so it separates evaluations."""
    name = "study-" + re.sub(r"[^A-Za-z0-9._-]", "_", fs) + f"-n{budget['puzzle_nodes']}"
    out = study / "puzzles" / f"{name}.md"
    if not out.exists():
        if engine is None:
            return ""
        log(f"{fs}: {budget['puzzles']} puzzles at {budget['puzzle_nodes']} nodes")
        run([sys.executable, str(TOURNAMENTS / "puzzles.py"), name, "--engine", str(engine),
             "--nodes", str(budget["puzzle_nodes"]), "--limit", str(budget["puzzles"])],
            env={"RESULTS_DIR": str(study / "puzzles")})
    m = re.search(r"\| move accuracy \| \*\*([\d.]+)%\*\*", out.read_text())
    return f"{float(m.group(1)) / 100:.4f}" if m else ""


def portable(text: str, study: Path, gen: Path | None = None) -> str:
    """Text a reader on another machine can follow: the study folder is written as DIR
    (the --dir of the command), the folder of generation runs as GEN (the --gen) and the
    shared data as ../shared/data, never as this machine's paths. A folder is replaced
    however it is spelt (absolute, as given, or relative to the repository, as the
    trainer is given the pinned runs), but only as a whole path: `study-scale` is not
    the start of `study-scale-time`, and a bare name (`--dir study`) is not replaced in
    the prose, where it would be an ordinary word."""
    names: dict[str, str] = {}
    for folder, label in [(study, "DIR")] + ([(gen, "GEN")] if gen is not None else []):
        for spelling in {str(folder), str(folder.resolve()), os.path.relpath(folder.resolve(), ROOT)}:
            if os.sep in spelling.strip(os.sep) or os.path.isabs(spelling):
                names.setdefault(spelling, label)
    for spelling in {str(SHARED), str(SHARED.resolve())}:
        names[spelling] = "../shared/data"
    for spelling in sorted(names, key=len, reverse=True):  # a folder before the folders inside it
        text = re.sub(rf"(?<![\w./-]){re.escape(spelling)}(?![\w.-])", names[spelling], text)
    return text


def command_line(args: list[str]) -> str:
    """The study's command with its --dir and --gen given as absolute paths, which
    `portable` then writes as DIR and GEN however they were typed."""
    out, folder_next = [], False
    for arg in args:
        if folder_next:
            arg = str(Path(arg).resolve())
        elif arg.startswith(("--dir=", "--gen=")):
            flag, value = arg.split("=", 1)
            arg = f"{flag}={Path(value).resolve()}"
        out.append(arg)
        folder_next = arg in ("--dir", "--gen")
    return "tournaments/study.py " + " ".join(out)


def default_data(experiment: str) -> str:
    """The data an experiment is run on unless --data says otherwise."""
    return DEFAULT_DATA.get(experiment, "shared")


def study_name(experiment: str, data: str) -> str:
    """What the study's tables, report and charts are named after: the experiment, and
    the data's name where it is not the experiment's default (`axes-scale`)."""
    return experiment if data == default_data(experiment) else f"{experiment}-{data}"


def study_command(experiment: str, data: str) -> str:
    """The arguments that name a study (`axes --data scale`)."""
    return experiment if study_name(experiment, data) == experiment else f"{experiment} --data {data}"


def table_name(name: str, kind: str, extra: str | None = None) -> str:
    """`study-NAME-KIND` (NAME from `study_name`), or with --table EXTRA an extra table
    beside it, `study-NAME-KIND-EXTRA` (a replay on one machine, a top-up of a few sets)."""
    return f"study-{name}-{kind}" + (f"-{extra}" if extra else "")


def dir_note(command: str, extra: str | None = None) -> str:
    trains = (f"DIR is the study folder: `tournaments/study.py {command} --dir DIR` trains these nets into "
              "DIR/runs (deterministically, seed 1) and ")
    if not extra:
        return trains + "plays this table."
    return trains + (f"`--table {extra}` plays this one beside the experiment's main table, for the sets given "
                     "with `--sets`; the report takes each set's figure from the table where it played the most games.")


def results_dir() -> Path:
    return Path(os.environ.get("RESULTS_DIR") or TOURNAMENTS / "results")


def play(name: str, command: str, kind: str, tc: str, budget: dict, nets: dict[str, Path], study: Path,
         extra: str | None) -> None:
    """Every set against the reference (gauntlet.sh: resumable per pairing), into the
    kind's table or, with `extra`, the extra table of that name."""
    others = [f"net:{nets[fs]}" for fs in nets if fs != REFERENCE]
    if not others:
        return
    table = table_name(name, kind, extra)
    log(f"games at {tc}: {len(others)} sets × {budget['games']} games against {REFERENCE} ({table})")
    run([str(TOURNAMENTS / "gauntlet.sh"), table, tc, str(budget["games"]), f"net:{nets[REFERENCE]}", *others])
    results = results_dir() / f"{table}.md"
    if results.exists():
        text = portable(results.read_text(), study)
        if dir_note(command, extra) not in text:
            text = text.rstrip("\n") + "\n\n" + dir_note(command, extra) + "\n"
        results.write_text(text)


def table_games(rows: list[list[str]]) -> dict[str, tuple[str, int]]:
    """Each set's engine name (SET_SHAPE) and games against the reference, from the rows
    of a table's scores of the reference: opponent, games, wins, losses, draws, score."""
    return {row[0].rsplit("_", 1)[0]: (row[0], int(row[1])) for row in rows if len(row) == 6 and row[1].isdigit()}


def main_table_games(name: str, kind: str) -> dict[str, int]:
    """The games each set played against the reference in the kind's main table."""
    return {fs: played for fs, (_, played) in table_games(table_rows(results_dir() / f"{table_name(name, kind)}.md")).items()}


def table_companions(name: str, kind: str, sets: list[str], games: int, study: Path,
                     extra: str | None) -> dict[str, Path]:
    """The nets of the sets that the kind's main table holds beside this run's. gauntlet.sh
    writes a table of the opponents it is given only, so a run of some sets (--sets) gives
    it the others too, or their rows would be lost from the table; they play nothing, their
    games being played. Where that cannot be (an other set's net is not in DIR, as on a new
    machine, or it has fewer games than this run plays, and would be topped up), the run is
    refused before any work. An extra table (--table) holds only its own sets."""
    if extra:
        return {}
    others = {fs: n for fs, n in main_table_games(name, kind).items() if fs not in sets and fs != REFERENCE}
    nets, problems = {}, []
    for fs, played in others.items():
        if (net := net_of(study / "runs" / fs)) is None:
            problems.append(f"`{fs}` (no net in {study / 'runs' / fs})")
        elif played < games:
            problems.append(f"`{fs}` ({played} games, fewer than this run's {games})")
        else:
            nets[fs] = net
    if problems:
        report.die(f"results/{table_name(name, kind)}.md also holds the games of {', '.join(problems)}; "
                   f"replaying some sets there would drop their rows or top them up. Play these sets "
                   f"into an extra table with --table NAME, or leave the games out with --skip {kind}")
    return nets


def table_rows(path: Path) -> list[list[str]]:
    """The cells of every table row of a markdown file; none without the file."""
    return [report.cells(line) for line in path.read_text().splitlines() if line.startswith("|")] if path.exists() else []


def set_results(name: str, kind: str) -> dict[str, dict]:
    """Each set's games against the reference and its Elo and ± (empty where Ordo could
    not rate them, e.g. after a clean sweep), from whichever of the kind's tables (the
    main one, then the extra ones of --table runs) it played the most games in; the main
    table wins a tie. A set is named in a table as SET_SHAPE."""
    tables = [results_dir() / f"{table_name(name, kind)}.md"]
    tables += sorted(results_dir().glob(f"{table_name(name, kind)}-*.md"))
    best: dict[str, dict] = {}
    for table in tables:
        rows = table_rows(table)
        hardware = next((row[1] for row in rows if len(row) == 2 and row[0] == "hardware"), "?")
        # Ordo ratings: #, engine, Elo, ±, points, games, score (the reference's ± is "-").
        elo = {row[1]: (row[2], row[3]) for row in rows if len(row) == 7 and row[0].isdigit() and row[3] != "-"}
        for fs, (engine, played) in table_games(rows).items():
            if fs not in best or played > best[fs]["games"]:
                best[fs] = dict(elo=elo.get(engine, ("", "")), games=played, table=table, hardware=hardware)
    return best


def games_per_set(results: dict[str, dict], sets: list[str]) -> str | None:
    """Games each of these sets played against the reference ("400", or "200–400" when
    a top-up reached only some sets); None without any. A step left out keeps an
    earlier run's games, which need not be this run's --games."""
    counts = sorted({results[fs]["games"] for fs in sets if fs in results})
    if not counts:
        return None
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"


def sources_note(name: str, kind: str, what: str, results: dict[str, dict], sets: list[str]) -> str:
    """Which extra tables the report's cells of one kind come from, with their machines
    (time-based cells from different machines are not strictly comparable); empty when
    every cell comes from the main table."""
    main = f"{table_name(name, kind)}.md"
    by_table: dict[Path, list[str]] = {}
    for fs in sets:
        if fs in results and results[fs]["table"].name != main:
            by_table.setdefault(results[fs]["table"], []).append(fs)
    if not by_table:
        return ""
    parts = [f"{', '.join('`' + fs + '`' for fs in fss)} from `results/{table.name}` "
             f"({'/'.join(sorted({str(results[fs]['games']) for fs in fss}))} games, {results[fss[0]]['hardware']})"
             for table, fss in by_table.items()]
    in_main = [fs for fs in sets if fs in results and results[fs]["table"].name == main]
    rest = f"the others from `results/{main}` ({results[in_main[0]]['hardware']})" if in_main else ""
    return (f"The {what} column: {'; '.join(parts)}{'; ' + rest if rest else ''}: each set's figure comes from "
            "the table where it played the most games against `all`.\n")


def earlier_rows(path: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The header and the rows (by set) of the report a run wrote before, so that a run
    of a few sets (--sets), or one on a machine without the earlier measurements, keeps
    what it does not measure itself."""
    lines = main_table(path.read_text()) if path.exists() else []
    if not lines:
        return [], {}
    rows = {row[0].strip("`"): row for row in map(report.cells, lines[1:]) if row and row[0].startswith("`")}
    return report.cells(lines[0]), rows


def main_table(text: str) -> list[str]:
    """The lines of a report's first table (its header and rows, not the separator): the
    tables after it (validation loss per file, the comparison with the shared data) name
    the same sets in other columns."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("| ")), len(lines))
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        if not line.startswith("|---"):
            table.append(line)
    return table


def write_report(experiment: str, name: str, sets: list[str], rows: dict, budget: dict, path: Path,
                 skipped: list[str], study: Path, results: dict[str, dict[str, dict]],
                 gen: Path | None = None) -> list[list[str]]:
    """Writes the report of study `name` (an `experiment` on its data) and returns its rows
    (the sets measured now and those kept)."""
    header = ["set", "inputs", "active / position", "updates / move", "refresh rate", "train loss", "val. loss",
              f"Elo vs all, {budget['tc']}", f"Elo vs all, {budget['nodes']} nodes",
              f"puzzle move acc., {budget['puzzle_nodes']} nodes", "nps",
              "thesis val. loss", "thesis Elo", "thesis puzzle acc."]
    old_header, old_rows = earlier_rows(path)
    if old_header != header:  # another budget: nothing of it carries over
        old_rows = {}
    old_run = dict((r[0], r[1]) for r in map(report.cells, path.read_text().splitlines()) if len(r) == 2) if old_rows else {}
    measured, kept_cells = {}, []
    for fs in [REFERENCE] + sets:
        r = rows[fs]
        thesis = THESIS.get(fs, ("", "", ""))
        fmt = lambda e: "0" if fs == REFERENCE else (f"{e[0]} ± {e[1]}" if e and e[0] else "–")
        cells = [f"`{fs}`", r["inputs"], r["active"], r["updates"], r["refresh"], r["train_loss"] or "–", r["loss"] or "–",
                 fmt(r.get("elo_time")), fmt(r.get("elo_nodes")), r.get("puzzles") or "–",
                 r.get("nps") or "–", *(t or "–" for t in thesis)]
        if fs in old_rows:
            if kept := [header[i] for i, (c, o) in enumerate(zip(cells, old_rows[fs])) if c == "–" != o]:
                kept_cells.append(f"`{fs}` {', '.join(kept)}")
            cells = [o if c == "–" else c for c, o in zip(cells, old_rows[fs])]
        measured[fs] = cells
    order = [REFERENCE] + [fs for fs in EXPERIMENTS[experiment] if fs in measured or fs in old_rows]
    kept_sets = [fs for fs in order if fs not in measured]
    table_rows = [measured.get(fs) or old_rows[fs] for fs in order]
    text = f"# Feature-set study: {name}\n\n" + report.table(header, table_rows)
    shown = [fs for fs in order if fs != REFERENCE]
    played_time, played_nodes = (games_per_set(results[kind], shown) or str(budget["games"]) for kind in ("time", "nodes"))
    text += (f"\nBudget: {budget_text(budget, study)} of `{' '.join(budget['data'])}`"
             f"{' (at most ' + str(budget['limit']) + ' lines)' if budget['limit'] else ''}, "
             f"validation on {', '.join('`' + Path(v).name + '`' for v in budget['validation']) or '10% of the lines'}, "
             f"{budget['ft']}×2-{budget['hidden']}-1, batch {budget['batch']}, lr {budget['lr']} cosine, λ 0, seed 1"
             f"{', mirrors' if budget['mirror'] else ''}; "
             f"{played_time} games per set against `all` at {budget['tc']} and "
             f"{'at' if played_nodes == played_time else played_nodes + ' at'} {budget['nodes']} nodes a move "
             f"(tables `results/study-{name}-time.md` and `-nodes.md`, Ordo, `all` = 0); "
             f"{budget['puzzles']} puzzles at {budget['puzzle_nodes']} nodes a move; statistics over "
             f"`{Path(budget['stats_file']).name}`; nps from `bench {budget['bench_depth']}`.\n")
    if budget.get("runs"):
        text += ("\nGeneration runs (the first records of each, as many as it held when the study started, "
                 "copied into the study's `gen/`; `head -c $((RECORDS * 32)) RUN.bin` remakes a copy): "
                 + ", ".join(f"`{name}` {count:,}{factor_note(factor)}" for name, count, factor in budget["runs"])
                 + ".\n")
    for kind, what in [("time", budget["tc"]), ("nodes", f"{budget['nodes']} nodes")]:
        if note := sources_note(name, kind, f"Elo vs all, {what}", results[kind], shown):
            text += "\n" + note
    text += per_file_table(order, study)
    if skipped:
        text += (f"\nSteps left out of this run: {', '.join(skipped)}; their columns show what an earlier "
                 "run measured, or – where none did.\n")
    if kept_sets or kept_cells:
        kept = ([f"the rows of {', '.join('`' + fs + '`' for fs in kept_sets)} (not in this run)"] if kept_sets else []) + (
            [f"what this run could not measure (no earlier measurement in DIR): {'; '.join(kept_cells)}"] if kept_cells else [])
        text += (f"\nKept from the report written before (commit {old_run.get('commit', '?')}, "
                 f"{old_run.get('hardware', '?')}): {', and '.join(kept)}.\n")
    text += "\n" + report.table(["", ""], report.provenance_rows())
    text += f"\nCommand: `{command_line(sys.argv[1:])}`\n"
    text = portable(text, study, gen)
    if re.search(r"--gen[ =]GEN\b", text):
        text += "\nGEN is the folder of the generation runs named above (their commands: nets/README.md).\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(text)
    log(f"wrote {path}")
    return table_rows


def draw(trainer_bin: Path, cmd: list[str]) -> None:
    """One chart by the trainer's chart subcommands. A chart is a convenience: without a
    font (fonts-dejavu-core) the tables still stand, so a failure is reported, not fatal."""
    proc = subprocess.run([str(trainer_bin), *cmd], capture_output=True, text=True)
    log(proc.stdout.strip() if proc.returncode == 0 else f"no chart: {proc.stderr.strip()}")


def loss_chart(name: str, title: str, sets: list[str], study: Path, out_dir: Path, trainer_bin: Path) -> None:
    """Validation loss per epoch of every set that has a run, on one chart. A chart
    drawn earlier is kept when some sets' runs are not in `study` (a new machine, say):
    redrawn, it would silently lose their curves."""
    out = out_dir / f"{name}-loss.png"
    missing = [fs for fs in sets if not (study / "runs" / fs / "loss.csv").exists()]
    if missing and out.exists():
        log(f"{out.name} kept as it is: no run in {study / 'runs'} for {', '.join(missing)}")
        return
    losses = [f"{fs}={study / 'runs' / fs / 'loss.csv'}" for fs in sets if fs not in missing]
    if losses:
        draw(trainer_bin, ["loss-chart", "--out", str(out), "--title", title, *losses])


def elo_chart(name: str, kind: str, title: str, elos: dict[str, str], out_dir: Path, trainer_bin: Path) -> None:
    """Elo against `all` with its 95% error bar, one bar per set (`elos`: set -> "E ± W").
    None when no set has one yet (a match won or lost by every game has no finite
    Elo): said, so that a missing chart is not mistaken for a failure to draw it."""
    if not elos:
        log(f"no chart: {name}-elo-{kind}.png: no set has an Elo with an error bar yet")
    else:
        draw(trainer_bin, ["elo-chart", "--out", str(out_dir / f"{name}-elo-{kind}.png"), "--title", title,
                           *(f"{fs}={elo}" for fs, elo in elos.items())])


def short_machine(hardware: str) -> str:
    """"Intel(R) Xeon(R) Processor, 16 cores" -> "16-core Intel Xeon": for a chart's title."""
    name, _, cores = hardware.partition(", ")
    name = " ".join(re.sub(r"\(R\)|\(TM\)|\bProcessor\b|\bCPU\b", "", name).split())
    m = re.fullmatch(r"(\d+) cores?", cores)
    return f"{m.group(1)}-core {name}" if m else name


def machines(results: dict[str, dict], sets: list[str]) -> str:
    """" (a, b: 2-core AMD EPYC; rest: 16-core Intel Xeon)" when these sets' figures
    were played on more than one machine (by their tables' hardware), else empty:
    for a timed chart's title."""
    by_machine: dict[str, list[str]] = {}
    for fs in sets:
        if fs in results:
            by_machine.setdefault(short_machine(results[fs]["hardware"]), []).append(fs)
    if len(by_machine) < 2:
        return ""
    groups = sorted(by_machine.items(), key=lambda kv: len(kv[1]))
    return " (" + "; ".join([f"{', '.join(fss)}: {hw}" for hw, fss in groups[:-1]] + [f"rest: {groups[-1][0]}"]) + ")"


def charts(study_label: str, table_rows: list[list[str]], budget: dict, study: Path, out_dir: Path,
           trainer_bin: Path, results: dict[str, dict[str, dict]]) -> None:
    """PNGs beside the report: validation loss per epoch of every set on one chart, and
    Elo against `all` with its error bar for each kind of games that has results (from
    the report's rows: `set`, …, Elo at the time, Elo at the nodes, …)."""
    name = f"study-{study_label}"
    sets = [row[0].strip("`") for row in table_rows]
    loss_chart(name, f"{study_label}: validation loss per epoch", sets, study, out_dir, trainer_bin)
    for kind, column, what in [("nodes", 8, f"{budget['nodes']} nodes a move"), ("time", 7, budget["tc"])]:
        elos = {row[0].strip("`"): row[column].replace(" ± ", "±") for row in table_rows
                if row[0] != f"`{REFERENCE}`" and " ± " in row[column]}
        where = machines(results[kind], list(elos)) if kind == "time" else ""
        title = f"{study_label}, {what}{where}" if where else f"{study_label}: Elo against all, {what} (95% interval)"
        elo_chart(name, kind, title, elos, out_dir, trainer_bin)


def report_elos(path: Path, column: str) -> dict[str, str]:
    """Each set's "E ± W" in the named column of a study report (none where the file or
    the column is missing, or the set has no error bar there)."""
    lines = main_table(path.read_text()) if path.exists() else []
    if not lines or column not in (header := report.cells(lines[0])):
        return {}
    at = header.index(column)
    rows = [report.cells(line) for line in lines[1:]]
    return {row[0].strip("`"): row[at] for row in rows if len(row) > at and " ± " in row[at]}


def shared_report_elos(out_dir: Path, column: str) -> dict[str, str]:
    """Each set's "E ± W" in the named column of the shared-data experiments' reports in
    `out_dir` (a set in several: its first experiment's)."""
    shared: dict[str, str] = {}
    for experiment in EXPERIMENTS:
        if default_data(experiment) == "shared":
            for fs, elo in report_elos(out_dir / f"study-{experiment}.md", column).items():
                shared.setdefault(fs, elo)
    return shared


def size_chart(name: str, report_path: Path, budget: dict, study: Path, out_dir: Path, trainer_bin: Path) -> None:
    """Each set's Elo against `all` at fixed nodes against the size of its training data:
    this study's (on data other than the shared files) beside the shared-data experiments'
    reports in `out_dir` (research/, or DIR with --tiny), one line per set."""
    facts = training_facts(study, REFERENCE)
    if "distinct" not in facts:
        log(f"no chart: {name}-elo-size.png: no training log of `{REFERENCE}` in {study} to size the data")
        return
    column = f"Elo vs all, {budget['nodes']} nodes"
    here = report_elos(report_path, column)
    shared = shared_report_elos(out_dir, column)
    size, base = facts["distinct"] / 1e6, SHARED_POSITIONS / 1e6
    lines = [f"{fs}={base:.4g}:{shared[fs]},{size:.4g}:{elo}" if fs in shared else f"{fs}={size:.4g}:{elo}"
             for fs, elo in here.items()]
    if not lines:
        log(f"no chart: {name}-elo-size.png: no set has an Elo with an error bar at {budget['nodes']} nodes yet")
        return
    draw(trainer_bin, ["size-chart", "--out", str(out_dir / f"study-{name}-elo-size.png"), "--title",
                       f"{name}: Elo against all by training data, {budget['nodes']} nodes a move (95% interval)",
                       *lines])


def elo_value(cell: str) -> tuple[float, float] | None:
    """(Elo, 95% half-width) from a report's "E ± W" cell (markup and notes around it allowed)."""
    m = re.search(r"([-−+]?\d+(?:\.\d+)?) ± (\d+(?:\.\d+)?)", cell)
    return (float(m.group(1).replace("−", "-")), float(m.group(2))) if m else None


def verdict(shared: tuple[float, float], scaled: tuple[float, float]) -> str:
    """What more data did to a shared-data finding (a set's Elo against `all`): `inside the
    error` where the larger data's result is within its own error of `all`, else `holds`
    where it has the shared result's sign and `reverses` where not."""
    (before, _), (after, error) = shared, scaled
    if abs(after) <= error:
        return "inside the error"
    return "holds" if before * after > 0 else "reverses"


def parsed_elos(cells: dict[str, str]) -> dict[str, tuple[float, float]]:
    """(Elo, 95% half-width) of each set whose cell holds an Elo with its error."""
    return {fs: v for fs, cell in cells.items() if (v := elo_value(cell))}


def compared_elos(before: dict[str, tuple[float, float]],
                  after: dict[str, tuple[float, float]]) -> list[tuple[str, list[str], bool]]:
    """Each set with an Elo in both (in `after`'s order): its cells before, after and the
    change with its 95% error (the two errors added in quadrature), and whether the change
    is within that error."""
    rows = []
    for fs in [fs for fs in after if fs in before]:
        (b, be), (a, ae) = before[fs], after[fs]
        error = (be * be + ae * ae) ** 0.5
        rows.append((fs, [f"{b:.1f} ± {be:.1f}", f"{a:.1f} ± {ae:.1f}", f"{a - b:+.1f} ± {error:.1f}"],
                     abs(a - b) <= error))
    return rows


def shared_comparison(report_path: Path, budget: dict, study: Path, out_dir: Path) -> str:
    """A table of each set's Elo against `all` at fixed nodes in the shared-data reports
    (in `out_dir`) and in this study's report, the change with its error and the verdict
    on the shared finding; empty where no set has both."""
    column = f"Elo vs all, {budget['nodes']} nodes"
    here = parsed_elos(report_elos(report_path, column))
    shared = parsed_elos(shared_report_elos(out_dir, column))
    rows = [[f"`{fs}`", *cells, verdict(shared[fs], here[fs])] for fs, cells, _ in compared_elos(shared, here)]
    if not rows:
        return ""
    facts = training_facts(study, REFERENCE)
    size = f"{facts['distinct'] / 1e6:.3g} M" if "distinct" in facts else "this study's"
    header = ["set", f"{column}, {SHARED_POSITIONS / 1e6:.2g} M positions", f"{column}, {size} positions",
              "change (95%)", "verdict"]
    return (f"\n## Against the shared-data study\n\n"
            f"Each set's Elo against `all` at {budget['nodes']} nodes a move in the shared-data reports "
            f"(research/study-EXPERIMENT.md) and here. Verdict on the shared finding: *inside the error* where "
            f"this study's result is within its error of `all`, else *holds* (the same sign) or *reverses*; "
            f"the change's error adds the two in quadrature.\n\n" + report.table(header, rows))


def replica_comparison(report_path: Path, original: Path, budget: dict) -> str:
    """A replica's Elo figures (a study run again under another name, on another draw of
    data of the same recipe) beside the original report's, set by set, for each kind of
    games both have: the difference with its error (the two added in quadrature), and
    whether the two agree within it; empty where no set has both."""
    rows = []
    for column in (f"Elo vs all, {budget['tc']}", f"Elo vs all, {budget['nodes']} nodes"):
        there = parsed_elos(report_elos(original, column))
        here = parsed_elos(report_elos(report_path, column))
        rows += [[f"`{fs}`", column.removeprefix("Elo vs all, "), *cells, "agree" if within else "differ"]
                 for fs, cells, within in compared_elos(there, here)]
    if not rows:
        return ""
    header = ["set", "games", f"Elo vs all, `{original.stem}`", "Elo vs all, here", "difference (95%)", "within the error"]
    return (f"\n## Against the original\n\nEach set's Elo against `all` in the original report "
            f"(`{original.name}`, other nets of the same recipe on another draw of its data) and here. "
            f"The two agree where their difference is within its error (the two errors added in "
            f"quadrature).\n\n" + report.table(header, rows))


def summary(folder: Path, study: Path, trainer_bin: Path) -> Path:
    """One table of every set measured so far: the rows of each experiment's report
    (`all` once), an experiment column first; and its charts: every set's validation
    loss per epoch (from the runs in `study`), Elo against `all` for each kind of games."""
    header, rows, seen = None, [], set()
    for experiment in EXPERIMENTS:
        if default_data(experiment) != "shared":
            continue  # another data size: its own report, not a row beside these
        path = folder / f"study-{experiment}.md"
        if not path.exists():
            continue
        lines = main_table(path.read_text())
        if header is None:
            header = ["experiment"] + report.cells(lines[0])
        for line in lines[1:]:
            row = report.cells(line)
            if row[0].startswith("`") and row[0] not in seen:
                seen.add(row[0])
                rows.append(["reference" if row[0] == f"`{REFERENCE}`" else experiment] + row)
    if header is None:
        report.die(f"no study-EXPERIMENT.md in {folder}: run an experiment first")
    text = ("# Feature-set study: every set measured so far\n\n" + report.table(header, rows)
            + "\nEach row comes from its experiment's report (`study-EXPERIMENT.md` beside this file), "
            "where its budget, machine and commit are. The timed columns (Elo at a fixed time a move, nps) "
            "depend on the machine: compare them within an experiment, whose tables name the machine "
            "that played them.\n"
            + f"\nCommand: `{command_line(sys.argv[1:])}`\n")
    text = portable(text, study)
    out = folder / "study-summary.md"
    out.write_text(text)
    print(text)
    log(f"wrote {out}")

    sets = [row[1].strip("`") for row in rows]
    loss_chart("study-summary", "every set: validation loss per epoch", sets, study, folder, trainer_bin)
    for column, elo_header in enumerate(header):
        if elo_header.startswith("Elo vs all, "):
            kind = "nodes" if elo_header.endswith(" nodes") else "time"
            elos = {row[1].strip("`"): row[column] for row in rows
                    if row[1] != f"`{REFERENCE}`" and row[column] not in ("", "–")}
            elo_chart("study-summary", kind, f"every set: {elo_header} (95% interval)", elos, folder, trainer_bin)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiment", nargs="?", choices=sorted(EXPERIMENTS))
    parser.add_argument("--list", action="store_true", help="print the experiments and their sets")
    parser.add_argument("--sets", help="only these sets of the experiment (comma-separated)")
    parser.add_argument("--dir", help="nets, logs and measurements (default tournaments/work/study, or study-DATA "
                                      "for data other than `shared`)")
    parser.add_argument("--data", choices=DATA, help="the training data (default: the experiment's; see above)")
    parser.add_argument("--name", help="the study's name for its tables, report and charts (default: the "
                                       "experiment's, and the data's where it is not the experiment's own): a "
                                       "replica on other data of the same recipe beside the original, say "
                                       "(`scale-r2`: results/study-scale-r2-nodes.md, research/study-scale-r2.md)")
    parser.add_argument("--gen", default=str(TOURNAMENTS / "work" / "gen"),
                        help="the folder of generation runs (*.bin) that --data scale adds to the shared files")
    parser.add_argument("--score-factor", action="append", metavar="PATTERN=F",
                        help="multiply the scores of the generation runs whose name matches PATTERN by F "
                             "(labels on another scale, e.g. 'all-own400-*=1.15'); fixed with the runs")
    parser.add_argument("--samples", type=int, help="the budget in samples seen (default: the data's)")
    parser.add_argument("--tiny", action="store_true", help="a budget of seconds, for tests")
    parser.add_argument("--skip", default="", help=f"steps to leave out: {','.join(STEPS)}")
    parser.add_argument("--summary", action="store_true",
                        help="merge the experiments' reports into study-summary.md (research/, or DIR with --tiny)")
    parser.add_argument("--games", type=int, help="games per set and kind (default: the budget's); more tops up a finished run")
    parser.add_argument("--table", metavar="NAME",
                        help="play into extra tables, results/study-EXPERIMENT-KIND-NAME.md, beside the main ones "
                             "(a replay of some sets on one machine, a top-up of a few); the report takes each "
                             "set's figures from the table where it played the most games")
    args = parser.parse_args()
    if args.list:
        for name, sets in EXPERIMENTS.items():
            print(f"{name}: {' '.join(sets)}")
        return
    if args.summary:
        folder = Path(args.dir or TOURNAMENTS / "work" / "study")
        summary(folder if args.tiny else ROOT / "research", folder, binaries()[1])
        return
    if not args.experiment:
        parser.error("an EXPERIMENT is needed (or --list)")
    skip = [s for s in args.skip.split(",") if s]
    if unknown := [s for s in skip if s not in STEPS]:
        report.die(f"unknown step {', '.join(unknown)}; steps: {', '.join(STEPS)}")
    sets = EXPERIMENTS[args.experiment]
    if args.sets:
        wanted = [s.strip() for s in args.sets.split(",") if s.strip()]
        if bad := [s for s in wanted if s not in sets and s != REFERENCE]:
            report.die(f"{', '.join(bad)} not in {args.experiment}: {' '.join(sets)}")
        sets = [s for s in wanted if s != REFERENCE]
    budget = dict(TINY if args.tiny else FULL)
    if args.games is not None:
        if args.games < 2:
            report.die("--games needs at least 2 (each opening is played with both colours)")
        budget["games"] = args.games
    if args.table is not None and not re.fullmatch(r"[A-Za-z0-9]+", args.table):
        report.die(f"--table {args.table!r}: a name of letters and digits, e.g. epyc")
    data = args.data or default_data(args.experiment)
    name, command = study_name(args.experiment, data), study_command(args.experiment, data)
    if args.name is not None and args.name != name:
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", args.name):
            report.die(f"--name {args.name!r}: lower-case letters and digits joined by -, e.g. {name}-r2")
        if args.name.split("-")[0] in EXPERIMENTS and not args.name.startswith(f"{args.experiment}-"):
            report.die(f"--name {args.name!r} would be taken for experiment {args.name.split('-')[0]}'s: "
                       f"start it with {args.experiment}-")
        name, command = args.name, f"{command} --name {args.name}"
    default_dir = (f"study-{name}" if name != study_name(args.experiment, data)
                   else "study" if data == "shared" else f"study-{data}")
    study = Path(args.dir or TOURNAMENTS / "work" / default_dir)
    check_data_of(study, data)
    if args.score_factor and data == "shared":
        report.die("--score-factor applies to generation runs: --data scale")
    factors = parse_factors(args.score_factor) if args.score_factor else None
    budget = data_budget(budget, data, Path(args.gen), study, args.tiny, factors)
    if args.samples is not None:
        if args.samples < 1:
            report.die("--samples needs at least 1")
        budget.update(samples=args.samples, epochs=None)

    # Refuse unknown blocks before hours of work.
    engine_now, trainer_bin = binaries()
    for fs in [REFERENCE] + sets:
        proc = subprocess.run([str(engine_now), "features", fs], capture_output=True, text=True)
        if proc.returncode != 0:
            report.die(f"feature set {fs}: {proc.stderr.strip()}")
    if not [f for spec in budget["data"] for f in glob.glob(re.sub(r"(:x?[\d.]+)+$", "", spec))]:  # PATH:N, PATH:xF specs too
        report.die(f"no training data at {' '.join(budget['data'])}")

    have_cutechess = bool(os.environ.get("CUTECHESS") or shutil.which("cutechess-cli"))
    if not have_cutechess and not {"nodes", "time"} <= set(skip):
        log("cutechess-cli not found: the games are left out (see tournaments/README.md)")
        skip += ["nodes", "time"]

    # Before hours of training: a main table that holds other sets' games keeps them.
    companions = {kind: table_companions(name, kind, sets, budget["games"], study, args.table)
                  for kind in ("nodes", "time") if kind not in skip}

    nets, rows = {}, {}
    # Statistics need no net (any build reads any expression); bench, puzzles
    # and games need the engine built with the set's net.
    needs_engine = any(step not in skip for step in ["speed", "puzzles", "nodes", "time"])
    for fs in [REFERENCE] + sets:
        nets[fs] = train(fs, budget, study, str(trainer_bin))
        engine = build(nets[fs]) if needs_engine else None
        rows[fs] = stats(fs, engine_now, budget, study) if "stats" not in skip else dict.fromkeys(
            ["inputs", "active", "updates", "refresh"], "–")
        rows[fs]["loss"] = validation_loss(study, fs)
        rows[fs]["train_loss"] = train_loss(study, fs)
        # A step left out still reports what an earlier run measured.
        rows[fs]["nps"] = speed(fs, engine if "speed" not in skip else None, budget, study, name)
        rows[fs]["puzzles"] = puzzles(fs, engine if "puzzles" not in skip else None, budget, study)
    results = {}
    for kind, tc in [("nodes", f"nodes={budget['nodes']}"), ("time", budget["tc"])]:
        if kind not in skip:
            play(name, command, kind, tc, budget, {**nets, **companions[kind]}, study, args.table)
        results[kind] = set_results(name, kind)
        for fs in nets:
            if fs in results[kind]:
                rows[fs][f"elo_{kind}"] = results[kind][fs]["elo"]
    out = (study if args.tiny else ROOT / "research") / f"study-{name}.md"
    table_rows = write_report(args.experiment, name, sets, rows, budget, out, skip, study, results,
                              Path(args.gen) if data != "shared" else None)
    charts(name, table_rows, budget, study, out.parent, trainer_bin, results)
    if data != "shared":
        size_chart(name, out, budget, study, out.parent, trainer_bin)
        if comparison := shared_comparison(out, budget, study, out.parent):
            out.write_text(out.read_text() + comparison)
            print(comparison)
    original = out.with_name(f"study-{study_name(args.experiment, data)}.md")
    if original != out and (comparison := replica_comparison(out, original, budget)):
        out.write_text(out.read_text() + comparison)
        print(comparison)


if __name__ == "__main__":
    main()
