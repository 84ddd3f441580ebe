#!/usr/bin/env bash
# SPRT between two builds of tessera: elo0=0, elo1=5, alpha=beta=0.05, until
# H0 or H1 is accepted (or MAX_GAMES are played). Resumable: rerun the same
# command after an interruption and the test goes on from the pairs it has.
#
# usage: tournaments/sprt.sh NAME TC NEW BASE
#   TC         cutechess time control (e.g. 10+0.1) or nodes=N (fixed nodes a move)
#   NEW, BASE  commit:REV | net:FILE | label=/path/to/uci-binary
#              e.g. commit:HEAD commit:HEAD~1, or net:runs/a/x.nnue net:nets/default.nnue
# env: RUNNER (cutechess or fastchess), CUTECHESS or FASTCHESS, ORDO, BOOK, BOOK_PLIES (16), CONCURRENCY (2), MAX_GAMES (20000),
#      ELO0 (0), ELO1 (5), ALPHA (0.05), BETA (0.05), CHUNK (40: games a
#      cutechess run plays before the statistic is read again)
# writes: results/NAME.md (the test so far: verdict, LLR, score, Elo and an
#         Ordo table with BASE = 0), work/NAME.pgn (its games), work/NAME.sprt
#         (what the test is: a rerun with other engines, bounds, book or time
#         control is refused; delete work/NAME.* and state/NAME/ to start it
#         again), and after every chunk state/NAME/ (the identity and the
#         games, gzip): commit it, and the same command on another machine
#         goes on from there. Engines given as commit:REV or net:FILE are
#         named by commit, net hash and engine code, so a rebuild elsewhere is
#         the same engine; a label=/path binary by its bytes.
# The statistic (tournaments/sprt_stat.py) is over pairs of games (each opening
# with both colours), across every cutechess run of the test.
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
find_runner >/dev/null
find_ordo >/dev/null
book=$(find_book)
command -v python3 >/dev/null || die "python3 not found (the SPRT statistic is tournaments/sprt_stat.py)"
given_new=$3 given_base=$4
new=$(resolve_engine "$given_new")
base=$(resolve_engine "$given_base")
spec_new=$(engine_spec "$new")
spec_base=$(engine_spec "$base")
name_new=$(engine_name "$new")
name_base=$(engine_name "$base")
[ "$name_new" != "$name_base" ] || die "NEW and BASE have the same name; give them labels"
max=${MAX_GAMES:-20000}
chunk=${CHUNK:-40}
[[ $max =~ ^[0-9]+$ ]] && [ "$max" -ge 2 ] || die "MAX_GAMES must be a number ≥ 2, not '$max'"
[[ $chunk =~ ^[0-9]+$ ]] && [ "$chunk" -ge 2 ] || die "CHUNK must be a number ≥ 2, not '$chunk'"
elo0=${ELO0:-0} elo1=${ELO1:-5} alpha=${ALPHA:-0.05} beta=${BETA:-0.05}
sprt="elo0=$elo0 elo1=$elo1 alpha=$alpha beta=$beta"

mkdir -p "$WORK" "$RESULTS"
pgn=$WORK/$name.pgn
log=$WORK/$name.log
state=$WORK/$name.sprt

# What the test is. Engines are named by their binaries' contents: a `net:`
# build made after the engine's code changed is another engine, and its games
# must not join an SPRT of the old one.
identity() {
    echo "tc $tc"
    echo "sprt $sprt"
    echo "book $(basename "$book") $(sha256sum < "$book" | cut -c1-16)"
    echo "new $name_new $(engine_identity "$given_new" "$new") ($(engine_options "$spec_new"))"
    echo "base $name_base $(engine_identity "$given_base" "$base") ($(engine_options "$spec_base"))"
}
engine_options() { grep -o 'option\.[^ ]*' <<< "$1" | tr '\n' ' ' | sed 's/ $//' || true; }
restore_state "$name" "$state" "$pgn"
if [ -f "$state" ]; then
    if ! diff <(identity) "$state" >/dev/null; then
        echo "work/$name.sprt (the test so far) differs from this command's:" >&2
        diff <(identity) "$state" | sed 's/^</  this command:/; s/^>/  the test so far:/' | grep -v '^---\|^[0-9]' >&2 || true
        die "rerun the test's own command, or delete $WORK/$name.* and $STATE/$name/ to start it again (or choose another NAME)"
    fi
else
    rm -f "$pgn" "$pgn.run" "$log"
    identity > "$state"
fi

statistic() { python3 "$TOURNAMENTS/sprt_stat.py" "$pgn" "$name_new" --elo0 "$elo0" --elo1 "$elo1" --alpha "$alpha" --beta "$beta"; }
runs_in() { awk '/^\[Event "/' "$1" | sort -u | wc -l; }  # runner runs with a whole pair in PGN
field() { grep -o "\b$1=[^ ]*" <<< "$stat" | cut -d= -f2; }

write_result() {
    local outcome runs
    case "$(field verdict)" in
        H1) outcome="H1 accepted: $name_new is stronger than $name_base" ;;
        H0) outcome="H0 accepted: $name_new is not $elo1 Elo stronger than $name_base" ;;
        *) outcome="no decision after $(field games) games (rerun the command to go on)" ;;
    esac
    runs=$(runs_in "$pgn")
    {
        echo "# $name"
        echo
        echo "| | |"
        echo "|---|---|"
        echo "| new | $(engine_label "$given_new" "$new") |"
        echo "| base | $(engine_label "$given_base" "$base") |"
        echo "| SPRT | $sprt (logistic Elo) |"
        echo "| outcome | $outcome |"
        echo "| statistic | LLR $(field llr) (bounds $(field lower), $(field upper)), over $(field pairs) game pairs (pentanomial) |"
        echo "| result | $name_new: $(field wins) wins, $(field losses) losses, $(field draws) draws |"
        echo "| Elo | $(field elo) ± $(field elo_error) (95%, from the pairs) |"
        echo "| pairs | $(field penta | tr , ' ') (pair scores 0, ¼, ½, ¾, 1) |"
        echo "| games | $(field games) in $runs runs of the match runner |"
        echo "| integrity | $(pgn_problems "$pgn") |"
        common_rows "$tc"
        echo
        echo "## Ordo ratings"
        echo
        ordo_table "$pgn" "$name_base"
        echo
        echo "Command: \`$(settings_used RUNNER PONDER ELO0 ELO1 ALPHA BETA MAX_GAMES BOOK BOOK_PLIES CONCURRENCY CHUNK)tournaments/sprt.sh $args\`"
    } > "$RESULTS/$name.md.tmp"
    publish_result "$name"
}

touch "$pgn"
set_game_args "$tc" "$book"
while :; do
    keep_whole_pairs "$pgn.run" "$pgn"
    stat=$(statistic)
    games=$(field games)
    echo "SPRT $name after $games games: $stat" | tee -a "$log"
    write_result
    save_state "$name" "$state" "$pgn"
    [ "$(field verdict)" = none ] && [ "$games" -lt "$max" ] || break
    left=$((max - games))
    [ "$left" -lt "$chunk" ] || left=$chunk
    run=$(($(runs_in "$pgn") + 1))
    run_games "$pgn.run" -engine $spec_new -engine $spec_base "${game_args[@]}" \
        -event "$name run $run" -srand "$((games + run))" -repeat -games 2 -rounds $(((left + 1) / 2)) \
        -concurrency "${CONCURRENCY:-2}" -recover -ratinginterval 20 | tee -a "$log"
    keep_whole_pairs "$pgn.run" "$pgn"
    if [ "$(played "$pgn")" -le "$games" ]; then
        # The result written above already holds these games.
        echo "sprt.sh: the runner's last run added no whole game pair; stopping (see $log)" >&2
        break
    fi
done
cat "$RESULTS/$name.md"
