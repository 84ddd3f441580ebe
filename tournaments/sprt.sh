#!/usr/bin/env bash
# SPRT between two builds of tessera: elo0=0, elo1=5, alpha=beta=0.05, until
# cutechess-cli accepts H0 or H1 (or MAX_GAMES are played).
#
# usage: tournaments/sprt.sh NAME TC NEW BASE
#   TC         cutechess time control (e.g. 10+0.1) or nodes=N (fixed nodes a move)
#   NEW, BASE  commit:REV | net:FILE | label=/path/to/uci-binary
#              e.g. commit:HEAD commit:HEAD~1, or net:runs/a/x.nnue net:nets/default.nnue
# env: CUTECHESS, ORDO, BOOK, BOOK_PLIES (16), CONCURRENCY (2), MAX_GAMES (20000),
#      ELO0 (0), ELO1 (5), ALPHA (0.05), BETA (0.05)
# writes: results/NAME.md (the test's result, Elo and an Ordo table with BASE = 0),
#         work/NAME.pgn
# An interrupted SPRT starts again from zero: its statistic needs one unbroken run.
set -euo pipefail
TOURNAMENTS=$(cd "$(dirname "$0")" && pwd)
. "$TOURNAMENTS/lib.sh"
if [ $# -ne 4 ]; then
    usage
    exit 2
fi
args="$*"
name=$1 tc=$2
check_name "$name"
tc_args "$tc" >/dev/null
cutechess=$(find_cutechess)
find_ordo >/dev/null
book=$(find_book)
new=$(resolve_engine "$3")
base=$(resolve_engine "$4")
spec_new=$(engine_spec "$new")
spec_base=$(engine_spec "$base")
[ "$(engine_name "$new")" != "$(engine_name "$base")" ] || die "NEW and BASE have the same name; give them labels"
max=${MAX_GAMES:-20000}
sprt="elo0=${ELO0:-0} elo1=${ELO1:-5} alpha=${ALPHA:-0.05} beta=${BETA:-0.05}"

mkdir -p "$WORK" "$RESULTS"
pgn=$WORK/$name.pgn
log=$WORK/$name.log
rm -f "$pgn"
set_game_args "$tc" "$book"
"$cutechess" -engine $spec_new -engine $spec_base "${game_args[@]}" \
    -repeat -games 2 -rounds $((max / 2)) -sprt $sprt \
    -concurrency "${CONCURRENCY:-2}" -recover -pgnout "$pgn" -ratinginterval 50 | tee "$log"

verdict=$(grep '^SPRT:' "$log" | tail -1 || true)  # none when cutechess was stopped early
case "$verdict" in
    *"H1 was accepted"*) outcome="H1 accepted: $(engine_name "$new") is stronger (at least elo1 better is likely)" ;;
    *"H0 was accepted"*) outcome="H0 accepted: $(engine_name "$new") is not elo1 stronger" ;;
    *) outcome="no decision after $(played "$pgn") games" ;;
esac
{
    echo "# $name"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| new | $(engine_label "$3" "$new") |"
    echo "| base | $(engine_label "$4" "$base") |"
    echo "| SPRT | $sprt |"
    echo "| outcome | $outcome |"
    echo "| statistic | ${verdict:-n/a} |"
    echo "| result | $(grep '^Score of' "$log" | tail -1) |"
    echo "| Elo | $(grep '^Elo difference' "$log" | tail -1) |"
    echo "| games | $(played "$pgn") |"
    echo "| integrity | $(pgn_problems "$pgn") |"
    common_rows "$tc"
    echo
    echo "## Ordo ratings"
    echo
    ordo_table "$pgn" "$(engine_name "$base")"
    echo
    echo "Command: \`$(settings_used ELO0 ELO1 ALPHA BETA MAX_GAMES BOOK BOOK_PLIES CONCURRENCY)tournaments/sprt.sh $args\`"
} > "$RESULTS/$name.md"
cat "$RESULTS/$name.md"
