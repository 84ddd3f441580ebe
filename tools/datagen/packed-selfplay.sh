#!/usr/bin/env bash
# Generation on another machine with more cores, which needs neither a network,
# a Rust toolchain nor a Stockfish of its own: pack here what the generation
# recipe needs, copy the pack there, play for a fixed time, bring the records
# back in checksummed parts.
#
# usage:
#   tools/datagen/packed-selfplay.sh pack
#       (here) builds tessera-datagen (the default net plays the games) and puts
#       it, this machine's Stockfish (when there is one; LABELS=stockfish needs
#       it), the 3-move book and the Syzygy WDL tables into selfplay-pack/
#       (ignored by git; about 52 MB)
#   tools/datagen/packed-selfplay.sh run SEED SECONDS [JOBS]
#       (on the machine with N cores, the pack copied beside the checkout) runs
#       the recipe with --seed SEED for SECONDS, stops it with SIGINT (games in
#       flight are finished and saved), and writes the records to OUTPUT_DIR as
#       xz-packed parts of at most PART_RECORDS records (default 1,000,000,
#       about 12 MB packed), NAME.sha256 and the log, NAME being
#       all-own400-sSEED (own labels) or all-d7k-sSEED (Stockfish's). JOBS
#       defaults to N. Rates: tools/datagen/README.md.
#   tools/datagen/packed-selfplay.sh unpack DIR
#       (here) checks and unpacks what came back in DIR into the current folder.
# env: LABELS (for run: `own`, the default, keeps each position's score from
#      the game's own 400-node search; `stockfish`, the all-d7k recipe,
#      re-scores it with the packed Stockfish at depth 7),
#      STOCKFISH (default /usr/games/stockfish, Debian's portable build; one
#      built with `make profile-build ARCH=…` runs only where that CPU level is
#      present), PART_RECORDS (for run), BOOK (default
#      ../shared/data/books/noob_3moves.epd), SYZYGY (default
#      ../shared/data/syzygy), OUTPUT_DIR (for run; default selfplay-out/ in the
#      current folder), PACK (the pack's folder, default selfplay-pack/ at the
#      repository root)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pack=${PACK:-$root/selfplay-pack}
labels_from=${LABELS:-own}   # who scores the positions: the games' own search, or Stockfish
die() { echo "error: $*" >&2; exit 1; }

case "${1:-}" in
    pack)
        stockfish=${STOCKFISH:-/usr/games/stockfish}
        book=${BOOK:-$root/../shared/data/books/noob_3moves.epd}
        if [ "$labels_from" = stockfish ] && [ ! -x "$stockfish" ]; then
            die "no Stockfish at $stockfish (apt-get install stockfish, or set STOCKFISH)"
        fi
        [ -f "$book" ] || die "no book at $book (set BOOK)"
        syzygy=${SYZYGY:-$root/../shared/data/syzygy}
        compgen -G "$syzygy/*.rtbw" >/dev/null || die "no Syzygy WDL tables (*.rtbw) in $syzygy (set SYZYGY)"
        command -v zstd >/dev/null || die "zstd not found (apt-get install zstd)"
        (cd "$root" && cargo build --release -p tessera-datagen --quiet)
        rm -rf "$pack" && mkdir -p "$pack"
        cp "$root/target/release/tessera-datagen" "$pack/"
        if [ -x "$stockfish" ]; then
            cp "$stockfish" "$pack/stockfish"
        else
            echo "no Stockfish at $stockfish: packed for own labels only" >&2
        fi
        zstd -q -19 "$book" -o "$pack/book.epd.zst"
        mkdir "$pack/syzygy" && cp "$syzygy"/*.rtbw "$pack/syzygy/"   # the game-ending probe reads WDL only
        {
            echo "datagen commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- src tools build.rs nets || echo ' (with uncommitted changes)')"
            echo "$("$pack/tessera-datagen" --version 2>/dev/null || true)"
            [ ! -x "$pack/stockfish" ] || echo "stockfish $(echo quit | "$pack/stockfish" | head -1)"
            echo "book $(basename "$book")"
        } > "$pack/PACKED"
        du -sh "$pack"
        cat "$pack/PACKED" ;;
    run)
        [ $# -ge 3 ] || die "run needs SEED SECONDS [JOBS]"
        seed=$2 seconds=$3
        case "$labels_from" in
            own) labels=() name=all-own400-s$seed ;;
            stockfish)
                [ -x "$pack/stockfish" ] || die "no $pack/stockfish: pack with Stockfish for LABELS=stockfish"
                labels=(--label-engine "$pack/stockfish" --label-option Hash=1 --label-depth 7 --label-keep-hash)
                name=all-d7k-s$seed ;;
            *) die "LABELS is 'own' or 'stockfish', not '$labels_from'" ;;
        esac
        jobs=${4:-$(nproc)}
        [[ $seed =~ ^[0-9]+$ && $seconds =~ ^[0-9]+$ && $jobs =~ ^[0-9]+$ ]] || die "SEED, SECONDS and JOBS are whole numbers"
        part_records=${PART_RECORDS:-1000000}
        [[ $part_records =~ ^[1-9][0-9]*$ ]] || die "PART_RECORDS is a whole number above 0"
        out=$(realpath -m "${OUTPUT_DIR:-selfplay-out}")
        mkdir -p "$out" || die "cannot make the output folder $out"
        [ -x "$pack/tessera-datagen" ] || die "no $pack/tessera-datagen: run 'pack' and copy selfplay-pack/ beside the checkout"
        work=$(mktemp -d)
        cd "$work"
        echo "$(nproc) cores; $(tr '\n' ';' < "$pack/PACKED")" > "$out/$name.log"
        # timeout sends SIGINT: datagen finishes and saves the games in flight.
        # --foreground signals datagen alone: without it timeout signals the
        # whole process group as well, datagen may see two interrupts (the
        # second means "quit at once", losing the chunk in flight) and its
        # Stockfish children die under the games still being finished.
        timeout --foreground -s INT -k 120 "$seconds" "$pack/tessera-datagen" selfplay -o "$name.bin" --games 1000000 \
            --nodes 400 --book "$pack/book.epd.zst" --random-plies 2-6 --random-move-prob 0.03 \
            ${labels[@]+"${labels[@]}"} --skip-capture --syzygy "$pack/syzygy" \
            --jobs "$jobs" --seed "$seed" >> "$out/$name.log" 2>&1 || true
        [ -s "$name.bin" ] || die "no records were written (see $out/$name.log)"
        echo "$(( $(stat -c %s "$name.bin") / 32 )) records" >> "$out/$name.log"
        # Parts end on record boundaries; unpack joins them in name order.
        split -b $(( part_records * 32 )) -d -a 2 "$name.bin" "$name.bin.part"
        xz -T0 -6 "$name".bin.part??
        sha256sum "$name".bin.part??.xz > "$out/$name.sha256"
        mv "$name".bin.part??.xz "$out/"
        tail -3 "$out/$name.log" ;;
    unpack)
        [ $# -eq 2 ] && [ -d "$2" ] || die "unpack needs the folder the files came back in"
        for sum in "$2"/*.sha256; do
            [ -f "$sum" ] || die "no .sha256 in $2"
            (cd "$2" && sha256sum -c --quiet "$(basename "$sum")") || die "$sum: a part does not match its checksum"
            out=$(basename "${sum%.sha256}").bin
            [ ! -e "$out" ] || die "$out exists here: not overwriting it"
            # The parts listed in the sha256 file, joined in name order.
            awk '{print $2}' "$sum" | sort | (cd "$2" && xargs xz -dc) > "$out.partial" \
                || { rm -f "$out.partial"; die "could not unpack $sum"; }
            mv "$out.partial" "$out"
            echo "$out: $(( $(stat -c %s "$out") / 32 )) records"
        done ;;
    *)
        sed -n '2,/^set -e/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
        exit 2 ;;
esac
