#!/usr/bin/env python3
"""EPD test-suite runner: for each position with a `bm` (best moves) or `am`
(avoid moves) operation, the engine searches a fixed time; the position is
solved when the move is one of `bm` and none of `am`.

usage: tournaments/epd.py NAME --engine BIN --epd FILE [--movetime MS] [--hash MB] [--threads N]
writes results/NAME.md: the solved count and every position missed.
"""

import argparse
import sys

import chess
import chess.engine

import report


def read_suite(path):
    try:
        lines = open(path).read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        report.die(f"cannot read {path}: {e}")
    suite = []
    for n, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            board, ops = chess.Board.from_epd(line)
        except ValueError as e:
            report.die(f"{path}:{n}: bad EPD line: {e}")
        best, avoid = ops.get("bm", []), ops.get("am", [])
        if not best and not avoid:
            report.die(f"{path}:{n}: neither bm nor am: nothing to test")
        if board.is_game_over():
            report.die(f"{path}:{n}: the game is over in this position")
        suite.append((str(ops.get("id", f"line {n}")), board, best, avoid))
    return suite


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name")
    parser.add_argument("--engine", required=True)
    parser.add_argument("--epd", required=True)
    parser.add_argument("--movetime", type=int, default=1000, help="milliseconds per position (default 1000)")
    parser.add_argument("--hash", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    name = report.check_name(args.name)
    if args.movetime <= 0:
        report.die("--movetime must be positive")
    engine_bin = report.engine_path(args.engine)
    suite = read_suite(args.epd)
    if not suite:
        report.die(f"{args.epd} holds no positions")

    engine, engine_name = report.open_engine(engine_bin, args.hash, args.threads)
    missed = []
    try:
        for k, (pid, board, best, avoid) in enumerate(suite, start=1):
            move = engine.play(board, chess.engine.Limit(time=args.movetime / 1000), game=object()).move
            if (best and move not in best) or move in avoid:
                want = " ".join(board.san(m) for m in best) if best else "not " + " ".join(board.san(m) for m in avoid)
                missed.append([pid, want, board.san(move)])
            print(f"{k}/{len(suite)}: {k - len(missed)} solved", file=sys.stderr)
    finally:
        engine.quit()
    solved = len(suite) - len(missed)
    text = f"# {name}\n\n" + report.table(["", ""], [
        ["engine", f"`{engine_name}` (`{args.engine}`)"],
        ["suite", f"`{args.epd.split('/')[-1]}`, {len(suite)} positions"],
        ["time per position", f"{args.movetime} ms, Hash {args.hash} MB, {args.threads} thread(s)"],
        ["solved", f"**{solved} / {len(suite)}** ({solved / len(suite):.1%})"],
    ] + report.provenance_rows())
    if missed:
        text += "\n## Missed\n\n" + report.table(["id", "wanted", "played"], missed)
    report.finish(name, "epd.py", text)


if __name__ == "__main__":
    main()
