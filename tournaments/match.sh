#!/usr/bin/env bash
# Plays a match between two engines (cutechess-cli, or fastchess: RUNNER) from an opening book and
# records a markdown summary in tournaments/results/<name>.md (PGN stays in
# tournaments/work/, which git ignores).
#
# usage: tournaments/match.sh NAME TC GAMES ENGINE_A ENGINE_B [CONCURRENCY]
#   TC       cutechess time control, e.g. 5+0.05, or nodes=N (fixed nodes a move),
#            or nodes=N:M (node odds: A searches N nodes a move, B searches M)
#   ENGINE   label=/path/to/uci-binary | commit:REV | net:FILE | stockfish@ELO |
#            fairymax | sjeng | gnuchess | phalanx | toga2 | ethereal | stockfish (Debian packages)
# env: RUNNER (cutechess, the default, or fastchess), CUTECHESS / FASTCHESS
#      (default: cutechess-cli / fastchess on PATH), BOOK (default: 8-move book
#      in ../shared/data/books), BOOK_PLIES (default 16), ENGINE_COMMIT (the
#      commit the tested binary was built from; default: the newest commit that
#      changed src, build.rs, Cargo.* or nets/default.nnue),
#      SUMMARY_ONLY=1 (rewrite results/NAME.md from work/NAME.pgn and .log
#      without playing, e.g. after an interrupted run), OPTIONS_A / OPTIONS_B
#      (UCI options for one engine, 'NAME=VALUE NAME=VALUE', values without
#      spaces, e.g. OPTIONS_A="SyzygyPath=../shared/data/syzygy"), PONDER=1 (both
#      engines think on the opponent's time; cutechess-cli only)
set -euo pipefail
TOURNAMENTS=$(cd "$(dirname "$0")" && pwd)
. "$TOURNAMENTS/lib.sh"
if [ $# -lt 5 ]; then
    usage
    exit 2
fi
name=$1 tc=$2 games=$3
check_name "$name"
odds=$(node_odds "$tc") || tc_args "$tc" >/dev/null
[[ $games =~ ^[0-9]+$ ]] && [ "$games" -ge 2 ] || die "GAMES must be a number ≥ 2, not '$games'"
export CONCURRENCY=${6:-2}
find_runner >/dev/null
book=$(find_book)
a=$(resolve_engine "$4")
b=$(resolve_engine "$5")
spec_a=$(engine_spec "$a")
spec_b=$(engine_spec "$b")
spec_a+=$(option_args "${OPTIONS_A:-}")
spec_b+=$(option_args "${OPTIONS_B:-}")
if [ -n "$odds" ]; then
    spec_a+=" tc=inf nodes=${odds% *}"
    spec_b+=" tc=inf nodes=${odds#* }"
fi

mkdir -p "$WORK" "$RESULTS"
pgn=$WORK/$name.pgn
log=$WORK/$name.log
if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
    rm -f "$pgn"
    set_game_args "$tc" "$book"
    run_games "$pgn" -engine $spec_a -engine $spec_b "${game_args[@]}" \
        -repeat -games 2 -rounds $((games / 2)) -concurrency "$CONCURRENCY" \
        -recover -ratinginterval 20 | tee "$log"
fi

{
    echo "# $name"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| engines | $(engine_label "$4" "$a")${OPTIONS_A:+ with \`$OPTIONS_A\`} vs $(engine_label "$5" "$b")${OPTIONS_B:+ with \`$OPTIONS_B\`} |"
    echo "| games | $(played "$pgn") |"
    echo "| result | $(grep '^Score of' "$log" | tail -1) |"
    echo "| Elo | $(grep '^Elo difference' "$log" | tail -1 || echo n/a) |"
    echo "| integrity | $(pgn_problems "$pgn") |"
    echo "| runner warnings | $(runner_warnings "$log") |"
    echo "| median depth | $(median_depth "$pgn") |"
    common_rows "$tc"
    echo
    echo "Command: \`$(settings_used RUNNER PONDER BOOK BOOK_PLIES OPTIONS_A OPTIONS_B)tournaments/match.sh $*\`"
} > "$RESULTS/$name.md.tmp"
publish_result "$name"
cat "$RESULTS/$name.md"
