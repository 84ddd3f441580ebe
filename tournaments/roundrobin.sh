#!/usr/bin/env bash
# Round robin among several engines — typically tessera with different nets or
# feature sets (net:FILE each), the thesis experiment — then Ordo ratings with
# the first engine anchored at 0. Resumable per pair, like gauntlet.sh.
#
# usage: tournaments/roundrobin.sh NAME TC GAMES ENGINE ENGINE...
#   TC  cutechess time control (e.g. 5+0.05) or nodes=N (fixed nodes a move)
#   GAMES   games per pair (even)
#   ENGINE  net:FILE | commit:REV | label=/path/to/uci-binary | stockfish@ELO | a Debian engine
# env: RUNNER (cutechess or fastchess), CUTECHESS or FASTCHESS, ORDO, BOOK, BOOK_PLIES (16), CONCURRENCY (2), ENGINE_COMMIT
# writes: results/NAME.md (Ordo table), work/NAME/*.pgn,
#         state/NAME/*.pgn.gz after every CHUNK (20) games: commit it, and the
#         same command on another machine goes on from those games
set -euo pipefail
TOURNAMENTS=$(cd "$(dirname "$0")" && pwd)
. "$TOURNAMENTS/lib.sh"
parse_pairings "$@"
names=()
for e in "${engines[@]}"; do names+=("$(engine_name "$e")"); done
[ "$(printf '%s\n' "${names[@]}" | sort -u | wc -l)" = "${#names[@]}" ] || die "two engines share a name: ${names[*]}"

dir=$WORK/$name
mkdir -p "$dir" "$RESULTS"
pgns=()
for ((i = 0; i < ${#engines[@]}; i++)); do
    for ((j = i + 1; j < ${#engines[@]}; j++)); do
        pgns+=("$dir/${names[i]}-vs-${names[j]}.pgn")
        play_pair "${pgns[-1]}" "$tc" "$games" "${engines[i]}" "${engines[j]}" "$name"
    done
done
# Only this run's pairs: the folder may also hold pairs of an earlier run's engines.
all=$dir/all.pgn
cat "${pgns[@]}" > "$all"
{
    echo "# $name"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| engines | $(for i in "${!engines[@]}"; do printf '%s ' "$(engine_label "${given[i]}" "${engines[i]}")"; done)|"
    echo "| games | $(played "$all") ($games per pair) |"
    echo "| integrity | $(pgn_problems "$all") |"
    echo "| median depth | $(median_depth "$all") |"
    common_rows "$tc"
    echo
    echo "## Ordo ratings"
    echo
    ordo_table "$all" "${names[0]}"
    echo
    echo "Command: \`$(settings_used RUNNER PONDER BOOK BOOK_PLIES CONCURRENCY)tournaments/roundrobin.sh $args\`"
} > "$RESULTS/$name.md.tmp"
publish_result "$name"
cat "$RESULTS/$name.md"
