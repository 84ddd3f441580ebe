#!/usr/bin/env bash
# Gauntlet: one engine against a list of opponents, then Ordo ratings with the
# tested engine anchored at 0. Resumable: each opponent's games go to their own
# PGN under work/NAME/; a rerun plays only the games still missing.
#
# usage: tournaments/gauntlet.sh NAME TC GAMES ENGINE OPPONENT...
#   TC  cutechess time control (e.g. 5+0.05) or nodes=N (fixed nodes a move)
#   GAMES     games per opponent (even: each opening is played with both colours)
#   ENGINE    label=/path/to/uci-binary (e.g. tessera=target/release/tessera),
#             commit:REV or net:FILE (built for you)
#   OPPONENT  the same forms, stockfish@ELO, or fairymax sjeng gnuchess phalanx toga2 ethereal stockfish
# env: RUNNER (cutechess or fastchess), CUTECHESS or FASTCHESS, ORDO, BOOK (default ../shared/data/books/8moves_v3.pgn),
#      BOOK_PLIES (16), CONCURRENCY (2), ENGINE_COMMIT (default: the newest commit
#      that changed the engine: src, build.rs, Cargo.*, nets/default.nnue)
# writes: results/NAME.md (Ordo table and per-opponent scores), work/NAME/*.pgn,
#         state/NAME/*.pgn.gz after every CHUNK (20) games: commit it, and the
#         same command on another machine goes on from those games
set -euo pipefail
TOURNAMENTS=$(cd "$(dirname "$0")" && pwd)
. "$TOURNAMENTS/lib.sh"
parse_pairings "$@"
engine=${engines[0]}
opponents=("${engines[@]:1}")
me=$(engine_name "$engine")

dir=$WORK/$name
mkdir -p "$dir" "$RESULTS"
pgns=()
for opp in "${opponents[@]}"; do
    pgns+=("$dir/vs-$(engine_name "$opp").pgn")
    play_pair "${pgns[-1]}" "$tc" "$games" "$engine" "$opp" "$name"
done

# Only this run's opponents: the folder may also hold the games of an earlier
# run's other opponents, which belong to that run's table, not to this one.
all=$dir/all.pgn
cat "${pgns[@]}" > "$all"
{
    echo "# $name"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| engine | $(engine_label "${given[0]}" "$engine") |"
    echo "| opponents | $(for i in "${!opponents[@]}"; do printf '%s ' "$(engine_label "${given[i + 1]}" "${opponents[i]}")"; done)|"
    echo "| games | $(played "$all") |"
    echo "| integrity | $(pgn_problems "$all") |"
    echo "| median depth | $(median_depth "$all") |"
    common_rows "$tc"
    echo
    echo "## Ordo ratings"
    echo
    ordo_table "$all" "$me"
    echo
    echo "## Scores of $me"
    echo
    echo "| opponent | games | wins | losses | draws | score |"
    echo "|---|---|---|---|---|---|"
    for opp in "${opponents[@]}"; do
        opp_name=$(engine_name "$opp")
        read -r n win loss d < <(tally "$dir/vs-$opp_name.pgn" "$me")
        # A built or given binary (label=/path) is named by its label: the path
        # is this machine's build cache, which means nothing to a reader.
        shown=$opp
        [[ $opp == *=* ]] && shown=$opp_name
        awk -v opp="$shown" -v n="$n" -v win="$win" -v loss="$loss" -v d="$d" \
            'BEGIN { printf "| %s | %d | %d | %d | %d | %.1f%% |\n", opp, n, win, loss, d, n ? 100 * (win + d / 2) / n : 0 }'
    done
    echo
    echo "Command: \`$(settings_used RUNNER PONDER BOOK BOOK_PLIES CONCURRENCY)tournaments/gauntlet.sh $args\`"
} > "$RESULTS/$name.md.tmp"
publish_result "$name"
cat "$RESULTS/$name.md"
