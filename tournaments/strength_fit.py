#!/usr/bin/env python3
"""The strength limit's calibration table (`CALIBRATION` in src/search/strength.rs) refitted
from measurements: tournaments/refit-strength.sh runs it; usable alone.

  strength_fit.py probe SOURCE TOP          the source with the table extended to TOP
                                            (a provisional last row at the highest level),
                                            to measure levels above today's range
  strength_fit.py fit SOURCE RESULTS... [--played PLAYED] [--write]
                                            each measured setting's level (under the table
                                            of PLAYED, the source the measured engine was
                                            built from; default SOURCE) placed at the rating
                                            it played at: the new table, printed, or written
                                            into SOURCE with --write
  strength_fit.py check RESULTS...          exit 1 unless every setting's 95% interval
                                            holds the setting
  strength_fit.py readme README TABLE_FILE  README's strength table replaced by TABLE_FILE
                                            (`tessera strength-table`'s output), and its
                                            `UCI_Elo` range by the table's ends

RESULTS are tournaments/strength.sh tables (`| UCI_Elo | measured Elo (95%) | … |`). A level
is a point of the engine's handicap (0: 512 nodes, four lines, the most error; 1: 65,536
nodes; up to 2: one line of 2^20 nodes); the table maps a rating to a level, linear between
rows, clamped to [MIN_ELO, MAX_ELO]."""

import argparse
import math
import re
import sys
from pathlib import Path

MAX_LEVEL = 2.0
BLOCK = re.compile(r"(const CALIBRATION: &\[\(f64, f64\)\] = &\[\n)(.*?)(\n\];)", re.S)
ROW = re.compile(r"\(\s*([0-9.]+)\s*,\s*([0-9./ ]+?)\s*\)")
RESULT = re.compile(r"^\|\s*(\d+)\s*\|\s*(\d+)\s*±\s*(\d+)\s*\|", re.M)


def number(text):
    """A row's level: a decimal or a fraction such as `4.0 / 3.0`."""
    if "/" in text:
        top, bottom = text.split("/")
        return float(top) / float(bottom)
    return float(text)


def read_table(source):
    """(rows, MIN_ELO, MAX_ELO) of strength.rs's text."""
    block = BLOCK.search(source)
    if not block:
        raise ValueError("no CALIBRATION table in the source")
    rows = [(float(e), number(l)) for e, l in ROW.findall(block.group(2))]
    lo = int(re.search(r"pub const MIN_ELO: i64 = (\d+);", source).group(1))
    hi = int(re.search(r"pub const MAX_ELO: i64 = (\d+);", source).group(1))
    if len(rows) < 2 or any(b[0] <= a[0] or b[1] < a[1] for a, b in zip(rows, rows[1:])):
        raise ValueError("the table must have two rows or more, rising")
    return rows, lo, hi


def level_for(elo, rows, lo, hi):
    """The engine's level_for_elo: clamped, then linear between rows."""
    elo = min(max(elo, lo), hi)
    upper = next((i for i, (e, _) in enumerate(rows) if e >= elo), len(rows) - 1)
    upper = max(upper, 1)
    (e0, l0), (e1, l1) = rows[upper - 1], rows[upper]
    return l0 + (l1 - l0) * (elo - e0) / (e1 - e0)


def probe_table(rows, hi, top):
    """The table extended to `top`: a last row at the highest level, so that settings up
    to `top` play levels above today's range (the same mapping below `hi`)."""
    if top <= hi:
        return rows, hi
    kept = [r for r in rows if r[0] <= hi]
    if kept[-1][0] < hi:
        kept.append((float(hi), level_for(hi, rows, rows[0][0], hi)))
    return kept + [(float(top), MAX_LEVEL)], top


def read_results(paths):
    """[(setting, rating, error)] of strength.sh tables; settings without a rating
    (every game won or lost) are left out with a note."""
    out = []
    for path in paths:
        text = Path(path).read_text()
        found = RESULT.findall(text)
        if not found:
            raise ValueError(f"{path}: no rated setting (| UCI_Elo | measured Elo ± error | …)")
        out += [(int(s), float(r), float(e)) for s, r, e in found]
    return out


def pooled(points):
    """Pool-adjacent-violators on (level, rating, weight), by level: ratings that rise
    with the level, each pool at its weighted mean."""
    pools = []
    for level, rating, weight in sorted(points):
        pools.append([level * weight, rating * weight, weight])
        while len(pools) > 1 and pools[-2][1] / pools[-2][2] >= pools[-1][1] / pools[-1][2]:
            last = pools.pop()
            for i in range(3):
                pools[-1][i] += last[i]
    return [(l / w, r / w) for l, r, w in pools]


def fit(rows, lo, hi, measured):
    """The new table and MAX_ELO: every measured setting's level (under `rows`, the table
    the engine played with) placed at the rating it played at, weighted by 1/error²,
    pooled to rise with the level; the rows below the lowest level measured kept where they
    stay in order. MAX_ELO becomes the highest rating measured: the range is what the
    calibration reaches, and nothing above it is kept."""
    points = [(level_for(s, rows, lo, hi), r, 1 / (e * e)) for s, r, e in measured]
    new = [(r, l) for l, r in pooled(points)]
    below = [(e, l) for e, l in rows if l < new[0][1] and e < new[0][0]]
    table = below + new
    if table[0][0] > lo:
        # The bottom of the range stays in the table: the played table's lowest row.
        table = [rows[0]] + table
    # Rounded, not cut: a pooled rating of 2883.0 may come out as 2882.9999….
    return table, round(new[-1][0])


def rust_rows(table):
    return "\n".join(f"    ({e:.1f}, {l:.4f})," for e, l in table)


def write(source, table, max_elo, results):
    """The source with the new table, its comment naming the results, and MAX_ELO."""
    names = ", ".join(f"tournaments/results/{Path(p).name}" for p in results)
    comment = (
        "/// (Elo, λ) rows, in rising order; between rows λ is interpolated linearly.\n"
        "/// Refitted by tournaments/refit-strength.sh from the measurements in\n"
        f"/// {names}: each measured level at the rating it played\n"
        "/// at against Stockfish's own UCI_Elo levels, pooled to rise with the level.\n"
        # One row a line, as this script reads and writes them (rustfmt would join them).
        "#[rustfmt::skip]\n"
    )
    start = source.index("/// (Elo, λ) rows")
    source = source[:start] + comment + source[source.index("const CALIBRATION"):]
    source = BLOCK.sub(lambda m: m.group(1) + rust_rows(table) + m.group(3), source)
    return re.sub(r"pub const MAX_ELO: i64 = \d+;", f"pub const MAX_ELO: i64 = {max_elo};", source)


def readme(text, table):
    """README's text with its strength table (the block that starts with the table's
    header) replaced, and the `UCI_Elo` option's range set to the table's ends."""
    header = table.splitlines()[0]
    start = text.find(header)
    if start < 0:
        raise ValueError("no strength table in the README")
    end = text.find("\n\n", start)
    text = text[:start] + table.rstrip("\n") + text[end:]
    elos = [int(line.split("|")[1]) for line in table.splitlines()[2:] if line.startswith("| ")]
    return re.sub(r"(\| UCI_Elo \| spin )\d+–\d+", rf"\g<1>{elos[0]}–{elos[-1]}", text)


def check(measured):
    """Lines saying, for each setting, whether its interval holds it; and whether all do."""
    lines, ok = [], True
    for s, r, e in measured:
        holds = abs(r - s) <= e
        ok &= holds
        lines.append(f"{s}: {r:.0f} ± {e:.0f} {'holds' if holds else 'MISSES'} the setting")
    return lines, ok


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    p = sub.add_parser("probe")
    p.add_argument("source")
    p.add_argument("top", type=int)
    f = sub.add_parser("fit")
    f.add_argument("source")
    f.add_argument("results", nargs="+")
    f.add_argument("--played")
    f.add_argument("--write", action="store_true")
    c = sub.add_parser("check")
    c.add_argument("results", nargs="+")
    r = sub.add_parser("readme")
    r.add_argument("readme")
    r.add_argument("table")
    a = parser.parse_args(argv)
    try:
        if a.action == "probe":
            source = Path(a.source).read_text()
            rows, lo, hi = read_table(source)
            table, top = probe_table(rows, hi, a.top)
            text = BLOCK.sub(lambda m: m.group(1) + rust_rows(table) + m.group(3), source)
            sys.stdout.write(re.sub(r"pub const MAX_ELO: i64 = \d+;", f"pub const MAX_ELO: i64 = {top};", text))
        elif a.action == "fit":
            source = Path(a.source).read_text()
            rows, lo, hi = read_table(Path(a.played).read_text() if a.played else source)
            measured = read_results(a.results)
            table, max_elo = fit(rows, lo, hi, measured)
            print(rust_rows(table))
            print(f"MAX_ELO {max_elo}")
            if a.write:
                Path(a.source).write_text(write(source, table, max_elo, a.results))
        elif a.action == "readme":
            path = Path(a.readme)
            path.write_text(readme(path.read_text(), Path(a.table).read_text()))
        else:
            lines, ok = check(read_results(a.results))
            print("\n".join(lines))
            return 0 if ok else 1
    except (OSError, ValueError, AttributeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
