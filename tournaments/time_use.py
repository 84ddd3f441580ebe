"""How an engine spent its clock in cutechess-cli games: seconds per move by
move number, and the least time it ever had left, as a markdown table.

usage: time_use.py PGN ENGINE TC
  PGN     a cutechess-cli PGN (its move comments hold "{score/depth seconds}")
  ENGINE  the engine's name in the PGN's White/Black tags
  TC      the time control the games were played at, cutechess's form:
          [MOVES/]SECONDS[+INCREMENT], e.g. 40/60 (60 s for 40 moves,
          repeating, unused time carried over) or 60+0.6
"""

import re
import sys
from pathlib import Path

import chess.pgn

BUCKETS = [(1, 10), (11, 20), (21, 30), (31, 35), (36, 40), (41, 50), (51, 60), (61, 80), (81, 120), (121, 10_000)]


def die(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def parse_tc(text: str) -> tuple[int | None, float, float]:
    """(moves per period or None, seconds per period, increment)."""
    m = re.fullmatch(r"(?:(\d+)/)?(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?", text)
    if not m:
        die(f"time control '{text}' is not [MOVES/]SECONDS[+INCREMENT]")
    return (int(m[1]) if m[1] else None), float(m[2]), float(m[3] or 0)


def move_seconds(comment: str) -> float | None:
    m = re.search(r"(\d+(?:\.\d+)?)s\b", comment)
    return float(m[1]) if m else None


def engine_moves(pgn_path: Path, engine: str):
    """Per game: the list of (move number, seconds) of `engine`'s moves, and
    whether it lost on time (cutechess writes "White loses on time" into the
    last move's comment)."""
    with open(pgn_path, encoding="utf-8", errors="replace") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            colour = {game.headers.get("White"): chess.WHITE, game.headers.get("Black"): chess.BLACK}.get(engine)
            if colour is None:
                continue
            moves = []
            last = ""
            for node in game.mainline():
                last = node.comment
                mover = not node.board().turn  # the side that just moved
                if mover == colour:
                    seconds = move_seconds(node.comment)
                    if seconds is not None:
                        moves.append((node.board().fullmove_number - (1 if mover == chess.BLACK else 0), seconds))
            side = "White" if colour == chess.WHITE else "Black"
            yield moves, f"{side} loses on time" in last


def least_clock(moves, tc) -> float:
    """The least time left on the engine's clock after any of its moves.
    Book moves cost no time but count towards a period's moves (as in
    cutechess-cli), so a period ends after move number 40, 80, … of a game
    from the start position."""
    per_period, base, inc = tc
    clock, least = base, base
    for number, seconds in moves:
        clock += -seconds + inc
        least = min(least, clock)
        if per_period and number % per_period == 0:
            clock += base
    return least


def table(pgn_path: Path, engine: str, tc_text: str) -> str:
    tc = parse_tc(tc_text)
    games = list(engine_moves(pgn_path, engine))
    if not games:
        die(f"no games of '{engine}' with move times in {pgn_path}")
    rows = []
    for low, high in BUCKETS:
        spent = [s for moves, _ in games for n, s in moves if low <= n <= high]
        if spent:
            label = f"{low}–{high}" if high < 10_000 else f"{low}+"
            rows.append(f"| {label} | {len(spent)} | {sum(spent) / len(spent):.2f} | {max(spent):.2f} |")
    forfeits = sum(1 for _, lost_on_time in games if lost_on_time)
    totals = [sum(s for _, s in moves) for moves, _ in games]
    lengths = [len(moves) for moves, _ in games]
    least = min(least_clock(moves, tc) for moves, _ in games)
    out = [
        f"Time use of `{engine}` at {tc_text} ({len(games)} games, {sum(lengths)} moves; "
        f"time forfeits: {forfeits}; least time left on its clock after a move: {least:.2f} s; "
        f"mean time a game: {sum(totals) / len(totals):.1f} s over {sum(lengths) / len(lengths):.0f} moves):",
        "",
        "| move numbers | moves | mean seconds | most seconds |",
        "|---|---|---|---|",
        *rows,
    ]
    return "\n".join(out)


def main() -> None:
    if len(sys.argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    pgn_path = Path(sys.argv[1])
    if not pgn_path.is_file():
        die(f"{pgn_path} not found")
    print(table(pgn_path, sys.argv[2], sys.argv[3]))


if __name__ == "__main__":
    main()
