#!/usr/bin/env bash
# Gauntlet: one engine against a list of opponents, then Ordo ratings with the
# tested engine anchored at 0. Resumable: each opponent's games go to their own
# PGN under work/NAME/; a rerun plays only the games still missing.
#
# usage: tournaments/gauntlet.sh NAME TC GAMES ENGINE OPPONENT...
#   GAMES     games per opponent (even: each opening is played with both colours)
#   ENGINE    label=/path/to/uci-binary (e.g. tessera=target/release/tessera)
#   OPPONENT  label=/path | stockfish@ELO | fairymax | sjeng | gnuchess | phalanx | toga2 | stockfish
# env: CUTECHESS, ORDO, BOOK (default ../shared/data/books/8moves_v3.pgn),
#      BOOK_PLIES (16), CONCURRENCY (2), ENGINE_COMMIT (default: HEAD)
# writes: results/NAME.md (Ordo table and per-opponent scores), work/NAME/*.pgn
set -euo pipefail
TOURNAMENTS=$(cd "$(dirname "$0")" && pwd)
. "$TOURNAMENTS/lib.sh"
if [ $# -lt 5 ]; then
    sed -n '2,13p' "$0" >&2
    exit 2
fi
args="$*"
name=$1 tc=$2 games=$3 engine=$4
shift 4
[[ $games =~ ^[0-9]+$ ]] && [ "$games" -ge 2 ] && [ $((games % 2)) = 0 ] ||
    die "GAMES must be an even number ≥ 2, not '$games'"
[[ $name =~ ^[A-Za-z0-9._+-]+$ ]] || die "NAME may hold letters, digits and . _ + - only"
cutechess=$(find_cutechess)
find_ordo >/dev/null
book=$(find_book)
conc=${CONCURRENCY:-2}
spec_engine=$(engine_spec "$engine")
me=$(engine_name "$engine")
for opp in "$@"; do engine_spec "$opp" >/dev/null; done
commit=$(engine_commit)

dir=$TOURNAMENTS/work/$name
mkdir -p "$dir" "$TOURNAMENTS/results"
played() { if [ -f "$1" ]; then grep -c '^\[Result "[012/-]*"\]' "$1" || true; else echo 0; fi; }
for opp in "$@"; do
    opp_name=$(engine_name "$opp")
    pgn=$dir/vs-$opp_name.pgn
    done_games=$(played "$pgn")
    left=$((games - done_games))
    if [ "$left" -le 0 ]; then
        echo "$opp_name: $done_games games already played" >&2
        continue
    fi
    echo "$opp_name: playing $left games ($done_games already played)" >&2
    # A fresh seed for the rest of an interrupted match, so its openings are new draws.
    "$cutechess" -engine $spec_engine -engine $(engine_spec "$opp") -each tc="$tc" timemargin=0 \
        -openings file="$book" format=$(book_format "$book") order=random plies="${BOOK_PLIES:-16}" \
        -srand $((done_games + 1)) -repeat -games 2 -rounds $(((left + 1) / 2)) \
        -concurrency "$conc" -recover -pgnout "$pgn" -ratinginterval 20 |
        tee -a "$dir/vs-$opp_name.log"
done

all=$dir/all.pgn
cat "$dir"/vs-*.pgn > "$all"
{
    echo "# $name"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| engine | \`$engine\` |"
    echo "| opponents | $(printf '`%s` ' "$@")|"
    echo "| time control | $tc, $conc games at a time |"
    echo "| book | $(basename "$book"), ${BOOK_PLIES:-16} plies, random order, each opening with both colours |"
    echo "| games | $(played "$all") |"
    echo "| integrity | $(pgn_problems "$all") |"
    echo "| hardware | $(hardware) |"
    echo "| commit | $commit |"
    echo "| date | $(date -u +%Y-%m-%d) |"
    echo
    echo "## Ordo ratings"
    echo
    ordo_table "$all" "$me"
    echo
    echo "## Scores of $me"
    echo
    echo "| opponent | games | wins | losses | draws | score |"
    echo "|---|---|---|---|---|---|"
    for opp in "$@"; do
        opp_name=$(engine_name "$opp")
        awk -v me="$me" -v opp="$opp_name" '
            /^\[White "/ { w = $0; sub(/^\[White "/, "", w); sub(/"\]$/, "", w) }
            /^\[Result "/ {
                r = $0; sub(/^\[Result "/, "", r); sub(/"\]$/, "", r)
                if (r == "*") next
                n++
                if (r == "1/2-1/2") d++
                else if ((r == "1-0") == (w == me)) win++
                else loss++
            }
            END { printf "| %s | %d | %d | %d | %d | %.1f%% |\n", opp, n, win, loss, d, n ? 100 * (win + d / 2) / n : 0 }
        ' "$dir/vs-$opp_name.pgn"
    done
    echo
    echo "Command: \`tournaments/gauntlet.sh $args\`"
} > "$TOURNAMENTS/results/$name.md.tmp"
mv "$TOURNAMENTS/results/$name.md.tmp" "$TOURNAMENTS/results/$name.md"
cat "$TOURNAMENTS/results/$name.md"
