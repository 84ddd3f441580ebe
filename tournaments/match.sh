#!/usr/bin/env bash
# Plays a cutechess-cli match between two engines from an opening book and
# records a markdown summary in tournaments/results/<name>.md (PGN stays in
# tournaments/work/, which git ignores).
#
# usage: tournaments/match.sh NAME TC GAMES ENGINE_A ENGINE_B [CONCURRENCY]
#   TC       cutechess time control, e.g. 5+0.05
#   ENGINE   tessera=<binary> | <label>=<binary> (any UCI engine) |
#            fairymax | sjeng | gnuchess | phalanx | toga2 | stockfish (Debian packages)
# env: CUTECHESS (default: cutechess-cli on PATH), BOOK (default: 8-move book
#      in ../shared/data/books), BOOK_PLIES (default 16), ENGINE_COMMIT (the
#      commit the tested binary was built from; default: HEAD when the match starts),
#      SUMMARY_ONLY=1 (rewrite results/NAME.md from work/NAME.pgn and .log
#      without playing, e.g. after an interrupted run)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 5 ]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
name=$1 tc=$2 games=$3 a=$4 b=$5 conc=${6:-2}
cutechess=${CUTECHESS:-$(command -v cutechess-cli || true)}
if [ -z "$cutechess" ] || [ ! -x "$cutechess" ]; then
    echo "error: cutechess-cli not found: build it from source (see tournaments/README.md) and put it on PATH or set CUTECHESS" >&2
    exit 1
fi
book=${BOOK:-$here/../../shared/data/books/8moves_v3.pgn}
if [ ! -f "$book" ]; then
    echo "error: opening book $book not found (set BOOK)" >&2
    exit 1
fi
case "$book" in *.epd) book_format=epd ;; *) book_format=pgn ;; esac

find_debian() { # name -> path, or exit with an install hint
    local p
    p=$(command -v "$1" || true)
    [ -z "$p" ] && [ -x "/usr/games/$1" ] && p=/usr/games/$1
    if [ -z "$p" ]; then
        echo "error: $1 not found: install it with 'apt-get install $1'" >&2
        exit 1
    fi
    echo "$p"
}

spec() { # engine argument -> cutechess -engine options
    case "$1" in
        fairymax | sjeng | gnuchess | phalanx)
            local proto=xboard args=""
            [ "$1" = gnuchess ] && args="arg=--xboard"
            echo "name=$1 cmd=$(find_debian "$1") proto=$proto $args" ;;
        toga2 | stockfish) echo "name=$1 cmd=$(find_debian "$1") proto=uci" ;;
        *=*)
            local label=${1%%=*} path=${1#*=}
            [ -x "$path" ] || { echo "error: $path is not an executable" >&2; exit 1; }
            echo "name=$label cmd=$(cd "$(dirname "$path")" && pwd)/$(basename "$path") proto=uci" ;;
        *) echo "error: unknown engine '$1'" >&2; exit 1 ;;
    esac
}
spec_a=$(spec "$a")
spec_b=$(spec "$b")

commit=${ENGINE_COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)}
mkdir -p "$here/work" "$here/results"
pgn=$here/work/$name.pgn
log=$here/work/$name.log
cmd=("$cutechess" -engine $spec_a -engine $spec_b -each tc="$tc" timemargin=0
    -openings file="$book" format=$book_format order=random plies="${BOOK_PLIES:-16}"
    -repeat -games 2 -rounds $((games / 2)) -concurrency "$conc"
    -recover -pgnout "$pgn" -ratinginterval 20)
if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
    rm -f "$pgn"
    echo "${cmd[*]}" >&2
    "${cmd[@]}" | tee "$log"
fi

score=$(grep '^Score of' "$log" | tail -1)
elo=$(grep '^Elo difference' "$log" | tail -1)
forfeits=$(grep -c 'loses on time' "$pgn" || true)
illegal=$(grep -ci 'illegal move' "$pgn" || true)
disconnects=$(grep -ci 'disconnects\|stalls\|connection stalls' "$pgn" || true)
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | xargs || echo unknown)
cat > "$here/results/$name.md" <<MD
# $name

| | |
|---|---|
| engines | \`$a\` vs \`$b\` |
| time control | $tc, $conc games at a time |
| book | $(basename "$book"), ${BOOK_PLIES:-16} plies, random order, each opening played with both colours |
| games | $(grep -c '^\[Result' "$pgn") |
| result | $score |
| Elo | ${elo:-n/a} |
| time forfeits | $forfeits |
| illegal moves | $illegal |
| disconnects/stalls | $disconnects |
| hardware | $cpu, $(nproc) cores |
| commit | $commit |
| date | $(date -u +%Y-%m-%d) |

Command: \`tournaments/match.sh $*\`
MD
cat "$here/results/$name.md"
