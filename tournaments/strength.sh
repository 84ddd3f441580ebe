#!/usr/bin/env bash
# Strength-limit calibration: an engine at several UCI_Elo settings, each
# against the opponents given for it, rated by Ordo on the scale of Stockfish's
# own UCI_Elo (every stockfish@ELO that played is an anchor fixed at ELO).
# Resumable like gauntlet.sh: each pairing's games go to their own PGN under
# work/NAME/; a rerun plays only the games still missing.
#
# usage: tournaments/strength.sh NAME TC GAMES ENGINE SETTING...
#   TC       cutechess time control (e.g. 5+0.05)
#   GAMES    games per pairing (even: each opening with both colours)
#   ENGINE   label=/path/to/uci-binary | commit:REV | net:FILE: a UCI engine
#            with UCI_LimitStrength and UCI_Elo (tessera)
#   SETTING  ELO:OPPONENT[+OPPONENT...], e.g. 1500:stockfish@1500+phalanx;
#            at least one setting must meet a stockfish@ELO (the anchors)
# env: as gauntlet.sh (CUTECHESS, ORDO, BOOK, BOOK_PLIES, CONCURRENCY, ENGINE_COMMIT)
# writes: results/NAME.md (setting -> measured Elo, scores per pairing), work/NAME/*.pgn
set -euo pipefail
TOURNAMENTS=$(cd "$(dirname "$0")" && pwd)
. "$TOURNAMENTS/lib.sh"
if [ $# -lt 5 ]; then
    usage
    exit 2
fi
args="$*"
name=$1 tc=$2 games=$3 given=$4
shift 4
check_name "$name"
tc_args "$tc" >/dev/null
[[ $games =~ ^[0-9]+$ ]] && [ "$games" -ge 2 ] && [ $((games % 2)) = 0 ] ||
    die "GAMES must be an even number ≥ 2, not '$games'"
find_cutechess >/dev/null
find_ordo >/dev/null
find_book >/dev/null
engine=$(resolve_engine "$given")
[[ $engine == *=* ]] || die "ENGINE must be label=/path, commit:REV or net:FILE, not '$given'"

# Check every setting before the first game.
pairings=()
anchors=()
for setting in "$@"; do
    [[ $setting =~ ^([0-9]+):(.+)$ ]] || die "setting '$setting': expected ELO:OPPONENT[+OPPONENT...]"
    elo=${BASH_REMATCH[1]}
    IFS=+ read -ra opps <<< "${BASH_REMATCH[2]}"
    for opp in "${opps[@]}"; do
        opp=$(resolve_engine "$opp")
        engine_spec "$opp" >/dev/null
        pairings+=("$elo $opp")
        [[ $opp == stockfish@* ]] && anchors+=("${opp#stockfish@}")
    done
    engine_spec "$engine@$elo" >/dev/null
done
[ ${#anchors[@]} -gt 0 ] || die "no stockfish@ELO opponent: nothing anchors the ratings"

dir=$WORK/$name
mkdir -p "$dir" "$RESULTS"
pgns=()
for pairing in "${pairings[@]}"; do
    read -r elo opp <<< "$pairing"
    pgns+=("$dir/$elo-vs-$(engine_name "$opp").pgn")
    play_pair "${pgns[-1]}" "$tc" "$games" "$engine@$elo" "$opp"
done
all=$dir/all.pgn
cat "${pgns[@]}" > "$all"

anchor_file=$dir/anchors.csv
printf '"sf%s",%s\n' $(printf '%s\n' "${anchors[@]}" | sort -u | sed 's/.*/& &/') > "$anchor_file"
csv=$dir/ratings.csv
rated=1
timeout 300 "$(find_ordo)" -q -p "$all" -m "$anchor_file" -W -s 400 -c "$csv" >/dev/null 2>&1 || rated=0

me=$(engine_name "$engine")
rating_of() { # player -> "Elo ± error" from Ordo's csv
    [ "$rated" = 1 ] || { echo "–"; return; }
    tr -d '"' < "$csv" | awk -F, -v p="$1" '$2 == p { printf "%.0f ± %.0f", $3, $4 }'
}
score_of() { # pgn player -> "wins–losses–draws (score%)"
    awk -v me="$2" '
        /^\[White "/ { w = $0; sub(/^\[White "/, "", w); sub(/"\]$/, "", w) }
        /^\[Result "/ {
            r = $0; sub(/^\[Result "/, "", r); sub(/"\]$/, "", r)
            if (r == "*") next
            n++
            if (r == "1/2-1/2") d++
            else if ((r == "1-0") == (w == me)) win++
            else loss++
        }
        END { printf "%d–%d–%d (%.1f%%)", win, loss, d, n ? 100 * (win + d / 2) / n : 0 }' "$1"
}
{
    echo "# $name"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| engine | $(engine_label "$given" "$engine") with \`UCI_LimitStrength=true UCI_Elo=<setting>\` |"
    echo "| anchors | Stockfish (Debian) limited with UCI_Elo, each fixed at its setting: $(printf 'sf%s ' $(printf '%s\n' "${anchors[@]}" | sort -un)) |"
    echo "| games | $(played "$all") |"
    echo "| integrity | $(pgn_problems "$all") |"
    common_rows "$tc"
    echo
    echo "## Setting → measured Elo"
    echo
    echo "| UCI_Elo | measured Elo (Ordo, 95%) | games (wins–losses–draws, score) per opponent |"
    echo "|---|---|---|"
    for setting in "$@"; do
        elo=${setting%%:*}
        cells=""
        for pairing in "${pairings[@]}"; do
            read -r e opp <<< "$pairing"
            [ "$e" = "$elo" ] || continue
            opp_name=$(engine_name "$opp")
            cells+="$opp_name: $(score_of "$dir/$elo-vs-$opp_name.pgn" "$me@$elo"); "
        done
        echo "| $elo | $(rating_of "$me@$elo") | ${cells%; } |"
    done
    echo
    if [ "$rated" = 1 ]; then
        echo "## Every player (Ordo)"
        echo
        echo "| engine | Elo | ± (95%) | points | games | score |"
        echo "|---|---|---|---|---|---|"
        tail -n +2 "$csv" | tr -d '"' | while IFS=, read -r _ player rating error points played pct; do
            echo "| $player | $rating | $error | $points | $played | $pct% |"
        done
    else
        echo "Ordo could not rate these games (run \`ordo -p $all -m $anchor_file\` to see why)."
    fi
    echo
    echo "Command: \`tournaments/strength.sh $args\`"
} > "$RESULTS/$name.md.tmp"
mv "$RESULTS/$name.md.tmp" "$RESULTS/$name.md"
cat "$RESULTS/$name.md"
