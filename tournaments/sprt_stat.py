#!/usr/bin/env python3
"""The SPRT statistic of the game pairs in a cutechess PGN, for tournaments/sprt.sh.

usage: tournaments/sprt_stat.py PGN NEW --elo0 E0 --elo1 E1 [--alpha A] [--beta B]

Games are paired by their Event and Round tags: with -repeat, the two games of
an opening (colours swapped) carry one Round number, and sprt.sh gives every
cutechess run its own Event, so a test can be played over several runs (a
session cut off, a machine wanted for something else) and its statistic is that
of every pair so far. A pair whose second game is missing does not count.

The statistic is the generalized SPRT's log-likelihood ratio in its usual
approximation, LLR = N (s1 - s0)(2 m - s0 - s1) / (2 v), over the N pairs
(each pair's score is NEW's points / 2: 0, 1/4, 1/2, 3/4 or 1, the pentanomial
model) with m and v their mean and variance, and s0, s1 the scores of elo0 and
elo1 in logistic Elo. Pairs rather than games: an opening that favours one side
makes the two games of a pair agree, and a statistic of single games would
count that as noise (more games for the same decision).

Prints one line of `key=value` words: verdict (H0, H1 or none), llr, lower,
upper, pairs, games, wins, losses, draws (NEW's), the pentanomial counts
penta=a,b,c,d,e (pair scores 0 to 1), elo and its 95% interval elo_error.
"""

import argparse
import math
import re
import sys
from collections import OrderedDict

TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')


def read_games(path: str) -> list[dict]:
    """Every game's tags, in file order (a game starts at its Event tag)."""
    games = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = TAG.match(line)
                if not m:
                    continue
                if m.group(1) == "Event":
                    games.append({})
                if games:
                    games[-1][m.group(1)] = m.group(2)
    except FileNotFoundError:
        pass
    return games


def points(game: dict, new: str) -> float | None:
    """NEW's points in a finished game it played, else None."""
    result = game.get("Result")
    if result not in ("1-0", "0-1", "1/2-1/2"):
        return None
    if new not in (game.get("White"), game.get("Black")):
        return None
    if result == "1/2-1/2":
        return 0.5
    return 1.0 if (result == "1-0") == (game.get("White") == new) else 0.0


def whole_pairs(games: list[dict], new: str) -> list[list[float]]:
    """NEW's points in each whole pair (two finished games of one Event and Round)."""
    pairs: OrderedDict[tuple, list[float]] = OrderedDict()
    for game in games:
        p = points(game, new)
        if p is not None:
            pairs.setdefault((game.get("Event"), game.get("Round")), []).append(p)
    return [ps for ps in pairs.values() if len(ps) == 2]


def expected_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def pentanomial(scores: list[float]) -> list[int]:
    counts = [0] * 5
    for s in scores:
        counts[round(s * 4)] += 1
    return counts


def mean_variance(counts: list[int]) -> tuple[float, float]:
    """Mean and variance of the pair scores, each empty class given a tiny
    weight (as fishtest does) so that one-sided results still have a variance."""
    weights = [c if c > 0 else 1e-3 for c in counts]
    total = sum(weights)
    mean = sum(w * k / 4 for k, w in enumerate(weights)) / total
    var = sum(w * (k / 4 - mean) ** 2 for k, w in enumerate(weights)) / total
    return mean, var


def llr(counts: list[int], elo0: float, elo1: float) -> float:
    n = sum(counts)
    if n == 0:
        return 0.0
    mean, var = mean_variance(counts)
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def elo_of(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def status(pairs: list[list[float]], elo0: float, elo1: float, alpha: float, beta: float) -> OrderedDict:
    scores = [sum(p) / 2 for p in pairs]
    counts = pentanomial(scores)
    n = len(scores)
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    ratio = llr(counts, elo0, elo1)
    verdict = "H1" if ratio >= upper else "H0" if ratio <= lower else "none"
    out = OrderedDict(verdict=verdict, llr=f"{ratio:.3f}", lower=f"{lower:.3f}", upper=f"{upper:.3f}",
                      pairs=n, games=2 * n)
    single = [p for pair in pairs for p in pair]
    out["wins"], out["losses"], out["draws"] = single.count(1.0), single.count(0.0), single.count(0.5)
    out["penta"] = ",".join(map(str, counts))
    if n:
        mean, var = mean_variance(counts)
        half = 1.96 * math.sqrt(var / n)
        elo = elo_of(mean)
        out["elo"] = f"{elo:.1f}"
        out["elo_error"] = f"{(elo_of(mean + half) - elo_of(mean - half)) / 2:.1f}"
    else:
        out["elo"], out["elo_error"] = "0.0", "inf"
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn")
    parser.add_argument("new", help="the tested engine's name in the PGN")
    parser.add_argument("--elo0", type=float, required=True)
    parser.add_argument("--elo1", type=float, required=True)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    a = parser.parse_args(argv)
    if not a.elo0 < a.elo1:
        parser.error("elo0 must be below elo1")
    if not (0 < a.alpha < 0.5 and 0 < a.beta < 0.5):
        parser.error("alpha and beta must lie between 0 and 0.5")
    out = status(whole_pairs(read_games(a.pgn), a.new), a.elo0, a.elo1, a.alpha, a.beta)
    print(" ".join(f"{k}={v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
