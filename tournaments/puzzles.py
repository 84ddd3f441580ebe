#!/usr/bin/env python3
"""Puzzle accuracy, as in the thesis: the engine plays the solver's side of
Lichess puzzles at a fixed time per move (or, load-immune, a fixed number of
nodes per move).

Lichess's CSV gives the position before the opponent's move and the whole
line: the first move is the opponent's, then solver and opponent alternate.
Every solver move is judged on its own, from the puzzle's line (a wrong move
does not end the count): **move accuracy** is the share of solver moves the
engine finds. A puzzle is **solved** when all its solver moves are found.
As on Lichess, any move that mates counts as right.

usage: tournaments/puzzles.py NAME --engine BIN [--csv FILE] [--movetime MS | --nodes N]
       [--limit N] [--hash MB] [--threads N]
writes results/NAME.md: overall, per rating bucket and per theme.
"""

import argparse
import csv
import sys
import time
from collections import defaultdict

import chess
import chess.engine

import report

BUCKET = 400


def bucket_of(rating: int) -> str:
    low = max(0, rating // BUCKET * BUCKET)
    return f"{low}–{low + BUCKET - 1}"


def read_puzzles(path, limit):
    try:
        f = open(path, newline="")
    except OSError as e:
        report.die(f"cannot read {path}: {e}")
    puzzles = []
    with f:
        rows = csv.DictReader(f)
        missing = {"PuzzleId", "FEN", "Moves", "Rating", "Themes"} - set(rows.fieldnames or [])
        if missing:
            report.die(f"{path}: not a Lichess puzzle CSV (missing columns: {', '.join(sorted(missing))})")
        for n, row in enumerate(rows, start=2):
            try:
                board = chess.Board(row["FEN"])
                moves = [chess.Move.from_uci(m) for m in row["Moves"].split()]
                rating = int(row["Rating"])
            except ValueError as e:
                report.die(f"{path}:{n}: bad puzzle: {e}")
            if len(moves) < 2:
                report.die(f"{path}:{n}: a puzzle needs the opponent's move and at least one reply")
            puzzles.append((row["PuzzleId"], board, moves, rating, row["Themes"].split()))
            if limit and len(puzzles) >= limit:
                break
    return puzzles


def solve(engine, board, moves, limit):
    """(solver moves found, solver moves) for one puzzle."""
    board = board.copy()
    game = object()  # a new game for the engine: no table carried over from the last puzzle
    found = total = 0
    for i, expected in enumerate(moves):
        if expected not in board.legal_moves:
            raise ValueError(f"illegal move {expected} in the puzzle's line")
        if i % 2 == 1:
            total += 1
            played = engine.play(board, limit, game=game).move
            after = board.copy()
            after.push(played)
            if played == expected or after.is_checkmate():
                found += 1
        board.push(expected)
    return found, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name")
    parser.add_argument("--engine", required=True, help="a UCI engine binary, e.g. target/release/tessera")
    parser.add_argument("--csv", default=str(report.SHARED_DATA / "puzzles" / "kagi_llm_chess_puzzles_1000.csv"))
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--movetime", type=int, default=100, help="milliseconds per move (default 100)")
    budget.add_argument("--nodes", type=int, default=0,
                        help="nodes per move instead of a time: the same search on any machine, under any load")
    parser.add_argument("--limit", type=int, default=0, help="only the first N puzzles")
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    name = report.check_name(args.name)
    if args.movetime <= 0 or args.nodes < 0 or args.limit < 0:
        report.die("--movetime and --nodes must be positive and --limit not negative")
    engine_bin = report.engine_path(args.engine)
    puzzles = read_puzzles(args.csv, args.limit)
    if not puzzles:
        report.die(f"{args.csv} holds no puzzles")

    engine, engine_name = report.open_engine(engine_bin, args.hash, args.threads)
    if args.nodes:
        limit, per_move = chess.engine.Limit(nodes=args.nodes), f"{args.nodes} nodes"
    else:
        limit, per_move = chess.engine.Limit(time=args.movetime / 1000), f"{args.movetime} ms"
    per_bucket = defaultdict(lambda: [0, 0, 0, 0])  # found, moves, solved, puzzles
    per_theme = defaultdict(lambda: [0, 0, 0, 0])
    overall = [0, 0, 0, 0]
    start = time.monotonic()
    try:
        for k, (pid, board, moves, rating, themes) in enumerate(puzzles, start=1):
            try:
                found, total = solve(engine, board, moves, limit)
            except ValueError as e:
                report.die(f"puzzle {pid}: {e}")
            solved = int(found == total)
            for acc in [overall, per_bucket[bucket_of(rating)]] + [per_theme[t] for t in themes]:
                acc[0] += found
                acc[1] += total
                acc[2] += solved
                acc[3] += 1
            if k % 50 == 0 or k == len(puzzles):
                print(f"{k}/{len(puzzles)} puzzles, move accuracy {overall[0] / overall[1]:.1%}, "
                      f"solved {overall[2] / overall[3]:.1%}", file=sys.stderr)
    finally:
        engine.quit()
    seconds = time.monotonic() - start

    def row(label, acc):
        return [label, acc[3], f"{acc[0] / acc[1]:.1%}", f"{acc[2] / acc[3]:.1%}"]

    header = ["", "puzzles", "move accuracy", "solved"]
    themes = sorted(per_theme.items(), key=lambda kv: (-kv[1][3], kv[0]))
    text = f"# {name}\n\n" + report.table(["", ""], [
        ["engine", f"`{engine_name}` (`{args.engine}`)"],
        ["puzzles", f"{len(puzzles)} from `{args.csv.split('/')[-1]}`"],
        ["per move", f"{per_move}, Hash {args.hash} MB, {args.threads} thread(s)"],
        ["move accuracy", f"**{overall[0] / overall[1]:.1%}** ({overall[0]} of {overall[1]} solver moves)"],
        ["solved", f"**{overall[2] / overall[3]:.1%}** ({overall[2]} of {overall[3]} puzzles)"],
        ["wall time", f"{seconds:.0f} s"],
    ] + report.provenance_rows())
    text += "\nMove accuracy: solver moves found, each judged from the puzzle's own line; solved: every solver move found. A mating move always counts as found.\n"
    text += "\n## By puzzle rating\n\n" + report.table(
        ["rating"] + header[1:], [row(b, acc) for b, acc in sorted(per_bucket.items(), key=lambda kv: int(kv[0].split("–")[0]))]
    )
    text += "\n## By theme (themes with at least 10 puzzles)\n\n" + report.table(
        ["theme"] + header[1:], [row(t, acc) for t, acc in themes if acc[3] >= 10]
    )
    report.finish(name, "puzzles.py", text)


if __name__ == "__main__":
    main()
