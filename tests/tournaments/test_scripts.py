"""The tournament scripts as a tester meets them: usage, refusals naming what to
install, the puzzle and EPD runners on small inputs, and a game against
Debian's fairymax refereed by python-chess."""

import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import chess
import chess.engine
import pytest

ROOT = Path(__file__).resolve().parents[2]
T = ROOT / "tournaments"
PUZZLES = ROOT.parent / "shared" / "data" / "puzzles" / "kagi_llm_chess_puzzles_1000.csv"
FAIRYMAX = shutil.which("fairymax") or ("/usr/games/fairymax" if os.path.exists("/usr/games/fairymax") else None)


# An opening book for the refusals that are checked after the book is found: they
# must not depend on where ../shared/data is (a clean checkout may lack it).
BOOK = Path(tempfile.mkdtemp()) / "book.pgn"
BOOK.write_text('[Event "b"]\n[Result "*"]\n\n1. e4 e5 *\n')


def run(args, env_extra=None, tools=False):
    """Runs a script with no cutechess or ordo in reach unless `tools`."""
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    if tools:
        env["CUTECHESS"] = "/bin/true"
        env["ORDO"] = "/bin/true"
        env["BOOK"] = str(BOOK)
    env.update(env_extra or {})
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


@pytest.mark.parametrize(
    "script", ["gauntlet.sh", "sprt.sh", "roundrobin.sh", "match.sh", "stress.sh", "strength.sh", "refit-strength.sh"]
)
def test_usage_without_arguments(script):
    out = run([str(T / script)])
    assert out.returncode == 2
    assert "usage: tournaments/" + script in out.stderr


@pytest.mark.parametrize(
    "args, tools, message",
    [
        (["gauntlet.sh", "g", "5+0.05", "100", "a=/bin/true", "fairymax"], False, "cutechess-cli not found"),
        (["gauntlet.sh", "g", "5+0.05", "100", "a=/bin/true", "fairymax"], "cutechess", "ordo not found"),
        (["gauntlet.sh", "g", "5+0.05", "99", "a=/bin/true", "fairymax"], True, "GAMES must be an even number"),
        (["gauntlet.sh", "g", "5+0.05", "100", "a=/bin/true", "crafty"], True, "unknown engine 'crafty'"),
        (["gauntlet.sh", "g", "5+0.05", "100", "a=/bin/true", "stockfish@100"], True, "Elo between 1350 and 2850"),
        (["gauntlet.sh", "g", "5+0.05", "100", "a=/nonexistent/tessera", "fairymax"], True, "is not an executable"),
        (["gauntlet.sh", "bad/name", "5+0.05", "100", "a=/bin/true", "fairymax"], True, "NAME may hold"),
        (["roundrobin.sh", "r", "5+0.05", "10", "a=/bin/true", "a=/bin/false"], True, "two engines share a name"),
        (["sprt.sh", "s", "5+0.05", "net:/nonexistent.nnue", "b=/bin/true"], True, "net file /nonexistent.nnue not found"),
        (["sprt.sh", "s", "5+0.05", "commit:no-such-rev", "b=/bin/true"], True, "unknown commit 'no-such-rev'"),
        (["match.sh", "m", "5+0.05", "10", "a=/bin/true", "nosuchengine"], True, "unknown engine"),
        (["stress.sh", "-o", "Threads", "s"], True, "-o takes NAME=VALUE"),
        (["stress.sh", "s", "many"], True, "GAMES must be a number"),
        (["strength.sh", "c", "5+0.05", "20", "a=/bin/true", "1500-stockfish@1500"], True, "expected ELO:OPPONENT"),
        (["strength.sh", "c", "5+0.05", "20", "a=/bin/true", "1500:phalanx"], True, "nothing anchors the ratings"),
        (["strength.sh", "c", "5+0.05", "20", "stockfish", "1500:stockfish@1500"], True, "ENGINE must be"),
        (["strength.sh", "c", "5+0.05", "20", "a=/bin/true", "1500:stockfish@1000"], True, "Elo between 1350"),
        (["stress.sh", "s", "10", "1+0.01", "a=/nonexistent/tessera"], True, "is not an executable"),
        (["match.sh", "m", "5+0.05", "10", "a=/bin/true", "b=/bin/true"], "fastchess", "fastchess not found"),
        (["match.sh", "m", "5+0.05", "10", "a=/bin/true", "b=/bin/true"], "nosuchrunner", "RUNNER must be cutechess or fastchess"),
    ],
)
def test_refusals_say_what_is_wrong(args, tools, message):
    extra = {"CUTECHESS": "/bin/true"} if tools == "cutechess" else None
    if tools in ("fastchess", "nosuchrunner"):
        extra, tools = {"RUNNER": tools}, True
    out = run([str(T / args[0])] + args[1:], env_extra=extra, tools=tools is True)
    assert out.returncode != 0
    assert message in out.stderr, out.stderr


FAKE_CUTECHESS = """#!/bin/bash
# Stands in for cutechess-cli: notes the rounds it was asked for, then writes one
# finished game for each Round number in $FAKE_ROUNDS, up to the rounds asked
# for, to its -pgnout file, and a warning on stderr as cutechess-cli writes
# them. Answers a version query.
[ "$1" = --version ] && { echo "fake runner 1.0"; exit 0; }
echo "Warning: Premature bestmove while pondering from b" >&2
while [ $# -gt 0 ]; do
    case $1 in -pgnout) out=$2 ;; -rounds) rounds=$2; echo "$2" >> "$FAKE_LOG" ;; esac
    shift
done
for r in $FAKE_ROUNDS; do
    [ "$r" -le "${rounds:-1000}" ] || continue
    printf '[Event "t"]\\n[Round "%s"]\\n[White "a"]\\n[Black "b"]\\n[Result "1-0"]\\n\\n1. e4 1-0\\n\\n' "$r" >> "$out"
done
"""


def fake_cutechess_env(tmp_path):
    """Environment for a script run with FAKE_CUTECHESS, a one-opening book and its
    work and results folders under tmp_path."""
    fake = tmp_path / "cutechess"
    fake.write_text(FAKE_CUTECHESS)
    fake.chmod(0o755)
    book = tmp_path / "book.pgn"
    book.write_text('[Event "b"]\n\n1. e4 e5 *\n')
    return {"CUTECHESS": str(fake), "ORDO": "/bin/true", "FAKE_LOG": str(tmp_path / "rounds"), "BOOK": str(book),
            "WORK_DIR": str(tmp_path / "work"), "RESULTS_DIR": str(tmp_path / "results"), "STATE_DIR": str(tmp_path / "state")}


FAKE_FASTCHESS = """#!/bin/bash
# Stands in for fastchess: refuses cutechess-cli's plain `-pgnout FILE` and
# anything but cutechess-cli's output format, as the scripts must not send them,
# then plays as FAKE_CUTECHESS does and prints cutechess-cli's result lines.
[ "$1" = --version ] && { echo "fastchess fake 1.0"; exit 0; }
args=" $* "
[[ $args == *" -output format=cutechess "* ]] || { echo "no -output format=cutechess" >&2; exit 9; }
while [ $# -gt 0 ]; do
    case $1 in
        -pgnout) [[ $2 == file=* ]] || { echo "-pgnout without file=" >&2; exit 9; }; out=${2#file=} ;;
        -rounds) rounds=$2 ;;
        -config) [[ $2 == outname=* ]] && config=${2#outname=} ;;
        ponder) echo "fastchess cannot ponder" >&2; exit 9 ;;
    esac
    shift
done
for r in $(seq 1 "$rounds"); do
    for g in 1 2; do
        printf '[Event "t"]\\n[Round "%s"]\\n[White "a"]\\n[Black "b"]\\n[Result "1-0"]\\n\\n1. e4 {White loses on time (3ms overrun)} 1-0\\n\\n' "$r" >> "$out"
    done
done
echo "Warning; Bestmove does not match beginning of last PV - move e2e4 from b"
echo "Warning; Bestmove does not match beginning of last PV - move d2d4 from b"
echo "Score of a vs b: $((rounds * 2)) - 0 - 0  [1.000] $((rounds * 2))"
echo "Elo difference: inf +/- nan, LOS: 100.00 %, DrawRatio: 0.00 %"
# fastchess saves its state as config.json in the working folder unless told where.
echo '{}' > "${config:-config.json}"
"""


def test_fastchess_runs_a_match_with_its_own_options(tmp_path):
    """RUNNER=fastchess: the match goes to fastchess with its spelling of the
    options, and the table reads its games and lines as it reads cutechess-cli's."""
    env = fake_cutechess_env(tmp_path)
    fake = tmp_path / "fastchess"
    fake.write_text(FAKE_FASTCHESS)
    fake.chmod(0o755)
    env.update({"RUNNER": "fastchess", "FASTCHESS": str(fake), "CUTECHESS": "/nonexistent"})
    out = run([str(T / "match.sh"), "m", "nodes=100", "4", "a=/bin/true", "b=/bin/true"], env_extra=env)
    assert out.returncode == 0, out.stderr
    table = (tmp_path / "results" / "m.md").read_text()
    assert "| games | 4 |" in table
    assert "Score of a vs b: 4 - 0 - 0" in table
    assert "time forfeits 4 (" in table, table
    assert "| runner warnings | 2× Bestmove does not match beginning of last PV from b |" in table, table
    assert "| runner | fastchess fake 1.0 |" in table and "RUNNER=fastchess" in table
    stray = ROOT / "config.json"
    left_in_root = stray.exists()
    stray.unlink(missing_ok=True)
    assert not left_in_root, "fastchess's saved state landed in the repository's root"
    assert list((tmp_path / "work").rglob("*.fastchess.json")), "fastchess's saved state is not beside its PGN"
    out = run([str(T / "match.sh"), "m2", "5+0.05", "4", "a=/bin/true", "b=/bin/true"], env_extra={**env, "PONDER": "1"})
    assert out.returncode != 0 and "fastchess does not ponder" in out.stderr


def test_a_match_table_counts_the_runners_warnings(tmp_path):
    """cutechess-cli's warnings (on stderr; a premature bestmove while pondering,
    say) reach the match's log and its table."""
    env = {**fake_cutechess_env(tmp_path), "FAKE_ROUNDS": "1 1"}
    out = run([str(T / "match.sh"), "m", "nodes=100", "2", "a=/bin/true", "b=/bin/true"], env_extra=env)
    assert out.returncode == 0, out.stderr
    table = (tmp_path / "results" / "m.md").read_text()
    assert "| runner warnings | 1× Premature bestmove while pondering from b |" in table, table


def test_an_interrupted_gauntlet_keeps_whole_opening_pairs_only(tmp_path):
    env = fake_cutechess_env(tmp_path)
    args = [str(T / "gauntlet.sh"), "g", "nodes=100", "6", "a=/bin/true", "b=/bin/true"]
    pgn = tmp_path / "work" / "g" / "vs-b.pgn"

    # A run cut off after three games: round 2 lost its second game (its colours
    # swapped), so its first is left out; a game without a result is left out too.
    (tmp_path / "work" / "g").mkdir(parents=True)
    Path(str(pgn) + ".run").write_text(
        "".join(f'[Event "t"]\n[Round "{r}"]\n[Result "0-1"]\n\n1. d4 0-1\n\n' for r in (1, 2, 1))
        + '[Event "t"]\n[Round "2"]\n\n1. d4\n'
    )
    out = run(args, env_extra={**env, "FAKE_ROUNDS": "1 1 2 2"})
    assert out.returncode == 0, out.stderr
    assert "playing 4 games (2 already played)" in out.stderr
    assert (tmp_path / "rounds").read_text().split() == ["2"]
    assert pgn.read_text().count("[Result ") == 6 and not Path(str(pgn) + ".run").exists()

    # A run that itself ends with an unpaired game leaves the PGN one pair short,
    # and the next run asks for that pair again.
    pgn.unlink()
    shutil.rmtree(tmp_path / "state")
    out = run(args, env_extra={**env, "FAKE_ROUNDS": "1 1 2 2 3"})
    assert out.returncode == 0, out.stderr
    assert pgn.read_text().count("[Result ") == 6
    assert (tmp_path / "rounds").read_text().split() == ["2", "3", "1"]


@pytest.mark.parametrize("script", ["gauntlet.sh", "roundrobin.sh"])
def test_a_table_counts_only_the_games_of_its_own_run(tmp_path, script):
    # A second run in the same folder with another opponent: the first run's games
    # stay on disk (resumable) but are not this table's.
    env = {**fake_cutechess_env(tmp_path), "FAKE_ROUNDS": "1 1"}
    for opponent in ("b", "c"):
        out = run([str(T / script), "g", "nodes=100", "2", "a=/bin/true", f"{opponent}=/bin/true"], env_extra=env)
        assert out.returncode == 0, out.stderr
    assert len(list((tmp_path / "work" / "g").glob("*vs-*.pgn"))) == 2
    table = (tmp_path / "results" / "g.md").read_text()
    assert re.search(r"^\| games \| 2\b", table, re.M), table


def test_a_stress_table_names_its_engine_options_where_the_command_takes_them(tmp_path):
    env = {**fake_cutechess_env(tmp_path), "FAKE_ROUNDS": "1 1"}
    out = run([str(T / "stress.sh"), "-o", "Threads=2", "-o", "Move Overhead=30", "s", "2", "nodes=100",
               "a=/bin/true"], env_extra=env)
    assert out.returncode == 0, out.stderr
    table = (tmp_path / "results" / "stress-s.md").read_text()
    assert "tournaments/stress.sh -o Threads=2 -o 'Move Overhead=30' s 2 nodes=100 a=/bin/true`" in table, table


ARGV_CUTECHESS = """#!/bin/sh
# Records its arguments, one a line, and plays nothing (a version query aside).
[ "$1" = --version ] && exit 0
printf '%s\\n' "$@" > "$FAKE_ARGV"
"""


@pytest.mark.parametrize(
    "args",
    [
        ["gauntlet.sh", "g", "TC", "2", "a=/bin/true", "b=/bin/true"],
        ["match.sh", "m", "TC", "2", "a=/bin/true", "b=/bin/true"],
        ["sprt.sh", "s", "TC", "a=/bin/true", "b=/bin/true"],
        ["stress.sh", "x", "2", "TC", "a=/bin/true"],
    ],
    ids=lambda a: a[0],
)
@pytest.mark.parametrize(
    "tc, limits",
    [("nodes=100", ["tc=inf", "nodes=100", "timemargin=0"]), ("movetime=100", ["st=0.1", "timemargin=30"]),
     ("10+0.1", ["tc=10+0.1", "timemargin=0"])],
)
def test_every_script_gives_cutechess_the_same_limits_and_book(tmp_path, args, tc, limits):
    fake = tmp_path / "cutechess"
    fake.write_text(ARGV_CUTECHESS)
    fake.chmod(0o755)
    book = tmp_path / "a book" / "openings.epd"
    book.parent.mkdir()
    book.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
    argv = tmp_path / "argv"
    env = {"CUTECHESS": str(fake), "ORDO": "/bin/true", "FAKE_ARGV": str(argv), "BOOK": str(book),
           "BOOK_PLIES": "8", "WORK_DIR": str(tmp_path / "work"), "RESULTS_DIR": str(tmp_path / "results"), "STATE_DIR": str(tmp_path / "state")}
    run([str(T / args[0]), *[tc if a == "TC" else a for a in args[1:]]], env_extra=env)
    got = argv.read_text().splitlines()
    each = got.index("-each")
    # The book path keeps its space as one argument.
    assert got[each:each + len(limits) + 6] == ["-each", *limits, "-openings", f"file={book}", "format=epd",
                                                "order=random", "plies=8"]


def test_node_odds_give_each_engine_its_own_budget(tmp_path):
    # cutechess applies -each after the engines' own specs, so the two budgets must
    # be in the specs and no node limit in -each; other scripts refuse the form.
    fake = tmp_path / "cutechess"
    fake.write_text(ARGV_CUTECHESS)
    fake.chmod(0o755)
    argv = tmp_path / "argv"
    env = {"CUTECHESS": str(fake), "ORDO": "/bin/true", "FAKE_ARGV": str(argv), "BOOK": str(BOOK),
           "WORK_DIR": str(tmp_path / "work"), "RESULTS_DIR": str(tmp_path / "results"), "STATE_DIR": str(tmp_path / "state")}
    run([str(T / "match.sh"), "m", "nodes=300:200", "2", "a=/bin/true", "b=/bin/true"], env_extra=env)
    got = argv.read_text().splitlines()
    first, second, each = got.index("-engine"), len(got) - got[::-1].index("-engine") - 1, got.index("-each")
    assert got[first:second][-2:] == ["tc=inf", "nodes=300"]
    assert got[second:each][-2:] == ["tc=inf", "nodes=200"]
    assert got[each:each + 3] == ["-each", "timemargin=0", "-openings"]
    assert "| time control | nodes=300:200, 2 games at a time |" in (tmp_path / "results" / "m.md").read_text()
    for args in (["match.sh", "m", "nodes=0:200", "2"], ["gauntlet.sh", "g", "nodes=300:200", "2"]):
        out = run([str(T / args[0]), *args[1:], "a=/bin/true", "b=/bin/true"], env_extra=env)
        assert out.returncode != 0 and "is neither cutechess's form" in out.stderr, out.stderr


def test_median_depth_reads_cutechess_move_comments(tmp_path):
    # Book moves carry no depth; a comment may be wrapped across lines; the last
    # move's comment carries the result after a comma.
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[Event "?"]\n[Result "1-0"]\n\n1. e4 {book} e5 {book} 2. Nf3 {+0.30/9 0.090s} Nc6\n'
                   '{-0.20/12\n0.091s} 3. Bb5 {+0.40/11 0.090s} a6 {-0.30/10 0.090s}\n'
                   '4. Qh5 {+M1/127 0.004s, White mates} 1-0\n\n[Event "?"]\n[Result "*"]\n\n*\n')
    out = run(["bash", "-c", f'TOURNAMENTS={T}; . {T}/lib.sh; median_depth "$1"; median_depth /dev/null', "-", str(pgn)])
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["11 (5 moves)", "–"]


def test_a_missing_debian_engine_names_the_package():
    # `phalanx` looked up with a PATH and a /usr/games that cannot hold it.
    script = f'TOURNAMENTS={T}; . {T}/lib.sh; find_debian no-such-engine-xyz'
    out = run(["bash", "-c", script])
    assert out.returncode == 1
    assert "apt-get install no-such-engine-xyz" in out.stderr


def test_engine_options_become_cutechess_option_arguments():
    script = f'TOURNAMENTS={T}; . {T}/lib.sh; option_args "SyzygyPath=/t Hash=8"; echo; option_args "nonsense"'
    out = run(["bash", "-c", script])
    assert out.stdout.splitlines()[0] == " option.SyzygyPath=/t option.Hash=8"
    assert out.returncode == 1 and "expected NAME=VALUE" in out.stderr


def test_a_strength_limited_engine_gets_its_options_and_name():
    script = f'TOURNAMENTS={T}; . {T}/lib.sh; engine_spec t=/bin/true@1600; engine_spec t=/bin/true@high'
    out = run(["bash", "-c", script])
    assert out.stdout.splitlines()[0] == (
        "name=t@1600 cmd=/bin/true proto=uci option.UCI_LimitStrength=true option.UCI_Elo=1600")
    assert out.returncode == 1 and "must be a number, not 'high'" in out.stderr


def test_time_use_table_reads_move_times_and_forfeits(tmp_path):
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[Event "?"]\n[White "t"]\n[Black "o"]\n[Result "0-1"]\n\n1. e4 {book} e5 {book} '
                   '2. Nf3 {+0.30/9 1.500s} Nc6 {-0.20/12 2.0s} 3. Bb5 {+0.40/11 2.500s} '
                   'a6 {-0.30/10 0.5s, White loses on time} 0-1\n\n'
                   '[Event "?"]\n[White "o"]\n[Black "t"]\n[Result "1-0"]\n\n1. d4 {+0.1/5 1s} '
                   'd5 {-0.1/5 4.000s} 2. c4 {+0.1/5 1s} e6 {-0.1/5 1.000s, White mates} 1-0\n')
    out = run([sys.executable, str(T / "time_use.py"), str(pgn), "t", "40/10"])
    assert out.returncode == 0, out.stderr
    assert "2 games, 4 moves; time forfeits: 1;" in out.stdout
    # t's moves: 2. 1.5 s and 3. 2.5 s (white); 1... 4 s and 2... 1 s (black): least clock 10 - 5 = 5 s.
    assert "least time left on its clock after a move: 5.00 s" in out.stdout
    assert "| 1–10 | 4 | 2.25 | 4.00 |" in out.stdout
    bad = run([sys.executable, str(T / "time_use.py"), str(pgn), "t", "fast"])
    assert bad.returncode == 1 and "is not [MOVES/]SECONDS" in bad.stderr


def test_ethereal_is_the_debian_ethereal_chess_package():
    # The anchor above Toga II: named `ethereal`, installed as ethereal-chess.
    script = f'TOURNAMENTS={T}; . {T}/lib.sh; PATH=/nonexistent; find_debian() {{ echo "/found/$1"; }}; engine_spec ethereal'
    out = run(["bash", "-c", script])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "name=ethereal cmd=/found/ethereal-chess proto=uci"
    assert "ethereal-chess" in (T / "install-opponents.sh").read_text()


@pytest.mark.skipif(not PUZZLES.exists(), reason="[shared-data] ../shared/data/puzzles is absent")
def test_puzzle_accuracy_on_a_few_puzzles(engine_bin, tmp_path):
    out = run([sys.executable, str(T / "puzzles.py"), "pz", "--engine", engine_bin, "--limit", "12",
               "--movetime", "40"], env_extra={"RESULTS_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    text = (tmp_path / "pz.md").read_text()
    # The count of solver moves is the puzzles' own: every other move after the first.
    import csv
    with open(PUZZLES, newline="") as f:
        rows = [r for _, r in zip(range(12), csv.DictReader(f))]
    solver_moves = sum(len(r["Moves"].split()) // 2 for r in rows)
    found, total = map(int, re.search(r"\((\d+) of (\d+) solver moves\)", text).groups())
    assert total == solver_moves and 0 < found <= total
    solved, puzzles = map(int, re.search(r"\((\d+) of (\d+) puzzles\)", text).groups())
    assert puzzles == 12 and solved <= puzzles
    assert "## By puzzle rating" in text and "## By theme" in text


@pytest.mark.skipif(not PUZZLES.exists(), reason="[shared-data] ../shared/data/puzzles is absent")
def test_puzzles_at_a_fixed_node_count_give_the_same_answers_twice(engine_bin, tmp_path):
    """A node budget makes the measure load-immune: two runs agree move for move."""
    texts = []
    for name in ["a", "b"]:
        out = run([sys.executable, str(T / "puzzles.py"), name, "--engine", engine_bin, "--limit", "20",
                   "--nodes", "300"], env_extra={"RESULTS_DIR": str(tmp_path)})
        assert out.returncode == 0, out.stderr
        texts.append((tmp_path / f"{name}.md").read_text())
        assert "| per move | 300 nodes, Hash 16 MB, 1 thread(s) |" in texts[-1]
    accuracy = [re.search(r"\((\d+) of (\d+) solver moves\)", t).groups() for t in texts]
    assert accuracy[0] == accuracy[1] and 0 < int(accuracy[0][0]) <= int(accuracy[0][1])


def test_puzzle_runner_refuses_bad_input(engine_bin, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    out = run([sys.executable, str(T / "puzzles.py"), "pz", "--engine", engine_bin, "--csv", str(bad)])
    assert out.returncode == 1 and "not a Lichess puzzle CSV" in out.stderr
    out = run([sys.executable, str(T / "puzzles.py"), "pz", "--engine", "/nonexistent/tessera"])
    assert out.returncode == 1 and "is not an executable" in out.stderr
    out = run([sys.executable, str(T / "puzzles.py"), "pz", "--engine", engine_bin, "--nodes", "5", "--movetime", "5"])
    assert out.returncode == 2 and "not allowed with" in out.stderr
    out = run([sys.executable, str(T / "puzzles.py"), "pz", "--engine", engine_bin, "--nodes", "-5"])
    assert out.returncode == 1 and "must be positive" in out.stderr


def test_epd_suite(engine_bin, tmp_path):
    suite = tmp_path / "suite.epd"
    suite.write_text(
        '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id "back rank";\n'
        'r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - bm Qxf7#; id "scholar";\n'
        '# black must not give up the queen: Qxd4 loses it to the knight\n'
        'rnb1kbnr/pppp1ppp/8/4p3/3NP2q/8/PPP2PPP/RNBQKB1R b KQkq - am Qxe4+; id "poisoned";\n'
    )
    out = run([sys.executable, str(T / "epd.py"), "suite", "--engine", engine_bin, "--epd", str(suite),
               "--movetime", "200"], env_extra={"RESULTS_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert "**3 / 3**" in (tmp_path / "suite.md").read_text()
    broken = tmp_path / "broken.epd"
    broken.write_text("8/8/8/8/8/8/8/8 w - - id x;\n")
    out = run([sys.executable, str(T / "epd.py"), "b", "--engine", engine_bin, "--epd", str(broken)])
    assert out.returncode == 1 and "broken.epd:1" in out.stderr


class XBoard:
    """Just enough of the xboard protocol to play a game with fairymax (which
    python-chess cannot drive: it has no `setboard`)."""

    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(l) for l in self.proc.stdout], daemon=True).start()
        for command in ["xboard", "protover 2", "new", "force", "easy", "sd 3"]:
            self.send(command)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def think(self):
        self.send("go")
        while True:
            line = self.lines.get(timeout=30)
            if line.startswith("move "):
                self.send("force")
                return chess.Move.from_uci(line.split()[1])

    def quit(self):
        self.send("quit")
        self.proc.wait(timeout=10)


@pytest.mark.skipif(FAIRYMAX is None, reason="[fairymax] fairymax is not installed (apt-get install fairymax)")
def test_a_short_game_against_fairymax(engine_bin):
    tessera = chess.engine.SimpleEngine.popen_uci(engine_bin)
    fairymax = XBoard(FAIRYMAX)
    board = chess.Board()
    try:
        while not board.is_game_over(claim_draw=True) and board.ply() < 60:
            if board.turn == chess.WHITE:
                move = tessera.play(board, chess.engine.Limit(time=0.05)).move
                assert move in board.legal_moves, f"tessera played illegal {move} in {board.fen()}"
                fairymax.send(move.uci())
            else:
                move = fairymax.think()
                assert move in board.legal_moves, f"fairymax played {move} in {board.fen()}"
            board.push(move)
        assert board.ply() >= 60 or board.is_game_over(claim_draw=True)
    finally:
        tessera.quit()
        fairymax.quit()


def test_a_result_records_the_settings_its_run_was_given(tmp_path):
    # An SPRT with elo1 = 10 (not the script's 5) and a book path with a space:
    # the result's Command line must replay that run, not the defaults.
    fake = tmp_path / "cutechess"
    fake.write_text(ARGV_CUTECHESS)
    fake.chmod(0o755)
    book = tmp_path / "a book.epd"
    book.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n")
    env = {"CUTECHESS": str(fake), "ORDO": "/bin/true", "FAKE_ARGV": str(tmp_path / "argv"), "BOOK": str(book),
           "WORK_DIR": str(tmp_path / "work"), "RESULTS_DIR": str(tmp_path / "results"), "STATE_DIR": str(tmp_path / "state"), "ELO1": "10", "MAX_GAMES": "400"}
    out = run([str(T / "sprt.sh"), "s", "nodes=100", "a=/bin/true", "b=/bin/true"], env_extra=env)
    assert out.returncode == 0, out.stderr
    result = (tmp_path / "results" / "s.md").read_text()
    assert "| SPRT | elo0=0 elo1=10 alpha=0.05 beta=0.05 (logistic Elo) |" in result
    # cutechess ended without a verdict (it played nothing): the table says so.
    assert "| outcome | no decision after 0 games (rerun the command to go on) |" in result
    assert "added no whole game pair; stopping" in out.stderr
    # An EPD book holds positions: no ply count in its row.
    assert "| book | a book.epd, random order, each opening with both colours |" in result
    command = next(line for line in result.splitlines() if line.startswith("Command:"))
    book_word = str(book).replace(" ", "\\ ")
    assert command == f"Command: `ELO1=10 MAX_GAMES=400 BOOK={book_word} tournaments/sprt.sh s nodes=100 a=/bin/true b=/bin/true`"
    # A run without those settings says nothing of them.
    env = {k: v for k, v in env.items() if k not in ("ELO1", "MAX_GAMES")}
    run([str(T / "sprt.sh"), "s2", "nodes=100", "a=/bin/true", "b=/bin/true"], env_extra=env)
    command = next(line for line in (tmp_path / "results" / "s2.md").read_text().splitlines() if line.startswith("Command:"))
    assert command.startswith(f"Command: `BOOK={book_word} tournaments/sprt.sh s2 ")


PAIRS_CUTECHESS = r"""#!/bin/bash
# Stands in for cutechess-cli in an SPRT: for each round asked, one opening
# played with both colours by the two -engine names, with results drawn from
# $FAKE_PAIRS in turn (one word per pair: the first engine's points in its two
# games, e.g. 11, 1h, h0, 00; h is a draw), under the -event name given.
# Notes each run's -event and -rounds in $FAKE_LOG. Answers a version query.
[ "$1" = --version ] && { echo "fake runner 1.0"; exit 0; }
names=()
while [ $# -gt 0 ]; do
    case $1 in
        -engine) names+=("$(sed 's/^name=\([^ ]*\).*/\1/' <<< "$2")") ;;
        -event) event=$2 ;;
        -rounds) rounds=$2 ;;
        -pgnout) out=$2 ;;
    esac
    shift
done
echo "$event $rounds" >> "$FAKE_LOG"
read -ra pairs <<< "$FAKE_PAIRS"
done_pairs=$(cat "$FAKE_LOG.n" 2>/dev/null || echo 0)
result() { case $1 in 1) echo "$2" ;; 0) [ "$2" = 1-0 ] && echo 0-1 || echo 1-0 ;; h) echo 1/2-1/2 ;; esac; }
for ((r = 1; r <= rounds; r++)); do
    p=${pairs[$((done_pairs % ${#pairs[@]}))]}
    done_pairs=$((done_pairs + 1))
    printf '[Event "%s"]\n[Round "%s"]\n[White "%s"]\n[Black "%s"]\n[Result "%s"]\n\n1. e4 *\n\n' \
        "$event" "$r" "${names[0]}" "${names[1]}" "$(result "${p:0:1}" 1-0)" >> "$out"
    printf '[Event "%s"]\n[Round "%s"]\n[White "%s"]\n[Black "%s"]\n[Result "%s"]\n\n1. e4 *\n\n' \
        "$event" "$r" "${names[1]}" "${names[0]}" "$(result "${p:1:1}" 0-1)" >> "$out"
done
echo "$done_pairs" > "$FAKE_LOG.n"
"""


def pairs_cutechess_env(tmp_path, pairs):
    fake = tmp_path / "cutechess"
    fake.write_text(PAIRS_CUTECHESS)
    fake.chmod(0o755)
    book = tmp_path / "book.pgn"
    book.write_text('[Event "b"]\n\n1. e4 e5 *\n')
    return {"CUTECHESS": str(fake), "ORDO": "/bin/true", "FAKE_LOG": str(tmp_path / "runs"), "FAKE_PAIRS": pairs,
            "BOOK": str(book), "WORK_DIR": str(tmp_path / "work"), "RESULTS_DIR": str(tmp_path / "results"), "STATE_DIR": str(tmp_path / "state")}


def test_an_sprt_reads_its_statistic_between_runs_and_stops_at_a_bound(tmp_path):
    # NEW wins one pair in two and draws the other: about +190 Elo, H1 within a few chunks.
    env = {**pairs_cutechess_env(tmp_path, "11 hh"), "CHUNK": "8", "ELO1": "10"}
    out = run([str(T / "sprt.sh"), "s", "nodes=100", "new=/bin/true", "old=/bin/true"], env_extra=env)
    assert out.returncode == 0, out.stderr
    runs = (tmp_path / "runs").read_text().splitlines()
    assert runs[0] == "s run 1 4" and runs[1] == "s run 2 4", runs
    result = (tmp_path / "results" / "s.md").read_text()
    assert "| outcome | H1 accepted: new is stronger than old |" in result, result
    games = 8 * len(runs)
    assert f"| games | {games} in {len(runs)} runs of the match runner |" in result
    assert f"| result | new: {games // 2} wins, 0 losses, {games // 2} draws |" in result
    # Stopped at the first chunk whose statistic crossed the bound, not later.
    llrs = [float(m) for m in re.findall(r"llr=(-?[0-9.]+)", (tmp_path / "work" / "s.log").read_text())]
    assert llrs[-1] >= 2.944 and all(x < 2.944 for x in llrs[:-1]), llrs
    # A rerun of a decided test plays nothing more.
    out = run([str(T / "sprt.sh"), "s", "nodes=100", "new=/bin/true", "old=/bin/true"], env_extra=env)
    assert out.returncode == 0 and len((tmp_path / "runs").read_text().splitlines()) == len(runs)

    # Level engines with elo1 = 10: H0, in more games.
    (tmp_path / "level").mkdir()
    env = {**pairs_cutechess_env(tmp_path / "level", "10 01 hh"), "CHUNK": "100", "ELO1": "10"}
    out = run([str(T / "sprt.sh"), "s", "nodes=100", "new=/bin/true", "old=/bin/true"], env_extra=env)
    assert out.returncode == 0, out.stderr
    assert "| outcome | H0 accepted: new is not 10 Elo stronger than old |" in (tmp_path / "level" / "results" / "s.md").read_text()


def test_an_interrupted_sprt_goes_on_and_refuses_another_test_under_its_name(tmp_path):
    env = {**pairs_cutechess_env(tmp_path, "10 01 hh"), "CHUNK": "4", "MAX_GAMES": "8"}
    args = [str(T / "sprt.sh"), "s", "nodes=100", "new=/bin/true", "old=/bin/true"]
    out = run(args, env_extra=env)
    assert out.returncode == 0, out.stderr
    work = tmp_path / "work"
    assert (work / "s.pgn").read_text().count("[Result ") == 8
    # A later session: a run was cut off after a whole pair and half of another.
    (work / "s.pgn.run").write_text(
        "".join(f'[Event "s run 3"]\n[Round "{r}"]\n[White "{w}"]\n[Black "{b}"]\n[Result "1-0"]\n\n1. e4 *\n\n'
                for r, w, b in ((1, "new", "old"), (2, "new", "old"), (1, "old", "new"))))
    out = run(args, env_extra={**env, "MAX_GAMES": "14"})
    assert out.returncode == 0, out.stderr
    result = (tmp_path / "results" / "s.md").read_text()
    assert "| games | 14 in 4 runs of the match runner |" in result, result
    # The whole pair kept (1-0 and 1-0: a win and a loss for new); the half pair dropped.
    assert "SPRT s after 10 games" in (work / "s.log").read_text()
    assert (tmp_path / "runs").read_text().splitlines()[-1] == "s run 4 2"
    # Other bounds, another engine binary or another time control under the same name: refused.
    for extra, message in (({"ELO1": "10"}, "sprt elo0=0 elo1=10"), ({}, "new new")):
        changed = args if extra else [*args[:3], "new=/bin/false", args[4]]
        out = run(changed, env_extra={**env, **extra})
        assert out.returncode != 0 and message in out.stderr and "delete" in out.stderr, out.stderr


def test_an_sprt_goes_on_on_another_machine_from_its_committed_state(tmp_path):
    env = {**pairs_cutechess_env(tmp_path, "10 01 hh"), "CHUNK": "4", "MAX_GAMES": "8"}
    args = [str(T / "sprt.sh"), "s", "nodes=100", "new=/bin/true", "old=/bin/true"]
    assert run(args, env_extra=env).returncode == 0
    state = tmp_path / "state" / "s"
    assert sorted(p.name for p in state.iterdir()) == ["s.pgn.gz", "s.sprt"]
    # The machine is gone: no work folder. The same command goes on from the state.
    shutil.rmtree(tmp_path / "work")
    out = run(args, env_extra={**env, "MAX_GAMES": "12"})
    assert out.returncode == 0, out.stderr
    assert "restored" in out.stderr and "(8 games)" in out.stderr, out.stderr
    assert "| games | 12 in 3 runs of the match runner |" in (tmp_path / "results" / "s.md").read_text()
    assert (tmp_path / "runs").read_text().splitlines()[-1] == "s run 3 2"
    # The kept identity still refuses another test under the name.
    shutil.rmtree(tmp_path / "work")
    out = run([*args[:3], "new=/bin/false", args[4]], env_extra=env)
    assert out.returncode != 0 and "delete" in out.stderr, out.stderr


def test_a_gauntlet_goes_on_on_another_machine_from_its_committed_state(tmp_path):
    env = {**fake_cutechess_env(tmp_path), "CHUNK": "2"}
    args = [str(T / "gauntlet.sh"), "g", "nodes=100", "4", "a=/bin/true", "b=/bin/true"]
    out = run(args, env_extra={**env, "FAKE_ROUNDS": "1 1"})
    assert out.returncode == 0, out.stderr
    # Played in chunks of two games, each kept in the state as it ended.
    assert (tmp_path / "rounds").read_text().split() == ["1", "1"]
    assert (tmp_path / "state" / "g" / "vs-b.pgn.gz").exists()
    shutil.rmtree(tmp_path / "work")
    out = run([*args[:3], "6", *args[4:]], env_extra={**env, "FAKE_ROUNDS": "1 1"})
    assert out.returncode == 0, out.stderr
    assert "playing 2 games (4 already played)" in out.stderr, out.stderr
    assert (tmp_path / "work" / "g" / "vs-b.pgn").read_text().count("[Result ") == 6


def test_a_rerun_rewrites_the_table_and_keeps_the_notes_below_its_command(tmp_path):
    env = {**fake_cutechess_env(tmp_path), "FAKE_ROUNDS": "1 1"}
    args = [str(T / "gauntlet.sh"), "g", "nodes=100", "2", "a=/bin/true", "b=/bin/true"]
    assert run(args, env_extra=env).returncode == 0
    table = tmp_path / "results" / "g.md"
    note = "\nEach opponent is a branch; its `Command: x` remakes it.\n"
    table.write_text(table.read_text() + note)
    out = run([*args[:3], "4", *args[4:]], env_extra=env)
    assert out.returncode == 0, out.stderr
    text = table.read_text()
    assert re.search(r"^\| games \| 4\b", text, re.M), text
    assert text.count("Command: `") == 1 and text.endswith(note), text
    # A third run keeps the same note once.
    assert run([*args[:3], "4", *args[4:]], env_extra=env).returncode == 0
    assert table.read_text() == text


def test_the_sprt_statistic_pairs_games_by_event_and_round():
    sys.path.insert(0, str(T))
    import sprt_stat

    games = [{"Event": e, "Round": r, "White": w, "Black": b, "Result": res} for e, r, w, b, res in (
        ("run 1", "1", "n", "o", "1-0"), ("run 2", "1", "o", "n", "1-0"), ("run 1", "1", "o", "n", "1/2-1/2"),
        ("run 2", "1", "n", "o", "1-0"), ("run 2", "2", "n", "o", "0-1"), ("run 1", "2", "n", "o", "*"),
        ("run 1", "2", "o", "n", "0-1"))]
    # run 1 round 1: 1 + ½; run 2 round 1: 0 + 1; run 2 round 2 and run 1 round 2 lack a game.
    assert sprt_stat.whole_pairs(games, "n") == [[1.0, 0.5], [0.0, 1.0]]
    assert sprt_stat.pentanomial([0.75, 0.5]) == [0, 0, 1, 1, 0]
    # The score of an Elo and back.
    assert abs(sprt_stat.expected_score(100) - 0.6401) < 1e-4
    assert abs(sprt_stat.elo_of(sprt_stat.expected_score(-57.3)) + 57.3) < 1e-9
    # Swapping the engines swaps the pair scores and negates the Elo.
    pairs = [[1.0, 0.5]] * 30 + [[0.5, 0.5]] * 50 + [[0.0, 0.5]] * 20 + [[1.0, 1.0]] * 5
    swapped = [[1 - p for p in pair] for pair in pairs]
    a, b = sprt_stat.status(pairs, 0, 10, 0.05, 0.05), sprt_stat.status(swapped, 0, 10, 0.05, 0.05)
    assert float(a["elo"]) == -float(b["elo"]) and a["elo_error"] == b["elo_error"]
    assert (a["wins"], a["losses"], a["draws"]) == (b["losses"], b["wins"], b["draws"]) == (40, 20, 150)
    # The LLR of a score between the hypotheses' is zero; it grows with the pairs.
    s0, s1 = sprt_stat.expected_score(0), sprt_stat.expected_score(10)
    assert abs(sprt_stat.llr([10, 0, 0, 0, 10], -10, 10)) < 1e-12 and sprt_stat.llr([0] * 5, 0, 10) == 0
    one = sprt_stat.llr([1, 2, 3, 2, 3], 0, 10)
    assert abs(sprt_stat.llr([10, 20, 30, 20, 30], 0, 10) - 10 * one) < 1e-9
    # By hand: scores 0, ¼, ½, ¾, 1 with counts 1 2 3 2 3 (N = 11).
    m = (2 * 0.25 + 3 * 0.5 + 2 * 0.75 + 3) / 11
    v = (1 * m ** 2 + 2 * (0.25 - m) ** 2 + 3 * (0.5 - m) ** 2 + 2 * (0.75 - m) ** 2 + 3 * (1 - m) ** 2) / 11
    assert abs(one - 11 * (s1 - s0) * (2 * m - s0 - s1) / (2 * v)) < 1e-12


def scratch_repository(root, files):
    """A git repository at `root` holding `files` (path: text) and an empty
    tournaments/ folder for lib.sh; returns a function that commits every
    change under a message and gives the new commit's short hash."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    (root / "tournaments").mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)

    def commit(message):
        subprocess.run([*git, "add", "."], check=True)
        subprocess.run([*git, "commit", "-qm", message], check=True)
        return subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return commit


def lib_sh(root, call, **env):
    """lib.sh sourced as if its folder were `root`/tournaments, then `call`."""
    return subprocess.run(["bash", "-c", f'TOURNAMENTS={root}/tournaments; . {T}/lib.sh; {call}'],
                          capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", **env})


def test_commit_row_names_the_newest_change_to_the_engine(tmp_path):
    """A result table re-rendered after a docs-only commit keeps the commit its
    games were played at: lib.sh and report.py name the newest commit that
    touched the engine's code, not HEAD."""
    commit = scratch_repository(tmp_path, {"src/main.rs": "fn main() {}\n"})
    engine = commit("engine")
    (tmp_path / "README.md").write_text("docs\n")
    commit("docs")

    assert lib_sh(tmp_path, "engine_commit").stdout.strip() == engine
    sys.path.insert(0, str(T))
    try:
        import report
        assert report.commit(tmp_path) == engine
    finally:
        sys.path.remove(str(T))
    assert lib_sh(tmp_path, "engine_commit", ENGINE_COMMIT="abc1234").stdout.strip() == "abc1234"


def test_the_net_build_cache_key_follows_every_engine_file(tmp_path):
    """A `net:` engine is rebuilt when any of the engine's files changes, committed
    (Cargo.toml's profile too, with Cargo.lock unchanged) or not, and only then."""
    files = {"src/main.rs": "fn main() {}\n", "build.rs": "fn main() {}\n",
             "Cargo.toml": "[package]\nname = \"t\"\n", "Cargo.lock": "version = 3\n"}
    commit = scratch_repository(tmp_path, files)

    def key():
        out = lib_sh(tmp_path, f"engine_code_key {tmp_path}")
        assert out.returncode == 0 and len(out.stdout.strip()) == 8, out.stderr
        return out.stdout.strip()

    commit("engine")
    first = key()
    (tmp_path / "README.md").write_text("docs\n")
    commit("docs")
    assert key() == first
    (tmp_path / "Cargo.toml").write_text(files["Cargo.toml"] + "[profile.release]\nlto = true\n")
    uncommitted = key()
    assert uncommitted != first
    commit("profile")
    committed = key()
    assert committed not in (first, uncommitted)
    (tmp_path / "src" / "main.rs").write_text("fn main() { println!(); }\n")
    assert key() != committed


def test_bench_vs_stockfish_refuses_bad_input():
    script = str(T / "bench_vs_stockfish.sh")
    missing = run([script, "/nonexistent/tessera"])
    assert missing.returncode == 1 and "not built" in missing.stderr
    engine = ROOT / "target" / "release" / "tessera"
    if not engine.exists() or not (shutil.which("stockfish") or os.path.exists("/usr/games/stockfish")):
        pytest.skip("[stockfish] needs the release build and stockfish")
    bad = run([script, str(engine)], env_extra={"RUNS": "many", "STOCKFISH": shutil.which("stockfish") or "/usr/games/stockfish"})
    assert bad.returncode == 1 and "RUNS must be a positive number" in bad.stderr
