#!/usr/bin/env bash
# Stress run: many games at a very short time control, counting time
# forfeits, illegal moves and disconnects/stalls per engine, written to
# tournaments/results/stress-<name>.md. Resumable: a rerun plays only the
# games still missing from tournaments/work/stress-<name>.pgn.
#
# usage: tournaments/stress.sh [-o NAME=VALUE]... NAME [GAMES] [TC] [ENGINE] [OPPONENT]
#   -o NAME=VALUE  a UCI option for the tested engine (both sides in self-play),
#                  e.g. -o Threads=2, -o Hash=1, -o 'Move Overhead=30'
#   GAMES          default 1000
#   TC             default 1+0.01 (cutechess form; nodes=N also works)
#   ENGINE         default tessera=target/release/tessera (any form match.sh takes)
#   OPPONENT       default: the engine itself (self-play)
# env: RUNNER, CUTECHESS, FASTCHESS, BOOK, BOOK_PLIES as for match.sh; CONCURRENCY (default 1:
#      a timed run needs a core per game in progress, and nothing else running)
set -euo pipefail
TOURNAMENTS=$(cd "$(dirname "$0")" && pwd)
. "$TOURNAMENTS/lib.sh"

options=()
while [ $# -gt 0 ] && [ "$1" = -o ]; do
    [ $# -ge 2 ] || die "-o needs NAME=VALUE"
    [[ $2 =~ ^[A-Za-z][A-Za-z0-9_\ ]*=.+$ ]] || die "-o takes NAME=VALUE (a UCI option), not '$2'"
    options+=("option.$2")
    shift 2
done
if [ $# -lt 1 ]; then
    usage
    exit 2
fi
name=stress-$1 games=${2:-1000} tc=${3:-1+0.01}
check_name "$name"
[[ $games =~ ^[0-9]+$ ]] && [ "$games" -ge 2 ] || die "GAMES must be a number ≥ 2, not '$games'"
tc_args "$tc" >/dev/null
export CONCURRENCY=${CONCURRENCY:-1}
root=$(git -C "$TOURNAMENTS" rev-parse --show-toplevel)
given_engine=${4:-tessera=target/release/tessera}
given_opponent=${5:-$given_engine}
engine=$(resolve_engine "${4:-tessera=$root/target/release/tessera}")
opponent=$(resolve_engine "${5:-$engine}")
find_runner >/dev/null
book=$(find_book)

# Self-play needs two names; the tested engine's options go to both sides then.
read -r -a spec_a <<<"$(engine_spec "$engine")"
read -r -a spec_b <<<"$(engine_spec "$opponent")"
if [ "$engine" = "$opponent" ]; then
    spec_a[0]=${spec_a[0]}-1
    spec_b[0]=${spec_b[0]}-2
    spec_b+=("${options[@]}")
fi
spec_a+=("${options[@]}")

mkdir -p "$WORK" "$RESULTS"
pgn=$WORK/$name.pgn
log=$WORK/$name.log
done_games=$(played "$pgn")
left=$((games - done_games))
if [ "$left" -gt 0 ]; then
    echo "$name: playing $left games ($done_games already played)" >&2
    started=$(date +%s)
    set_game_args "$tc" "$book"
    run_games "$pgn" -engine "${spec_a[@]}" -engine "${spec_b[@]}" "${game_args[@]}" \
        -srand $((done_games + 1)) -repeat -games 2 -rounds $(((left + 1) / 2)) \
        -concurrency "$CONCURRENCY" -recover -ratinginterval 50 | tee -a "$log"
    echo "$(( $(date +%s) - started ))" >>"$WORK/$name.seconds"
fi

# Terminations other than a normal result, from the PGN's tags.
terminations=$(grep -h '^\[Termination "' "$pgn" 2>/dev/null | sort | uniq -c |
    awk '{ n = $1; $1 = ""; sub(/^ \[Termination "/, ""); sub(/"\]$/, ""); printf "%s%s %d", sep, $0, n; sep = ", " }' || true)
seconds=$(awk '{ s += $1 } END { print s + 0 }' "$WORK/$name.seconds" 2>/dev/null || echo 0)
{
    echo "# $name"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| engines | $(engine_label "$given_engine" "$engine") vs $(engine_label "$given_opponent" "$opponent") |"
    echo "| options | $([ ${#options[@]} -gt 0 ] && printf "%s; " "${options[@]#option.}" | sed "s/; $//" || echo none) |"
    echo "| games | $(played "$pgn") of $games |"
    echo "| result | $(grep '^Score of' "$log" 2>/dev/null | tail -1 || echo n/a) |"
    echo "| integrity | $(pgn_problems "$pgn") |"
    echo "| other terminations | ${terminations:-none} |"
    echo "| wall time | ${seconds} s |"
    common_rows "$tc"
    echo
    # The -o options where they were given, quoted when they hold a space.
    option_args=""
    for option in "${options[@]}"; do
        value=${option#option.}
        [[ $value == *" "* ]] && value="'$value'"
        option_args+="-o $value "
    done
    echo "Command: \`$(settings_used RUNNER PONDER BOOK BOOK_PLIES CONCURRENCY)tournaments/stress.sh $option_args$*\`"
} > "$RESULTS/$name.md.tmp"
publish_result "$name"
cat "$RESULTS/$name.md"
