#!/usr/bin/env bash
# Builds the release archives players download: Linux (static, musl) and Windows
# (x86_64-pc-windows-gnu) x86-64, one per CPU level, each with the default net
# embedded, the licence and a short README, and SHA256SUMS over them all.
#
# usage: deploy/release.sh            (make release calls it)
# env:   DIST (dist), LEVELS ("x86-64 x86-64-v3"; add x86-64-v4 for AVX-512: it did not pay
#        over v3, tournaments/results/bench-levels.md), WINDOWS_LEVELS
#        ("x86-64 x86-64-v3"), PGO (1: the Linux builds profile-guided, trained on
#        bench; 0: plain), CARGO (cargo). The Windows builds are plain: rustup's
#        x86_64-pc-windows-gnu standard library has no profiler runtime
#        ("can't find crate for `profiler_builtins`" with -Cprofile-generate).
# needs: rustup targets x86_64-unknown-linux-musl and x86_64-pc-windows-gnu, Debian's
#        musl-tools and mingw-w64, llvm-tools (rustup component add llvm-tools) for PGO,
#        and /usr/share/common-licenses/GPL-3 (Debian's base-files) for the licence text.
# Levels: x86-64 runs on any x86-64 CPU (its kernels pick AVX2, AVX-VNNI or AVX-512 at run
# time); x86-64-v3 lets the compiler use AVX2, BMI2, FMA everywhere; x86-64-v4 adds
# AVX-512. A binary started on a CPU below its level says so and exits (src/cpu_level.rs).
# deploy/test_release.py tests the archives; run it before calling them a release.
set -euo pipefail
die() { echo "error: $*" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo=${CARGO:-cargo}
dist=${DIST:-dist}
levels=${LEVELS:-x86-64 x86-64-v3}
windows_levels=${WINDOWS_LEVELS:-x86-64 x86-64-v3}
pgo=${PGO:-1}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
licence=/usr/share/common-licenses/GPL-3
[ -f "$licence" ] || die "$licence not found (Debian's base-files): the archives must carry the GPL's text"
installed=$(rustup target list --installed 2>/dev/null || true)
for t in x86_64-unknown-linux-musl x86_64-pc-windows-gnu; do
    grep -qx "$t" <<< "$installed" || die "rust target $t missing: rustup target add $t"
done
command -v musl-gcc >/dev/null || die "musl-gcc not found: apt-get install musl-tools"
command -v x86_64-w64-mingw32-gcc >/dev/null || die "x86_64-w64-mingw32-gcc not found: apt-get install mingw-w64"
profdata=$(ls "$(rustc --print sysroot)"/lib/rustlib/*/bin/llvm-profdata 2>/dev/null | head -n 1 || true)
if [ "$pgo" = 1 ] && [ -z "$profdata" ]; then
    die "llvm-profdata not found: rustup component add llvm-tools (or PGO=0 for plain builds)"
fi
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CC_x86_64_unknown_linux_musl=musl-gcc

rustflags_for() { # level
    case "$1" in
        x86-64) echo "" ;;
        x86-64-v3 | x86-64-v4) echo "-C target-cpu=$1" ;;
        *) die "unknown level '$1' (x86-64, x86-64-v3, x86-64-v4)" ;;
    esac
}

# build TARGET LEVEL -> prints the binary's path. With --target, RUSTFLAGS reach the
# engine and its dependencies, not build.rs, which runs here.
build() {
    local target=$1 level=$2 flags dir bin profiles
    flags=$(rustflags_for "$level")
    dir=$root/target/release-$level
    bin=$dir/$target/release/tessera
    [ "$target" = x86_64-pc-windows-gnu ] && bin=$bin.exe
    if [ "$pgo" = 1 ] && [ "$target" = x86_64-unknown-linux-musl ]; then
        # Profile-guided, as `make pgo`: the instrumented build runs bench on every kernel
        # level this CPU has that the build allows.
        profiles=$dir/pgo-profiles
        rm -rf "$profiles"
        RUSTFLAGS="$flags -Cprofile-generate=$profiles" "$cargo" build --release -p tessera --target "$target" \
            --target-dir "$dir/instrumented" >&2
        local instrumented=$dir/instrumented/$target/release/tessera
        [ "$level" != x86-64 ] || TESSERA_SIMD=scalar "$instrumented" bench 9 >/dev/null 2>&1
        [ "$level" = x86-64-v4 ] || TESSERA_SIMD=avx2 "$instrumented" bench >/dev/null 2>&1 || true
        "$instrumented" bench >/dev/null 2>&1
        "$profdata" merge -o "$dir/merged.profdata" "$profiles" >&2
        RUSTFLAGS="$flags -Cprofile-use=$dir/merged.profdata" "$cargo" build --release -p tessera \
            --target "$target" --target-dir "$dir" >&2
    else
        RUSTFLAGS="$flags" "$cargo" build --release -p tessera --target "$target" --target-dir "$dir" >&2
    fi
    echo "$bin"
}

package() { # os level binary
    local os=$1 level=$2 binary=$3 name stage
    name=tessera-$version-$os-$level
    stage=$dist/stage/$name
    rm -rf "$stage"
    mkdir -p "$stage"
    cp "$binary" "$stage/"
    cp "$licence" "$stage/COPYING.txt"
    sed -e "s/@VERSION@/$version/g" -e "s/@OS@/$os/g" -e "s/@LEVEL@/$level/g" \
        -e "s/@BINARY@/$(basename "$binary")/g" "$root/deploy/archive-README.txt" > "$stage/README.txt"
    if [ "$os" = windows ]; then
        # Windows users open text files in Notepad: CRLF line ends.
        sed -i 's/$/\r/' "$stage/README.txt" "$stage/COPYING.txt"
        (cd "$dist/stage" && rm -f "../$name.zip" && python3 -m zipfile -c "../$name.zip" "$name")
    else
        tar -C "$dist/stage" --owner=0 --group=0 --numeric-owner -czf "$dist/$name.tar.gz" "$name"
    fi
    echo "wrote $dist/$name.$([ "$os" = windows ] && echo zip || echo tar.gz)"
}

mkdir -p "$dist"
rm -f "$dist"/tessera-"$version"-*.tar.gz "$dist"/tessera-"$version"-*.zip "$dist/SHA256SUMS"
for level in $levels; do
    package linux "$level" "$(build x86_64-unknown-linux-musl "$level")"
done
for level in $windows_levels; do
    package windows "$level" "$(build x86_64-pc-windows-gnu "$level")"
done
rm -rf "$dist/stage"
(cd "$dist" && sha256sum tessera-"$version"-*.tar.gz tessera-"$version"-*.zip > SHA256SUMS)
cat "$dist/SHA256SUMS"
