#!/usr/bin/env bash
# The master-game corpus: every position from ply 20 on of the PGN Mentor player
# files (masters of every era) as kept in the public repository
# chesslablab/chess-data at commit 907d6ac (`data/players/*.pgn`, top level), each
# game taken once (the same players, date and moves in two players' files), not in
# check, the labeller's best move quiet; labelled and appended to OUTPUT.
# Resumable: rerun the same command after a kill and it goes on.
#
# usage: tools/datagen/master-games.sh CLONE OUTPUT [LABELLER OPTION…]
#   CLONE   a clone of https://github.com/chesslablab/chess-data holding commit
#           907d6ac (`git fetch origin pull/16/head` brings it where a plain clone
#           lacks it)
#   OUTPUT  the labelled records (`.bin`); the games go to OUTPUT.games/
#   LABELLER OPTION…  tessera-datagen pgn's labeller (default: `--nodes 400`, Tessera's
#           own search; e.g. `--engine /usr/games/stockfish --depth 7 --keep-hash`, a game's
#           positions in order with the engine's table kept between them, about 1.6 times
#           the labels a CPU-hour of clearing it before each; or `--static-eval`: the
#           embedded net's evaluation, no search, for a teacher to score at training time)
# env: JOBS (all cores), SEED (1201), DATAGEN (target/release/tessera-datagen)
# The same commit, seed and labeller give the same positions in the same order.
set -euo pipefail
die() { echo "error: $*" >&2; exit 1; }
[ $# -ge 2 ] || { sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2; }
clone=$1 output=$2
shift 2
[ $# -gt 0 ] || set -- --nodes 400
root=$(cd "$(dirname "$0")/../.." && pwd)
datagen=${DATAGEN:-$root/target/release/tessera-datagen}
[ -x "$datagen" ] || die "$datagen not found: cargo build --release -p tessera-datagen"
commit=907d6ac
git -C "$clone" cat-file -e "$commit^{commit}" 2>/dev/null ||
    die "$clone does not hold commit $commit of chesslablab/chess-data (git -C $clone fetch origin pull/16/head)"
games=$output.games
if [ ! -f "$games/.complete" ]; then
    mkdir -p "$games"
    git -C "$clone" ls-tree --name-only "$commit" data/players/ | grep '\.pgn$' | LC_ALL=C sort |
        while read -r path; do git -C "$clone" show "$commit:$path" > "$games/$(basename "$path")"; done
    touch "$games/.complete"
fi
files=()
while IFS= read -r f; do files+=("$games/$f"); done < <(ls "$games" | grep '\.pgn$' | LC_ALL=C sort)
[ ${#files[@]} -gt 0 ] || die "no PGN files under data/players/ at $commit"
# A search labeller's best move decides the capture filter; without a search
# (--static-eval) the static exchange test does.
capture=--skip-best-capture
for option in "$@"; do [ "$option" = --static-eval ] && capture=--skip-capture; done
exec "$datagen" pgn "${files[@]}" -o "$output" --per-game all --unique --skip-check $capture \
    --jobs "${JOBS:-$(nproc)}" --seed "${SEED:-1201}" "$@"
