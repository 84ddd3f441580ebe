#!/usr/bin/env bash
# Seeds the fuzz corpora (fuzz/corpus/<target>/, ignored by git) with a few
# valid inputs, so the fuzzer starts from the shapes the readers accept.
set -euo pipefail
cd "$(dirname "$0")"
shared=../../shared/data
mkdir -p corpus/uci corpus/fen corpus/nnue corpus/datagen_records corpus/data_formats
printf 'uci\nisready\nposition startpos moves e2e4 e7e5\ngo depth 3\nstop\n' >corpus/uci/session
printf 'setoption name MultiPV value 3\nposition fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\ngo wtime 100 btime 100 movestogo 0\n' >corpus/uci/options
printf 'ucinewgame\nposition fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4 c7c5 g1f3\ngo searchmoves d7d6 nodes 100\nponderhit\n' >corpus/uci/game
i=0
for file in $shared/perft/standard.epd $shared/perft/fischer960.epd; do
    [ -f "$file" ] || continue
    head -40 "$file" | cut -d';' -f1 | while read -r fen; do
        i=$((i + 1))
        printf '%s' "$fen" >"corpus/fen/$(basename "$file" .epd)-$i"
    done
done
# A small valid net: a random 768 → 16 net, quantized (tests/nnue.rs write_random_net).
(cd .. && TESSERA_RANDOM_NET=$PWD/fuzz/corpus/nnue/random-16 TESSERA_RANDOM_FT=16 \
    cargo test --quiet --release --test nnue -- --ignored write_random_net >/dev/null)

printf 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 25 | 0.5\n8/8/3k4/8/8/4K3/8/8 b - - 0 1 | 0 | 0.5\n' >corpus/datagen_records/text
# One small file of each exchange format, converted from the text corpus above.
for ext in bin binpack vf bullet; do
    rm -f "corpus/data_formats/seed.$ext"
    (cd .. && cargo run --quiet --release -p tessera-datagen -- convert fuzz/corpus/datagen_records/text \
        -o "fuzz/corpus/data_formats/seed.$ext" >/dev/null)
done
