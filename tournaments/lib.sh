# Shared helpers for the tournament scripts (sourced, not run).
# Tools: the match runner, cutechess-cli from $CUTECHESS or PATH or, with
# RUNNER=fastchess, fastchess from $FASTCHESS or PATH; Ordo from $ORDO or PATH;
# opponents from PATH or /usr/games (Debian installs them there).

die() { echo "error: $*" >&2; exit 1; }

# Where result tables and PGNs/builds go; tests point them elsewhere.
RESULTS=${RESULTS_DIR:-$TOURNAMENTS/results}
WORK=${WORK_DIR:-$TOURNAMENTS/work}

# The calling script's header comment (its usage), on stderr.
usage() { sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; }

check_name() { [[ $1 =~ ^[A-Za-z0-9._+-]+$ ]] || die "NAME may hold letters, digits and . _ + - only"; }

# The arguments every multi-pairing script starts with, NAME TC GAMES, and at
# least two more: checked, with cutechess and the book found. Sets args (all
# of them, for the table's command line), name, tc and games.
parse_run() {
    if [ $# -lt 5 ]; then
        usage
        exit 2
    fi
    args="$*"
    name=$1 tc=$2 games=$3
    check_name "$name"
    tc_args "$tc" >/dev/null
    [[ $games =~ ^[0-9]+$ ]] && [ "$games" -ge 2 ] && [ $((games % 2)) = 0 ] ||
        die "GAMES must be an even number ≥ 2, not '$games'"
    find_runner >/dev/null
    find_book >/dev/null
}

# A player's finished games in a cutechess PGN: "games wins losses draws".
tally() { # pgn player
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
        END { printf "%d %d %d %d\n", n, win, loss, d }' "$1"
}

# The arguments of gauntlet.sh and roundrobin.sh, NAME TC GAMES ENGINE…, with
# the checks both need. Sets name, tc, games, args, given (the engine arguments
# as written) and engines (resolved, in the same order).
parse_pairings() {
    parse_run "$@"
    shift 3
    find_ordo >/dev/null
    given=("$@")
    engines=()
    local e
    for e in "$@"; do engines+=("$(resolve_engine "$e")"); done
    for e in "${engines[@]}"; do engine_spec "$e" >/dev/null; done
}

# A time control -> cutechess -each arguments. `nodes=N` is a fixed node
# budget per move with no clock (immune to machine load); anything else is a
# cutechess time control such as 10+0.1 or 40/60.
tc_args() {
    if [[ $1 =~ ^nodes=([0-9]+)$ ]]; then
        [ "${BASH_REMATCH[1]}" -ge 1 ] || die "nodes=N needs N ≥ 1"
        echo "tc=inf nodes=${BASH_REMATCH[1]}"
    elif [[ $1 =~ ^movetime=([0-9]+)$ ]]; then
        [ "${BASH_REMATCH[1]}" -ge 1 ] || die "movetime=MS needs MS ≥ 1"
        echo "st=$(awk -v ms="${BASH_REMATCH[1]}" 'BEGIN { printf "%g", ms / 1000 }')"
    else
        [[ $1 =~ ^[0-9./+:]+$|^inf$ ]] || die "time control '$1' is neither cutechess's form (e.g. 10+0.1) nor nodes=N"
        echo "tc=$1"
    fi
}

# Node odds, `nodes=N:M`: the first engine searches N nodes a move, the second
# M (what a loss of speed costs at a fixed budget). Prints "N M"; fails on any
# other form (a zero budget too, which tc_args then refuses).
node_odds() { # TC
    [[ $1 =~ ^nodes=([1-9][0-9]*):([1-9][0-9]*)$ ]] || return 1
    echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
}

# cutechess's grace past a move's limit before it forfeits the game (ms). None
# on a clock, where the reliability runs count forfeits; 30 ms at a fixed time
# a move, where an engine that spends its whole 100 ms would otherwise lose on a
# scheduler hiccup of a few ms (one game in 800 did when another process started).
time_margin() { # TC
    if [[ $1 =~ ^movetime= ]]; then echo 30; else echo 0; fi
}

# The cutechess arguments every script shares: each move's limit (with its
# forfeit grace) and the opening book. Fills the array game_args, so that a
# book path with spaces stays one argument.
set_game_args() { # TC BOOK
    local tc=$1 book=$2 limits=() kind
    # Node odds (match.sh's nodes=N:M) put each engine's budget in its own -engine
    # spec: cutechess applies -each after them, so a limit here would override both.
    if ! node_odds "$tc" >/dev/null; then
        # shellcheck disable=SC2207 # tc_args prints whitespace-separated words
        limits=($(tc_args "$tc"))
    fi
    # PONDER=1: each engine thinks on the opponent's time (cutechess-cli only).
    if [ "${PONDER:-0}" = 1 ]; then
        kind=$(runner_kind) || exit 1
        [ "$kind" = cutechess ] || die "fastchess does not ponder: PONDER=1 needs RUNNER=cutechess"
        limits+=(ponder)
    fi
    game_args=(-each "${limits[@]}" timemargin="$(time_margin "$tc")"
        -openings file="$book" format="$(book_format "$book")" order=random plies="${BOOK_PLIES:-16}")
}

find_cutechess() {
    local p=${CUTECHESS:-$(command -v cutechess-cli || true)}
    [ -n "$p" ] && [ -x "$p" ] ||
        die "cutechess-cli not found: build it from source (see tournaments/README.md) and put it on PATH or set CUTECHESS"
    echo "$p"
}

# The match runner, RUNNER: cutechess (cutechess-cli, the default) or fastchess.
runner_kind() {
    case "${RUNNER:-cutechess}" in
        cutechess | cutechess-cli) echo cutechess ;;
        fastchess) echo fastchess ;;
        *) die "RUNNER must be cutechess or fastchess, not '$RUNNER'" ;;
    esac
}

find_fastchess() {
    local p=${FASTCHESS:-$(command -v fastchess || true)}
    [ -n "$p" ] && [ -x "$p" ] ||
        die "fastchess not found: build it from source (see tournaments/README.md) and put it on PATH or set FASTCHESS"
    echo "$p"
}

find_runner() {
    local kind
    kind=$(runner_kind) || exit 1
    if [ "$kind" = fastchess ]; then find_fastchess; else find_cutechess; fi
}

# The runner and its version, for a result table.
runner_version() {
    local v
    v=$("$(find_runner)" --version 2>/dev/null | head -n 1 | tr -d '\r')
    echo "${v:-$(runner_kind)}"
}

# Plays games with the runner: ARG… are cutechess-cli's options (-engine,
# -each, -openings, -rounds …), the games are appended to PGN. fastchess reads
# the same options; it is asked for cutechess-cli's result lines ("Score of",
# "Elo difference"), and its PGN names faults in cutechess-cli's words ("loses on
# time", "makes an illegal move", "connection stalls"), so every helper here
# reads either runner's games. fastchess plays UCI engines only, and at most one
# game per CPU.
run_games() { # PGN ARG…
    local pgn=$1 kind
    shift
    kind=$(runner_kind) || exit 1
    if [ "$kind" = fastchess ]; then
        [[ " $* " != *" proto=xboard "* ]] ||
            die "fastchess plays UCI engines only: fairymax, sjeng, gnuchess and phalanx need RUNNER=cutechess"
        # fastchess saves its state as config.json in the working folder unless
        # told otherwise: beside the PGN, in work/, it stays out of the repository.
        "$(find_fastchess)" "$@" -output format=cutechess -pgnout file="$pgn" \
            -config outname="$pgn.fastchess.json" 2>&1
    else
        # cutechess-cli writes its warnings to stderr: they go with the result
        # lines into the caller's log (runner_warnings reads them there).
        "$(find_cutechess)" "$@" -pgnout "$pgn" 2>&1
    fi
}

find_ordo() {
    local p=${ORDO:-$(command -v ordo || true)}
    [ -n "$p" ] && [ -x "$p" ] ||
        die "ordo not found: build it from source (see tournaments/README.md) and put it on PATH or set ORDO"
    echo "$p"
}

find_debian() { # name -> path, or stop with an install hint
    local p
    p=$(command -v "$1" || true)
    [ -z "$p" ] && [ -x "/usr/games/$1" ] && p=/usr/games/$1
    [ -n "$p" ] || die "$1 not found: install it with 'apt-get install $1' (or tournaments/install-opponents.sh)"
    echo "$p"
}

# Engine argument -> cutechess -engine options. Forms:
#   label=/path/to/uci-binary     any UCI engine (tessera builds included)
#   label=/path/to/uci-binary@ELO the same with UCI_LimitStrength=true and UCI_Elo=ELO
#   stockfish@ELO                 Debian stockfish limited with UCI_LimitStrength/UCI_Elo
#   fairymax sjeng gnuchess phalanx toga2 ethereal stockfish   Debian engines at full strength
#                                 (ethereal: Ethereal 12, Debian package ethereal-chess)
engine_spec() {
    case "$1" in
        fairymax | sjeng | phalanx) echo "name=$1 cmd=$(find_debian "$1") proto=xboard" ;;
        gnuchess) echo "name=$1 cmd=$(find_debian "$1") proto=xboard arg=--xboard" ;;
        toga2 | stockfish) echo "name=$1 cmd=$(find_debian "$1") proto=uci" ;;
        ethereal) echo "name=ethereal cmd=$(find_debian ethereal-chess) proto=uci" ;;
        stockfish@*)
            local elo=${1#stockfish@}
            [[ $elo =~ ^[0-9]+$ ]] && [ "$elo" -ge 1350 ] && [ "$elo" -le 2850 ] ||
                die "stockfish@ELO needs an Elo between 1350 and 2850, not '$elo'"
            echo "name=sf$elo cmd=$(find_debian stockfish) proto=uci option.UCI_LimitStrength=true option.UCI_Elo=$elo" ;;
        *=*@*)
            # a UCI engine limited with UCI_LimitStrength/UCI_Elo (tessera, for one)
            local elo=${1##*@}
            [[ $elo =~ ^[0-9]+$ ]] || die "engine '$1': the Elo after @ must be a number, not '$elo'"
            echo "$(engine_spec "${1%@*}" | sed "s/^name=\([^ ]*\)/name=\1@$elo/") option.UCI_LimitStrength=true option.UCI_Elo=$elo" ;;
        *=*)
            local label=${1%%=*} path=${1#*=}
            [ -n "$label" ] || die "engine '$1' has an empty label"
            [ -f "$path" ] && [ -x "$path" ] || die "$path is not an executable"
            echo "name=$label cmd=$(cd "$(dirname "$path")" && pwd)/$(basename "$path") proto=uci" ;;
        *) die "unknown engine '$1' (use label=/path/to/binary, stockfish@ELO, or fairymax, sjeng, gnuchess, phalanx, toga2, ethereal, stockfish)" ;;
    esac
}

option_args() { # 'NAME=VALUE …' -> ' option.NAME=VALUE …' for a cutechess engine spec
    local o
    for o in $1; do
        [[ $o == ?*=* ]] || die "option '$o': expected NAME=VALUE"
        printf ' option.%s' "$o"
    done
}

engine_name() { # the name cutechess and Ordo will use for an engine argument
    local s
    s=$(engine_spec "$1") || exit 1
    s=${s#name=}
    echo "${s%% *}"
}

# How a result table names an engine: GIVEN, the argument as the user wrote it
# (a reader can rerun it), beside the name its games and Ordo use; never the
# build cache's path that RESOLVED points to on this machine.
engine_label() { # GIVEN RESOLVED
    local name
    name=$(engine_name "$2") || exit 1
    if [ "$1" = "$name" ]; then echo "\`$name\`"; else echo "\`$name\` (\`$1\`)"; fi
}

find_book() {
    local book=${BOOK:-$TOURNAMENTS/../../shared/data/books/8moves_v3.pgn}
    [ -f "$book" ] || die "opening book $book not found (set BOOK)"
    echo "$book"
}

book_format() { case "$1" in *.epd) echo epd ;; *) echo pgn ;; esac; }

hardware() {
    local cpu
    cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | xargs || true)
    echo "${cpu:-unknown CPU}, $(nproc) cores"
}

# The settings among VAR… that the caller's environment gave, as `VAR=value `
# words to put before a command line, so that a result's "Command:" line replays
# the run (an SPRT's ELO1, a book) and not the scripts' defaults.
settings_used() { # VAR…
    local var
    for var in "$@"; do
        [ -n "${!var:-}" ] && printf '%s=%q ' "$var" "${!var}"
    done
    return 0
}

# The engine's code: what a `net:` build's cache key hashes (with the net) and,
# with the default net, what names a result's commit (report.py's ENGINE_PATHS).
ENGINE_CODE=(src build.rs Cargo.toml Cargo.lock)

# The newest commit that changed the engine binary: a table re-rendered with no
# new game keeps the commit its games were played at.
engine_commit() {
    if [ -n "${ENGINE_COMMIT:-}" ]; then
        echo "$ENGINE_COMMIT"
        return
    fi
    local c
    c=$(git -C "$TOURNAMENTS/.." log -1 --format=%h -- "${ENGINE_CODE[@]}" nets/default.nnue 2>/dev/null)
    echo "${c:-unknown}"
}

# Ordo ratings of a PGN as a markdown table; ANCHOR is fixed at 0.
ordo_table() { # pgn anchor
    local ordo csv
    ordo=$(find_ordo)
    csv=$(mktemp)
    # -W fits the white advantage; 400 simulations give the error column.
    if ! timeout 300 "$ordo" -q -p "$1" -a 0 -A "$2" -W -s 400 -c "$csv" >/dev/null 2>&1; then
        # e.g. an engine that won or lost every game has no finite rating
        echo "Ordo could not rate these games (run \`ordo -p $1 -g\` to see why)."
        rm -f "$csv"
        return
    fi
    echo "| # | engine | Elo (Ordo, $2 = 0) | ± (95%) | points | games | score |"
    echo "|---|---|---|---|---|---|---|"
    tail -n +2 "$csv" | tr -d '"' | while IFS=, read -r rank player rating error points played pct; do
        echo "| $rank | $player | $rating | $error | $points | $played | $pct% |"
    done
    rm -f "$csv"
}

# Game-integrity counts of a cutechess PGN, each with the engines it happened to.
pgn_problems() { # pgn
    awk '
        /^\[White "/ { w = $0; sub(/^\[White "/, "", w); sub(/"\]$/, "", w) }
        /^\[Black "/ { b = $0; sub(/^\[Black "/, "", b); sub(/"\]$/, "", b) }
        {
            kind = ""
            if ($0 ~ /(White|Black) loses on time/) kind = "time forfeits"
            else if ($0 ~ /(White|Black) makes an illegal move/) kind = "illegal moves"
            else if ($0 ~ /(White|Black)(.s connection stalls| disconnects)/) kind = "disconnects/stalls"
            if (kind != "") {
                who = ($0 ~ /White(.s connection| loses| makes| disconnects)/) ? w : b
                n[kind]++; by[kind, who]++; names[who] = 1
            }
        }
        END {
            split("time forfeits,illegal moves,disconnects/stalls", kinds, ",")
            for (k = 1; k <= 3; k++) {
                line = kinds[k] " " (n[kinds[k]] + 0)
                sep = " ("
                for (e in names) if (by[kinds[k], e]) { line = line sep e " " by[kinds[k], e]; sep = ", " }
                if (sep == ", ") line = line ")"
                printf "%s%s", (k > 1 ? ", " : ""), line
            }
            print ""
        }' "$1"
}

# The warnings a runner logged, by kind and engine: fastchess's "Warning; …
# from ENGINE" (e.g. a bestmove that is not the last PV's first move, which a
# strength-limited Stockfish prints by design) and cutechess-cli's "Warning: …"
# (e.g. a premature bestmove while pondering). "none" when there were none.
runner_warnings() { # log
    [ -f "$1" ] || { echo "–"; return; }
    grep -E '^Warning[;:]' "$1" | sed -E 's/^Warning[;:] *//; s/ - move [^ ]+ from / from /' | sort | uniq -c |
        awk '{ n = $1; $1 = ""; sub(/^ /, ""); out = out sep n "× " $0; sep = "; " } END { print out == "" ? "none" : out }'
}

# The median search depth of the moves in a cutechess PGN (its move comments,
# "{score/depth time}"): what a time control meant on the machine that played,
# since the same 100 ms is two plies more or less on another one.
median_depth() { # pgn
    tr '\n' ' ' < "$1" | grep -o '/[0-9]\+ [0-9.]\+s[,}]' | tr -d '/' | cut -d' ' -f1 | sort -n |
        awk '{ d[NR] = $1 } END { print NR ? d[int((NR + 1) / 2)] " (" NR " moves)" : "–" }'
}

# A result table is rewritten whole by every run of its script, but a reader's
# notes below its "Command:" line (provenance, what the table means) are part of
# the record: publish_result moves results/NAME.md.tmp into place and keeps the
# old file's lines after its first "Command:" line (the table's own, which ends it).
publish_result() { # NAME
    local out=$RESULTS/$1.md
    [ -f "$out" ] && awk 'kept { print } /^Command: `/ { kept = 1 }' "$out" >> "$out.tmp"
    mv "$out.tmp" "$out"
}

# Games with a result in a PGN (0 when it does not exist).
played() { if [ -f "$1" ]; then grep -c '^\[Result "[012/-]*"\]' "$1" || true; else echo 0; fi; }

# Long matches outlive the machine they run on: a test's identity and games
# are kept under state/NAME/ (STATE_DIR; committed with the repository),
# refreshed after every chunk of games, and a rerun of the same command on a
# fresh clone restores from there what work/ lacks, and goes on.
STATE=${STATE_DIR:-$TOURNAMENTS/state}

save_state() { # NAME FILE…  (a PGN is kept gzip-compressed)
    local key=$1 f kept
    shift
    mkdir -p "$STATE/$key"
    for f in "$@"; do
        [ -f "$f" ] || continue
        kept=$STATE/$key/$(basename "$f")
        case "$f" in
            *.pgn) gzip -9nc "$f" > "$kept.gz.tmp" && mv "$kept.gz.tmp" "$kept.gz" ;;
            *) cp "$f" "$kept.tmp" && mv "$kept.tmp" "$kept" ;;
        esac
    done
}

restore_state() { # NAME FILE…  (each restored where missing, a PGN also where the kept one has more games)
    local key=$1 f kept
    shift
    for f in "$@"; do
        kept=$STATE/$key/$(basename "$f")
        if [ -f "$kept.gz" ]; then
            if [ ! -f "$f" ] || [ "$(gunzip -c "$kept.gz" | grep -c '^\[Result "[012/-]*"\]' || true)" -gt "$(played "$f")" ]; then
                mkdir -p "$(dirname "$f")"
                gunzip -c "$kept.gz" > "$f"
                rm -f "$f.run"
                echo "restored $f from $kept.gz ($(played "$f") games)" >&2
            fi
        elif [ -f "$kept" ] && [ ! -f "$f" ]; then
            mkdir -p "$(dirname "$f")"
            cp "$kept" "$f"
            echo "restored $f from $kept" >&2
        fi
    done
}

# What names an engine in a test's identity, the same on every machine:
# commit:REV by its commit and the net its build embeds, net:FILE by the net's
# hash and the engine code's key, any other binary by its bytes.
engine_identity() { # GIVEN RESOLVED
    local bin version root
    bin=$(engine_spec "$2" | sed -n 's/.* cmd=\([^ ]*\).*/\1/p')
    case "$1" in
        commit:* | net:*)
            root=$(git -C "$TOURNAMENTS" rev-parse --show-toplevel)
            version=$("$bin" --version 2>/dev/null | head -n 1)
            case "$1" in
                commit:*) echo "commit $(git -C "$root" rev-parse "${1#commit:}^{commit}"), $version" ;;
                *) echo "$version, engine code $(engine_code_key "$root")" ;;
            esac ;;
        *) if [ -n "$bin" ]; then echo "binary $(sha256sum < "$bin" | cut -c1-16)"; else echo "$1"; fi ;;
    esac
}

# Moves the games of a run into PGN, whole pairs only. With -repeat both games
# of an opening (colours swapped) carry one Round number, unique within a run;
# a round with a single game lost its partner to an interruption, and is left
# out so that every opening in PGN is played from both sides (the next run
# plays a fresh pair in its place).
keep_whole_pairs() { # run_pgn pgn
    [ -f "$1" ] || return 0
    awk '
        /^\[Event "/ { n++ }
        n { text[n] = text[n] $0 "\n" }
        /^\[Round "/ { r = $0; sub(/^\[Round "/, "", r); sub(/"\]$/, "", r); round[n] = r }
        /^\[Result "[012\/-]*"\]/ { finished[n] = 1 }
        END {
            for (i = 1; i <= n; i++) if (finished[i]) count[round[i]]++
            for (i = 1; i <= n; i++) if (finished[i] && count[round[i]] == 2) printf "%s", text[i]
        }
    ' "$1" >> "$2"
    rm -f "$1"
}

# Plays the games still missing from PGN between two engines (resumable: a
# rerun plays only the rest, with a fresh opening seed). The runner writes to
# PGN.run, merged into PGN after every chunk of CHUNK games (20) or, after a
# cut-off, before the next; with KEY, each chunk's PGN is also kept in
# state/KEY/ (save_state), and a PGN missing here is restored from there.
play_pair() { # pgn tc games engine_a engine_b [key]
    local pgn=$1 tc=$2 games=$3 a=$4 b=$5 key=${6:-} done_games left chunk=${CHUNK:-20}
    [[ $chunk =~ ^[0-9]+$ ]] && [ "$chunk" -ge 2 ] || die "CHUNK must be a number ≥ 2, not '$chunk'"
    [ -z "$key" ] || restore_state "$key" "$pgn"
    keep_whole_pairs "$pgn.run" "$pgn"
    done_games=$(played "$pgn")
    if [ "$((games - done_games))" -le 0 ]; then
        echo "$(basename "$pgn" .pgn): $done_games games already played" >&2
        return
    fi
    echo "$(basename "$pgn" .pgn): playing $((games - done_games)) games ($done_games already played)" >&2
    set_game_args "$tc" "$(find_book)"
    while [ "$done_games" -lt "$games" ]; do
        left=$((games - done_games))
        [ "$left" -le "$chunk" ] || left=$chunk
        run_games "$pgn.run" -engine $(engine_spec "$a") -engine $(engine_spec "$b") "${game_args[@]}" \
            -srand $((done_games + 1)) -repeat -games 2 -rounds $(((left + 1) / 2)) \
            -concurrency "${CONCURRENCY:-2}" -recover -ratinginterval 20 |
            tee -a "${pgn%.pgn}.log"
        keep_whole_pairs "$pgn.run" "$pgn"
        [ -z "$key" ] || save_state "$key" "$pgn"
        if [ "$(played "$pgn")" -le "$done_games" ]; then
            echo "$(basename "$pgn" .pgn): the runner's last run added no whole game pair; stopping" >&2
            return
        fi
        done_games=$(played "$pgn")
    done
}

# Eight hex digits that change with the engine's code in the checkout at $1:
# every path of ENGINE_CODE as committed (Cargo.toml's build profile too) and
# any uncommitted change to them. A `net:` build's cache key.
engine_code_key() { # root
    local committed
    committed=$(git -C "$1" rev-parse "${ENGINE_CODE[@]/#/HEAD:}") || return 1
    { echo "$committed"; git -C "$1" diff HEAD -- "${ENGINE_CODE[@]}"; } | sha256sum | cut -c1-8
}

# An engine argument with builds resolved, for the other helpers:
#   commit:REV    tessera built from that commit (a git worktree under work/builds)
#   net:FILE      tessera at this checkout with that net embedded
# anything else is returned as it is. Builds are cached under work/builds/.
resolve_engine() {
    local builds=$WORK/builds rev hash label root code
    root=$(git -C "$TOURNAMENTS" rev-parse --show-toplevel 2>/dev/null) || die "not inside the tessera repository"
    mkdir -p "$builds"
    case "$1" in
        commit:*)
            rev=$(git -C "$root" rev-parse --short "${1#commit:}^{commit}" 2>/dev/null) ||
                die "unknown commit '${1#commit:}'"
            label=tessera-$rev
            if [ ! -x "$builds/$label" ]; then
                echo "building $label" >&2
                rm -rf "$builds/src-$rev"
                git -C "$root" worktree add --detach --force "$builds/src-$rev" "$rev" >&2 || die "cannot check out $rev"
                # Nets are not always in old checkouts' history: use this checkout's default then.
                [ -f "$builds/src-$rev/nets/default.nnue" ] || cp "$root/nets/default.nnue" "$builds/src-$rev/nets/" 2>/dev/null || true
                (cd "$builds/src-$rev" && cargo build --release --quiet) >&2 || die "build of $rev failed"
                cp "$builds/src-$rev/target/release/tessera" "$builds/$label"
                git -C "$root" worktree remove --force "$builds/src-$rev" >&2 || true
            fi
            echo "$label=$builds/$label" ;;
        net:*)
            local net=${1#net:}
            [ -f "$net" ] || die "net file $net not found"
            # Relative to where the script was called from, not the repository (the build runs there).
            net=$(realpath "$net")
            # Keyed by the net and the engine code (committed and not), so a
            # cached engine never plays with another search than this checkout's.
            code=$(engine_code_key "$root") || die "cannot read the engine's code in $root"
            hash=$(sha256sum "$net" | cut -c1-12)-$code
            label=$(basename "$net" .nnue)
            if [ ! -x "$builds/net-$hash" ]; then
                # Every net is built in one shared target folder: two scripts
                # building at once could copy each other's binary, so one build
                # at a time (flock), and the binary appears whole or not at all.
                (
                    command -v flock >/dev/null && flock 9
                    [ -x "$builds/net-$hash" ] && exit 0
                    echo "building tessera with $net" >&2
                    (cd "$root" && TESSERA_NET=$net CARGO_TARGET_DIR=$builds/target-net \
                        cargo build --release --quiet) >&2 || exit 1
                    cp "$builds/target-net/release/tessera" "$builds/net-$hash.tmp" &&
                        mv "$builds/net-$hash.tmp" "$builds/net-$hash"
                ) 9>"$builds/net-build.lock" || die "build with $net failed"
            fi
            echo "$label=$builds/net-$hash" ;;
        *) echo "$1" ;;
    esac
}

# The header rows every result table starts with.
common_rows() { # tc
    local margin grace=""
    margin=$(time_margin "$1")
    [ "$margin" = 0 ] || grace=" (a $margin ms grace before a time forfeit)"
    local ponder=""
    [ "${PONDER:-0}" != 1 ] || ponder=", pondering"
    local at_once="${CONCURRENCY:-2} games at a time"
    [ "${CONCURRENCY:-2}" != 1 ] || at_once="one game at a time"
    echo "| time control | $1$grace$ponder, $at_once |"
    local book plies=""
    book=$(find_book)
    # An EPD book's lines are positions: the ply limit applies to PGN games only.
    [ "$(book_format "$book")" = epd ] || plies=", ${BOOK_PLIES:-16} plies"
    echo "| book | $(basename "$book")$plies, random order, each opening with both colours |"
    echo "| hardware | $(hardware) |"
    echo "| runner | $(runner_version) |"
    echo "| commit | $(engine_commit) |"
    echo "| date | $(date -u +%Y-%m-%d) |"
}
