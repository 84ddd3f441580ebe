"""The strength limit's refit (tournaments/strength_fit.py, refit-strength.sh) on the real
source's table and on result tables written as strength.sh writes them."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tournaments"))
import strength_fit as sf  # noqa: E402

SOURCE = (ROOT / "src" / "search" / "strength.rs").read_text()


def results(tmp_path, name, rows):
    """A strength.sh result table with these (setting, rating, error) rows."""
    text = "# x\n\n| UCI_Elo | measured Elo (95%) | games |\n|---|---|---|\n"
    text += "".join(f"| {s} | {r} ± {e} | sf{s}: 1–1–1 (50.0%) |\n" for s, r, e in rows)
    path = tmp_path / f"{name}.md"
    path.write_text(text)
    return path


def test_the_source_table_reads_as_the_engine_maps_it():
    rows, lo, hi = sf.read_table(SOURCE)
    assert lo < hi and rows[0][0] <= lo and rows[-1][0] >= hi
    # The engine's test points: the ends clamp, the rows are exact.
    assert sf.level_for(lo - 500, rows, lo, hi) == sf.level_for(lo, rows, lo, hi)
    assert sf.level_for(hi + 500, rows, lo, hi) == sf.level_for(hi, rows, lo, hi)
    for elo, level in rows:
        if lo <= elo <= hi:
            assert sf.level_for(elo, rows, lo, hi) == pytest.approx(level)


def test_a_probe_keeps_the_mapping_below_the_range_top_and_reaches_the_highest_level():
    rows, lo, hi = sf.read_table(SOURCE)
    # Above today's range, whatever it is (the probe only ever extends it).
    probe, top = sf.probe_table(rows, hi, hi + 300)
    assert top == hi + 300 and probe[-1] == (float(hi + 300), sf.MAX_LEVEL)
    for elo in range(lo, hi + 1, 37):
        assert sf.level_for(elo, probe, lo, top) == pytest.approx(sf.level_for(elo, rows, lo, hi))
    assert sf.level_for(top, probe, lo, top) == sf.MAX_LEVEL
    assert sf.level_for(hi + 200, probe, lo, top) >= sf.level_for(hi, rows, lo, hi)
    assert sf.probe_table(rows, hi, hi - 100) == (rows, hi)


def test_each_level_goes_to_the_rating_it_played_at(tmp_path):
    rows, lo, hi = sf.read_table(SOURCE)
    # Every setting played 100 points above itself.
    measured = sf.read_results([results(tmp_path, "r", [(1500, 1600, 90), (2000, 2100, 90), (2400, 2500, 90)])])
    table, max_elo = sf.fit(rows, lo, hi, measured)
    assert max_elo == 2500
    assert all(b[0] > a[0] and b[1] >= a[1] for a, b in zip(table, table[1:]))
    for setting in (1500, 2000, 2400):
        assert sf.level_for(setting + 100, table, lo, max_elo) == pytest.approx(sf.level_for(setting, rows, lo, hi))


def test_ratings_out_of_order_are_pooled(tmp_path):
    rows, lo, hi = sf.read_table(SOURCE)
    measured = sf.read_results([results(tmp_path, "r", [(1500, 1800, 100), (1800, 1700, 100), (2400, 2450, 100)])])
    table, _ = sf.fit(rows, lo, hi, measured)
    assert all(b[0] > a[0] and b[1] >= a[1] for a, b in zip(table, table[1:]))
    assert (1750.0, pytest.approx((sf.level_for(1500, rows, lo, hi) + sf.level_for(1800, rows, lo, hi)) / 2)) in [
        (e, pytest.approx(l)) for e, l in table
    ]


def test_the_fit_written_into_the_source_reads_back(tmp_path):
    source = tmp_path / "strength.rs"
    source.write_text(SOURCE)
    _, _, hi = sf.read_table(SOURCE)
    top = hi + 300
    res = results(tmp_path, "refit-x-levels", [(1500, 1550, 80), (2000, 2080, 80), (top, top + 50, 80)])
    probe = tmp_path / "probe.rs"
    probe.write_text(subprocess.run(
        [sys.executable, str(ROOT / "tournaments/strength_fit.py"), "probe", str(source), str(top)],
        capture_output=True, text=True, check=True).stdout)
    done = subprocess.run([sys.executable, str(ROOT / "tournaments/strength_fit.py"), "fit", str(source), str(res),
                           "--played", str(probe), "--write"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = source.read_text()
    rows, lo, hi = sf.read_table(text)
    assert hi == top + 50 and rows[-1] == (float(top + 50), pytest.approx(sf.MAX_LEVEL))
    assert "tournaments/results/refit-x-levels.md" in text
    # rustfmt leaves the rows one a line, as the script reads them.
    assert text.count("#[rustfmt::skip]\nconst CALIBRATION") == 1
    # Twice, from the same probe: the same source (a rerun of the refit changes nothing).
    subprocess.run([sys.executable, str(ROOT / "tournaments/strength_fit.py"), "fit", str(source), str(res),
                    "--played", str(probe), "--write"], check=True, capture_output=True)
    assert source.read_text() == text


def test_check_passes_only_when_every_interval_holds_its_setting(tmp_path):
    script = [sys.executable, str(ROOT / "tournaments/strength_fit.py"), "check"]
    good = results(tmp_path, "good", [(1500, 1560, 80), (2400, 2330, 80)])
    bad = results(tmp_path, "bad", [(1500, 1560, 80), (2400, 2250, 80)])
    assert subprocess.run(script + [str(good)], capture_output=True).returncode == 0
    out = subprocess.run(script + [str(bad)], capture_output=True, text=True)
    assert out.returncode == 1 and "2400: 2250 ± 80 MISSES" in out.stdout
    empty = tmp_path / "empty.md"
    empty.write_text("nothing rated\n")
    out = subprocess.run(script + [str(empty)], capture_output=True, text=True)
    assert out.returncode == 2 and "no rated setting" in out.stderr


@pytest.mark.parametrize("args, message", [
    (["x", "150", "10+0.1", "3000"], "1350-2850"),
    (["x", "one"], "GAMES"),
    (["bad name"], "NAME"),
])
def test_the_refit_refuses_bad_arguments(args, message):
    out = subprocess.run(["bash", str(ROOT / "tournaments/refit-strength.sh")] + args,
                         capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert out.returncode != 0 and message in out.stderr


def test_the_readme_takes_the_new_table_and_range(tmp_path):
    readme = (ROOT / "README.md").read_text()
    table = "| `UCI_Elo` | nodes a move | lines chosen among |\n|---|---|---|\n| 1320 | 2,245 | 4 |\n| 2700 | 9 | 1 |\n"
    new = sf.readme(readme, table)
    assert table.rstrip("\n") + "\n\n" in new and "| 2500 | 279,405 | 1 |" not in new
    assert "| UCI_Elo | spin 1320–2700 |" in new
    # Today's table in: the README unchanged.
    today = subprocess.run([str(ROOT / "target" / "release" / "tessera"), "strength-table"], capture_output=True,
                           text=True)
    if today.returncode == 0:
        assert sf.readme(readme, today.stdout) == readme
