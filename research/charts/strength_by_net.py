"""Draws research/strength-by-net.png: the strength of each default net, from the match
results recorded in research/strength-history.md (numbers copied from there; rerun after adding
a net): python3 research/charts/strength_by_net.py (needs matplotlib)."""

from math import hypot
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# (net, Elo over v2, 95% error): SPRTs at 10+0.1, each net against the net named; chained to v2.
# v1 is the first net (v2 beat it by 293 +/- 80).
SPRT = [
    ("v1", -293.0, 80.0),
    ("v2", 0.0, 0.0),
    ("v3", 142.9, 45.3),
    ("v4", 246.3, 68.4),
    ("v5", 254.7, 70.2),
    ("v6", 265.9, 72.9),
    ("v7", 287.7, 81.0),
    ("v8", 392.7, 114.1),
    ("v8p", 392.7 + 60.3, hypot(114.1, 24.9)),
    ("v9", 392.7 + 122.0, hypot(114.1, 36.6)),
    ("v10", 392.7 + 122.0 + 42.7, hypot(114.1, 36.6, 20.1)),
]
# Gauntlets at 5+0.05, 100 games each: Tessera's score (%); None where not played.
GAUNTLET = {
    "Ethereal 12": {"v2": 12.0, "v3": 26.0, "v4": 25.0, "v6": 38.5, "v7": 44.0, "v8": 55.0, "v8p": 59.0, "v9": 70.5, "v10": 80.0},
    "Stockfish 15.1 at UCI_Elo 2400": {"v2": 20.0, "v3": 32.5, "v4": 33.0, "v6": 42.0, "v7": 45.0, "v8": 58.0, "v8p": 65.0, "v9": 71.0, "v10": 80.0},
    "Stockfish 15.1 at UCI_Elo 2850": {"v8p": 39.5, "v9": 55.0, "v10": 50.5},
}


def main():
    nets = [n for n, _, _ in SPRT] + ["v11"]
    x = {n: i for i, n in enumerate(nets)}
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7.5), sharex=True)
    top.errorbar([x[n] for n, _, _ in SPRT], [e for _, e, _ in SPRT], yerr=[r for _, _, r in SPRT],
                 fmt="o-", capsize=3)
    top.set_ylabel("Elo over net v2 (SPRTs at 10+0.1, chained)")
    top.set_title("Tessera's default nets")
    top.grid(alpha=0.3)
    for name, scores in GAUNTLET.items():
        played = [n for n in nets if n in scores]
        bottom.plot([x[n] for n in played], [scores[n] for n in played], "o-", label=name)
    bottom.axhline(50, color="grey", lw=0.8)
    bottom.set_ylabel("Tessera's score, % (5+0.05, 100 games)")
    bottom.set_xticks(range(len(nets)), nets)
    bottom.set_xlabel("net (v11: not yet trained)")
    bottom.legend()
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    out = Path(__file__).resolve().parents[1] / "strength-by-net.png"
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    main()
