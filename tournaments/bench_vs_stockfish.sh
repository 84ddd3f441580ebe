#!/usr/bin/env bash
# Runs `tessera bench` and Debian's `stockfish bench` one after the other on
# this machine and prints both speeds (nodes per second, one thread each),
# with the CPU and the kernels Tessera ran (TESSERA_SIMD=avx2 measures the
# AVX2 path on a CPU that has AVX-512).
# usage: [TESSERA_SIMD=scalar|avx2|avxvnni|avx512] tournaments/bench_vs_stockfish.sh [tessera-binary]
set -euo pipefail
tessera=${1:-$(dirname "$0")/../target/release/tessera}
stockfish=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
[ -x "$tessera" ] || { echo "error: $tessera not built (cargo build --release)" >&2; exit 1; }
[ -x "$stockfish" ] || { echo "error: stockfish not found: apt-get install stockfish" >&2; exit 1; }
t_err=$(mktemp)
trap 'rm -f "$t_err"' EXIT
t_line=$("$tessera" bench 2>"$t_err" | tail -1)
kernels=$(sed -n 's/^kernels: //p' "$t_err")
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)
sf_out=$("$stockfish" bench 2>&1)
sf_nodes=$(echo "$sf_out" | awk -F: '/Nodes searched/ {gsub(/ /, "", $2); print $2}')
sf_nps=$(echo "$sf_out" | awk -F: '/Nodes\/second/ {gsub(/ /, "", $2); print $2}')
echo "| engine | nodes | nps |"
echo "|---|---|---|"
echo "CPU: $cpu"
echo
echo "| tessera $($tessera --version | awk '{print $2}') (bench default depth; kernels: $kernels) | $(echo "$t_line" | awk '{print $1}') | $(echo "$t_line" | awk '{print $3}') |"
echo "| $(echo quit | "$stockfish" | head -1 | awk '{print $1, $2}') (bench defaults) | $sf_nodes | $sf_nps |"
