#!/usr/bin/env bash
# Strength-limit calibration: an engine at several UCI_Elo settings, each
# against the opponents given for it, rated on the scale of Stockfish's own
# UCI_Elo (every stockfish@ELO that played is an anchor fixed at ELO; each
# setting is rated on its own games by maximum likelihood).
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
# env: as gauntlet.sh (RUNNER, CUTECHESS, FASTCHESS, BOOK, BOOK_PLIES, CONCURRENCY, ENGINE_COMMIT)
# writes: results/NAME.md (setting -> measured Elo, scores per pairing), work/NAME/*.pgn,
#         state/NAME/*.pgn.gz after every CHUNK (20) games: commit it, and the
#         same command on another machine goes on from those games
set -euo pipefail
TOURNAMENTS=$(cd "$(dirname "$0")" && pwd)
. "$TOURNAMENTS/lib.sh"
parse_run "$@"
given=$4
shift 4
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
    play_pair "${pgns[-1]}" "$tc" "$games" "$engine@$elo" "$opp" "$name"
done
all=$dir/all.pgn
cat "${pgns[@]}" > "$all"

# A setting's rating: the Elo whose expected score against the Stockfish
# levels it met (each fixed at its UCI_Elo; logistic, 400 points a factor of
# ten) equals the points it scored, found by bisection; ± is 1.96 standard
# errors from the Fisher information. The other opponents' games are shown,
# not rated (nothing fixes their Elo).
me=$(engine_name "$engine")
rating_of() { # elo -> "Elo ± error" of ENGINE@elo
    local elo=$1 e opp opp_name n win d
    for pairing in "${pairings[@]}"; do
        read -r e opp <<< "$pairing"
        [ "$e" = "$elo" ] && [[ $opp == stockfish@* ]] || continue
        opp_name=$(engine_name "$opp")
        read -r n win _ d < <(tally "$dir/$elo-vs-$opp_name.pgn" "$me@$elo")
        if [ "$n" -gt 0 ]; then echo "${opp#stockfish@} $n $win $d"; fi
    done | awk '
        { a[NR] = $1; n[NR] = $2; games += $2; points += $3 + $4 / 2 }
        function expected(r,   i, s) { s = 0; for (i = 1; i <= NR; i++) s += n[i] / (1 + 10 ^ ((a[i] - r) / 400)); return s }
        END {
            if (!games) { print "– (met no stockfish@ELO)"; exit }
            lo = 0; hi = 4000
            if (points == 0) { printf "below %d (lost every game)\n", a[1]; exit }
            if (points == games) { printf "above %d (won every game)\n", a[1]; exit }
            for (k = 0; k < 60; k++) { mid = (lo + hi) / 2; if (expected(mid) < points) lo = mid; else hi = mid }
            info = 0
            for (i = 1; i <= NR; i++) { e = 1 / (1 + 10 ^ ((a[i] - lo) / 400)); info += n[i] * e * (1 - e) * (log(10) / 400) ^ 2 }
            printf "%.0f ± %.0f\n", lo, 1.96 / sqrt(info)
        }'
}
score_of() { # pgn player -> "wins–losses–draws (score%)"
    local n win loss d
    read -r n win loss d < <(tally "$1" "$2")
    awk -v n="$n" -v win="$win" -v loss="$loss" -v d="$d" \
        'BEGIN { printf "%d–%d–%d (%.1f%%)", win, loss, d, n ? 100 * (win + d / 2) / n : 0 }'
}
{
    echo "# $name"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| engine | $(engine_label "$given" "$engine") with \`UCI_LimitStrength=true UCI_Elo=<setting>\` |"
    echo "| anchors | Stockfish (Debian) limited with UCI_Elo, each fixed at its setting: $(printf 'sf%s ' $(printf '%s\n' "${anchors[@]}" | sort -un))(each setting rated on its own games against them) |"
    echo "| games | $(played "$all") |"
    echo "| integrity | $(pgn_problems "$all") |"
    common_rows "$tc"
    echo
    echo "## Setting → measured Elo"
    echo
    echo "| UCI_Elo | measured Elo (95%) | games (wins–losses–draws, score) per opponent |"
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
        echo "| $elo | $(rating_of "$elo") | ${cells%; } |"
    done
    echo
    echo "Command: \`$(settings_used RUNNER PONDER BOOK BOOK_PLIES CONCURRENCY)tournaments/strength.sh $args\`"
} > "$RESULTS/$name.md.tmp"
publish_result "$name"
cat "$RESULTS/$name.md"
