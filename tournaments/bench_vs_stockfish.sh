#!/usr/bin/env bash
# Runs `tessera bench` and Debian's `stockfish bench` one after the other on
# this machine and prints both speeds (nodes per second, one thread each).
# usage: tournaments/bench_vs_stockfish.sh [tessera-binary]
set -euo pipefail
tessera=${1:-$(dirname "$0")/../target/release/tessera}
stockfish=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
[ -x "$tessera" ] || { echo "error: $tessera not built (cargo build --release)" >&2; exit 1; }
[ -x "$stockfish" ] || { echo "error: stockfish not found: apt-get install stockfish" >&2; exit 1; }
t_line=$("$tessera" bench 2>/dev/null | tail -1)
sf_out=$("$stockfish" bench 2>&1)
sf_nodes=$(echo "$sf_out" | awk -F: '/Nodes searched/ {gsub(/ /, "", $2); print $2}')
sf_nps=$(echo "$sf_out" | awk -F: '/Nodes\/second/ {gsub(/ /, "", $2); print $2}')
echo "| engine | nodes | nps |"
echo "|---|---|---|"
echo "| tessera $($tessera --version | awk '{print $2}') (bench default depth) | $(echo "$t_line" | awk '{print $1}') | $(echo "$t_line" | awk '{print $3}') |"
echo "| $(echo quit | "$stockfish" | head -1 | awk '{print $1, $2}') (bench defaults) | $sf_nodes | $sf_nps |"
