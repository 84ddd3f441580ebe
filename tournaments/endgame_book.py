#!/usr/bin/env python3
"""An EPD book of endgame positions for tablebase matches: from each game of
the PGN files (plain or .zst), the first position with MIN..MAX pieces (both
kings counted) that has no castling rights and whose side to move is not in
check; duplicates dropped; shuffled with --seed and cut to --count.

usage: tournaments/endgame_book.py OUT.epd PGN... [--min 6] [--max 8] [--count 500] [--seed 1]
"""

import argparse
import io
import random
import subprocess
import sys

import chess
import chess.pgn


def open_pgn(path):
    if path.endswith(".zst"):
        data = subprocess.run(["zstdcat", path], check=True, capture_output=True).stdout
        return io.StringIO(data.decode("utf-8", errors="replace"))
    return open(path, encoding="utf-8", errors="replace")


def endgame_of(game, low, high):
    board = game.board()
    for move in game.mainline_moves():
        board.push(move)
        pieces = chess.popcount(board.occupied)
        if pieces < low:
            return None
        if pieces <= high and not board.castling_rights and not board.is_check() and not board.is_game_over():
            return board.epd()
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("pgns", nargs="+")
    parser.add_argument("--min", type=int, default=6)
    parser.add_argument("--max", type=int, default=8)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 3 <= args.min <= args.max <= 32:
        sys.exit("error: need 3 <= --min <= --max <= 32")
    seen, lines, games = set(), [], 0
    for path in args.pgns:
        try:
            handle = open_pgn(path)
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"error: cannot read {path}: {e}")
        with handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                games += 1
                epd = endgame_of(game, args.min, args.max)
                if epd and epd not in seen:
                    seen.add(epd)
                    lines.append(epd)
    random.Random(args.seed).shuffle(lines)
    lines = lines[: args.count]
    if not lines:
        sys.exit("error: no game reached an endgame of that size")
    with open(args.out, "w") as out:
        out.write("".join(line + "\n" for line in lines))
    print(f"{len(lines)} endgame positions ({args.min}-{args.max} pieces) from {games} games -> {args.out}")


if __name__ == "__main__":
    main()
