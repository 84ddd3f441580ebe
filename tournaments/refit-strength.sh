#!/usr/bin/env bash
# Refits the strength limit (`UCI_Elo`) for the engine of this checkout, net and all, in
# one command; rerun it for every new default net.
#
# 1. Levels: the engine built with its calibration table extended to the highest setting
#    (strength_fit.py probe) plays Stockfish at each setting's own UCI_Elo; every
#    setting's level gets the rating it played at (results/NAME-levels.md).
# 2. Fit: those points become src/search/strength.rs's table, and MAX_ELO the highest
#    rating reached (strength_fit.py fit --write), and README.md's table and range with it
#    (strength_fit.py readme); review and commit the change.
# 3. Check: the engine rebuilt with the new table plays the same settings (those above
#    the new MAX_ELO at MAX_ELO) against the same Stockfish levels (results/NAME.md);
#    the command fails unless every setting's 95% interval holds it.
# Every step resumes like gauntlet.sh: rerun the same command after a stop.
#
# usage: tournaments/refit-strength.sh NAME [GAMES] [TC] [SETTING...]
#   GAMES    games per setting (default 150)     TC  time control (default 10+0.1)
#   SETTING  Stockfish UCI_Elo levels (default 1500 2000 2400 2850; Stockfish's range is 1350-2850)
# env: as strength.sh (RUNNER, CUTECHESS, FASTCHESS, BOOK, CONCURRENCY); run it on a quiet machine.
set -euo pipefail
TOURNAMENTS=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$TOURNAMENTS/.." && pwd)
die() { echo "error: $*" >&2; exit 1; }
[ $# -ge 1 ] || { sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2; }
command="${RUNNER:+RUNNER=$RUNNER }tournaments/refit-strength.sh $*"
name=$1 games=${2:-150} tc=${3:-10+0.1}
shift $(( $# < 3 ? $# : 3 ))
settings=("$@")
[ ${#settings[@]} -gt 0 ] || settings=(1500 2000 2400 2850)
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "NAME '$name': letters, digits, . _ - only"
[[ $games =~ ^[0-9]+$ && $games -ge 2 ]] || die "GAMES '$games': a whole number of 2 or more"
top=0
for s in "${settings[@]}"; do
    [[ $s =~ ^[0-9]+$ && $s -ge 1350 && $s -le 2850 ]] || die "setting '$s': Stockfish's UCI_Elo runs 1350-2850"
    [ "$s" -gt "$top" ] && top=$s
done
fit=$TOURNAMENTS/strength_fit.py
source=$ROOT/src/search/strength.rs
work=$TOURNAMENTS/work/$name-probe
# Engines are named relative to the checkout, so result files name no path of this machine.
cd "$ROOT"
probe=tournaments/work/$name-probe/release/tessera
pairs() { for s in "$@"; do echo "$s:stockfish@$s"; done; }
# strength.sh rewrites a result file whole: the line saying which engine played goes back after it.
says() { printf '\n%s\n' "$2" >> "$1"; }

# 1. The levels, with the probe build.
if [ ! -f "$work/release/tessera" ]; then
    rm -rf "$work/src"
    mkdir -p "$work/src"
    git -C "$ROOT" ls-files -z --cached --others --exclude-standard | grep -zv '^target/' |
        (cd "$ROOT" && xargs -0 cp --parents -t "$work/src")
    python3 "$fit" probe "$source" "$top" > "$work/src/src/search/strength.rs"
    (cd "$work/src" && CARGO_TARGET_DIR=$work cargo build --release -q)
fi
"$TOURNAMENTS/strength.sh" "$name-levels" "$tc" "$games" "probe=$probe" $(pairs "${settings[@]}")
# The probe is a build of this command's, not a path a reader has: the file names the command.
levels=$TOURNAMENTS/results/$name-levels.md
sed -i -e "s#(\`probe=$probe\`)#(this checkout with its calibration table extended to the highest setting, built by step 1 of the command below)#" \
    -e "s#^Command: .*#Command: \`$command\`#" "$levels"

# 2. The fit, written into the source.
# The levels are read under the table the probe was built with, so a rerun refits the same.
python3 "$fit" fit "$source" "$TOURNAMENTS/results/$name-levels.md" --played "$work/src/src/search/strength.rs" --write
(cd "$ROOT" && cargo build --release -q)
"$ROOT/target/release/tessera" strength-table > "$work/table.md"
python3 "$fit" readme "$ROOT/README.md" "$work/table.md"
max=$(sed -n 's/^pub const MAX_ELO: i64 = \([0-9]*\);/\1/p' "$source")

# 3. The check, with the refitted engine.
checks=()
for s in "${settings[@]}"; do checks+=("$(( s > max ? max : s )):stockfish@$s"); done
"$TOURNAMENTS/strength.sh" "$name" "$tc" "$games" "tessera=target/release/tessera" "${checks[@]}"
says "$TOURNAMENTS/results/$name.md" "The engine is step 3 of \`$command\`: this checkout built with the table refitted from \`$name-levels.md\` (the table committed with this file)."
python3 "$fit" check "$TOURNAMENTS/results/$name.md"
