#!/usr/bin/env bash
# Runs `tessera bench` and Debian's `stockfish bench` one after the other on
# this machine, RUNS times (default 1), and prints both speeds (nodes per
# second, one thread each), each run's ratio and the median ratio, with the
# CPU and the kernels Tessera ran (TESSERA_SIMD=avx2 measures the AVX2 path
# on a CPU that has AVX-512). Run it on a quiet machine: it times.
# usage: [RUNS=5] [TESSERA_SIMD=scalar|avx2|avxvnni|avx512] tournaments/bench_vs_stockfish.sh [tessera-binary]
set -euo pipefail
tessera=${1:-$(dirname "$0")/../target/release/tessera}
stockfish=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
runs=${RUNS:-1}
[ -x "$tessera" ] || { echo "error: $tessera not built (cargo build --release)" >&2; exit 1; }
[ -x "$stockfish" ] || { echo "error: stockfish not found: apt-get install stockfish" >&2; exit 1; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "error: RUNS must be a positive number, not '$runs'" >&2; exit 1; }
t_err=$(mktemp)
trap 'rm -f "$t_err"' EXIT
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)
sf_name=$(echo quit | "$stockfish" | head -1 | awk '{print $1, $2}')
echo "CPU: $cpu"
echo
echo "| run | tessera $("$tessera" --version | awk '{print $2}') nodes | nps | kernels | $sf_name nodes | nps | ratio |"
echo "|---|---|---|---|---|---|---|"
ratios=()
for run in $(seq 1 "$runs"); do
    t_line=$("$tessera" bench 2>"$t_err" | tail -1)
    kernels=$(sed -n 's/^kernels: //p' "$t_err")
    sf_out=$("$stockfish" bench 2>&1)
    sf_nodes=$(echo "$sf_out" | awk -F: '/Nodes searched/ {gsub(/ /, "", $2); print $2}')
    sf_nps=$(echo "$sf_out" | awk -F: '/Nodes\/second/ {gsub(/ /, "", $2); print $2}')
    t_nodes=$(echo "$t_line" | awk '{print $1}')
    t_nps=$(echo "$t_line" | awk '{print $3}')
    ratio=$(awk -v a="$t_nps" -v b="$sf_nps" 'BEGIN { printf "%.3f", a / b }')
    ratios+=("$ratio")
    echo "| $run | $t_nodes | $t_nps | $kernels | $sf_nodes | $sf_nps | ${ratio}x |"
done
median=$(printf "%s\n" "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo
echo "Median ratio (Tessera's nps over Stockfish's) of $runs run(s): ${median}x"
