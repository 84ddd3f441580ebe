"""The feature-set study on a tiny budget: two sets (`all` and `h+v`), 600 lines of data,
one epoch, a handful of puzzles and (where cutechess-cli is installed) games; then the
same command again, which must find everything done."""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "tournaments" / "study.py"
TRAIN = ROOT.parent / "shared" / "data" / "train"


def import_study():
    """tournaments/study.py as a module (its folder is not a package)."""
    sys.path.insert(0, str(STUDY.parent))
    try:
        import study
    finally:
        sys.path.remove(str(STUDY.parent))
    return study


def test_unknown_experiments_and_steps_are_refused():
    out = subprocess.run([sys.executable, str(STUDY), "sideways"], capture_output=True, text=True)
    assert out.returncode != 0 and "invalid choice" in out.stderr
    out = subprocess.run([sys.executable, str(STUDY), "axes", "--skip", "dance"], capture_output=True, text=True)
    assert out.returncode != 0 and "unknown step dance" in out.stderr
    out = subprocess.run([sys.executable, str(STUDY), "axes", "--sets", "kp"], capture_output=True, text=True)
    assert out.returncode != 0 and "kp not in axes" in out.stderr
    out = subprocess.run([sys.executable, str(STUDY), "axes", "--table", "../x"], capture_output=True, text=True)
    assert out.returncode != 0 and "a name of letters and digits" in out.stderr
    listing = subprocess.run([sys.executable, str(STUDY), "--list"], capture_output=True, text=True).stdout
    assert "pairwise: all+ph all+pv all+ph+pv" in listing


@pytest.mark.skipif(not any(TRAIN.glob("*.zst")), reason="[shared-data] no shared training data")
def test_a_tiny_study_runs_every_step_and_resumes(engine_bin, tmp_path):
    trainer = Path(engine_bin).with_name("tessera-trainer")
    if not trainer.exists():
        pytest.skip(f"[release-build] {trainer} not built")
    env = {
        **os.environ,
        "TESSERA_BIN": engine_bin,
        "TESSERA_TRAINER": str(trainer),
        "RESULTS_DIR": str(tmp_path / "results"),
        # A match's kept state goes with the test, not into the repository
        # (where a later run would find the games played).
        "STATE_DIR": str(tmp_path / "state"),
        # Engines built for the tiny nets are cached here between runs (the nets are
        # deterministic); a quick profile, since the test checks what is measured, not speed.
        "WORK_DIR": str(ROOT / "target" / "study-test"),
        "CARGO_PROFILE_RELEASE_LTO": "false",
        "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
        "CARGO_PROFILE_RELEASE_OPT_LEVEL": "1",
    }
    # Only the builds are kept: an earlier run's games would be found played.
    work = Path(env["WORK_DIR"])
    for folder in work.iterdir() if work.exists() else []:
        if folder.name != "builds":
            shutil.rmtree(folder)
    cmd = [sys.executable, str(STUDY), "axes", "--tiny", "--sets", "h+v", "--dir", str(tmp_path / "study")]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert first.returncode == 0, first.stderr[-3000:]
    text = (tmp_path / "study" / "study-axes.md").read_text()
    rows = {l.split("|")[1].strip(): [c.strip() for c in l.strip().strip("|").split("|")] for l in text.splitlines() if l.startswith("| `")}
    assert set(rows) == {"`all`", "`h+v`"}, text
    for name, inputs in [("`all`", "768"), ("`h+v`", "192")]:
        row = rows[name]
        assert row[1] == inputs, row
        assert float(row[2]) > 0 and float(row[5]) > 0 and float(row[6]) > 0, row  # active, train and validation loss
        assert 0 <= float(row[9]) <= 1 and int(row[10]) > 0, row  # puzzle accuracy, nps
    assert rows["`h+v`"][11] == "0.005810", "the thesis's figures stand beside ours"
    # Written for any machine: the study folder as DIR, the data relative to the repository.
    assert str(tmp_path) not in text and "--dir DIR" in text and "`../shared/data/train/*.zst`" in text, text
    charts = tmp_path / "study"
    if "no chart" not in first.stderr:  # a machine without a font draws none, and says so
        assert (charts / "study-axes-loss.png").read_bytes()[:4] == b"\x89PNG"
    if shutil.which("cutechess-cli") or os.environ.get("CUTECHESS"):
        games = (tmp_path / "results" / "study-axes-nodes.md").read_text()
        assert "| games | 2 |" in games, games
        # The engines are named as given (a reader can rerun them), not by the build cache's paths.
        assert "| engine | `all_32x2-8-1` (`net:DIR/runs/all/all_32x2-8-1.nnue`)" in games, games
        assert "/builds/" not in games and str(tmp_path / "study") not in games, games
        assert "DIR is the study folder: `tournaments/study.py axes --dir DIR`" in games, games
        if "no chart" not in first.stderr:
            assert (charts / "study-axes-elo-nodes.png").stat().st_size > 0
    else:
        assert "cutechess-cli not found" in first.stderr

    merged = subprocess.run([sys.executable, str(STUDY), "--summary", "--tiny", "--dir", str(tmp_path / "study")],
                            capture_output=True, text=True, env=env)
    assert merged.returncode == 0, merged.stderr
    summary = (tmp_path / "study" / "study-summary.md").read_text()
    assert "| reference | `all` | 768 |" in summary and "| axes | `h+v` | 192 |" in summary, summary
    assert "Command: `tournaments/study.py --summary --tiny --dir DIR`" in summary, summary
    if "no chart" not in merged.stderr:
        chart = (charts / "study-summary-loss.png").read_bytes()
        assert chart[:4] == b"\x89PNG"
        # Without one set's run (a new machine), the summary keeps the fuller chart.
        runs = tmp_path / "study" / "runs"
        (runs / "h+v").rename(tmp_path / "h+v-run")
        merged = subprocess.run([sys.executable, str(STUDY), "--summary", "--tiny", "--dir", str(tmp_path / "study")],
                                capture_output=True, text=True, env=env)
        assert merged.returncode == 0, merged.stderr
        assert "study-summary-loss.png kept as it is: no run in" in merged.stderr and "for h+v" in merged.stderr
        assert (charts / "study-summary-loss.png").read_bytes() == chart
        (tmp_path / "h+v-run").rename(runs / "h+v")

    # A run of some sets keeps the other sets' rows, and a cell it cannot measure
    # (its measurement is not in DIR: a new machine) keeps the earlier report's value.
    quick = [sys.executable, str(STUDY), "axes", "--tiny", "--dir", str(tmp_path / "study"),
             "--skip", "speed,puzzles,nodes,time"]
    only_all = subprocess.run(quick + ["--sets", "all"], capture_output=True, text=True, env=env)
    assert only_all.returncode == 0, only_all.stderr
    kept = (tmp_path / "study" / "study-axes.md").read_text()
    assert rows["`h+v`"] == next(r for r in map(lambda l: [c.strip() for c in l.strip().strip("|").split("|")],
                                                kept.splitlines()) if r[0] == "`h+v`"), kept
    assert "the rows of `h+v` (not in this run)" in kept, kept
    bench = tmp_path / "study" / "speed" / "axes" / "h+v.txt"
    bench.rename(tmp_path / "h+v-bench")
    lost = subprocess.run(quick + ["--sets", "h+v"], capture_output=True, text=True, env=env)
    assert lost.returncode == 0, lost.stderr
    kept = (tmp_path / "study" / "study-axes.md").read_text()
    hv = [c.strip() for c in next(l for l in kept.splitlines() if l.startswith("| `h+v`")).strip().strip("|").split("|")]
    assert hv[10] == rows["`h+v`"][10] != "–", kept
    assert "no earlier measurement in DIR): `h+v` nps" in kept, kept
    (tmp_path / "h+v-bench").rename(bench)

    if shutil.which("cutechess-cli") or os.environ.get("CUTECHESS"):
        # A top-up of one kind of games is reported as played: 4 games a set at the
        # nodes, and still the earlier run's 2 at the time control.
        more = subprocess.run(quick[:-1] + ["speed,puzzles,time", "--sets", "h+v", "--games", "4"],
                              capture_output=True, text=True, env=env, timeout=300)
        assert more.returncode == 0, more.stderr[-3000:]
        assert "| games | 4 |" in (tmp_path / "results" / "study-axes-nodes.md").read_text()
        topped = (tmp_path / "study" / "study-axes.md").read_text()
        assert re.search(r"; 2 games per set against `all` at \S+ and 4 at \d+ nodes a move", topped), topped

        # An extra table (--table): h+v's 6 games there outnumber its 4 in the main
        # table, so the report takes its figure from there and says so.
        extra = subprocess.run(quick[:-1] + ["speed,puzzles,time", "--sets", "h+v", "--games", "6", "--table", "more"],
                               capture_output=True, text=True, env=env, timeout=300)
        assert extra.returncode == 0, extra.stderr[-3000:]
        table = (tmp_path / "results" / "study-axes-nodes-more.md").read_text()
        assert "| games | 6 |" in table and "`--table more` plays this one" in table, table
        elo = next(r for r in map(lambda l: [c.strip() for c in l.strip().strip("|").split("|")], table.splitlines())
                   if len(r) == 7 and r[1].startswith("h+v_"))
        report_text = (tmp_path / "study" / "study-axes.md").read_text()
        hv = next(l for l in report_text.splitlines() if l.startswith("| `h+v`")).split("|")
        assert hv[9].strip() == f"{elo[2]} ± {elo[3]}", report_text
        assert "`h+v` from `results/study-axes-nodes-more.md` (6 games, " in report_text, report_text
        assert "and 6 at" in report_text, report_text

    started = time.monotonic()
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "h+v: net h+v_32x2-8-1.nnue already trained" in again.stderr
    assert "training" not in again.stderr and "puzzles at" not in again.stderr
    assert time.monotonic() - started < 120


def test_names_carry_the_data_where_it_is_not_the_experiments_own():
    study = import_study()
    assert study.study_name("axes", "shared") == "axes" and study.study_command("axes", "shared") == "axes"
    assert study.study_name("axes", "scale") == "axes-scale"
    assert study.study_command("axes", "scale") == "axes --data scale"
    assert study.study_name("scale", "scale") == "scale" and study.study_name("scale", "shared") == "scale-shared"
    assert study.table_name("axes-scale", "nodes") == "study-axes-scale-nodes"
    assert set(study.EXPERIMENTS["scale"]) == {"h+v", "d1+d2", "h+v+d1+d2", "all+h+v", "all+d1+d2", "all+ph+pv",
                                               "all+mb", "all+mc", "kb4", "kb8", "ka"}


def test_the_size_chart_puts_each_set_at_its_data_beside_the_shared_reports(engine_bin, tmp_path, monkeypatch):
    trainer = Path(engine_bin).with_name("tessera-trainer")
    if not trainer.exists():
        pytest.skip(f"[release-build] {trainer} not built")
    study = import_study()
    header = "| set | Elo vs all, 25000 nodes |\n|---|---|\n"
    (tmp_path / "study-axes.md").write_text(header + "| `all` | 0 |\n| `h+v` | -80.3 ± 34.3 |\n")
    (tmp_path / "study-king.md").write_text(header + "| `all` | 0 |\n| `kb4` | -10.4 ± 35.0 |\n")
    scale = tmp_path / "study-scale.md"
    scale.write_text(header + "| `all` | 0 |\n| `h+v` | -20.0 ± 30.1 |\n| `kb4` | 25.5 ± 29.9 |\n"
                     "| `ka` | – |\n| `kb8` | -60.0 ± 31.0 |\n")
    logs = tmp_path / "runs-dir" / "logs"
    logs.mkdir(parents=True)
    (logs / "train-all.txt").write_text("mirrors: 24000000 added, 5 already present\n55000000 training samples\n")
    drawn = []
    monkeypatch.setattr(study, "draw", lambda bin, cmd: drawn.append(cmd))
    study.size_chart("scale", scale, {"nodes": 25000}, tmp_path / "runs-dir", tmp_path, trainer)
    [cmd] = drawn
    assert cmd[:3] == ["size-chart", "--out", str(tmp_path / "study-scale-elo-size.png")]
    # 31 M distinct positions (the samples less their mirrors) beside the shared reports' 3.3 M;
    # a set without an error bar (`ka`) is left out, one the shared reports lack (`kb8`) has one point.
    assert cmd[5:] == ["h+v=3.3:-80.3 ± 34.3,31:-20.0 ± 30.1", "kb4=3.3:-10.4 ± 35.0,31:25.5 ± 29.9", "kb8=31:-60.0 ± 31.0"]
    # The chart the trainer draws from these arguments (where a font is found).
    out = subprocess.run([str(trainer), *cmd], capture_output=True, text=True)
    if out.returncode == 0:
        assert (tmp_path / "study-scale-elo-size.png").read_bytes().startswith(b"\x89PNG")
    else:
        assert "font" in out.stderr, out.stderr
    # Without the reference's training log there is nothing to size: no chart, said so.
    drawn.clear()
    study.size_chart("scale", scale, {"nodes": 25000}, tmp_path / "elsewhere", tmp_path, trainer)
    assert drawn == []


@pytest.mark.skipif(not any(TRAIN.glob("*.zst")), reason="[shared-data] no shared training data")
def test_the_scale_study_trains_on_the_generation_runs_to_a_budget_in_samples(engine_bin, tmp_path):
    trainer = Path(engine_bin).with_name("tessera-trainer")
    datagen = Path(engine_bin).with_name("tessera-datagen")
    if not (trainer.exists() and datagen.exists()):
        pytest.skip(f"[release-build] {trainer} or {datagen} not built")
    env = {**os.environ, "TESSERA_BIN": engine_bin, "TESSERA_TRAINER": str(trainer),
           "RESULTS_DIR": str(tmp_path / "results")}
    cmd = [sys.executable, str(STUDY), "scale", "--tiny", "--sets", "kb4", "--dir", str(tmp_path / "study"),
           "--skip", "stats,speed,puzzles,nodes,time", "--gen", str(tmp_path / "gen")]

    # No generation run yet: a clear refusal, before any training.
    (tmp_path / "gen").mkdir()
    refused = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert refused.returncode != 0 and "no generation run (*.bin) in" in refused.stderr, refused.stderr

    made = subprocess.run([str(datagen), "selfplay", "-o", str(tmp_path / "gen" / "g.bin"), "--games", "2",
                           "--nodes", "200", "--jobs", "1", "--seed", "3"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    log = (tmp_path / "study" / "logs" / "train-kb4.txt").read_text()
    assert "g.bin" in log and "--samples 2000:" in log, log  # the runs are trained on, to the samples budget
    assert "mirrors:" in log, log  # the default net's recipe
    text = (tmp_path / "study" / "study-scale.md").read_text()
    assert "# Feature-set study: scale" in text and "| `kb4` |" in text, text
    assert re.search(r"Budget: [\d.]+ M samples seen \(\d+ epochs over [\d.]+ M training positions after filters "
                     r"and deduplication, [\d.]+ M with the mirrors", text), text
    # The pinned runs as DIR/gen (the trainer was given them relative to the repository),
    # the runs' folder in the command as GEN: no folder of this machine in the report.
    assert "DIR/gen/*.bin`" in text and "--gen GEN" in text and "--dir DIR" in text, text
    assert str(tmp_path) not in text and "../tmp" not in text and "GEN is the folder of the generation runs" in text, text

    # The runs are fixed when the study starts: copied with their record counts, and a
    # run that grows afterwards (a generation still going) does not change the study's data.
    pinned = tmp_path / "study" / "gen"
    records = (tmp_path / "gen" / "g.bin").stat().st_size // 32
    assert (pinned / "manifest.txt").read_text() == f"g.bin {records}\n"
    assert (pinned / "g.bin").read_bytes() == (tmp_path / "gen" / "g.bin").read_bytes()
    assert f"`g.bin` {records:,}" in text, text
    more = subprocess.run([str(datagen), "selfplay", "-o", str(tmp_path / "gen" / "g.bin"), "--games", "4",
                           "--nodes", "200", "--jobs", "1", "--seed", "3"], capture_output=True, text=True)
    assert more.returncode == 0, more.stderr
    grown = (tmp_path / "gen" / "g.bin").stat().st_size // 32
    assert grown > records
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"left out, made after the study fixed its data: g.bin +{grown - records:,}" in again.stderr, again.stderr
    assert (pinned / "g.bin").stat().st_size == records * 32
    # Another name (a replica beside the original): its own report, tables and command.
    named = subprocess.run(cmd + ["--name", "scale-r2"], capture_output=True, text=True, env=env, timeout=600)
    assert named.returncode == 0, named.stderr[-3000:]
    replica = (tmp_path / "study" / "study-scale-r2.md").read_text()
    assert "# Feature-set study: scale-r2" in replica and "--name scale-r2" in replica, replica
    assert "tables `results/study-scale-r2-time.md` and `-nodes.md`" in replica, replica
    for bad, why in [("Scale R2", "lower-case letters and digits"), ("axes-2", "start it with scale-")]:
        refused = subprocess.run(cmd + ["--name", bad], capture_output=True, text=True, env=env)
        assert refused.returncode != 0 and why in refused.stderr, refused.stderr

    # A copy that no longer holds its records is refused, not trained on.
    with (pinned / "g.bin").open("r+b") as copy:
        copy.truncate(32)
    damaged = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert damaged.returncode != 0 and f"does not hold the {records:,} records" in damaged.stderr, damaged.stderr

    # The folder holds nets of the scale data: another data set is refused there.
    other = subprocess.run([sys.executable, str(STUDY), "axes", "--tiny", "--dir", str(tmp_path / "study"),
                            "--skip", "stats,speed,puzzles,nodes,time"], capture_output=True, text=True, env=env)
    assert other.returncode != 0 and "holds nets trained on --data scale, not shared" in other.stderr, other.stderr


def test_the_scale_report_gives_each_shared_finding_its_verdict(tmp_path):
    study = import_study()
    assert study.elo_value("**−80 ± 34** (400 games)") == (-80.0, 34.0)
    assert study.elo_value("-10.5 ± 34.0") == (-10.5, 34.0) and study.elo_value("–") is None
    assert study.verdict((-120.0, 35.0), (-60.0, 30.0)) == "holds"
    assert study.verdict((-10.0, 34.0), (45.0, 30.0)) == "reverses"
    assert study.verdict((-188.0, 29.0), (-25.0, 30.0)) == "inside the error"

    header = "| set | Elo vs all, 25000 nodes |\n|---|---|\n"
    (tmp_path / "study-axes.md").write_text(header + "| `all` | 0 |\n| `h+v` | -80.3 ± 34.3 |\n")
    (tmp_path / "study-king.md").write_text(header + "| `all` | 0 |\n| `kb4` | -10.4 ± 35.0 |\n"
                                            "| `kb8` | -120.4 ± 34.9 |\n")
    # The scale report: its main table, then a table per held-out file naming the same sets
    # in other columns (not Elo), which must not be read as the sets' rows.
    scale = tmp_path / "study-scale.md"
    scale.write_text(header + "| `all` | 0 |\n| `h+v` | -20.0 ± 30.1 |\n| `kb4` | 45.5 ± 29.9 |\n"
                     "| `kb8` | -60.0 ± 31.0 |\n| `ka` | – |\n\nBudget: …\n\nValidation loss per held-out file:\n\n"
                     "| set | `a.txt` |\n|---|---|\n| `kb8` | 0.001 ± 0.1 |\n")
    assert study.earlier_rows(scale)[1]["kb8"] == ["`kb8`", "-60.0 ± 31.0"]
    logs = tmp_path / "runs-dir" / "logs"
    logs.mkdir(parents=True)
    (logs / "train-all.txt").write_text("mirrors: 24000000 added, 5 already present\n55000000 training samples\n")
    text = study.shared_comparison(scale, {"nodes": 25000}, tmp_path / "runs-dir", tmp_path)
    rows = {row[0]: row[1:] for row in (study.report.cells(l) for l in text.splitlines() if l.startswith("| `"))}
    assert "31 M positions" in text and "3.3 M positions" in text, text
    assert rows == {"`h+v`": ["-80.3 ± 34.3", "-20.0 ± 30.1", "+60.3 ± 45.6", "inside the error"],
                    "`kb4`": ["-10.4 ± 35.0", "45.5 ± 29.9", "+55.9 ± 46.0", "reverses"],
                    "`kb8`": ["-120.4 ± 34.9", "-60.0 ± 31.0", "+60.4 ± 46.7", "holds"]}, text
    # No set measured in both: nothing to compare.
    assert study.shared_comparison(scale, {"nodes": 25000}, tmp_path / "runs-dir", tmp_path / "runs-dir") == ""


def test_the_runs_are_fixed_by_whole_records_and_not_under_nets_of_unknown_data(tmp_path):
    study = import_study()
    gen = tmp_path / "gen"
    gen.mkdir()
    # Three records and the start of a fourth, as a run cut mid-write leaves it.
    (gen / "run.bin").write_bytes(bytes(range(32)) * 3 + b"\x01" * 5)
    fixed = tmp_path / "fixed"
    assert study.pin_runs(gen, fixed) == [("run.bin", 3, 1.0)]
    assert (fixed / "gen" / "run.bin").read_bytes() == bytes(range(32)) * 3
    assert not (fixed / "gen.partial").exists()
    # A folder with a net but no fixed runs: what that net was trained on is not known.
    old = tmp_path / "old"
    (old / "runs" / "kb4").mkdir(parents=True)
    (old / "runs" / "kb4" / "kb4_512x2-32-1.nnue").write_bytes(b"net")
    with pytest.raises(SystemExit):
        study.pin_runs(gen, old)
    assert not (old / "gen").exists()


def test_score_factors_are_fixed_with_the_runs_and_given_to_the_trainer_per_run(tmp_path):
    study = import_study()
    gen = tmp_path / "gen"
    gen.mkdir()
    (gen / "all-d7k-s1.bin").write_bytes(bytes(64))
    (gen / "all-own400-s2.bin").write_bytes(bytes(96))
    factors = study.parse_factors(["all-own400-*=1.15"])
    assert factors == [("all-own400-*", 1.15)]
    assert study.factor_of("all-own400-s2.bin", factors) == 1.15 and study.factor_of("all-d7k-s1.bin", factors) == 1.0
    for bad in ["1.15", "own*=0", "own*=-2", "own*=x", "=1.2", "own*=nan"]:
        with pytest.raises(SystemExit):
            study.parse_factors([bad])

    folder = tmp_path / "study"
    budget = study.data_budget(dict(study.FULL), "scale", gen, folder, tiny=True, factors=factors)
    assert budget["runs"] == [("all-d7k-s1.bin", 2, 1.0), ("all-own400-s2.bin", 3, 1.15)]
    assert (folder / "gen" / "manifest.txt").read_text() == "all-d7k-s1.bin 2\nall-own400-s2.bin 3 1.15\n"
    runs = [spec for spec in budget["data"] if "/gen/" in spec]
    assert [os.path.basename(spec) for spec in runs] == ["all-d7k-s1.bin", "all-own400-s2.bin:x1.15"], runs

    # Later sessions: without the option the fixed factors hold; other factors are refused.
    again = study.data_budget(dict(study.FULL), "scale", gen, folder, tiny=True)
    assert again["data"] == budget["data"]
    with pytest.raises(SystemExit):
        study.pin_runs(gen, folder, study.parse_factors(["all-own400-*=1.2"]))
    # Without factors the runs stay one glob.
    plain = study.data_budget(dict(study.FULL), "scale", gen, tmp_path / "plain", tiny=True)
    assert plain["data"][-1].endswith(os.path.join("gen", "*.bin")), plain["data"]


def test_a_run_of_some_sets_keeps_the_other_sets_rows_of_the_main_table(tmp_path, monkeypatch):
    """gauntlet.sh writes a table of the opponents it is given: a run of some sets hands it
    the table's other sets too (their games played, nothing replayed), and is refused
    before any work where it cannot (a net missing, or fewer games than the run plays)."""
    study = import_study()
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path / "results"))
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "study-axes-nodes.md").write_text(
        "# study-axes-nodes\n\n## Scores of all_32x2-8-1\n\n"
        "| opponent | games | wins | losses | draws | score |\n|---|---|---|---|---|---|\n"
        "| h+v_32x2-8-1 | 4 | 2 | 1 | 1 | 62.5% |\n| d1+d2_32x2-8-1 | 4 | 1 | 1 | 2 | 50.0% |\n")
    folder = tmp_path / "study"
    assert study.main_table_games("axes", "nodes") == {"h+v": 4, "d1+d2": 4}

    # d1+d2's net is not in the study folder (a new machine): refused, naming the way out.
    with pytest.raises(SystemExit):
        study.table_companions("axes", "nodes", ["h+v"], 4, folder, None)
    # An extra table holds only its own sets, and a run of every set in the table has no others.
    assert study.table_companions("axes", "nodes", ["h+v"], 4, folder, "more") == {}
    assert study.table_companions("axes", "nodes", ["h+v", "d1+d2"], 4, folder, None) == {}
    assert study.table_companions("axes", "time", ["h+v"], 4, folder, None) == {}  # no time table yet

    net = folder / "runs" / "d1+d2" / "d1+d2_32x2-8-1.nnue"
    net.parent.mkdir(parents=True)
    net.write_bytes(b"net")
    assert study.table_companions("axes", "nodes", ["h+v"], 4, folder, None) == {"d1+d2": net}
    # More games than d1+d2 has would top it up: refused too.
    with pytest.raises(SystemExit):
        study.table_companions("axes", "nodes", ["h+v"], 6, folder, None)


def test_the_report_writes_every_folder_of_this_machine_as_a_name(tmp_path, monkeypatch):
    study = import_study()
    folder, gen = tmp_path / "study", tmp_path / "gen"
    relative = os.path.relpath(folder, study.ROOT)
    text = (f"data `../shared/data/train/*.zst {relative}/gen/a.bin:x1.15`, runs {folder}/runs, "
            f"games {folder}-time/x.pgn, runs from {gen}/s1.bin, shared {study.SHARED.resolve()}/train, "
            f"and the study's `gen/`")
    assert study.portable(text, folder, gen) == (
        "data `../shared/data/train/*.zst DIR/gen/a.bin:x1.15`, runs DIR/runs, "
        f"games {folder}-time/x.pgn, runs from GEN/s1.bin, shared ../shared/data/train, and the study's `gen/`")
    # The command however its folders were typed (relative, or --flag=VALUE).
    monkeypatch.chdir(tmp_path)
    line = study.command_line(["scale", "--gen", "gen", "--dir=study", "--sets", "kb4"])
    assert study.portable(line, Path("study"), Path("gen")) == "tournaments/study.py scale --gen GEN --dir=DIR --sets kb4"


def test_a_replica_sets_its_figures_beside_the_originals(tmp_path):
    study = import_study()
    header = "| set | Elo vs all, 10+0.1 | Elo vs all, 25000 nodes |\n|---|---|---|\n"
    original, replica = tmp_path / "study-scale.md", tmp_path / "study-scale-r2.md"
    original.write_text("# Feature-set study: scale\n\n" + header + "| `all` | 0 | 0 |\n| `kb4` | – | 0.0 ± 30.0 |\n"
                        "| `h+v` | – | -230.0 ± 42.0 |\n")
    replica.write_text("# Feature-set study: scale-r2\n\n" + header + "| `all` | 0 | 0 |\n"
                       "| `kb4` | -20.0 ± 35.0 | 10.0 ± 40.0 |\n| `h+v` | – | -120.0 ± 40.0 |\n")
    text = study.replica_comparison(replica, original, {"tc": "10+0.1", "nodes": 25000})
    assert "## Against the original" in text and "`study-scale.md`" in text, text
    rows = [[c.strip() for c in l.strip("|").split("|")] for l in text.splitlines() if l.startswith("| `")]
    # Only where both have a figure: kb4's timed games are the replica's alone.
    assert rows == [["`kb4`", "25000 nodes", "0.0 ± 30.0", "10.0 ± 40.0", "+10.0 ± 50.0", "agree"],
                    ["`h+v`", "25000 nodes", "-230.0 ± 42.0", "-120.0 ± 40.0", "+110.0 ± 58.0", "differ"]], rows
    assert study.replica_comparison(replica, tmp_path / "none.md", {"tc": "10+0.1", "nodes": 25000}) == ""
